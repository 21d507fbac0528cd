/// What one request found in one image: a list of observations, a page of text, one horizon, a
/// ranked list of labels… Stored in ``ImageAnalysis`` under the request's ``ObservationKind``.
///
/// A result writes itself into the image's JSON object (usually one key, the kind's name; a page
/// of text writes `text` and `fullText`) and reads itself back (for `--resume`), and says what
/// the generic parts of the tool need: how many observations it holds (counts, `--require`,
/// `--forbid`), which labels (label checks, the report's filter) and a short summary.
public protocol RequestResult: Sendable, Hashable {
    /// A digest of the result for the stderr line, the run report and the checks.
    var summary: ResultSummary { get }

    /// Writes the result into the image's JSON object.
    func encode(into container: inout KeyedEncodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
    /// Reads the result back from the image's JSON object; nil when it is absent.
    static func decode(from container: KeyedDecodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
        -> Self?
}

/// What the generic parts of the tool keep of a ``RequestResult``.
public struct ResultSummary: Sendable, Hashable {
    /// Observations found (what `--require`/`--forbid KIND` and the report's counts use).
    public var count: Int
    /// More counts for the report, e.g. `words` beside the text lines.
    public var extraCounts: [String: Int] = [:]
    /// Identifiers of what was recognised (`person`, `Egyptian cat`…): `--require label=…` and the report's filter.
    public var labels: [String] = []
    /// Short lines worth showing in the report (barcode payloads, labels with confidence).
    public var highlights: [String] = []
    /// The first lines of recognised text.
    public var textPreview: [String] = []
    /// Everything the report's search should find: all the text, every payload, every label.
    public var searchable: [String] = []
    /// The phrase on the per-image stderr line, e.g. `2 barcode(s) (qr "…")`.
    public var phrase: String

    public init(count: Int, phrase: String) {
        self.count = count
        self.phrase = phrase
    }
}

/// A key of the image's JSON object.
public struct AnalysisCodingKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }
    public init(_ string: String) { stringValue = string }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// One observation of a list-shaped result (rectangles, faces, barcodes, objects).
public protocol ListedObservation: Sendable, Hashable, Codable {
    /// The noun for the stderr line, e.g. `rectangle` (printed as `3 rectangle(s)`).
    static var noun: String { get }
    /// The summary of a list of these; the default counts them.
    static func summary(of list: [Self]) -> ResultSummary
}

extension ListedObservation {
    public static func summary(of list: [Self]) -> ResultSummary {
        ResultSummary(count: list.count, phrase: "\(list.count) \(noun)(s)")
    }
}

/// A list of observations is a result, written as a JSON array under the kind's name.
extension Array: RequestResult where Element: ListedObservation {
    public var summary: ResultSummary { Element.summary(of: self) }

    public func encode(into container: inout KeyedEncodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
    {
        try container.encode(self, forKey: AnalysisCodingKey(kind.rawValue))
    }

    public static func decode(from container: KeyedDecodingContainer<AnalysisCodingKey>, as kind: ObservationKind)
        throws -> [Element]?
    {
        try container.decodeIfPresent([Element].self, forKey: AnalysisCodingKey(kind.rawValue))
    }
}

extension RequestResult {
    /// Whether `other` is the same value (results are stored as `any RequestResult`).
    func isEqual(to other: any RequestResult) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
