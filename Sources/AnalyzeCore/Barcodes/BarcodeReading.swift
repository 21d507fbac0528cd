/// One engine's reading of one symbol, before the engines' readings are fused into
/// ``BarcodeObservation``s. Coordinates are pixels of the image the engine was given until
/// ``mapped(through:)`` takes them back into the upright image.
struct BarcodeReading: Sendable {
    enum Engine: String, Sendable, Comparable {
        case zbar, zxing
        static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    /// Which scan found it: the image as it is, or one of ZBar's extra passes (the inverted copy,
    /// the copy turned by 45°), whose readings are verified before they are reported.
    enum Pass: Sendable { case primary, inverted, rotated }

    var symbology: BarcodeSymbology
    /// The payload bytes exactly as encoded (no ECI designators).
    var bytes: [UInt8]
    /// The payload as Unicode text when the engine decoded it (zxing-cpp: ECI and the default
    /// character sets applied); nil for binary content or when the engine gives only bytes.
    var text: String?
    var corners: [PixelPoint]
    var inverted: Bool
    var engine: Engine
    var pass: Pass
    /// ZBar's quality (scan lines that agreed); 0 for zxing-cpp.
    var quality: Int
    /// What zxing-cpp reports of a Reed–Solomon symbol's error correction: its version as zxing-cpp
    /// names it ("1"…"40", "M1"…"M4", "R7x43", "12x12"), its level ("L", "M", "Q", "H") and the
    /// share of its error-correction codewords left unused (1: no error corrected); nil when not
    /// reported (ZBar, 1-D codes).
    var version: String? = nil
    var errorCorrectionLevel: String? = nil
    var unusedErrorCorrection: Double? = nil

    var boundingBox: BoundingBox { BoundingBox(enclosing: corners) }

    /// The length of the outline's longest side, in pixels (a 2-D symbol's size).
    var longestSide: Double {
        corners.indices.map { i in
            let a = corners[i], b = corners[(i + 1) % corners.count]
            return ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
        }.max() ?? 0
    }

    /// Modules across the symbol's longer side, from zxing-cpp's version name (QR, Micro QR, rMQR,
    /// Data Matrix); nil for other symbologies or when not reported.
    var moduleCount: Int? {
        guard let version else { return nil }
        switch symbology {
        case .qr: return Int(version).map { 17 + 4 * $0 }
        case .microQR: return Int(version.dropFirst()).map { 9 + 2 * $0 }
        case .rMQR, .dataMatrix:
            // "R7x43", "12x36": the larger of the two numbers.
            return version.split { !$0.isASCIIDigit }.compactMap { Int($0) }.max()
        default: return nil
        }
    }

    /// The payload bytes as ASCII digits, when they are all digits.
    var digits: [Int]? { Self.digits(of: bytes) }

    /// The main symbol's digits (before an EAN/UPC add-on), when they are all digits.
    var mainDigits: [Int]? { Self.digits(of: mainBytes) }

    static func digits(of bytes: [UInt8]) -> [Int]? {
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return bytes.map { Int($0) - 0x30 }
    }

    /// The reading with its stable symbology name (see ``BarcodeSymbology``): an EAN-13 starting
    /// with 0 becomes a 12-digit UPC-A, a 14-digit Interleaved 2 of 5 with a valid GS1 check digit
    /// becomes an ITF-14.
    func canonical() -> BarcodeReading {
        var reading = self.separatingAddOn()
        let bytes = reading.bytes, text = reading.text
        if reading.symbology == .ean13, reading.mainBytes.count == 13, reading.mainBytes.first == 0x30 {
            reading.symbology = .upca
            reading.bytes = Array(bytes.dropFirst())
            reading.text = text.map { String($0.dropFirst()) }
        } else if reading.symbology == .i2of5, let digits = reading.digits, digits.count == 14,
            BarcodeValidation.gs1CheckDigitIsValid(digits)
        {
            reading.symbology = .itf14
        }
        return reading
    }

    /// The main symbol's length for EAN/UPC symbologies.
    var mainLength: Int? {
        switch symbology {
        case .ean13: 13
        case .upca: 12
        case .ean8, .upce: 8
        default: nil
        }
    }

    /// zxing-cpp appends an add-on's digits to the main symbol's; ZBar's are attached after a
    /// space (`BarcodeFusion.attachingAddOns`): the reading with the space, like ZBar's.
    func separatingAddOn() -> BarcodeReading {
        guard let mainLength, let digits, [2, 5].contains(digits.count - mainLength) else { return self }
        var reading = self
        reading.bytes = Array(bytes[..<mainLength]) + [0x20] + Array(bytes[mainLength...])
        reading.text = String(decoding: reading.bytes, as: UTF8.self)
        return reading
    }

    /// The main symbol's bytes (before an add-on).
    var mainBytes: [UInt8] {
        Array(bytes.split(separator: 0x20, maxSplits: 1, omittingEmptySubsequences: false).first ?? [])
    }

    /// The reading with its corners mapped through a 2×3 affine matrix (row-major).
    func mapped(through affine: [Double]) -> BarcodeReading {
        var reading = self
        reading.corners = corners.map { $0.applying(affine) }
        return reading
    }
}
