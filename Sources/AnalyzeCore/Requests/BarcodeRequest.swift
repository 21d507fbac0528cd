/// Detects and decodes barcodes with ZBar (like `VNDetectBarcodesRequest`).
///
/// Every symbology is enabled unless `symbologies` restricts them. Each image is scanned as it is
/// and inverted, so light-on-dark codes decode without a flag; when neither pass finds anything,
/// the image is scanned again turned by 45° for 1-D codes, so codes at diagonal angles are read
/// too (ZBar reads 1-D codes only along rows and columns). The extra passes run on a copy of at
/// most ``secondaryPassMaximumSide`` pixels.
public struct BarcodeRequest: ImageRequest {
    public static let kind = ObservationKind.barcodes
    public static let kindAliases = ["barcode"]

    /// The symbologies to decode (Vision's `symbologies`).
    public var symbologies: [BarcodeSymbology]
    /// Also scan the inverted image (light-on-dark codes).
    public var tryInverted: Bool
    /// Also scan a 45°-rotated copy when nothing was found upright.
    public var tryRotated: Bool

    public init() { self.init(symbologies: BarcodeSymbology.all) }

    public init(symbologies: [BarcodeSymbology] = BarcodeSymbology.all, tryInverted: Bool = true, tryRotated: Bool = true) {
        self.symbologies = symbologies
        self.tryInverted = tryInverted
        self.tryRotated = tryRotated
    }

    /// The extra passes (inverted, rotated) run on a copy at most this many pixels on its longer
    /// side: codes that are only found there are large, and a 45°-rotated canvas of a 12 MP scan
    /// would be 24 MP. Coordinates are mapped back exactly.
    public static let secondaryPassMaximumSide = 1000
    /// Images larger than this (1.5 MP) are scanned on every other row and column: codes in
    /// them span enough lines that halving the scan loses none (checked on the corpus against
    /// zbarimg), and the scan costs half.
    public static let denseScanMaximumPixels = 1_500_000

    /// Scan-line spacing of the extra passes (every other row and column).
    public static let secondaryPassDensity = 2

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [BarcodeObservation] {
        let scanner = try engines.barcodeScanner(for: symbologies)
        let gray = try image.gray()
        let primaryDensity = gray.width * gray.height > Self.denseScanMaximumPixels ? 2 : 1
        var found = try scanner.scan(gray, inverted: false, density: primaryDensity)
        guard tryInverted || tryRotated else { return found.sortedForOutput() }

        let (small, scale) = try Self.limited(gray, maximumSide: Self.secondaryPassMaximumSide)
        let toImage = [1 / scale, 0, 0, 0, 1 / scale, 0]
        if tryInverted {
            found.merge(try scanner.scan(try small.inverted(), inverted: true, density: Self.secondaryPassDensity).mapped(through: toImage))
        }
        // 2-D codes are found at any angle already; only 1-D codes need the turned copy.
        let linear = symbologies.filter { !Self.twoDimensional.contains($0) }
        if found.isEmpty && tryRotated && !linear.isEmpty {
            let linearScanner = try engines.barcodeScanner(for: linear)
            let (rotated, inverse) = try small.rotated(byDegrees: 45, fill: 255)
            found.merge(try linearScanner.scan(rotated, inverted: false, density: Self.secondaryPassDensity).mapped(through: Self.compose(toImage, inverse)))
        }
        return found.sortedForOutput()
    }

    /// Symbologies whose decoders already handle any rotation.
    static let twoDimensional: Set<BarcodeSymbology> = [.qr, .sqcode, .pdf417]

    /// The image itself when it is small enough, else a copy scaled to `maximumSide`, with the scale.
    static func limited(_ gray: OpenCVMat, maximumSide: Int) throws(AnalysisError) -> (OpenCVMat, Double) {
        let side = max(gray.width, gray.height)
        guard side > maximumSide else { return (gray, 1) }
        let scale = Double(maximumSide) / Double(side)
        let w = max(1, Int((Double(gray.width) * scale).rounded())), h = max(1, Int((Double(gray.height) * scale).rounded()))
        return (try gray.resized(width: w, height: h), Double(w) / Double(gray.width))
    }

    /// The affine map `outer ∘ inner` (apply `inner`, then `outer`), both 2×3 row-major.
    static func compose(_ outer: [Double], _ inner: [Double]) -> [Double] {
        [outer[0] * inner[0] + outer[1] * inner[3], outer[0] * inner[1] + outer[1] * inner[4], outer[0] * inner[2] + outer[1] * inner[5] + outer[2],
         outer[3] * inner[0] + outer[4] * inner[3], outer[3] * inner[1] + outer[4] * inner[4], outer[3] * inner[2] + outer[4] * inner[5] + outer[5]]
    }
}

extension [BarcodeObservation] {
    /// Adds the symbols of another pass, dropping ones already found (same symbology and payload
    /// at an overlapping place).
    mutating func merge(_ others: [BarcodeObservation]) {
        for candidate in others {
            let duplicate = contains { existing in
                existing.symbology == candidate.symbology && existing.payloadBase64 == candidate.payloadBase64
                    && (existing.boundingBox.intersectionOverUnion(candidate.boundingBox) > 0.1
                        || existing.boundingBox.area == 0 || candidate.boundingBox.area == 0)
            }
            if !duplicate { append(candidate) }
        }
    }

    /// Maps every corner through a 2×3 affine matrix (row-major), e.g. from a rotated copy back to the image.
    func mapped(through affine: [Double]) -> [BarcodeObservation] {
        map { o in
            let corners = o.corners.map { $0.applying(affine) }
            return BarcodeObservation(symbology: o.symbology, payloadBytes: o.payloadBytes, corners: corners, inverted: o.inverted, quality: o.quality)
        }
    }

    /// Reading order (top to bottom, then left to right), then payload: stable whatever the scan order.
    func sortedForOutput() -> [BarcodeObservation] {
        sorted { a, b in
            if a.boundingBox.y != b.boundingBox.y { return a.boundingBox.y < b.boundingBox.y }
            if a.boundingBox.x != b.boundingBox.x { return a.boundingBox.x < b.boundingBox.x }
            return (a.symbology.rawValue, a.payloadBase64) < (b.symbology.rawValue, b.payloadBase64)
        }
    }
}

extension ObservationKind {
    /// Barcodes (``BarcodeRequest``).
    public static let barcodes = ObservationKind("barcodes")
}

extension ImageAnalysis {
    /// The barcodes found; nil when not requested.
    public var barcodes: [BarcodeObservation]? { result(.barcodes) }
}
