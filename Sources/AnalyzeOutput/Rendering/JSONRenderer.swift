import AnalyzeCore
import Foundation

/// Encodes an ``ImageAnalysis`` as the JSON contract: pretty-printed, sorted keys, no
/// timestamps, so identical inputs and options give byte-identical files whatever `--jobs` is.
/// Strings are escaped by `JSONEncoder` (quotes, backslashes, control characters), so payloads
/// stay inert; `/` is left as it is (paths read as paths).
public enum JSONRenderer {
    /// An image's JSON with its coordinates in `coordinates` (pixels, or Vision's normalized
    /// space relative to the upright image's size).
    public static func encode(_ analysis: ImageAnalysis, coordinates: OutputLayout.CoordinateSpace, pretty: Bool = true)
        throws(AnalysisError) -> [UInt8]
    {
        guard coordinates == .normalized else { return try encode(analysis, pretty: pretty) }
        return try encode(
            NormalizedAnalysis(analysis: analysis), normalizedTo: (analysis.width, analysis.height), pretty: pretty)
    }

    /// `value` with every ``PixelPoint`` and ``BoundingBox`` in it written as fractions of an image of
    /// `size` (Vision's coordinates): an image's JSON, a frame of a sequence, a `--jsonl` frame line.
    package static func encode<T: Encodable>(_ value: T, normalizedTo size: (width: Int, height: Int), pretty: Bool)
        throws(AnalysisError) -> [UInt8]
    {
        guard let key = NormalizedCoordinates.key else {
            throw AnalysisError(.outputFailed, "normalized coordinates are not available")
        }
        return try encode(
            value, pretty: pretty, userInfo: [key: NormalizedCoordinates(width: size.width, height: size.height)])
    }

    public static func encode<T: Encodable>(
        _ value: T, pretty: Bool = true, userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws(AnalysisError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.userInfo = userInfo
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        do {
            var data = try encoder.encode(value)
            if pretty { data.append(0x0A) }
            return [UInt8](data)
        } catch {
            throw AnalysisError(.outputFailed, "JSON encoding failed: \(error)")
        }
    }
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
