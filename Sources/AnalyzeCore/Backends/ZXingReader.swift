internal import CZXing

/// Reads barcodes with zxing-cpp 3.1.1 through its C API (`ZXing_ReadBarcodes`).
///
/// zxing-cpp keeps no state between calls: the same pixels give the same symbols whatever was
/// read before. It tries rotations, inversion and a downscaled pyramid itself (`tryHarder`,
/// `tryRotate`, `tryInvert`, `tryDownscale`), decodes ECI and the default character sets (Shift_JIS
/// in Japanese QR codes, ISO-8859-1…) into UTF-8 text, and validates every check digit it knows.
/// Not thread-safe: one per worker thread (the reader options are its only state).
final class ZXingReader {
    let families: [BarcodeSymbology.Family]
    private let options: OpaquePointer

    init(families: [BarcodeSymbology.Family]) throws(AnalysisError) {
        self.families = families
        guard let options = ZXing_ReaderOptions_new() else {
            throw AnalysisError(.engineUnavailable, "zxing-cpp: ZXing_ReaderOptions_new failed")
        }
        self.options = options
        var formats = Self.formats(for: families)
        ZXing_ReaderOptions_setFormats(options, &formats, Int32(formats.count))
        ZXing_ReaderOptions_setTryHarder(options, true)
        ZXing_ReaderOptions_setTryRotate(options, true)
        ZXing_ReaderOptions_setTryInvert(options, true)
        ZXing_ReaderOptions_setTryDownscale(options, true)
        // EAN-2/EAN-5 add-ons only as part of the EAN/UPC symbol they sit beside, never on their own.
        ZXing_ReaderOptions_setEanAddOnSymbol(options, ZXing_EanAddOnSymbol_Read)
        ZXing_ReaderOptions_setTextMode(options, ZXing_TextMode_Plain)
        ZXing_ReaderOptions_setReturnErrors(options, false)
        ZXing_ReaderOptions_setMaxNumberOfSymbols(options, Int32(Self.maximumSymbols))
    }

    deinit { ZXing_ReaderOptions_delete(options) }

    /// At most this many symbols are read from one image.
    static let maximumSymbols = 255

    /// zxing-cpp refuses images with a side over this.
    static let maximumSide = 65_535

    /// Reads every symbol in an 8-bit gray matrix. Coordinates are pixels of that matrix. A matrix with
    /// a side over ``maximumSide`` (a 100,000-px strip) is read shrunk to fit, its symbols mapped back.
    func read(_ gray: OpenCVMat) throws(AnalysisError) -> [BarcodeReading] {
        guard gray.channels == 1, gray.width > 0, gray.height > 0 else {
            throw AnalysisError(.engineFailed, "zxing-cpp needs a gray image")
        }
        if max(gray.width, gray.height) > Self.maximumSide {
            let scale = Double(Self.maximumSide) / Double(max(gray.width, gray.height))
            let fitted = try gray.resized(
                width: max(1, min(Self.maximumSide, Int(Double(gray.width) * scale))),
                height: max(1, min(Self.maximumSide, Int(Double(gray.height) * scale))))
            let back = Affine.scale(
                x: Double(gray.width) / Double(fitted.width), y: Double(gray.height) / Double(fitted.height))
            return try read(fitted).map { $0.mapped(through: back) }
        }
        let width = gray.width, height = gray.height
        let outcome: Result<[BarcodeReading], AnalysisError> = gray.withPixels { pixels, stride in
            guard
                let view = ZXing_ImageView_new_checked(
                    pixels, Int32(stride * height), Int32(width), Int32(height),
                    ZXing_ImageFormat_Lum, Int32(stride), 1)
            else {
                return .failure(AnalysisError(.engineFailed, "zxing-cpp: " + Self.lastError()))
            }
            defer { ZXing_ImageView_delete(view) }
            guard let barcodes = ZXing_ReadBarcodes(view, options) else {
                return .failure(AnalysisError(.engineFailed, "zxing-cpp: " + Self.lastError()))
            }
            defer { ZXing_Barcodes_delete(barcodes) }
            var readings: [BarcodeReading] = []
            for index in 0..<ZXing_Barcodes_size(barcodes) {
                guard let barcode = ZXing_Barcodes_at(barcodes, index), ZXing_Barcode_isValid(barcode),
                    let reading = Self.reading(from: barcode)
                else { continue }
                readings.append(reading)
            }
            return .success(readings)
        }
        return try outcome.get()
    }

    private static func reading(from barcode: OpaquePointer) -> BarcodeReading? {
        guard let symbology = symbology(ZXing_Barcode_format(barcode)) else { return nil }
        var length: Int32 = 0
        var bytes: [UInt8] = []
        if let data = ZXing_Barcode_bytes(barcode, &length) {
            bytes = Array(UnsafeBufferPointer(start: data, count: max(0, Int(length))))
            ZXing_free(data)
        }
        let text = takeString(ZXing_Barcode_text(barcode)) ?? ""
        let position = ZXing_Barcode_position(barcode)
        let corners = [position.topLeft, position.topRight, position.bottomRight, position.bottomLeft]
            .map { PixelPoint(x: Double($0.x), y: Double($0.y)) }
        let binary = ZXing_Barcode_contentType(barcode) == ZXing_ContentType_Binary
        return BarcodeReading(
            symbology: symbology, bytes: bytes, text: binary ? nil : text, corners: corners,
            inverted: ZXing_Barcode_isInverted(barcode), engine: .zxing, pass: .primary, quality: 0,
            version: extra(barcode, "Version"), errorCorrectionLevel: extra(barcode, "ECLevel"),
            unusedErrorCorrection: extra(barcode, "UEC").flatMap(Double.init))
    }

    /// One of the symbol's extra properties (`ZXing_Barcode_extra`), nil when it has none of that name.
    private static func extra(_ barcode: OpaquePointer, _ key: String) -> String? {
        guard let value = takeString(ZXing_Barcode_extra(barcode, key)), !value.isEmpty else { return nil }
        return value
    }

    /// A string zxing-cpp allocated, copied (invalid UTF-8 repaired) and freed.
    private static func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { ZXing_free(pointer) }
        return String(cString: pointer)
    }

    private static func lastError() -> String { takeString(ZXing_LastErrorMsg()) ?? "unknown error" }

    /// zxing-cpp's variants, as the symbologies ``BarcodeSymbology`` names (Vision's names).
    private static let variants: [(ZXing_BarcodeFormat, BarcodeSymbology)] = [
        (ZXing_BarcodeFormat_Codabar, .codabar),
        (ZXing_BarcodeFormat_Code39, .code39), (ZXing_BarcodeFormat_Code39Std, .code39),
        (ZXing_BarcodeFormat_Code39Ext, .code39FullASCII),
        (ZXing_BarcodeFormat_Code93, .code93), (ZXing_BarcodeFormat_Code128, .code128),
        (ZXing_BarcodeFormat_ITF, .i2of5), (ZXing_BarcodeFormat_ITF14, .itf14),
        (ZXing_BarcodeFormat_DataBar, .gs1DataBar), (ZXing_BarcodeFormat_DataBarOmni, .gs1DataBar),
        (ZXing_BarcodeFormat_DataBarStk, .gs1DataBar), (ZXing_BarcodeFormat_DataBarStkOmni, .gs1DataBar),
        (ZXing_BarcodeFormat_DataBarLtd, .gs1DataBarLimited),
        (ZXing_BarcodeFormat_DataBarExp, .gs1DataBarExpanded), (ZXing_BarcodeFormat_DataBarExpStk, .gs1DataBarExpanded),
        (ZXing_BarcodeFormat_EAN13, .ean13), (ZXing_BarcodeFormat_ISBN, .ean13), (ZXing_BarcodeFormat_EAN8, .ean8),
        (ZXing_BarcodeFormat_UPCA, .upca), (ZXing_BarcodeFormat_UPCE, .upce),
        (ZXing_BarcodeFormat_PDF417, .pdf417), (ZXing_BarcodeFormat_CompactPDF417, .pdf417),
        (ZXing_BarcodeFormat_MicroPDF417, .microPDF417),
        (ZXing_BarcodeFormat_Aztec, .aztec), (ZXing_BarcodeFormat_AztecCode, .aztec),
        (ZXing_BarcodeFormat_AztecRune, .aztec),
        (ZXing_BarcodeFormat_QRCode, .qr), (ZXing_BarcodeFormat_QRCodeModel1, .qr),
        (ZXing_BarcodeFormat_QRCodeModel2, .qr),
        (ZXing_BarcodeFormat_MicroQRCode, .microQR), (ZXing_BarcodeFormat_RMQRCode, .rMQR),
        (ZXing_BarcodeFormat_DataMatrix, .dataMatrix), (ZXing_BarcodeFormat_MaxiCode, .maxiCode),
    ]

    static func symbology(_ format: ZXing_BarcodeFormat) -> BarcodeSymbology? {
        variants.first { $0.0 == format }?.1
    }

    /// The zxing-cpp formats to ask for: the variants of the requested families. Add-ons (EAN-2/5)
    /// come with EAN/UPC; variants outside Vision's list (Telepen, DX film edge, Code 32, PZN) are
    /// never asked for.
    static func formats(for families: [BarcodeSymbology.Family]) -> [ZXing_BarcodeFormat] {
        let wanted = Set(families)
        var formats: [ZXing_BarcodeFormat] = []
        for (format, symbology) in variants where wanted.contains(symbology.family) && !formats.contains(format) {
            formats.append(format)
        }
        return formats
    }
}

extension WorkerEngines {
    /// The worker's zxing-cpp reader for exactly these families.
    func zxingReader(for families: [BarcodeSymbology.Family]) throws(AnalysisError) -> ZXingReader {
        try engine(ZXingReader.self, for: families) { () throws(AnalysisError) in try ZXingReader(families: families) }
    }
}
