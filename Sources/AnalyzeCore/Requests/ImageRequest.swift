/// One kind of analysis to perform on an image, like a `VNRequest`.
///
/// Requests are small values holding their parameters (never paths: a model is named by its
/// ``ModelIdentity``). The ``ImageRequestHandler`` performs them, all on the same decoded, upright
/// image, with the engines of the worker thread it runs on. A new kind of request is its own
/// files (request, observation, drawing, tests) plus one line in the ``RequestRegistry``.
public protocol ImageRequest: Sendable, Hashable, Codable {
    /// What the request finds in one image.
    associatedtype Result: RequestResult

    /// The kind of observation it produces: its JSON key, SVG group and `--require` name.
    static var kind: ObservationKind { get }
    /// Other names accepted for the kind in `--require`/`--forbid` (e.g. `rects`, `barcode`).
    static var kindAliases: [String] { get }

    /// The request with default parameters: what "every request" and `--require KIND` add.
    init()

    /// The models this request loads, by identity; the worker's engines find the files.
    var models: [ModelIdentity] { get }

    /// The request as it runs with the model files there are: a request whose models only save time
    /// (the text request's detector under `--text-gate auto`) drops them when they are missing.
    /// ``RequestPlan`` calls it for the requests a run performs only, so a run that does not perform
    /// a request never checks its files. Default: the request itself.
    func resolvingOptionalModels(with models: ModelLocator) -> Self

    /// Runs the request on one upright image.
    func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> Result
}

extension ImageRequest {
    public static var kindAliases: [String] { [] }
    public var models: [ModelIdentity] { [] }
    public func resolvingOptionalModels(with models: ModelLocator) -> Self { self }

    /// The kind of this request value.
    public var kind: ObservationKind { Self.kind }

    /// `perform`, with the result as an existential (for the handler's loop over `any ImageRequest`).
    func performErased(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> any RequestResult {
        try perform(on: image, engines: engines)
    }

    /// Whether `other` is the same request.
    func isEqual(to other: any ImageRequest) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
