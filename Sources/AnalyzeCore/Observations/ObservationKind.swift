/// The name of a kind of observation (`rectangles`, `faces`, `barcodes`, `text`, `objects`…):
/// the JSON key, the SVG group, the report's filter, the `--require`/`--forbid` argument.
///
/// Open for extension: each request declares its own kind next to its request value
/// (`extension ObservationKind { static let barcodes = … }`); the `RequestRegistry` (AnalyzeBatch) lists them.
public struct ObservationKind: Sendable, Hashable, Comparable, Codable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (a: ObservationKind, b: ObservationKind) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
