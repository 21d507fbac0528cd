internal import COpenCVShim

/// An owned OpenCV matrix (8-bit BGR or gray), freed in `deinit`. Wraps the `aocv_*` shim.
///
/// `@unchecked Sendable`: a matrix is only ever drawn on by the annotated-image renderer, as the
/// image's last use, on the one worker thread that owns that image; reads from several threads
/// are safe.
package final class OpenCVMat: @unchecked Sendable {
    let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { aocv_mat_free(handle) }

    /// Runs a shim call that returns a new matrix, turning a failure into an `AnalysisError`.
    static func make(_ code: AnalysisError.Code, _ body: (UnsafeMutablePointer<aocv_status>) -> OpaquePointer?)
        throws(AnalysisError) -> OpenCVMat
    {
        var status = aocv_status()
        guard let handle = body(&status) else {
            throw AnalysisError(code, message(of: &status))
        }
        return OpenCVMat(handle: handle)
    }

    static func message(of status: inout aocv_status) -> String {
        withUnsafeBytes(of: &status.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Decodes image bytes without applying EXIF orientation (`aocv_decode_reporting`): JPEG and
    /// PNG through libjpeg/libpng directly, whose warnings are returned instead of being printed on
    /// stderr. `reduction` 2, 4 or 8 decodes a JPEG at that fraction of its size.
    static func decode(_ bytes: [UInt8], reduction: Int = 1) throws(AnalysisError) -> (OpenCVMat, warnings: [String]) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(AnalysisError) -> (OpenCVMat, warnings: [String]) in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                throw AnalysisError(.emptyFile, "the file is empty")
            }
            var text = [CChar](repeating: 0, count: 16_384)
            let mat = try text.withUnsafeMutableBufferPointer { (out) throws(AnalysisError) -> OpenCVMat in
                try make(.undecodable) {
                    aocv_decode_reporting(base, buffer.count, Int32(reduction), out.baseAddress, out.count, $0)
                }
            }
            let length = text.firstIndex(of: 0) ?? text.count
            let joined = String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return (mat, joined.split(separator: "\n").map(String.init))
        }
    }

    /// Decodes through `cv::imdecode` alone (`aocv_decode`): the reference that `decode`'s direct
    /// libjpeg/libpng readers are checked against, pixel for pixel.
    static func decodeThroughOpenCV(_ bytes: [UInt8]) throws(AnalysisError) -> OpenCVMat {
        try bytes.withUnsafeBufferPointer { (buffer) throws(AnalysisError) -> OpenCVMat in
            guard let base = buffer.baseAddress, !buffer.isEmpty else {
                throw AnalysisError(.emptyFile, "the file is empty")
            }
            return try make(.undecodable) { aocv_decode(base, buffer.count, $0) }
        }
    }

    /// The pixels, row by row without padding.
    package var packedPixels: [UInt8] {
        withPixels { pixels, stride in
            var out: [UInt8] = []
            let rowBytes = width * channels
            out.reserveCapacity(rowBytes * height)
            for y in 0..<height {
                out.append(contentsOf: UnsafeBufferPointer(start: pixels + y * stride, count: rowBytes))
            }
            return out
        }
    }

    /// Turned by `degrees` counter-clockwise about the centre, same size, corners filled by
    /// reflection (`aocv_rotate_reflect`): a photo tilted by a known angle, for tests.
    func rotatedKeepingSize(byDegrees degrees: Double) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) { aocv_rotate_reflect(handle, degrees, $0) }
    }

    /// Turned by `degrees` counter-clockwise about the centre with black corners, in the same frame or
    /// (`enlarging`) one that holds the whole image (`aocv_rotate_black`): a photo an editor turned
    /// without cropping, for tests.
    func rotatedWithBlackCorners(byDegrees degrees: Double, enlarging: Bool) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) { aocv_rotate_black(handle, degrees, enlarging ? 1 : 0, $0) }
    }

    /// A copy of the part inside the box, clipped to the image (`aocv_crop`).
    func cropped(x: Int, y: Int, width: Int, height: Int) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) {
            aocv_crop(
                handle, Int32(clamping: x), Int32(clamping: y), Int32(clamping: width), Int32(clamping: height), $0)
        }
    }

    /// The image with the empty corners of a turn without cropping filled by reflection
    /// (`aocv_fill_empty_corners`), or nil when it has none.
    func emptyCornersFilled() throws(AnalysisError) -> OpenCVMat? {
        var filled: Int32 = 0
        let copy = try Self.make(.engineFailed) { aocv_fill_empty_corners(handle, &filled, $0) }
        return filled > 0 ? copy : nil
    }

    /// Turned by `degrees` counter-clockwise and zoomed to fill the same frame (`aocv_straighten`).
    package func straightened(byDegrees degrees: Double) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) { aocv_straighten(handle, degrees, $0) }
    }

    package var width: Int { Int(aocv_mat_width(handle)) }
    package var height: Int { Int(aocv_mat_height(handle)) }
    var channels: Int { Int(aocv_mat_channels(handle)) }

    /// Calls `body` with the first pixel and the row stride in bytes.
    func withPixels<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        var stride = 0
        let data = aocv_mat_data(handle, &stride)
        return try body(data, stride)
    }

    /// The upright image for an EXIF orientation (`aocv_orient`).
    func oriented(_ orientation: ImageOrientation) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) { aocv_orient(handle, Int32(orientation.rawValue), $0) }
    }

    /// Luminance (`aocv_gray`).
    package func gray() throws(AnalysisError) -> OpenCVMat { try Self.make(.engineFailed) { aocv_gray(handle, $0) } }

    /// A BGR copy, gray expanded (`aocv_bgr`).
    func bgr() throws(AnalysisError) -> OpenCVMat { try Self.make(.engineFailed) { aocv_bgr(handle, $0) } }

    /// 255 − value (`aocv_invert`).
    func inverted() throws(AnalysisError) -> OpenCVMat { try Self.make(.engineFailed) { aocv_invert(handle, $0) } }

    /// A resized copy (`aocv_resize`).
    /// A BGR matrix of `buffer`'s pixels (``ImageRequestHandler/init(pixels:name:)``).
    static func fromRGB(_ buffer: PixelBuffer) throws(AnalysisError) -> OpenCVMat {
        let (rgb, width, height) = (buffer.rgb, buffer.width, buffer.height)
        return try rgb.withUnsafeBufferPointer { bytes throws(AnalysisError) in
            guard let base = bytes.baseAddress else { throw AnalysisError(.undecodable, "no pixels") }
            return try make(.undecodable) { aocv_mat_from_rgb(base, Int32(width), Int32(height), width * 3, $0) }
        }
    }

    package func resized(width: Int, height: Int) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) { aocv_resize(handle, Int32(width), Int32(height), $0) }
    }

    /// The median height of the glyph-shaped connected components of this gray image's ink, and how
    /// many there are (`aocv_glyph_height`).
    func glyphHeight() throws(AnalysisError) -> (median: Double, count: Int) {
        var status = aocv_status()
        var count: Int32 = 0
        let median = aocv_glyph_height(handle, &count, &status)
        guard median >= 0 else { throw AnalysisError(.engineFailed, Self.message(of: &status)) }
        return (median, Int(count))
    }

    /// A copy shrunk by OpenCV's own `cv::resize` with `INTER_AREA` (`aocv_resize_opencv_area`): the
    /// reference the shim's faster box filter is checked against, byte for byte.
    func resizedByOpenCVArea(width: Int, height: Int) throws(AnalysisError) -> OpenCVMat {
        try Self.make(.engineFailed) { aocv_resize_opencv_area(handle, Int32(width), Int32(height), $0) }
    }

    /// A copy rotated counter-clockwise on a canvas that holds it all, and the affine matrix
    /// (row-major 2×3) mapping rotated coordinates back to this image (`aocv_rotate`).
    func rotated(byDegrees degrees: Double, fill: UInt8) throws(AnalysisError) -> (OpenCVMat, [Double]) {
        var inverse = [Double](repeating: 0, count: 6)
        let mat = try inverse.withUnsafeMutableBufferPointer { (buffer) throws(AnalysisError) -> OpenCVMat in
            guard let base = buffer.baseAddress else { throw AnalysisError(.engineFailed, "no buffer") }
            return try Self.make(.engineFailed) { aocv_rotate(handle, degrees, fill, base, $0) }
        }
        return (mat, inverse)
    }

    /// The quadrilateral (top-left, top-right, bottom-right, bottom-left) warped to a width × height rectangle.
    package func warped(quad: [PixelPoint], width: Int, height: Int) throws(AnalysisError) -> OpenCVMat {
        let corners = quad.flatMap { [$0.x, $0.y] }
        guard corners.count == 8 else { throw AnalysisError(.engineFailed, "a quadrilateral needs four corners") }
        return try corners.withUnsafeBufferPointer { (buffer) throws(AnalysisError) -> OpenCVMat in
            guard let base = buffer.baseAddress else { throw AnalysisError(.engineFailed, "no buffer") }
            return try Self.make(.engineFailed) { aocv_warp_quad(handle, base, Int32(width), Int32(height), $0) }
        }
    }

    /// PNG bytes (`aocv_encode_png`).
    package func pngData() throws(AnalysisError) -> [UInt8] {
        var status = aocv_status()
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard aocv_encode_png(handle, &bytes, &length, &status) != 0, let bytes else {
            throw AnalysisError(.outputFailed, "PNG encoding failed: " + Self.message(of: &status))
        }
        defer { aocv_buffer_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// JPEG bytes at `quality` (`aocv_encode_lossy`).
    package func jpegData(quality: Int) throws(AnalysisError) -> [UInt8] {
        try lossyData(webp: false, quality: quality)
    }

    /// WebP bytes at `quality` (`aocv_encode_lossy`).
    func webpData(quality: Int) throws(AnalysisError) -> [UInt8] { try lossyData(webp: true, quality: quality) }

    private func lossyData(webp: Bool, quality: Int) throws(AnalysisError) -> [UInt8] {
        var status = aocv_status()
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard aocv_encode_lossy(handle, webp ? 1 : 0, Int32(quality), &bytes, &length, &status) != 0, let bytes else {
            throw AnalysisError(
                .outputFailed, (webp ? "WebP" : "JPEG") + " encoding failed: " + Self.message(of: &status))
        }
        defer { aocv_buffer_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// A new BGR image filled with `color` (`aocv_mat_new`).
    package static func blank(width: Int, height: Int, color: (r: UInt8, g: UInt8, b: UInt8)) throws(AnalysisError)
        -> OpenCVMat
    {
        try make(.outputFailed) { aocv_mat_new(Int32(width), Int32(height), color.r, color.g, color.b, $0) }
    }

    /// Copies `image` into this one at x,y (`aocv_mat_paste`; cut at the edges).
    package func paste(_ image: OpenCVMat, x: Int, y: Int) throws(AnalysisError) {
        var status = aocv_status()
        guard aocv_mat_paste(handle, image.handle, Int32(x), Int32(y), &status) != 0 else {
            throw AnalysisError(.outputFailed, Self.message(of: &status))
        }
    }

    // MARK: Drawing (on a private copy only)

    package typealias RGB = (r: UInt8, g: UInt8, b: UInt8)

    package func drawPolyline(_ points: [PixelPoint], closed: Bool, color: RGB, thickness: Int) {
        let xy = points.flatMap { [$0.x, $0.y] }
        xy.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            aocv_draw_polyline(
                handle, base, Int32(points.count), closed ? 1 : 0, color.r, color.g, color.b, Int32(thickness))
        }
    }

    /// Sets the pixels of a rectangle (cut at the edges) to `value` in every channel.
    func fill(x: Int, y: Int, width: Int, height: Int, value: UInt8) {
        aocv_fill_rect(
            handle, Int32(clamping: x), Int32(clamping: y), Int32(clamping: width), Int32(clamping: height), value)
    }

    package func drawCircle(at point: PixelPoint, radius: Double, color: RGB, filled: Bool) {
        aocv_draw_circle(handle, point.x, point.y, radius, color.r, color.g, color.b, filled ? -1 : 1)
    }

    /// Draws an ASCII label on a background of `color` with its top-left corner at `point`; `…` is
    /// written `...`, other characters `?` (OpenCV's Hershey fonts are ASCII-only).
    package func drawLabel(_ text: String, at point: PixelPoint, scale: Double, color: RGB) {
        aocv_draw_label(handle, Self.ascii(text), point.x, point.y, scale, color.r, color.g, color.b)
    }

    /// The size of the label ``drawLabel(_:at:scale:color:)`` draws.
    package static func labelSize(_ text: String, scale: Double) -> (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        aocv_label_size(ascii(text), scale, &width, &height)
        return (width, height)
    }

    static func ascii(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar == "…" {
                out += "..."
            } else {
                out.append(scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7F ? Character(scalar) : "?")
            }
        }
        return out
    }
}

/// Process-wide OpenCV settings.
public enum OpenCVRuntime {
    /// Limits OpenCV's own thread pool (`cv::setNumThreads`); the batch runner uses 1 so its
    /// workers do not oversubscribe the cores.
    public static func setThreads(_ count: Int) { aocv_set_num_threads(Int32(count)) }

    /// Builds OpenCV's CIE Lab conversion tables, once per process (110–155 ms); later calls return at
    /// once, or wait for the first to finish.
    static func prepareLabTables() { aocv_prepare_lab_tables() }
}
