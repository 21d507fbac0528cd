/// Performs a set of requests on one image, like `VNImageRequestHandler`.
///
/// Reads the file once, reads its EXIF orientation once (libexif), decodes it once without
/// OpenCV's auto-rotation, applies the orientation, and runs every request on that one upright
/// image and its shared grayscale, with the calling worker's engines. A PDF's page is rendered upright
/// by poppler (``PDFRenderer``) instead.
public struct ImageRequestHandler: Sendable {
    public let source: ImageSource
    /// Images whose header (or decoded size) exceeds this many pixels are refused.
    public let maximumPixels: Int

    /// A PDF's pages are rendered at this many dots per inch (`--pdf-dpi`).
    public let pdfResolution: Int

    /// Seconds each poppler program may take for a page of a PDF.
    public let pdfPageTimeout: Double

    /// The encoded image, when the handler was made from bytes in memory (``init(data:name:)``) rather than a file.
    let data: [UInt8]?
    /// Decoded pixels, when the handler was made from them (``init(pixels:name:)``).
    let pixels: PixelBuffer?

    public init(
        source: ImageSource, maximumPixels: Int = ImageRequestHandler.defaultMaximumPixels,
        pdfResolution: Int = PDFRenderer.defaultResolution,
        pdfPageTimeout: Double = PDFRenderer.defaultPageTimeout
    ) {
        self.pdfPageTimeout = pdfPageTimeout
        self.source = source
        self.maximumPixels = maximumPixels
        self.pdfResolution = pdfResolution
        data = nil
        pixels = nil
    }

    /// A handler for an encoded image in memory (``init(data:name:)``).
    package init(bytes data: [UInt8], name: String, maximumPixels: Int = ImageRequestHandler.defaultMaximumPixels) {
        source = ImageSource(path: name, outputName: "data")
        self.maximumPixels = maximumPixels
        pdfResolution = PDFRenderer.defaultResolution
        pdfPageTimeout = PDFRenderer.defaultPageTimeout
        self.data = data
        pixels = nil
    }

    /// A handler for decoded, upright pixels: nothing is read or decoded. Pixels over `maximumPixels` are
    /// refused, as an image whose header claims more is.
    public init(
        pixels: PixelBuffer, name: String = "(pixels)", maximumPixels: Int = ImageRequestHandler.defaultMaximumPixels
    ) {
        source = ImageSource(path: name, outputName: "pixels")
        self.maximumPixels = maximumPixels
        pdfResolution = PDFRenderer.defaultResolution
        pdfPageTimeout = PDFRenderer.defaultPageTimeout
        data = nil
        self.pixels = pixels
    }

    /// 200 megapixels: larger than any phone photo, small enough to refuse decompression bombs.
    public static let defaultMaximumPixels = 200_000_000

    /// The outcome of `perform`: the observations, the upright image for rendering, and timings.
    public struct Result {
        public let analysis: ImageAnalysis
        public let image: UprightImage
        public let timings: StageTimings
    }

    /// Runs every request in `requests` on the image. Throws an `AnalysisError` naming the file
    /// when the image cannot be read or decoded, or an engine fails on it.
    /// `idleWorkers`: workers with no image of their own, which take some of the requests (see
    /// ``IdleWorkers``).
    public func perform(_ requests: RequestSet, engines: WorkerEngines, bytes alreadyRead: [UInt8]? = nil)
        throws(AnalysisError) -> Result
    {
        try perform(requests, engines: engines, bytes: alreadyRead, idleWorkers: nil)
    }

    package func perform(
        _ requests: RequestSet, engines: WorkerEngines, bytes alreadyRead: consuming [UInt8]?, idleWorkers: IdleWorkers?
    ) throws(AnalysisError) -> Result {
        if let pixels, pixels.width * pixels.height > maximumPixels {
            throw AnalysisError(
                .tooLarge, "\(pixels.width)x\(pixels.height) pixels, more than the \(maximumPixels) allowed",
                file: source.path)
        }
        var timings = StageTimings()
        do {
            if let pixels {
                let mat = try timings.measure("decode") { () throws(AnalysisError) in try OpenCVMat.fromRGB(pixels) }
                return perform(
                    requests, on: UprightImage(pixels: mat, orientation: .up), warnings: [], engines: engines,
                    timings: timings,
                    idleWorkers: idleWorkers)
            }
            var file: [UInt8]
            switch consume alreadyRead {
            case .some(let read): file = read
            case .none:
                if let data {
                    file = data
                } else {
                    file = try timings.measure("read") { () throws(AnalysisError) in try source.readBytes() }
                }
            }
            var warnings: [String] = []
            // A TIFF or PDF of more pages than are analysed says so on its first page.
            if let page = source.page, page.number == 1, page.count > InputCollector.maximumPages {
                warnings.append("only the first \(InputCollector.maximumPages) of its \(page.count) pages are analysed")
            }
            if PDFRenderer.isPDF(file) {
                // A PDF's page is drawn upright (its /Rotate applied) by poppler: nothing more to orient. poppler
                // reads the file itself when it is one, only the parts the page needs.
                // Bytes in memory go to poppler as bytes: the handler's name is not a path to open.
                let document = data == nil ? PDFRenderer.Source.preferring(path: source.path, over: file) : .bytes(file)
                let pageNumber = source.page?.number ?? 1
                let (pixels, pdfWarnings) = try timings.measure("decode") { () throws(AnalysisError) in
                    try PDFRenderer.$pageTimeout.withValue(pdfPageTimeout) {
                        Swift.Result { () throws(AnalysisError) in
                            try PDFRenderer.render(
                                document, page: pageNumber, size: source.pdfPageSize, resolution: pdfResolution,
                                maximumPixels: maximumPixels)
                        }
                    }.get()
                }
                warnings += pdfWarnings
                // The page goes with its pixels: a request may read more of it (the text request, a typeset page's own words).
                let page = DocumentPage(
                    document: document, number: pageNumber, resolution: pdfResolution, timeout: pdfPageTimeout)
                return perform(
                    requests, on: UprightImage(pixels: pixels, orientation: .up, documentPage: page),
                    warnings: warnings, engines: engines,
                    timings: timings, idleWorkers: idleWorkers)
            }
            let bytes = try Self.page(source.page, of: consume file, warnings: &warnings)
            // HEIF carries its orientation in the container (applied by libheif); its EXIF tag, if
            // any, must not be applied a second time.
            let tag = timings.measure("orientation") {
                HEIFDecoder.isHEIF(bytes)
                    ? ExifOrientationReader.Tag.absent : ExifOrientationReader.orientationTag(in: bytes)
            }
            let orientation: ImageOrientation
            switch tag {
            case .absent: orientation = .up
            case .valid(let o): orientation = o
            case .invalid(let value):
                orientation = .up
                warnings.append("invalid EXIF orientation \(value), treated as 1")
            }
            let image = try timings.measure("decode") { () throws(AnalysisError) in
                try UprightImage(decoding: bytes, orientation: orientation, maximumPixels: maximumPixels)
            }
            return perform(
                requests, on: image, warnings: (warnings + image.decodeWarnings).collapsingRepeats(), engines: engines,
                timings: timings,
                idleWorkers: idleWorkers)
        } catch var error {
            if error.file == nil { error.file = source.path }
            throw error
        }
    }

    /// Performs the requests on the decoded, upright image of this handler's source.
    private func perform(
        _ requests: RequestSet, on image: UprightImage, warnings: [String], engines: WorkerEngines,
        timings: StageTimings,
        idleWorkers: IdleWorkers?
    ) -> Result {
        var timings = timings
        var analysis = ImageAnalysis(
            file: source.path, orientation: image.orientation.rawValue, width: image.width, height: image.height,
            warnings: warnings)
        analysis.page = source.page
        Self.perform(
            requests, on: image, engines: engines, into: &analysis, timings: &timings, idleWorkers: idleWorkers)
        analysis.warnings += image.documentPage?.takeWarnings() ?? []
        return Result(analysis: analysis, image: image, timings: timings)
    }

    /// The bytes to decode: for a page of a multi-page TIFF, the file with that page's directory made
    /// the first (``ImageHeader/TIFFKind/makeFirstDirectory(_:in:)``), so it is read, checked and
    /// oriented as any file's first page is; otherwise the file itself. A multi-page TIFF read whole
    /// (an input not expanded into its pages) is decoded at its first page, and its warnings say so.
    static func page(_ page: ImageSource.Page?, of file: consuming [UInt8], warnings: inout [String])
        throws(AnalysisError) -> [UInt8]
    {
        guard let tiff = ImageHeader.TIFFKind(copy file) else {
            if let page {
                throw AnalysisError(
                    .undecodable,
                    "page \(page.number) of \(page.count): the file is no longer a TIFF (it changed during the run)")
            }
            return file
        }
        let directories = tiff.pageDirectories(file)
        guard let page else {
            if directories.count > 1 {
                warnings.append("TIFF: only the first of its \(directories.count) pages is analysed")
            }
            return file
        }
        guard page.number >= 1, page.number <= directories.count else {
            throw AnalysisError(
                .undecodable,
                "page \(page.number) of \(page.count): the file now has \(directories.count) page(s) (it changed during the run)"
            )
        }
        let directory = directories[page.number - 1]
        guard directory != tiff.firstDirectoryOffset(file) else { return file }
        tiff.makeFirstDirectory(directory, in: &file)
        return file
    }

    /// Performs every request on an upright image already decoded (an image, or a frame of a
    /// sequence), storing each result in `analysis`. A request that fails is recorded and the others
    /// still run: a page too tall for Tesseract keeps its barcodes.
    ///
    /// The requests run costliest first (``SharedRequests``). When `idleWorkers` has workers waiting
    /// (at the start or as a request is taken), they perform some of them at the same time, each with
    /// its own engines; the results are stored in the requests' order all the same.
    package static func perform(
        _ requests: RequestSet, on image: UprightImage, engines: WorkerEngines, into analysis: inout ImageAnalysis,
        timings: inout StageTimings, idleWorkers: IdleWorkers? = nil
    ) {
        let list = requests.requests
        let shared = SharedRequests(list, on: image)
        shared.performUntilEmpty(engines: engines, inviting: idleWorkers)
        let (outcomes, taken) = shared.results()
        timings.add(taken)
        for (request, outcome) in zip(list, outcomes) {
            if outcome != nil { analysis.warnings += request.warnings.filter { !analysis.warnings.contains($0) } }
            switch outcome {
            case .success(let result): analysis.set(result, for: request.kind)
            case .failure(let error):
                analysis.requestErrors[request.kind.rawValue] = ImageAnalysis.RequestError(
                    code: error.code.rawValue, message: error.message)
            case nil: break
            }
        }
    }
}
