import Foundation

/// The structure checks that settle what a single engine read and what two engines disagree on:
/// check digits and GS1 element strings. A reading that fails them is not reported.
enum BarcodeValidation {
    /// GS1's modulo-10 check (EAN-8/13, UPC-A, ITF-14, the GTIN in DataBar): weights 3 and 1 from
    /// the right, the last digit being the check digit.
    static func gs1CheckDigitIsValid(_ digits: [Int]) -> Bool {
        guard digits.count >= 2, let check = digits.last else { return false }
        var sum = 0
        for (offset, digit) in digits.dropLast().reversed().enumerated() {
            sum += digit * (offset % 2 == 0 ? 3 : 1)
        }
        return (10 - sum % 10) % 10 == check
    }

    /// UPC-E's 8 digits (number system, 6 digits, check) expanded to UPC-A's 12.
    static func expandUPCE(_ digits: [Int]) -> [Int]? {
        guard digits.count == 8, digits[0] <= 1 else { return nil }
        let d = Array(digits[1...6])
        let body: [Int]
        switch d[5] {
        case 0, 1, 2: body = [d[0], d[1], d[5], 0, 0, 0, 0, d[2], d[3], d[4]]
        case 3: body = [d[0], d[1], d[2], 0, 0, 0, 0, 0, d[3], d[4]]
        case 4: body = [d[0], d[1], d[2], d[3], 0, 0, 0, 0, 0, d[4]]
        default: body = [d[0], d[1], d[2], d[3], d[4], 0, 0, 0, 0, d[5]]
        }
        return [digits[0]] + body + [digits[7]]
    }

    /// The fewest modules a symbol of a 1-D symbology spans along its bars (quiet zones excluded).
    static func minimumModules(_ symbology: BarcodeSymbology) -> Int? {
        switch symbology {
        case .ean13, .upca: 95
        case .ean8: 67
        case .upce: 51
        case .code128: 35
        case .code93: 37
        case .code39, .code39FullASCII: 38
        case .i2of5, .itf14: 50
        case .codabar: 30
        default: nil
        }
    }

    /// Whether a ZBar 1-D reading spans enough pixels along its scan lines to be that symbology
    /// at one pixel per module (80% of it, for blur): ZBar reads UPC-E from an 8-pixel stretch of
    /// a column of a photo otherwise.
    static func hasPlausibleExtent(_ reading: BarcodeReading) -> Bool {
        guard reading.engine == .zbar, let modules = minimumModules(reading.symbology) else { return true }
        let box = reading.boundingBox
        return max(box.width, box.height) >= 0.8 * Double(modules)
    }

    /// The error-correction codewords ISO/IEC 18004 (Table 9) keeps back in the smallest QR and Micro QR
    /// symbols to detect a wrong correction instead of correcting more, by zxing-cpp's version and
    /// level names: (codewords kept back, error-correction codewords in the symbol's one block). An M1
    /// symbol's two are all kept back: it detects errors and corrects none.
    static let misdecodeProtection: [String: (reserved: Int, total: Int)] = [
        "1-L": (3, 7), "1-M": (2, 10), "1-Q": (1, 13), "1-H": (1, 17), "2-L": (2, 10), "3-L": (1, 15),
        "M1-L": (2, 2), "M2-L": (1, 5), "M3-L": (2, 6), "M4-L": (2, 8),
    ]

    /// Whether a QR or Micro QR reading left the codewords its symbol keeps back for misdecode
    /// protection unused. zxing-cpp corrects with all of them: a reading that needed them is a
    /// symbol with more errors than it may correct, or none at all (a QR code's finder pattern and
    /// the modules beside it decoded as an M1 symbol with one "corrected" error).
    static func keepsMisdecodeProtection(_ reading: BarcodeReading) -> Bool {
        guard reading.symbology.family == .qr, let version = reading.version,
            let level = reading.errorCorrectionLevel, let unused = reading.unusedErrorCorrection,
            let (reserved, total) = misdecodeProtection["\(version)-\(level)"]
        else { return true }
        // zxing-cpp's share is 1 - used / total, two codewords used for each error corrected.
        return (unused * Double(total)).rounded() >= Double(reserved)
    }

    /// Whether a reading passes its symbology's structure: check digits for EAN/UPC/ITF-14, the
    /// GTIN check digit for DataBar, element strings for DataBar Expanded. Symbologies whose
    /// decoders verify their own checks (2-D codes, Code 128, Code 93) pass.
    static func isValid(_ reading: BarcodeReading) -> Bool {
        let digits = reading.mainDigits
        switch reading.symbology {
        case .ean13: return digits?.count == 13 && gs1CheckDigitIsValid(digits ?? [])
        case .upca: return digits?.count == 12 && gs1CheckDigitIsValid(digits ?? [])
        case .ean8: return digits?.count == 8 && gs1CheckDigitIsValid(digits ?? [])
        case .upce: return digits.flatMap(expandUPCE).map(gs1CheckDigitIsValid) ?? false
        case .itf14: return digits?.count == 14 && gs1CheckDigitIsValid(digits ?? [])
        case .i2of5: return digits.map { $0.count >= 6 && $0.count % 2 == 0 } ?? false
        case .gs1DataBar, .gs1DataBarLimited:
            // The GTIN-14, with or without its "01" application identifier.
            guard let digits else { return false }
            let gtin = digits.count == 16 && digits.prefix(2) == [0, 1] ? Array(digits.dropFirst(2)) : digits
            return gtin.count == 14 && gs1CheckDigitIsValid(gtin)
        case .gs1DataBarExpanded:
            // zxing-cpp verifies DataBar Expanded's check character; its element strings are only
            // checked for a known first AI and GTIN check digits (test symbols carry values longer
            // than GS1 allows). Another engine's must be a valid element string.
            return reading.engine == .zxing
                ? GS1ElementString.isPlausible(reading.bytes) : GS1ElementString.isValid(reading.bytes)
        default: return !reading.bytes.isEmpty || !(reading.text ?? "").isEmpty
        }
    }
}

/// GS1 element strings (`01…3103…` with GS separators): each application identifier known, each
/// value of the length and character set it must have, GTINs with a valid check digit. Used to
/// refuse DataBar Expanded readings that are bars of other codes decoded as garbage.
enum GS1ElementString {
    /// (prefix, AI length, fixed data length or nil for variable up to `maximum`, maximum, numeric only).
    private static let table: [(String, Int, Int?, Int, Bool)] = [
        ("00", 2, 18, 18, true), ("01", 2, 14, 14, true), ("02", 2, 14, 14, true), ("10", 2, nil, 20, false),
        ("11", 2, 6, 6, true), ("12", 2, 6, 6, true), ("13", 2, 6, 6, true), ("15", 2, 6, 6, true),
        ("16", 2, 6, 6, true),
        ("17", 2, 6, 6, true), ("20", 2, 2, 2, true), ("21", 2, nil, 20, false), ("22", 2, nil, 20, false),
        ("235", 3, nil, 28, false), ("240", 3, nil, 30, false), ("241", 3, nil, 30, false), ("242", 3, nil, 6, true),
        ("250", 3, nil, 30, false), ("251", 3, nil, 30, false), ("253", 3, nil, 30, false), ("254", 3, nil, 20, false),
        ("255", 3, nil, 25, true), ("30", 2, nil, 8, true), ("37", 2, nil, 8, true),
        ("31", 4, 6, 6, true), ("32", 4, 6, 6, true), ("33", 4, 6, 6, true), ("34", 4, 6, 6, true),
        ("35", 4, 6, 6, true),
        ("36", 4, 6, 6, true), ("390", 4, nil, 15, true), ("391", 4, nil, 18, true), ("392", 4, nil, 15, true),
        ("393", 4, nil, 18, true), ("394", 4, 4, 4, true), ("400", 3, nil, 30, false), ("401", 3, nil, 30, false),
        ("402", 3, 17, 17, true), ("403", 3, nil, 30, false), ("41", 3, 13, 13, true), ("420", 3, nil, 20, false),
        ("421", 3, nil, 12, false), ("422", 3, 3, 3, true), ("423", 3, nil, 15, true), ("424", 3, 3, 3, true),
        ("425", 3, nil, 15, true), ("426", 3, 3, 3, true), ("7", 4, nil, 30, false), ("8", 4, nil, 70, false),
        ("9", 2, nil, 90, false),
    ]

    /// The bare form: a parenthesised "(01)…(3103)…" loses its parentheses (GS separators between fields).
    private static func bare(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("(") {
            text = text.replacingOccurrences(of: ")", with: "").replacingOccurrences(of: "(", with: "\u{1D}")
            text.removeFirst()
        }
        return text
    }

    /// Starts with a known application identifier; a leading (01) GTIN has a valid check digit.
    static func isPlausible(_ bytes: [UInt8]) -> Bool {
        let text = Substring(bare(bytes))
        guard table.contains(where: { text.hasPrefix($0.0) }) else { return false }
        if text.hasPrefix("01") {
            return GTIN(text.dropFirst(2).prefix(14)).isValid
        }
        return true
    }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        var rest = Substring(bare(bytes))
        guard !rest.isEmpty else { return false }
        while !rest.isEmpty {
            guard let (_, aiLength, fixed, maximum, numeric) = table.first(where: { rest.hasPrefix($0.0) }),
                rest.count > aiLength
            else { return false }
            let ai = rest.prefix(aiLength)
            guard ai.allSatisfy(\.isASCIIDigit) else { return false }
            rest = rest.dropFirst(aiLength)
            let value: Substring
            if let fixed {
                guard rest.count >= fixed else { return false }
                value = rest.prefix(fixed)
                rest = rest.dropFirst(fixed)
            } else {
                let end = rest.firstIndex(of: "\u{1D}") ?? rest.endIndex
                value = rest[rest.startIndex..<end]
                rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
            }
            guard !value.isEmpty, value.count <= maximum,
                value.allSatisfy({ $0.isASCII && !$0.isNewline && $0 != "\u{1D}" })
            else { return false }
            if numeric && !value.allSatisfy(\.isASCIIDigit) { return false }
            if ai == "01" || ai == "02" {
                guard GTIN(value).isValid else { return false }
            }
            if rest.first == "\u{1D}" { rest = rest.dropFirst() }
        }
        return true
    }

    private struct GTIN {
        let digits: [Int]
        init(_ value: Substring) { digits = value.compactMap { $0.wholeNumberValue } }
        var isValid: Bool { digits.count == 14 && BarcodeValidation.gs1CheckDigitIsValid(digits) }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
