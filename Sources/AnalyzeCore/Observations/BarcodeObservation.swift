import Foundation

/// A decoded barcode. Coordinates are pixels of the upright image, origin top-left.
public struct BarcodeObservation: ListedObservation {
    public static let noun = "barcode"

    /// Which symbology the code uses.
    public let symbology: BarcodeSymbology
    /// The payload as Unicode text: decoded by zxing-cpp (ECI and the symbology's default
    /// character set: Shift_JIS in Japanese QR codes, ISO-8859-1…) when it read the symbol, else
    /// UTF-8, Shift_JIS or ISO-8859-1 by the bytes (see `BarcodePayloadText`). Untrusted: escape it
    /// wherever it is shown.
    public let payload: String
    /// The payload bytes exactly as encoded, base64: survives NUL bytes and non-UTF-8 data.
    public let payloadBase64: String
    /// Whether the payload bytes are valid UTF-8.
    public let payloadIsUTF8: Bool
    /// The symbol's outline: four corners for 2-D codes; for 1-D codes the box around the scan
    /// lines that read it.
    public let corners: [PixelPoint]
    /// The box around `corners`.
    public let boundingBox: BoundingBox
    /// True when the code is light modules on a dark background.
    public let inverted: Bool
    /// ZBar's quality score (for 1-D codes, how many scan lines agreed; 1 for 2-D codes); 0 when
    /// only zxing-cpp read the symbol.
    public let quality: Int
    /// The engines that read this payload here, sorted: `zbar`, `zxing`.
    public let engines: [String]
    /// 1 when both engines read the same payload; 0.9 when one did and the symbology checks
    /// itself (error correction or a check digit); 0.7 when one did and it has no mandatory check
    /// (Code 39, Codabar, Interleaved 2 of 5); 0.6 when the engines disagreed and the structure
    /// check settled it.
    public let confidence: Double

    public init(
        symbology: BarcodeSymbology, payloadBytes: [UInt8], payload: String? = nil, corners: [PixelPoint],
        inverted: Bool,
        quality: Int, engines: [String], confidence: Double
    ) {
        self.symbology = symbology
        let utf8 = String(validating: payloadBytes, as: UTF8.self)
        self.payload = payload ?? utf8 ?? BarcodePayloadText.decode(payloadBytes)
        payloadIsUTF8 = utf8 != nil
        payloadBase64 = Data(payloadBytes).base64EncodedString()
        self.corners = corners
        boundingBox = BoundingBox(enclosing: corners)
        self.inverted = inverted
        self.quality = quality
        self.engines = engines.sorted()
        self.confidence = confidence.roundedConfidence
    }

    /// The raw payload bytes.
    public var payloadBytes: [UInt8] { Data(base64Encoded: payloadBase64).map { [UInt8]($0) } ?? [] }
}

extension BarcodeObservation {
    /// Counts the codes, keeps their payloads for the report (at most 20, each cut to 300
    /// characters) and names the first three on the stderr line.
    public static func summary(of codes: [BarcodeObservation]) -> ResultSummary {
        let named = codes.prefix(3).map { "\($0.symbology) \"\(MarkupEscaping.label($0.payload, limit: 30))\"" }
        var summary = ResultSummary(
            count: codes.count,
            phrase: "\(codes.count) barcode(s)"
                + (named.isEmpty ? "" : " (" + named.joined(separator: ", ") + (codes.count > 3 ? ", …" : "") + ")"))
        summary.highlights = codes.prefix(20).map { "\($0.symbology): " + String($0.payload.prefix(300)) }
        summary.searchable = codes.map { "\($0.symbology): \($0.payload)" }
        return summary
    }
}
