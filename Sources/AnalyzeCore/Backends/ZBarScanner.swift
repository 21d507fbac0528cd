internal import CZBar

/// Scans with ZBar (`zbar_image_scanner_*`) for a set of symbologies.
///
/// Every scan gets a fresh ZBar image scanner: ZBar's decoders keep state from one image to the
/// next (DataBar segments, for video), so a scanner reused across images made an image's results
/// depend on the images before it — measured on the public barcode suite, 23 images gave other
/// JSON at `--jobs 1` than at `--jobs 2`. Creating and configuring a scanner costs microseconds.
/// Not thread-safe: one per worker thread.
final class ZBarScanner {
    let symbologies: [BarcodeSymbology]

    init(symbologies: [BarcodeSymbology]) throws(AnalysisError) {
        self.symbologies = symbologies
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
        for symbology in symbologies {
            guard let type = Self.zbarType(symbology) else { continue }
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, 1)
        }
        // Keep 2-D payloads as raw bytes (no guessed text conversion): NULs and binary survive.
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_SQCODE, ZBAR_CFG_BINARY, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(density))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(density))
        return scanner
    }

    /// Scans an 8-bit gray matrix (`zbar_scan_image` on a Y800 image) and returns its symbols.
    /// `density` is ZBar's scan-line spacing (1 = every row and column, 2 = every other one).
    func scan(_ gray: OpenCVMat, inverted: Bool, density: Int = 1) throws(AnalysisError) -> [BarcodeObservation] {
        guard gray.channels == 1 else { throw AnalysisError(.engineFailed, "ZBar needs a gray image") }
        let scanner = try makeScanner(density: density)
        defer { zbar_image_scanner_destroy(scanner) }
        guard let image = zbar_image_create() else { throw AnalysisError(.engineFailed, "zbar_image_create failed") }
        defer { zbar_image_destroy(image) }
        let width = gray.width, height = gray.height
        return gray.withPixels { pixels, stride in
            // Y800 needs tightly packed rows; OpenCV's fresh matrices are continuous.
            guard stride == width else { return [] }
            zbar_image_set_format(image, 0x3030_3859) // fourcc "Y800"
            zbar_image_set_size(image, UInt32(width), UInt32(height))
            zbar_image_set_data(image, UnsafeRawPointer(pixels), UInt(width * height), nil)
            let count = zbar_scan_image(scanner, image)
            guard count > 0 else { return [] }
            var results: [BarcodeObservation] = []
            var symbol = zbar_image_first_symbol(image)
            while let current = symbol {
                if let observation = Self.observation(from: current, inverted: inverted) { results.append(observation) }
                symbol = zbar_symbol_next(current)
            }
            // Detach our pixels before the image is destroyed.
            zbar_image_set_data(image, nil, 0, nil)
            return results
        }
    }

    private static func observation(from symbol: OpaquePointer, inverted: Bool) -> BarcodeObservation? {
        guard let symbology = symbology(zbar_symbol_get_type(symbol)) else { return nil }
        let quality = Int(zbar_symbol_get_quality(symbol))
        // A 1-D code read by a single scan line is more often texture than a code (ZBar reads
        // "CODE-39:T" in perforated metal): require two agreeing scan lines.
        if symbology != .qr && symbology != .sqcode && quality < minimumLinearQuality { return nil }
        let length = Int(zbar_symbol_get_data_length(symbol))
        var bytes: [UInt8] = []
        if length > 0, let data = zbar_symbol_get_data(symbol) {
            bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
        }
        let pointCount = Int(zbar_symbol_get_loc_size(symbol))
        var points: [PixelPoint] = []
        for i in 0 ..< pointCount {
            points.append(PixelPoint(x: Double(zbar_symbol_get_loc_x(symbol, UInt32(i))), y: Double(zbar_symbol_get_loc_y(symbol, UInt32(i)))))
        }
        // 2-D codes give their four corners; 1-D codes give scan-line extents: use their box.
        let corners = pointCount == 4 && (symbology == .qr || symbology == .sqcode) ? points : BoundingBox(enclosing: points).corners
        return BarcodeObservation(symbology: symbology, payloadBytes: bytes, corners: corners, inverted: inverted,
                                  quality: quality)
    }

    /// Scan lines that must agree on a 1-D code before it is reported.
    static let minimumLinearQuality = 2

    private static let table: [(BarcodeSymbology, zbar_symbol_type_t)] = [
        (.ean8, ZBAR_EAN8), (.upce, ZBAR_UPCE), (.isbn10, ZBAR_ISBN10), (.upca, ZBAR_UPCA), (.ean13, ZBAR_EAN13),
        (.isbn13, ZBAR_ISBN13), (.ean2, ZBAR_EAN2), (.ean5, ZBAR_EAN5), (.i25, ZBAR_I25), (.databar, ZBAR_DATABAR),
        (.databarExpanded, ZBAR_DATABAR_EXP), (.codabar, ZBAR_CODABAR), (.code39, ZBAR_CODE39), (.code93, ZBAR_CODE93),
        (.code128, ZBAR_CODE128), (.pdf417, ZBAR_PDF417), (.qr, ZBAR_QRCODE), (.sqcode, ZBAR_SQCODE),
    ]

    static func zbarType(_ symbology: BarcodeSymbology) -> zbar_symbol_type_t? {
        table.first { $0.0 == symbology }?.1
    }

    static func symbology(_ type: zbar_symbol_type_t) -> BarcodeSymbology? {
        table.first { $0.1 == type }?.0
    }
}

extension WorkerEngines {
    /// The worker's ZBar scanner for exactly these symbologies.
    func barcodeScanner(for symbologies: [BarcodeSymbology]) throws(AnalysisError) -> ZBarScanner {
        try engine(ZBarScanner.self, for: symbologies) { () throws(AnalysisError) in try ZBarScanner(symbologies: symbologies) }
    }
}
