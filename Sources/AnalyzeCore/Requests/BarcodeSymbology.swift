/// A barcode symbology, named as on the command line and in the JSON (`qr`, `ean13`, …).
public struct BarcodeSymbology: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static let ean8 = BarcodeSymbology(rawValue: "ean8")
    public static let upce = BarcodeSymbology(rawValue: "upce")
    public static let isbn10 = BarcodeSymbology(rawValue: "isbn10")
    public static let upca = BarcodeSymbology(rawValue: "upca")
    public static let ean13 = BarcodeSymbology(rawValue: "ean13")
    public static let isbn13 = BarcodeSymbology(rawValue: "isbn13")
    public static let ean2 = BarcodeSymbology(rawValue: "ean2")
    public static let ean5 = BarcodeSymbology(rawValue: "ean5")
    public static let i25 = BarcodeSymbology(rawValue: "i25")
    public static let databar = BarcodeSymbology(rawValue: "databar")
    public static let databarExpanded = BarcodeSymbology(rawValue: "databar-exp")
    public static let codabar = BarcodeSymbology(rawValue: "codabar")
    public static let code39 = BarcodeSymbology(rawValue: "code39")
    public static let code93 = BarcodeSymbology(rawValue: "code93")
    public static let code128 = BarcodeSymbology(rawValue: "code128")
    public static let pdf417 = BarcodeSymbology(rawValue: "pdf417")
    public static let qr = BarcodeSymbology(rawValue: "qr")
    public static let sqcode = BarcodeSymbology(rawValue: "sqcode")

    /// Every symbology ZBar can decode, in ZBar's type order. All are enabled by default.
    public static let all: [BarcodeSymbology] = [
        .ean8, .upce, .isbn10, .upca, .ean13, .isbn13, .ean2, .ean5, .i25, .databar, .databarExpanded,
        .codabar, .code39, .code93, .code128, .pdf417, .qr, .sqcode,
    ]

    /// Parses a command-line name, accepting common spellings (`QR`, `ean-13`, `EAN_13`, `code_128`…).
    public init?(name: String) {
        let folded = name.lowercased().filter { $0.isLetter || $0.isNumber }
        let aliases: [String: BarcodeSymbology] = [
            "qrcode": .qr, "upc": .upca, "upca": .upca, "upce": .upce, "itf": .i25, "interleaved2of5": .i25,
            "databarexp": .databarExpanded, "databarexpanded": .databarExpanded, "gs1databar": .databar,
        ]
        if let alias = aliases[folded] {
            self = alias
            return
        }
        guard let match = Self.all.first(where: { $0.rawValue.filter { $0.isLetter || $0.isNumber } == folded }) else {
            return nil
        }
        self = match
    }
}
