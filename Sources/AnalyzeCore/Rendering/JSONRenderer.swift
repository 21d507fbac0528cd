import Foundation

/// Encodes an ``ImageAnalysis`` as the JSON contract: pretty-printed, sorted keys, no
/// timestamps, so identical inputs and options give byte-identical files whatever `--jobs` is.
/// Strings are escaped by `JSONEncoder` (quotes, backslashes, control characters), so payloads
/// stay inert; `/` is left as it is (paths read as paths).
public enum JSONRenderer {
    /// An image's JSON with its coordinates in `coordinates` (pixels, or Vision's normalized
    /// space relative to the upright image's size).
    public static func encode(_ analysis: ImageAnalysis, coordinates: OutputLayout.CoordinateSpace, pretty: Bool = true) throws(AnalysisError) -> [UInt8] {
        guard coordinates == .normalized else { return try encode(analysis, pretty: pretty) }
        return try encode(NormalizedAnalysis(analysis: analysis), normalizedTo: (analysis.width, analysis.height), pretty: pretty)
    }

    /// `value` with every ``PixelPoint`` and ``BoundingBox`` in it written as fractions of an image of
    /// `size` (Vision's coordinates): an image's JSON, a frame of a sequence, a `--jsonl` frame line.
    static func encode<T: Encodable>(_ value: T, normalizedTo size: (width: Int, height: Int), pretty: Bool) throws(AnalysisError) -> [UInt8] {
        guard let key = NormalizedCoordinates.key else { throw AnalysisError(.outputFailed, "normalized coordinates are not available") }
        return try encode(value, pretty: pretty, userInfo: [key: NormalizedCoordinates(width: size.width, height: size.height)])
    }

    public static func encode<T: Encodable>(_ value: T, pretty: Bool = true, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws(AnalysisError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.userInfo = userInfo
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(value)
            if pretty { data.append(0x0A) }
            return [UInt8](data)
        } catch {
            throw AnalysisError(.outputFailed, "JSON encoding failed: \(error)")
        }
    }
}

/// The upright image's size, handed to ``PixelPoint`` and ``BoundingBox`` through the encoder's
/// `userInfo` when the JSON is written in Vision's normalized coordinates (`--normalized`).
struct NormalizedCoordinates: Sendable {
    /// The `userInfo` key (nil only if Foundation refused the name; normalized output then fails
    /// with an error rather than writing pixels under the wrong name).
    static let key = CodingUserInfoKey(rawValue: "analyze.normalizedCoordinates")
    let width: Int
    let height: Int

    /// Fractions are written with six decimals (a micro-pixel on a 1 MP side).
    static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }

    func x(_ x: Double) -> Double { Self.rounded(x / Double(max(1, width))) }
    func length(_ length: Double, along side: Int) -> Double { Self.rounded(length / Double(max(1, side))) }
    /// y measured from the bottom, as a fraction of the height.
    func y(_ y: Double) -> Double { Self.rounded(1 - y / Double(max(1, height))) }
}

/// An image's JSON in normalized coordinates: the analysis, plus `"coordinates": "normalized"` so
/// a reader can tell.
struct NormalizedAnalysis: Encodable {
    let analysis: ImageAnalysis

    func encode(to encoder: any Encoder) throws {
        try analysis.encode(to: encoder)
        var container = encoder.container(keyedBy: AnalysisCodingKey.self)
        try container.encode(OutputLayout.CoordinateSpace.normalized, forKey: AnalysisCodingKey("coordinates"))
    }
}

extension Encoder {
    /// The image size to normalize coordinates by, when the JSON is written normalized.
    var normalizedCoordinates: NormalizedCoordinates? {
        NormalizedCoordinates.key.flatMap { userInfo[$0] as? NormalizedCoordinates }
    }
}
