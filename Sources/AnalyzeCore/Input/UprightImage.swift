import Foundation

/// One decoded image with its EXIF orientation applied: what every request sees.
///
/// Built once per image by ``ImageRequestHandler``. A gray source (a scan) stays one channel;
/// a colour one is BGR and its grayscale is computed on first use and shared by every request
/// that needs it. Requests may run on several workers at once (``IdleWorkers``): they only read the
/// pixels, and the shared copies (grayscale, halvings, colour test) are made under a lock.
public final class UprightImage: @unchecked Sendable {
    /// The upright pixels, 8-bit: one channel for gray sources, BGR otherwise.
    package let pixels: OpenCVMat
    /// Guards the cached copies below (recursive: a halving of the grayscale asks for the grayscale).
    private let lock = NSRecursiveLock()
    private var cachedGray: OpenCVMat?

    /// The orientation that was applied.
    public let orientation: ImageOrientation
    /// What the decoder warned about (libjpeg's "Corrupt JPEG data…", libpng's chunk warnings),
    /// in the decoder's order: they go into the image's JSON `warnings`, never to stderr.
    public private(set) var decodeWarnings: [String] = []
    /// The document page the image was drawn from (a PDF's), for requests that read more than the
    /// pixels; nil for an image or a frame.
    let documentPage: DocumentPage?
    public var width: Int { pixels.width }
    public var height: Int { pixels.height }

    init(pixels: OpenCVMat, orientation: ImageOrientation, documentPage: DocumentPage? = nil) {
        self.pixels = pixels
        self.orientation = orientation
        self.documentPage = documentPage
    }

    /// Decodes encoded bytes (libjpeg/libpng as OpenCV sets them up, else `cv::imdecode`; never
    /// OpenCV's own auto-rotation) and applies
    /// `orientation`. Refuses images whose header claims more than `maximumPixels`.
    public convenience init(decoding bytes: [UInt8], orientation: ImageOrientation, maximumPixels: Int)
        throws(AnalysisError)
    {
        if bytes.isEmpty { throw AnalysisError(.emptyFile, "the file is empty") }
        if HEIFDecoder.isHEIF(bytes) {
            // libheif applies the container's rotation and mirroring itself: nothing more to orient.
            self.init(pixels: try HEIFDecoder.decode(bytes, maximumPixels: maximumPixels), orientation: .up)
            return
        }
        // Only an image whose size was read from its header reaches a decoder: a damaged header (a
        // JPEG cut inside its frame header) or another format behind an image extension (PFM, HDR)
        // could otherwise make OpenCV allocate gigabytes before the pixel limit is checked.
        guard let header = ImageHeader(parsing: bytes) else {
            throw AnalysisError(
                .undecodable,
                "not an image whose size could be read from its header (JPEG, PNG, TIFF, BMP, WebP, GIF, HEIF, AVIF, PNM, JPEG 2000, Sun raster, PDF); not decoded"
            )
        }
        guard header.width > 0, header.height > 0 else {
            throw AnalysisError(.undecodable, "the header claims an empty image (\(header.width)x\(header.height))")
        }
        guard header.pixelCount <= maximumPixels else {
            throw AnalysisError(
                .tooLarge,
                "the header claims \(header.width)x\(header.height) = \(header.pixelCount) pixels, over the limit of \(maximumPixels) (raise it with --max-pixels)"
            )
        }
        if ImageHeader.isTruncatedJPEG(bytes) {
            throw AnalysisError(.undecodable, "truncated JPEG: no end-of-image marker after the last scan")
        }
        let (stored, warnings) = try OpenCVMat.decode(bytes)
        guard stored.width * stored.height <= maximumPixels else {
            throw AnalysisError(
                .tooLarge,
                "\(stored.width)x\(stored.height) pixels is over the limit of \(maximumPixels) (raise it with --max-pixels)"
            )
        }
        let upright = orientation == .up ? stored : try stored.oriented(orientation)
        self.init(pixels: upright, orientation: orientation)
        decodeWarnings = warnings
    }

    /// The shared 8-bit grayscale of the upright image: the pixels themselves for a gray source,
    /// otherwise computed once.
    func gray() throws(AnalysisError) -> OpenCVMat {
        if pixels.channels == 1 { return pixels }
        lock.lock()
        defer { lock.unlock() }
        if let cachedGray { return cachedGray }
        let g = try pixels.gray()
        cachedGray = g
        return g
    }

    /// Copies halved again and again (level k is 1/2^k of the image on each side, INTER_AREA: exact
    /// box means, OpenCV's fast path), built on first use, each from the one above; index 0 is level 1.
    private var colourLevels: [OpenCVMat] = []
    private var grayLevels: [OpenCVMat] = []

    /// The smallest of the image and its halvings that is still at least `width` × `height`: what a
    /// request that shrinks the image to that size resizes from. Box-filtering a 12 MP photo down to
    /// 640×480 in one step costs about 38 ms; a halving (OpenCV's 2×2 fast path) costs a fraction of
    /// that, and the halvings serve every request. `gray` picks the grayscale's pyramid.
    func reduction(toAtLeast width: Int, _ height: Int, gray wantsGray: Bool) throws(AnalysisError) -> OpenCVMat {
        lock.lock()
        defer { lock.unlock() }
        var current = wantsGray ? try gray() : pixels
        var level = 0
        while current.width / 2 >= max(1, width) && current.height / 2 >= max(1, height) {
            let cached = wantsGray ? grayLevels : colourLevels
            let next: OpenCVMat
            if level < cached.count {
                next = cached[level]
            } else {
                next = try current.resized(width: current.width / 2, height: current.height / 2)
                if wantsGray { grayLevels.append(next) } else { colourLevels.append(next) }
            }
            current = next
            level += 1
        }
        return current
    }

    /// The reduction to shrink from when the image is scaled to fit within `width` × `height` with
    /// its aspect ratio kept (a network's letterbox, a working copy): the smallest halving at least
    /// twice that size, so that the last shrink still averages two or more pixels each way and the
    /// copy is as sharp as one shrunk from the image itself (from a halving just over the size, the
    /// text detector lost half of a line of 20-px capitals in a 12 MP photo); the image itself when
    /// it is under four times the size.
    /// `gray` picks the grayscale's pyramid (the networks that letterbox a copy read BGR).
    func reduction(toFit width: Int, _ height: Int, gray wantsGray: Bool = false) throws(AnalysisError) -> OpenCVMat {
        let scale = min(Double(width) / Double(self.width), Double(height) / Double(self.height))
        guard scale < 0.25 else { return wantsGray ? try gray() : pixels }
        return try reduction(
            toAtLeast: Int((Double(self.width) * scale * 2).rounded(.up)),
            Int((Double(self.height) * scale * 2).rounded(.up)),
            gray: wantsGray)
    }

    /// Whether the image has colour: a BGR image whose channels differ by more than 12 levels on at
    /// least 0.5% of about 10,000 pixels sampled on a grid. A gray page saved as RGB (many scanners
    /// and PDF tools write pages that way) has none, nor has a gray source.
    var hasColour: Bool {
        lock.lock()
        defer { lock.unlock() }
        if let cachedHasColour { return cachedHasColour }
        var found = false
        if pixels.channels == 3 {
            let width = pixels.width, height = pixels.height
            let step = max(1, Int((Double(width * height) / 10_000).squareRoot()))
            found = pixels.withPixels { base, stride in
                var samples = 0, coloured = 0
                for y in Swift.stride(from: step / 2, to: height, by: step) {
                    let row = base + y * stride
                    for x in Swift.stride(from: step / 2, to: width, by: step) {
                        let b = Int(row[3 * x]), g = Int(row[3 * x + 1]), r = Int(row[3 * x + 2])
                        samples += 1
                        if max(abs(b - g), abs(g - r), abs(b - r)) > 12 { coloured += 1 }
                    }
                }
                return coloured * 200 > samples
            }
        }
        cachedHasColour = found
        return found
    }
    private var cachedHasColour: Bool?

    /// BGR pixels to draw colours on: the image's own when it is colour and `reusingPixels` (its
    /// last use), else a new BGR copy.
    package func canvas(reusingPixels: Bool) throws(AnalysisError) -> OpenCVMat {
        if pixels.channels == 3 && reusingPixels {
            lock.lock()
            defer { lock.unlock() }
            cachedGray = nil  // not needed any more: free them before the PNG is encoded
            colourLevels = []
            grayLevels = []
            return pixels
        }
        return try pixels.bgr()
    }
}
