/// One kind of analysis to perform on an image, like a `VNRequest`.
///
/// Requests are small values holding their parameters (never paths: a model is named by its
/// ``ModelIdentity``). The ``ImageRequestHandler`` performs them, all on the same decoded, upright
/// image, with the engines of the worker thread it runs on. A new kind of request is its own
/// files (request, observation, drawing, tests) plus one line in the `RequestRegistry` (AnalyzeBatch).
public protocol ImageRequest: Sendable, Hashable, Codable {
    /// What the request finds in one image.
    associatedtype Result: RequestResult

    /// The kind of observation it produces: its JSON key, SVG group and `--require` name.
    static var kind: ObservationKind { get }
    /// Other names accepted for the kind in `--require`/`--forbid` (e.g. `rects`, `barcode`).
    static var kindAliases: [String] { get }

    /// The request with default parameters: what "every request" and `--require KIND` add.
    init()

    /// A rough rank of what the request costs on a photo (0 cheap … 3 costliest): a worker takes the
    /// costliest of an image's requests first, so the workers that share the image finish together
    /// (``IdleWorkers``). Default: 0.
    static var cost: Int { get }

    /// How a count of this kind reads on the terminal, singular (`face`, `text line`, `label`); the
    /// plural adds an `s`. Default: the kind's name without its plural `s`.
    static var countNoun: String { get }

    /// The result's extra counts (``ResultSummary/extraCounts``) that the terminal shows beside the
    /// main one, with their singular nouns: text's `["words": "word"]` reads `15 text lines (49 words)`.
    static var extraCountNouns: [String: String] { get }

    /// Whether the request is among "every request", what a run performs when none is asked for.
    /// Default: true; a feature print is only made when asked for.
    static var runsWhenNoneAsked: Bool { get }

    /// Models the request uses when they are present and runs without (slower, or with less),
    /// listed by `analyze models`. Default: none.
    static var optionalModels: [OptionalModel] { get }

    /// The models this request loads, by identity; the worker's engines find the files.
    var models: [ModelIdentity] { get }

    /// The request as it runs with the model files there are: a request whose models only save time
    /// (the text request's detector under `--text-gate auto`) drops them when they are missing.
    /// `RequestPlan` (AnalyzeBatch) calls it for the requests a run performs only, so a run that does not perform
    /// a request never checks its files. Default: the request itself.
    func resolvingOptionalModels(with models: ModelLocator) -> Self

    /// Work the request does once per process whatever the image (tables a library builds on first
    /// use). The batch runner starts it on a background queue as the run begins, so that it overlaps
    /// reading and decoding the first images; `perform` waits for it if it is still running, or does
    /// it itself when nothing started it. Default: nothing.
    static func prepareProcess()

    /// What the request, as it is set, warns about on every image it reads (a language with no data
    /// installed): added to each image's warnings. Default: nothing.
    var warnings: [String] { get }

    /// Runs the request on one upright image.
    func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> Result
}

extension ImageRequest {
    public static var kindAliases: [String] { [] }
    public static var cost: Int { 0 }
    public static var countNoun: String {
        kind.rawValue.hasSuffix("s") ? String(kind.rawValue.dropLast()) : kind.rawValue
    }
    public static var extraCountNouns: [String: String] { [:] }
    public static var optionalModels: [OptionalModel] { [] }
    public static var runsWhenNoneAsked: Bool { true }
    public var models: [ModelIdentity] { [] }
    public func resolvingOptionalModels(with models: ModelLocator) -> Self { self }
    public static func prepareProcess() {}
    public var warnings: [String] { [] }

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

/// A model a request uses when it is present: what uses it, and what happens without it.
public struct OptionalModel: Sendable {
    /// The use, as `analyze models` lists it: `text (--text-gate auto)`.
    public let use: String
    public let model: ModelIdentity
    /// What the request does without it: `every large image is read whole`.
    public let without: String

    public init(use: String, model: ModelIdentity, without: String) {
        self.use = use
        self.model = model
        self.without = without
    }
}
