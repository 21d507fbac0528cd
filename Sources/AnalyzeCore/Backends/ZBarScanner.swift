internal import CZBar

/// Scans with ZBar (`zbar_image_scanner_*`) for a set of symbologies.
///
/// Every scan gets a fresh ZBar image scanner: ZBar's decoders keep state from one image to the
/// next (DataBar segments, for video), so a scanner reused across images made an image's results
/// depend on the images before it — measured on the public barcode suite, 23 images gave other
/// JSON at `--jobs 1` than at `--jobs 2`. Creating and configuring a scanner costs microseconds.
/// ZBar reads the families it is good at: EAN/UPC (with EAN-2/5 add-ons), Code 128/39/93,
/// Interleaved 2 of 5, Codabar, QR and SQ codes. Its DataBar decoders are off: zxing-cpp reads
/// DataBar, and ZBar's invented DataBar Expanded values from photos of short codes and printed
/// `databar.c … Assertion failed` to the terminal. Its PDF417 decoder is unfinished (it never
/// returns data). EAN-13 is read as EAN-13 only (no UPC-A/ISBN renaming): names are given by
/// `BarcodeReading.canonical()`, the same for both engines.
/// Not thread-safe: one per worker thread.
final class ZBarScanner {
    let families: [BarcodeSymbology.Family]

    init(families: [BarcodeSymbology.Family]) throws(AnalysisError) {
        self.families = families
        // Fail at creation, not mid-batch, when ZBar cannot make a scanner.
        zbar_image_scanner_destroy(try makeScanner(density: 1))
    }

    /// A new ZBar scanner with exactly the requested symbologies and the scan-line density.
    private func makeScanner(density: Int) throws(AnalysisError) -> OpaquePointer {
        guard let scanner = zbar_image_scanner_create() else {
            throw AnalysisError(.engineUnavailable, "zbar_image_scanner_create failed")
        }
        // Start from nothing, then enable exactly the requested symbologies.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for family in families {
            for type in Self.types(of: family) { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1) }
        }
        // Keep 2-D payloads as raw bytes (no guessed text conversion): NULs and binary survive.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_SQCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
        let lines = readsOnlyWholeImageCodes ? 0 : Int32(density)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, lines)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, lines)
        return scanner
    }

    /// Whether every requested symbology is one ZBar reads from the whole image rather than from
    /// scan lines: its SQ code reader (`_zbar_sq_decode`) follows the code's border of dots from the
    /// image's first dark pixel, and the scan lines feed only the 1-D decoders and the QR finder.
    /// A scanner for SQ codes alone then scans no lines (density 0): the same readings, without
    /// the line scan that cost 12-20 ms on a photo's 1000-px copy.
    private var readsOnlyWholeImageCodes: Bool { families.allSatisfy { $0 == .sqCode } }

    /// Scans an 8-bit gray matrix (`zbar_scan_image` on a Y800 image) and returns its symbols.
    /// `density` is ZBar's scan-line spacing (1 = every row and column, 2 = every other one); a
    /// scanner for SQ codes alone scans no lines whatever it is.
    func scan(_ gray: OpenCVMat, pass: BarcodeReading.Pass, density: Int = 1) throws(AnalysisError) -> [BarcodeReading]
    {
        guard gray.channels == 1 else { throw AnalysisError(.engineFailed, "ZBar needs a gray image") }
        let scanner = try makeScanner(density: density)
        defer { zbar_image_scanner_destroy(scanner) }
        guard let image = zbar_image_create() else { throw AnalysisError(.engineFailed, "zbar_image_create failed") }
        defer { zbar_image_destroy(image) }
        let width = gray.width, height = gray.height
        return gray.withPixels { pixels, stride in
            // Y800 needs tightly packed rows; OpenCV's fresh matrices are continuous.
            guard stride == width else { return [] }
            zbar_image_set_format(image, 0x3030_3859)  // fourcc "Y800"
            zbar_image_set_size(image, UInt32(width), UInt32(height))
            zbar_image_set_data(image, UnsafeRawPointer(pixels), UInt(width * height), nil)
            let count = zbar_scan_image(scanner, image)
            guard count > 0 else { return [] }
            var results: [BarcodeReading] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                if let reading = Self.reading(from: current, pass: pass) { results.append(reading) }
                symbol = zbar_symbol_next(current)
            }
            // Detach our pixels before the image is destroyed.
            zbar_image_set_data(image, nil, 0, nil)
            return results
        }
    }

    private static func reading(from symbol: OpaquePointer, pass: BarcodeReading.Pass) -> BarcodeReading? {
        guard let symbology = symbology(zbar_symbol_get_type(symbol)) else { return nil }
        let quality = Int(zbar_symbol_get_quality(symbol))
        // A 1-D code read by a single scan line is more often texture than a code (ZBar reads
        // "CODE-39:T" in perforated metal): require two agreeing scan lines.
        if !symbology.isTwoDimensional && quality < minimumLinearQuality { return nil }
        let length = Int(zbar_symbol_get_data_length(symbol))
        var bytes: [UInt8] = []
        if length > 0, let data = zbar_symbol_get_data(symbol) {
            bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        }
        let pointCount = Int(zbar_symbol_get_loc_size(symbol))
        var points: [PixelPoint] = []
        for i in 0..<pointCount {
            points.append(
                PixelPoint(
                    x: Double(zbar_symbol_get_loc_x(symbol, UInt32(i))),
                    y: Double(zbar_symbol_get_loc_y(symbol, UInt32(i)))))
        }
        // 2-D codes give their four corners; 1-D codes give scan-line extents: use their box.
        let corners = pointCount == 4 && symbology.isTwoDimensional ? points : BoundingBox(enclosing: points).corners
        return BarcodeReading(
            symbology: symbology, bytes: bytes, text: nil, corners: corners, inverted: pass == .inverted,
            engine: .zbar, pass: pass, quality: quality)
    }

    /// Scan lines that must agree on a 1-D code before it is reported.
    static let minimumLinearQuality = 2

    /// ZBar's symbol types, named as `BarcodeReading.canonical()` expects them.
    private static let table: [(BarcodeSymbology, zbar_symbol_type_t)] = [
        (.ean8, ZBAR_EAN8), (.upce, ZBAR_UPCE), (.ean13, ZBAR_EAN13), (.ean2AddOn, ZBAR_EAN2), (.ean5AddOn, ZBAR_EAN5),
        (.i2of5, ZBAR_I25), (.codabar, ZBAR_CODABAR), (.code39, ZBAR_CODE39), (.code93, ZBAR_CODE93),
        (.code128, ZBAR_CODE128), (.qr, ZBAR_QRCODE), (.sqCode, ZBAR_SQCODE),
    ]

    /// The ZBar types read for a family (none for the families only zxing-cpp reads).
    static func types(of family: BarcodeSymbology.Family) -> [zbar_symbol_type_t] {
        switch family {
        case .eanUPC: [ZBAR_EAN8, ZBAR_UPCE, ZBAR_EAN13, ZBAR_EAN2, ZBAR_EAN5]
        case .itf: [ZBAR_I25]
        case .codabar: [ZBAR_CODABAR]
        case .code39: [ZBAR_CODE39]
        case .code93: [ZBAR_CODE93]
        case .code128: [ZBAR_CODE128]
        case .qr: [ZBAR_QRCODE]
        case .sqCode: [ZBAR_SQCODE]
        case .aztec, .dataMatrix, .pdf417, .maxiCode, .dataBar: []
        }
    }

    static func symbology(_ type: zbar_symbol_type_t) -> BarcodeSymbology? {
        table.first { $0.1 == type }?.0
    }
}

extension WorkerEngines {
    /// The worker's ZBar scanner for exactly these families.
    func barcodeScanner(for families: [BarcodeSymbology.Family]) throws(AnalysisError) -> ZBarScanner {
        try engine(ZBarScanner.self, for: families) { () throws(AnalysisError) in try ZBarScanner(families: families) }
    }
}
