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

    var boundingBox: BoundingBox { BoundingBox(enclosing: corners) }

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
