import Foundation

/// A decoded barcode. Coordinates are pixels of the upright image, origin top-left.
public struct BarcodeObservation: ListedObservation {
    public static let noun = "barcode"

    /// Which symbology the code uses.
    public let symbology: BarcodeSymbology
    /// The payload as text: UTF-8 when the bytes are valid UTF-8, otherwise read as ISO-8859-1
    /// (QR's default character set). Untrusted: escape it wherever it is shown.
    public let payload: String
    /// The payload bytes exactly as encoded, base64: survives NUL bytes and non-UTF-8 data.
    public let payloadBase64: String
    /// Whether the payload bytes are valid UTF-8 (when false, `payload` is an ISO-8859-1 reading).
    public let payloadIsUTF8: Bool
    /// The symbol's outline as ZBar reports it (four corners for 2-D codes, scan extents for 1-D).
    public let corners: [PixelPoint]
    /// The box around `corners`.
    public let boundingBox: BoundingBox
    /// True when the code was found on the inverted image (light modules on a dark background).
    public let inverted: Bool
    /// ZBar's quality score: for 1-D codes, how many scan lines agreed; 1 for 2-D codes.
    public let quality: Int

    public init(symbology: BarcodeSymbology, payloadBytes: [UInt8], corners: [PixelPoint], inverted: Bool, quality: Int) {
        self.symbology = symbology
        if let text = String(validating: payloadBytes, as: UTF8.self) {
            payload = text
            payloadIsUTF8 = true
        } else {
            payload = String(payloadBytes.map { Character(Unicode.Scalar($0)) })
            payloadIsUTF8 = false
        }
        payloadBase64 = Data(payloadBytes).base64EncodedString()
        self.corners = corners
        boundingBox = BoundingBox(enclosing: corners)
        self.inverted = inverted
        self.quality = quality
    }

    /// The raw payload bytes.
    public var payloadBytes: [UInt8] { Data(base64Encoded: payloadBase64).map { [UInt8]($0) } ?? [] }
}

extension BarcodeObservation {
    /// Counts the codes, keeps their payloads for the report (at most 20, each cut to 300
    /// characters) and names the first three on the stderr line.
    public static func summary(of codes: [BarcodeObservation]) -> ResultSummary {
        let named = codes.prefix(3).map { "\($0.symbology) \"\(MarkupEscaping.label($0.payload, limit: 30))\"" }
        var summary = ResultSummary(count: codes.count, phrase: "\(codes.count) barcode(s)"
            + (named.isEmpty ? "" : " (" + named.joined(separator: ", ") + (codes.count > 3 ? ", …" : "") + ")"))
        summary.highlights = codes.prefix(20).map { "\($0.symbology): " + String($0.payload.prefix(300)) }
        return summary
    }
}
