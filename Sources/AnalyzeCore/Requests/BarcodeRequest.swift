/// Detects and decodes barcodes with ZBar (like `VNDetectBarcodesRequest`).
///
/// Every symbology is enabled unless `symbologies` restricts them. Each image is scanned as it is
/// and inverted, so light-on-dark codes decode without a flag; when neither pass finds anything,
/// the image is scanned again rotated by 45° so 1-D codes at diagonal angles are read too.
public struct BarcodeRequest: ImageRequest, Codable, Hashable {
    public static let kind = ObservationKind.barcodes

    /// The symbologies to decode (Vision's `symbologies`).
    public var symbologies: [BarcodeSymbology]
    /// Also scan the inverted image (light-on-dark codes).
    public var tryInverted: Bool
    /// Also scan a 45°-rotated copy when nothing was found upright.
    public var tryRotated: Bool

    public init(symbologies: [BarcodeSymbology] = BarcodeSymbology.all, tryInverted: Bool = true, tryRotated: Bool = true) {
        self.symbologies = symbologies
        self.tryInverted = tryInverted
        self.tryRotated = tryRotated
    }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [BarcodeObservation] {
        let scanner = try engines.barcodeScanner(for: symbologies)
        let gray = try image.gray()
        var found = try scanner.scan(gray, inverted: false)
        if tryInverted {
            let inverted = try gray.inverted()
            found.merge(try scanner.scan(inverted, inverted: true))
        }
        if found.isEmpty && tryRotated {
            let (rotated, inverse) = try gray.rotated(byDegrees: 45, fill: 255)
            found.merge(try scanner.scan(rotated, inverted: false).mapped(through: inverse))
            if tryInverted && found.isEmpty {
                let (rotatedInverse, inverse2) = try gray.inverted().rotated(byDegrees: 45, fill: 0)
                found.merge(try scanner.scan(rotatedInverse, inverted: true).mapped(through: inverse2))
            }
        }
        return found.sortedForOutput()
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
            let corners = o.corners.map { p in
                PixelPoint(x: affine[0] * p.x + affine[1] * p.y + affine[2], y: affine[3] * p.x + affine[4] * p.y + affine[5])
            }
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
