/// A barcode symbology, named as Vision's `VNBarcodeSymbology` names it where Vision has the
/// symbology (`qr`, `microQR`, `aztec`, `dataMatrix`, `pdf417`, `ean13`, `i2of5`, `gs1DataBar`…).
///
/// The name of a symbol depends only on the symbol, never on `--symbologies` or on the engine
/// that read it:
/// - an EAN-13 whose first digit is 0 is a UPC-A and is reported as `upca` with its 12 digits;
/// - an ISBN (EAN-13 starting 978/979) is an `ean13` (the old `isbn13`/`isbn10` names are aliases);
/// - an Interleaved 2 of 5 of 14 digits with a valid GS1 check digit is an `itf14`;
/// - Code 39 decoded as Full ASCII is `code39FullASCII`;
/// - stacked DataBar variants are `gs1DataBar`/`gs1DataBarExpanded`.
public struct BarcodeSymbology: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // 2-D (matrix and stacked) symbologies.
    public static let qr = BarcodeSymbology(rawValue: "qr")
    public static let microQR = BarcodeSymbology(rawValue: "microQR")
    public static let rMQR = BarcodeSymbology(rawValue: "rMQR")
    public static let aztec = BarcodeSymbology(rawValue: "aztec")
    public static let dataMatrix = BarcodeSymbology(rawValue: "dataMatrix")
    public static let pdf417 = BarcodeSymbology(rawValue: "pdf417")
    public static let microPDF417 = BarcodeSymbology(rawValue: "microPDF417")
    public static let maxiCode = BarcodeSymbology(rawValue: "maxiCode")
    public static let sqCode = BarcodeSymbology(rawValue: "sqCode")
    // 1-D symbologies.
    public static let ean8 = BarcodeSymbology(rawValue: "ean8")
    public static let ean13 = BarcodeSymbology(rawValue: "ean13")
    public static let upca = BarcodeSymbology(rawValue: "upca")
    public static let upce = BarcodeSymbology(rawValue: "upce")
    public static let code39 = BarcodeSymbology(rawValue: "code39")
    public static let code39FullASCII = BarcodeSymbology(rawValue: "code39FullASCII")
    public static let code93 = BarcodeSymbology(rawValue: "code93")
    public static let code128 = BarcodeSymbology(rawValue: "code128")
    public static let i2of5 = BarcodeSymbology(rawValue: "i2of5")
    public static let itf14 = BarcodeSymbology(rawValue: "itf14")
    public static let codabar = BarcodeSymbology(rawValue: "codabar")
    public static let gs1DataBar = BarcodeSymbology(rawValue: "gs1DataBar")
    public static let gs1DataBarExpanded = BarcodeSymbology(rawValue: "gs1DataBarExpanded")
    public static let gs1DataBarLimited = BarcodeSymbology(rawValue: "gs1DataBarLimited")

    /// Every symbology `analyze` reports. All are enabled by default.
    public static let all: [BarcodeSymbology] = [
        .qr, .microQR, .rMQR, .aztec, .dataMatrix, .pdf417, .microPDF417, .maxiCode, .sqCode,
        .ean8, .ean13, .upca, .upce, .code39, .code39FullASCII, .code93, .code128, .i2of5, .itf14, .codabar,
        .gs1DataBar, .gs1DataBarExpanded, .gs1DataBarLimited,
    ]

    /// The family a symbology belongs to: engines are configured per family, and two engines'
    /// readings of one place are compared within a family (a UPC-A read as an EAN-13 is one symbol).
    public enum Family: String, Sendable, Hashable, Comparable, CaseIterable {
        case qr, aztec, dataMatrix, pdf417, maxiCode, sqCode, eanUPC, code39, code93, code128, itf, codabar, dataBar
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    public var family: Family {
        switch self {
        case .qr, .microQR, .rMQR: .qr
        case .aztec: .aztec
        case .dataMatrix: .dataMatrix
        case .pdf417, .microPDF417: .pdf417
        case .maxiCode: .maxiCode
        case .sqCode: .sqCode
        case .code39, .code39FullASCII: .code39
        case .code93: .code93
        case .code128: .code128
        case .i2of5, .itf14: .itf
        case .codabar: .codabar
        case .gs1DataBar, .gs1DataBarExpanded, .gs1DataBarLimited: .dataBar
        default: .eanUPC
        }
    }

    /// 2-D symbologies: Reed–Solomon error correction, read at any angle.
    public var isTwoDimensional: Bool {
        switch family {
        case .qr, .aztec, .dataMatrix, .pdf417, .maxiCode, .sqCode: true
        default: false
        }
    }

    /// Whether every symbol of this symbology carries a check that a reader verifies (error
    /// correction, or a mandatory check digit): a single engine's reading is then self-checked.
    public var isSelfChecking: Bool {
        switch family {
        case .code39, .codabar, .itf: self == .itf14
        default: true
        }
    }

    /// Parses a command-line name into the symbologies it stands for, accepting Vision's names,
    /// common spellings (`QR`, `ean-13`, `EAN_13`, `code_128`) and the names used before
    /// `analyze` 0.3 (`i25`, `databar`, `databar-exp`, `isbn13`, `isbn10`, `sqcode`). A name can
    /// stand for several: `code39` includes its Full ASCII reading, `ean13` includes UPC-A (which
    /// is an EAN-13 starting with 0), `i2of5` includes ITF-14, `ean2`/`ean5` (add-ons, reported
    /// with their main symbol) stand for EAN/UPC.
    public static func named(_ name: String) -> [BarcodeSymbology]? {
        let folded = name.lowercased().filter { $0.isLetter || $0.isNumber }
        let aliases: [String: [BarcodeSymbology]] = [
            "qrcode": [.qr], "microqrcode": [.microQR], "rmqrcode": [.rMQR], "azteccode": [.aztec],
            "datamatrix": [.dataMatrix],
            "micropdf": [.microPDF417], "maxicode": [.maxiCode], "sqcode": [.sqCode],
            "upc": [.upca], "upca": [.upca], "ean13": [.ean13, .upca], "isbn": [.ean13], "isbn13": [.ean13],
            "isbn10": [.ean13],
            "ean2": [.ean13, .upca, .ean8, .upce], "ean5": [.ean13, .upca, .ean8, .upce],
            "code39": [.code39, .code39FullASCII], "code39extended": [.code39FullASCII],
            "i25": [.i2of5, .itf14], "itf": [.i2of5, .itf14], "i2of5": [.i2of5, .itf14],
            "interleaved2of5": [.i2of5, .itf14],
            "databar": [.gs1DataBar], "rss14": [.gs1DataBar], "databaromni": [.gs1DataBar],
            "databarexp": [.gs1DataBarExpanded], "databarexpanded": [.gs1DataBarExpanded],
            "rssexpanded": [.gs1DataBarExpanded],
            "databarlimited": [.gs1DataBarLimited], "databarltd": [.gs1DataBarLimited],
        ]
        if let alias = aliases[folded] { return alias }
        if let match = all.first(where: { $0.rawValue.lowercased().filter { $0.isLetter || $0.isNumber } == folded }) {
            return [match]
        }
        return nil
    }
}
