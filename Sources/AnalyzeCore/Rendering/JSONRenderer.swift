import Foundation

/// Encodes an ``ImageAnalysis`` as the JSON contract: pretty-printed, sorted keys, no
/// timestamps, so identical inputs and options give byte-identical files whatever `--jobs` is.
/// Strings are escaped by `JSONEncoder` (quotes, backslashes, control characters), so payloads
/// stay inert; `/` is left as it is (paths read as paths).
public enum JSONRenderer {
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws(AnalysisError) -> [UInt8] {
        let encoder = JSONEncoder()
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
