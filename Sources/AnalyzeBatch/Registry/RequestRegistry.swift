import AnalyzeCore
import AnalyzeOutput

/// Every kind of request the tool knows, in the order they run and are drawn.
///
/// Adding a kind of request: its request value, result, drawing and tests in their own files,
/// then one line here. Everything else (the handler's loop, counts, `--require`/`--forbid`, JSON
/// decoding for `--resume`, the report, JUnit) works from this list.
public enum RequestRegistry {
    public static let entries: [RequestKindEntry] = [
        RequestKindEntry(RectangleRequest.self),
        RequestKindEntry(FaceRequest.self),
        RequestKindEntry(TextRequest.self),
        RequestKindEntry(BarcodeRequest.self),
        RequestKindEntry(ObjectRequest.self),
        RequestKindEntry(ClassificationRequest.self),
        RequestKindEntry(HorizonRequest.self),
        RequestKindEntry(FeaturePrintRequest.self),
    ]

    /// Every registered kind, in order.
    public static var kinds: [ObservationKind] { entries.map(\.kind) }

    /// The entry of `kind`.
    public static func entry(for kind: ObservationKind) -> RequestKindEntry? {
        entries.first { $0.kind == kind }
    }

    /// The kind a command-line name stands for: its name or one of its aliases, any case.
    public static func kind(named name: String) -> ObservationKind? {
        let folded = name.lowercased()
        return entries.first { $0.kind.rawValue == folded || $0.aliases.contains(folded) }?.kind
    }

    /// Every accepted name, for error messages.
    public static var kindNames: String { kinds.map(\.rawValue).joined(separator: ", ") }

    /// Every kind's side outputs (``SideOutput``), in the registry's order.
    public static var sideOutputs: [SideOutput] { entries.flatMap(\.sideOutputs) }
}

/// What the registry knows of one kind of request: its name, its default request, and how to
/// read its request and its result back from JSON.
public struct RequestKindEntry: Sendable {
    public let kind: ObservationKind
    /// Other names accepted on the command line.
    public let aliases: [String]
    /// The request with default parameters.
    public let makeDefault: @Sendable () -> any ImageRequest
    /// How its counts read (``ImageRequest/countNoun``, ``ImageRequest/extraCountNouns``).
    public let countNoun: String
    public let extraCountNouns: [String: String]
    /// Models it uses when present (``ImageRequest/optionalModels``).
    public let optionalModels: [OptionalModel]
    /// The files its result can add to an image's outputs (``SideOutputProducing``).
    public let sideOutputs: [SideOutput]
    /// Whether it is among "every request" (``ImageRequest/runsWhenNoneAsked``).
    public let runsWhenNoneAsked: Bool
    let decodeRequest: @Sendable (KeyedDecodingContainer<AnalysisCodingKey>) throws -> (any ImageRequest)?
    let decodeResult: @Sendable (KeyedDecodingContainer<AnalysisCodingKey>) throws -> (any RequestResult)?

    /// The entry of request type `R`; its result must know how to draw itself.
    init<R: ImageRequest>(_ type: R.Type) where R.Result: AnnotationDrawable {
        kind = R.kind
        aliases = R.kindAliases.map { $0.lowercased() }
        makeDefault = { R() }
        countNoun = R.countNoun
        extraCountNouns = R.extraCountNouns
        optionalModels = R.optionalModels
        sideOutputs = (R.self as? any SideOutputProducing.Type)?.sideOutputs ?? []
        runsWhenNoneAsked = R.runsWhenNoneAsked
        decodeRequest = { container in try container.decodeIfPresent(R.self, forKey: AnalysisCodingKey(R.kind.rawValue))
        }
        decodeResult = { container in try R.Result.decode(from: container, as: R.kind) }
    }
}

extension RequestSet: Decodable {
    /// Reads a set written by ``encode(to:)``; kinds this build does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnalysisCodingKey.self)
        self.init(try RequestRegistry.entries.compactMap { try $0.decodeRequest(container) })
    }
}

extension ImageAnalysis: Decodable {
    /// Reads an image's JSON back (`--resume`); kinds this build does not know are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnalysisCodingKey.self)
        self.init(
            file: try container.decode(String.self, forKey: Self.fileKey),
            orientation: try container.decode(Int.self, forKey: AnalysisCodingKey("orientation")),
            width: try container.decode(Int.self, forKey: AnalysisCodingKey("width")),
            height: try container.decode(Int.self, forKey: AnalysisCodingKey("height")),
            warnings: try container.decodeIfPresent([String].self, forKey: AnalysisCodingKey("warnings")) ?? [])
        input = try container.decodeIfPresent(InputFingerprint.self, forKey: AnalysisCodingKey("input"))
        optionsHash = try container.decodeIfPresent(String.self, forKey: AnalysisCodingKey("optionsHash"))
        requestErrors = try container.decodeIfPresent([String: RequestError].self, forKey: Self.errorsKey) ?? [:]
        if let number = try container.decodeIfPresent(Int.self, forKey: Self.pageKey),
            let count = try container.decodeIfPresent(Int.self, forKey: Self.pagesKey)
        {
            page = ImageSource.Page(number: number, count: count)
        }
        for entry in RequestRegistry.entries {
            if let result = try entry.decodeResult(container) { set(result, for: entry.kind) }
        }
    }
}

extension RequestSet {
    /// "Every request": each registered request that runs when none is asked for
    /// (``ImageRequest/runsWhenNoneAsked``), with default parameters, in the registry's order.
    public static var all: RequestSet {
        RequestSet(RequestRegistry.entries.filter(\.runsWhenNoneAsked).map { $0.makeDefault() })
    }
}
