import Foundation

/// The way in for a Swift program, like Vision's `ImageRequestHandler(url).perform(request)`:
///
/// ```swift
/// let handler = ImageRequestHandler(url: URL(fileURLWithPath: "photo.jpg"))
/// let codes = try handler.perform(BarcodeRequest())          // [BarcodeObservation]
/// let (lines, faces) = try handler.perform(TextRequest(), FaceRequest())
/// ```
///
/// Each call reads and decodes the file once for the requests it is given, in the upright
/// orientation its EXIF asks for. Engines come from ``SharedEngines/shared``: created on first use,
/// kept for the next call. Errors are ``AnalysisError``s: the file could not be read or decoded, a
/// model is missing (`engine-unavailable`), or an engine failed on the image.
extension ImageRequestHandler {
    /// A handler for the image file at `url`.
    public init(url: URL) {
        self.init(source: ImageSource(path: url.path, outputName: url.deletingPathExtension().lastPathComponent))
    }

    /// A handler for an encoded image in memory (JPEG, PNG, HEIC, TIFF, WebP, GIF, or a PDF's first page),
    /// as a server receives an upload: nothing is read from disk, and the bytes are as untrusted as a
    /// file's. `name` is what errors and ``ImageAnalysis/file`` call it.
    public init(data: Data, name: String = "(data)") {
        self.init(bytes: [UInt8](data), name: name)
    }

    /// Performs one request and returns its typed result.
    public func perform<R: ImageRequest>(_ request: R) throws(AnalysisError) -> R.Result {
        let analysis = try analyse([request])
        return try Self.result(of: request, in: analysis)
    }

    /// Performs two requests on one decoding of the image.
    public func perform<A: ImageRequest, B: ImageRequest>(_ a: A, _ b: B) throws(AnalysisError) -> (A.Result, B.Result)
    {
        let analysis = try analyse([a, b])
        return (try Self.result(of: a, in: analysis), try Self.result(of: b, in: analysis))
    }

    /// Performs three requests on one decoding of the image.
    public func perform<A: ImageRequest, B: ImageRequest, C: ImageRequest>(_ a: A, _ b: B, _ c: C) throws(AnalysisError)
        -> (A.Result, B.Result, C.Result)
    {
        let analysis = try analyse([a, b, c])
        return (
            try Self.result(of: a, in: analysis), try Self.result(of: b, in: analysis),
            try Self.result(of: c, in: analysis)
        )
    }

    /// The synchronous `perform(_:)` off the caller's task, for async code (a server's request handler).
    public func perform<R: ImageRequest>(_ request: R) async throws(AnalysisError) -> R.Result {
        let handler = self
        let outcome = await Task.detached {
            Swift.Result { () throws(AnalysisError) -> R.Result in try handler.perform(request) }
        }.value
        return try outcome.get()
    }

    private func analyse(_ requests: [any ImageRequest]) throws(AnalysisError) -> ImageAnalysis {
        // Models that only help (the text gate's networks under `.auto`) are used when they are there.
        func resolved(_ request: some ImageRequest) -> any ImageRequest {
            request.resolvingOptionalModels(with: SharedEngines.shared.models)
        }
        let set = RequestSet(requests.map { resolved($0) })
        return try SharedEngines.shared.withEngines { engines throws(AnalysisError) in
            try perform(set, engines: engines).analysis
        }
    }

    /// The request's result, or the error it ended in.
    private static func result<R: ImageRequest>(of request: R, in analysis: ImageAnalysis) throws(AnalysisError)
        -> R.Result
    {
        if let result = analysis.result(R.kind, as: R.Result.self) { return result }
        if let failure = analysis.requestErrors[R.kind.rawValue] {
            throw AnalysisError(AnalysisError.Code(rawValue: failure.code), failure.message, file: analysis.file)
        }
        throw AnalysisError(.engineFailed, "\(R.kind) gave no result", file: analysis.file)
    }
}
