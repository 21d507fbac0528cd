internal import CHeif
internal import COpenCVShim

/// Decodes HEIF/HEIC and AVIF photos with libheif (`heif_context_read_from_memory_without_copy`,
/// `heif_decode_image`): the primary image, as 8-bit BGR.
///
/// Orientation is the container's: libheif applies the `irot`/`imir` transformations while
/// decoding, as the HEIF standard requires, and an EXIF orientation inside the file is ignored
/// (applying both would rotate twice). The size is read from the container and checked against
/// the pixel limit before anything is decoded.
enum HEIFDecoder {
    /// Major brands of HEIF still images: HEVC-coded, generic, and AVIF (AV1-coded, which libheif decodes
    /// with libdav1d or libaom).
    static let brands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "avif", "avis",
    ]

    /// Whether the bytes start with an ISO-BMFF `ftyp` box of a HEIF brand.
    static func isHEIF(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return false }
        return brands.contains(String(decoding: bytes[8..<12], as: UTF8.self))
    }

    /// HEVC pictures are decoded by FFmpeg's libavcodec where libavcodec.so.59 is installed (CHeif's
    /// plugin: the same pixels as libheif's libde265, in less CPU), by libde265 where it is not, and by
    /// libde265 again where libavcodec fails on the file.
    static func decode(_ bytes: [UInt8], maximumPixels: Int) throws(AnalysisError) -> OpenCVMat {
        // libheif is opened on the first HEIF file (CHeif's loader), not at start-up.
        if let reason = aheif_load_error() { throw AnalysisError(.engineUnavailable, String(cString: reason)) }
        do {
            return try decodeOnce(bytes, maximumPixels: maximumPixels, ffmpeg: true)
        } catch {
            // A stream libavcodec refuses may still be one libde265 reads: its error is the one reported.
            guard case .ffmpegFailed = error else { throw error.analysisError }
        }
        do {
            return try decodeOnce(bytes, maximumPixels: maximumPixels, ffmpeg: false)
        } catch {
            throw error.analysisError
        }
    }

    private enum Failure: Error {
        /// Decoding failed with the FFmpeg plugin registered.
        case ffmpegFailed
        case failed(AnalysisError)

        var analysisError: AnalysisError {
            switch self {
            case .ffmpegFailed: AnalysisError(.undecodable, "HEIF: cannot decode the image")
            case .failed(let error): error
            }
        }
    }

    private static func decodeOnce(_ bytes: [UInt8], maximumPixels: Int, ffmpeg: Bool) throws(Failure) -> OpenCVMat {
        // A grid or an overlay is decoded onto the canvas its own data declares, not its ispe's size.
        if let canvas = HEIFPrimaryItem.derivedCanvasSizes(in: bytes).first, canvas.pixels > maximumPixels {
            throw .failed(
                AnalysisError(
                    .tooLarge,
                    "the HEIF container's \(canvas.type) image is \(canvas.width)x\(canvas.height) pixels, over the limit of \(maximumPixels) (raise it with --max-pixels)"
                ))
        }
        guard let context = heif_context_alloc() else {
            throw .failed(AnalysisError(.engineFailed, "heif_context_alloc failed"))
        }
        defer { heif_context_free(context) }
        do {
            let read = bytes.withUnsafeBytes {
                heif_context_read_from_memory_without_copy(context, $0.baseAddress, $0.count, nil)
            }
            try check(read, "not a readable HEIF file")
            var handle: OpaquePointer?
            try check(heif_context_get_primary_image_handle(context, &handle), "no primary image")
            guard let handle else { throw AnalysisError(.undecodable, "HEIF: no primary image") }
            defer { heif_image_handle_release(handle) }
            let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
            guard width > 0, height > 0 else {
                throw AnalysisError(.undecodable, "the HEIF container claims an empty image (\(width)x\(height))")
            }
            guard width * height <= maximumPixels else {
                throw AnalysisError(
                    .tooLarge,
                    "the HEIF container claims \(width)x\(height) = \(width * height) pixels, over the limit of \(maximumPixels) (raise it with --max-pixels)"
                )
            }

            // An 8-bit image is asked for as three 4:4:4 planes and interleaved here: libheif's own
            // interleaving after its YCbCr-to-RGB step cost another pass over the image (a 12 MP iPhone
            // photo: about 430 → 350 ms of CPU), and the pixels are the same byte for byte. A deeper image
            // (10- or 12-bit HDR) keeps libheif's interleaved 8-bit RGB, which scales the samples down.
            let eightBit =
                heif_image_handle_get_luma_bits_per_pixel(handle) == 8
                && heif_image_handle_get_chroma_bits_per_pixel(handle) == 8
            // The plugin also converts to RGB, as libheif would, where every picture it decodes is colour
            // converted with its stream's own description (CHeif.h says when).
            let convertsToRGB = eightBit && Self.convertsWithTheStreamsDescription(handle, bytes: bytes)
            let withFFmpeg = ffmpeg && aheif_use_ffmpeg_hevc(context, maximumPixels, convertsToRGB ? 1 : 0) != 0
            var image: OpaquePointer?
            let decoded = heif_decode_image(
                handle, &image, heif_colorspace_RGB, eightBit ? heif_chroma_444 : heif_chroma_interleaved_RGB, nil)
            if decoded.code != heif_error_Ok, withFFmpeg { throw Failure.ffmpegFailed }
            try check(decoded, "cannot decode the image")
            guard let image else { throw AnalysisError(.undecodable, "HEIF: decoding gave no image") }
            defer { heif_image_release(image) }
            let channel = eightBit ? heif_channel_R : heif_channel_interleaved
            let decodedWidth = Int(heif_image_get_width(image, channel)),
                decodedHeight = Int(heif_image_get_height(image, channel))
            guard decodedWidth * decodedHeight <= maximumPixels else {
                throw AnalysisError(
                    .tooLarge,
                    "the HEIF image decoded to \(decodedWidth)x\(decodedHeight) pixels, over the limit of \(maximumPixels) (raise it with --max-pixels)"
                )
            }
            return eightBit ? try planes(of: image) : try interleaved(image)
        } catch let error as AnalysisError {
            throw .failed(error)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .failed(AnalysisError(.undecodable, "HEIF: \(error)"))
        }
    }

    /// Whether libheif converts every picture of the primary image with its stream's own colour
    /// description: an HEVC image or grid (not an overlay or a derived image, whose layers may bring alpha
    /// images through the decoder), without alpha, whose container holds no nclx description.
    private static func convertsWithTheStreamsDescription(_ handle: OpaquePointer, bytes: [UInt8]) -> Bool {
        guard let type = HEIFPrimaryItem.type(in: bytes), type == "hvc1" || type == "grid",
            heif_image_handle_has_alpha_channel(handle) == 0
        else { return false }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let lookup = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        guard let nclx else { return lookup.code != heif_error_Ok }
        heif_nclx_color_profile_free(nclx)
        return false
    }

    /// The R, G and B planes of a decoded 8-bit image, interleaved as BGR.
    private static func planes(of image: OpaquePointer) throws(AnalysisError) -> OpenCVMat {
        var strides: [Int32] = [0, 0, 0]
        let channels = [heif_channel_R, heif_channel_G, heif_channel_B]
        var pointers: [UnsafePointer<UInt8>] = []
        for (index, channel) in channels.enumerated() {
            guard heif_image_get_bits_per_pixel_range(image, channel) == 8,
                let plane = heif_image_get_plane_readonly(image, channel, &strides[index])
            else {
                throw AnalysisError(
                    .undecodable, "HEIF: the decoded image has no 8-bit \(["R", "G", "B"][index]) plane")
            }
            pointers.append(plane)
        }
        let w = heif_image_get_width(image, heif_channel_R), h = heif_image_get_height(image, heif_channel_R)
        guard channels.allSatisfy({ heif_image_get_width(image, $0) == w && heif_image_get_height(image, $0) == h })
        else {
            throw AnalysisError(.undecodable, "HEIF: the decoded image's planes differ in size")
        }
        return try OpenCVMat.make(.undecodable) {
            aocv_mat_from_rgb_planes(
                pointers[0], Int(strides[0]), pointers[1], Int(strides[1]), pointers[2], Int(strides[2]), w, h, $0)
        }
    }

    /// A decoded image's interleaved 8-bit RGB, as BGR.
    private static func interleaved(_ image: OpaquePointer) throws(AnalysisError) -> OpenCVMat {
        var stride: Int32 = 0
        guard let pixels = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw AnalysisError(.undecodable, "HEIF: the decoded image has no RGB plane")
        }
        let w = heif_image_get_width(image, heif_channel_interleaved),
            h = heif_image_get_height(image, heif_channel_interleaved)
        return try OpenCVMat.make(.undecodable) { aocv_mat_from_rgb(pixels, w, h, Int(stride), $0) }
    }

    private static func check(_ error: heif_error, _ what: String) throws(AnalysisError) {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw AnalysisError(.undecodable, "HEIF: \(what): \(detail)")
    }
}
