/// Detects and decodes barcodes (like `VNDetectBarcodesRequest`) with two engines, fused into one
/// observation per symbol (see `BarcodeFusion`):
///
/// - **zxing-cpp** reads every symbology (QR, Micro QR, rMQR, Aztec, Data Matrix, PDF417,
///   MicroPDF417, MaxiCode, EAN/UPC with add-ons, Code 128/39/93, ITF, Codabar, every DataBar),
///   trying rotations, inversion and a downscaled pyramid itself;
/// - **ZBar** reads QR, SQ codes and the 1-D codes it reads well, on the image as it is and on an
///   inverted copy, and when neither engine found anything, on a copy turned by 45° (ZBar reads
///   1-D codes only along rows and columns). Its extra passes run on a copy of at most
///   ``secondaryPassMaximumSide`` pixels.
///
/// A mid-size image (over ``denseScanMaximumPixels`` but not large: a screenshot, a 2 MP photo) is read
/// whole by zxing-cpp; ZBar reads it only in the regions ``BarcodeRegions`` finds (all of them) and, for
/// SQ codes, on the 1000-px copy.
///
/// A large image (over ``largeImagePixels``, with a shorter side of at least ``largeImageShorterSide``:
/// a photo rather than a label or a strip) is not read whole at full resolution: zxing-cpp reads a
/// 3 MP copy (2000×1500 for a 12 MP photo), normal and inverted, and both engines read at full
/// resolution only the regions ``BarcodeRegions`` finds barcode-like (strong, parallel, alternating
/// edges), the strongest first, over at most a quarter of the image; ZBar reads the 1000-px copy
/// only for the symbologies zxing-cpp does not read (SQ codes). A code too small for the 3 MP copy
/// is read in the regions; a photo with nothing barcode-like costs that copy alone. The 45° pass
/// turns only the parts of the 1000-px copy around regions whose bars are diagonal (the whole copy
/// when they cover most of it).
///
/// An image whose first read shows it crowded with matrix codes (a sheet of labels or tickets), or a
/// large image whose copy held a matrix code near its resolution limit, is read again by zxing-cpp at
/// full resolution in overlapping tiles, for the families found (``BarcodeSheet``).
///
/// Both engines keep no state between images: an image's observations depend only on its pixels
/// and the options, whatever `--jobs`, the input order or the images before it.
public struct BarcodeRequest: ImageRequest {
    public static let kind = ObservationKind.barcodes
    public static let kindAliases = ["barcode"]
    /// About 110 ms a photo.
    public static let cost = 2

    /// The symbologies to report (Vision's `symbologies`).
    public var symbologies: [BarcodeSymbology]
    /// Also scan the inverted image with ZBar (light-on-dark codes; zxing-cpp always tries).
    public var tryInverted: Bool
    /// Also scan a 45°-rotated copy with ZBar when nothing was found upright.
    public var tryRotated: Bool

    public init() { self.init(symbologies: BarcodeSymbology.all) }

    public init(
        symbologies: [BarcodeSymbology] = BarcodeSymbology.all, tryInverted: Bool = true, tryRotated: Bool = true
    ) {
        self.symbologies = symbologies
        self.tryInverted = tryInverted
        self.tryRotated = tryRotated
    }

    /// The extra passes (inverted, rotated) run on a copy at most this many pixels on its longer
    /// side: codes that are only found there are large, and a 45°-rotated canvas of a 12 MP scan
    /// would be 24 MP. Coordinates are mapped back exactly.
    public static let secondaryPassMaximumSide = 1000
    /// Images larger than this (1.5 MP) are scanned by ZBar on every other row and column: codes
    /// in them span enough lines that halving the scan loses none (checked on the corpus against
    /// zbarimg), and the scan costs half.
    public static let denseScanMaximumPixels = 1_500_000

    /// Scan-line spacing of the extra passes (every other row and column).
    public static let secondaryPassDensity = 2

    /// Images of more than this many pixels (a photo rather than a scan of a label) are read on a
    /// copy of this many, and at full resolution only where ``BarcodeRegions`` finds barcode-like
    /// structure: a 12 MP photo is not read whole twice over, and a code too small for the copy is
    /// still read where it is.
    public static let largeImagePixels = 3_000_000
    /// ...and whose shorter side is at least this long: a long strip (a receipt roll, a 640×33,000
    /// page) is read whole, as its text stretched along one axis looks barcode-like everywhere.
    public static let largeImageShorterSide = 1500
    /// The candidate regions read at full resolution cover at most this fraction of a large image,
    /// the most barcode-like first: a photo of stripes, cables or ripples costs a quarter of a full read.
    public static let maximumRegionFraction = 0.25
    /// Scan-line spacing of ZBar in the full-resolution regions: a code small enough to need them
    /// still spans dozens of lines there.
    public static let regionDensity = 2
    /// The symbologies read in the full-resolution regions: those made of bars (1-D and stacked codes),
    /// which are what the region finder finds.
    static let stripedFamilies: Set<BarcodeSymbology.Family> = [
        .eanUPC, .code39, .code93, .code128, .itf, .codabar, .dataBar, .pdf417,
    ]

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [BarcodeObservation] {
        let wanted = Set(symbologies)
        let families = Array(Set(symbologies.map(\.family))).sorted()
        let zbarFamilies = families.filter { !ZBarScanner.types(of: $0).isEmpty }
        let zxingReader = try engines.zxingReader(for: families)
        let scanner = zbarFamilies.isEmpty ? nil : try engines.barcodeScanner(for: zbarFamilies)
        let gray = try image.gray()

        // For a large image, a 3 MP copy; and the extra passes' copy (at most 1000 px).
        let isLarge =
            gray.width * gray.height > Self.largeImagePixels
            && min(gray.width, gray.height) >= Self.largeImageShorterSide
        let (reduced, scale) = isLarge ? try Self.reduced(image, toPixels: Self.largeImagePixels) : (gray, 1)
        let (small, smallScale) = try Self.limited(reduced, maximumSide: Self.secondaryPassMaximumSide)
        let smallToImage = Affine.scale(x: 1 / (scale * smallScale), y: 1 / (scale * smallScale))

        // The primary reads: the whole image; or, for a large image, zxing-cpp on the 3 MP copy
        // and both engines at full resolution in the candidate regions.
        let primaryDensity = gray.width * gray.height > Self.denseScanMaximumPixels ? 2 : 1
        var zxingParts: [(OpenCVMat, toImage: [Double], reader: ZXingReader)] = [(gray, Affine.identity, zxingReader)]
        var zbarParts: [(OpenCVMat, toImage: [Double], density: Int, scanner: ZBarScanner?)] = [
            (gray, Affine.identity, primaryDensity, scanner)
        ]
        // Where a 1-D code may stand turned by about 45° (read by ZBar only on a turned copy): in a
        // large image, only where the region finder saw diagonal bars; elsewhere, anywhere.
        var diagonalRegions: [BarcodeRegions.Region]?
        // ZBar's pass over an inverted copy (light-on-dark codes).
        var invertedScanner = tryInverted ? scanner : nil
        // A mid-size image (over 1.5 MP but not large: a screenshot, a 2 MP photo) is read whole by
        // zxing-cpp at full resolution, and by ZBar only where the region finder sees bars (all such
        // regions: their area costs what a whole read would only on a photo that is bars everywhere).
        let isMidSize = !isLarge && gray.width * gray.height > Self.denseScanMaximumPixels
        if isLarge || isMidSize {
            let found = try BarcodeRegions.find(
                in: reduced, scale: scale, fullWidth: gray.width, fullHeight: gray.height)
            diagonalRegions = found.filter(\.isDiagonal)
            let regions = BarcodeRegions.strongest(
                found, maximumArea: Int((isLarge ? Self.maximumRegionFraction : 1) * Double(gray.width * gray.height)))
            if isLarge { zxingParts = [(reduced, Affine.scale(x: 1 / scale, y: 1 / scale), zxingReader)] }
            // ZBar reads the 1000-px copy (and its inverted copy) only for the symbologies zxing-cpp
            // does not read (SQ codes): for the others it found nothing zxing-cpp on the 3 MP copy
            // (which tries inverted too) and the regions did not (`evaluate-barcodes --in-photo`: the
            // same readings with and without it on 1,101 suite images pasted into 12 MP photos at
            // 300, 400 and 1600 px), and it cost 25-60 ms a photo. (The SQ passes scan no lines: see
            // `ZBarScanner`.) On a mid-size image, likewise, ZBar reads the regions instead of the whole
            // image (65 ms on a 2 MP photo) and its inverted copy (20 ms): the suite pasted into two
            // 2 MP photos at 200-600 px (`evaluate-barcodes --in-photo`, 2,196 images) read 1,585
            // codes with 7 wrong, against 1,581 with 8 when ZBar read the whole image.
            let zbarOnly = zbarFamilies.filter { ZXingReader.formats(for: [$0]).isEmpty }
            let zbarOnlyScanner = zbarOnly.isEmpty ? nil : try engines.barcodeScanner(for: zbarOnly)
            zbarParts = zbarOnlyScanner.map { [(small, smallToImage, Self.secondaryPassDensity, $0)] } ?? []
            invertedScanner = tryInverted ? zbarOnlyScanner : nil
            // The regions are where bars are (1-D and stacked codes): only those symbologies are looked
            // for there. A 2-D code small enough to need full resolution (a QR code under about 60 px in
            // a 12 MP photo) makes no such region anyway, and zxing-cpp's 2-D detectors on the texture
            // such regions mostly hold cost more than all the rest of its read. (In a mid-size image
            // zxing-cpp has read them already, at full resolution.)
            let striped = families.filter { Self.stripedFamilies.contains($0) }
            let stripedZBar = zbarFamilies.filter { Self.stripedFamilies.contains($0) }
            if !striped.isEmpty {
                let regionReader = isLarge ? try engines.zxingReader(for: striped) : nil
                let regionScanner = stripedZBar.isEmpty ? nil : try engines.barcodeScanner(for: stripedZBar)
                for region in regions {
                    let crop = try gray.cropped(x: region.x, y: region.y, width: region.width, height: region.height)
                    let toImage = Affine.translation(x: Double(region.x), y: Double(region.y))
                    if let regionReader { zxingParts.append((crop, toImage, regionReader)) }
                    zbarParts.append((crop, toImage, Self.regionDensity, regionScanner))
                }
            }
        }
        var zxing: [BarcodeReading] = []
        for (part, toImage, reader) in zxingParts {
            zxing += try reader.read(part).map { $0.mapped(through: toImage) }
        }
        // A crowded image, or codes near the copy's resolution limit: the families found read again
        // at full resolution in overlapping tiles (see `BarcodeSheet`).
        if let sheet = BarcodeSheet.plan(after: zxing, copyScale: scale, width: gray.width, height: gray.height) {
            let sheetReader = try engines.zxingReader(for: sheet.families)
            for tile in sheet.tiles {
                let crop = try gray.cropped(x: tile.x, y: tile.y, width: tile.width, height: tile.height)
                let toImage = Affine.translation(x: Double(tile.x), y: Double(tile.y))
                zxing += try sheetReader.read(crop).map { $0.mapped(through: toImage) }
            }
        }
        var zbar: [BarcodeReading] = []
        if scanner != nil {
            for (part, toImage, density, partScanner) in zbarParts {
                guard let partScanner else { continue }
                zbar += try partScanner.scan(part, pass: .primary, density: density).map { $0.mapped(through: toImage) }
            }
            if let invertedScanner {
                zbar += try invertedScanner.scan(
                    try small.inverted(), pass: .inverted, density: Self.secondaryPassDensity
                ).map { $0.mapped(through: smallToImage) }
            }
            // 2-D codes are found at any angle already; only 1-D codes need the turned copy.
            let linear = zbarFamilies.filter { ![.qr, .sqCode].contains($0) }
            if zbar.isEmpty && zxing.isEmpty && tryRotated && !linear.isEmpty && diagonalRegions?.isEmpty != true {
                let linearScanner = try engines.barcodeScanner(for: linear)
                for (part, partToSmall) in try Self.turnedPassParts(
                    of: small, scale: scale * smallScale, diagonalRegions: diagonalRegions)
                {
                    let (rotated, inverse) = try part.rotated(byDegrees: 45, fill: 255)
                    zbar += try linearScanner.scan(rotated, pass: .rotated, density: Self.secondaryPassDensity)
                        .map { $0.mapped(through: Affine.compose(smallToImage, Affine.compose(partToSmall, inverse))) }
                }
            }
        }
        return BarcodeFusion.fuse(zxing: zxing, zbar: zbar, wanted: wanted)
    }

    /// What the 45° pass turns: the whole extra-pass copy, or, in a large image, only its parts
    /// around the regions whose bars are diagonal (most photos have a few such regions of texture,
    /// and turning the whole copy for them cost 15-50 ms a photo). The parts are the regions in
    /// the copy's pixels (`scale`: copy pixels per image pixel), each with its offset in the copy;
    /// when they would cover more than ``maximumTurnedPartFraction`` of the copy, the whole copy.
    static func turnedPassParts(of copy: OpenCVMat, scale: Double, diagonalRegions: [BarcodeRegions.Region]?)
        throws(AnalysisError) -> [(OpenCVMat, toCopy: [Double])]
    {
        guard let diagonalRegions else { return [(copy, Affine.identity)] }
        var boxes: [(x: Int, y: Int, width: Int, height: Int)] = []
        for region in diagonalRegions {
            let x0 = max(0, Int((Double(region.x) * scale).rounded(.down))),
                y0 = max(0, Int((Double(region.y) * scale).rounded(.down)))
            let x1 = min(copy.width, Int((Double(region.x + region.width) * scale).rounded(.up)))
            let y1 = min(copy.height, Int((Double(region.y + region.height) * scale).rounded(.up)))
            // A part under a few pixels holds no code ZBar could read in the copy.
            guard x1 - x0 >= minimumTurnedPartSide, y1 - y0 >= minimumTurnedPartSide else { continue }
            boxes.append((x0, y0, x1 - x0, y1 - y0))
        }
        let area = boxes.reduce(0) { $0 + $1.width * $1.height }
        if Double(area) > maximumTurnedPartFraction * Double(copy.width * copy.height) {
            return [(copy, Affine.identity)]
        }
        var parts: [(OpenCVMat, toCopy: [Double])] = []
        for box in boxes {
            parts.append(
                (
                    try copy.cropped(x: box.x, y: box.y, width: box.width, height: box.height),
                    Affine.translation(x: Double(box.x), y: Double(box.y))
                ))
        }
        return parts
    }

    /// When the diagonal regions cover more than this fraction of the extra-pass copy, the 45° pass
    /// turns the whole copy (one pass over it costs less than many over overlapping parts).
    static let maximumTurnedPartFraction = 0.4
    /// Parts of the extra-pass copy narrower than this are not turned.
    static let minimumTurnedPartSide = 16

    /// The image's grayscale when it has at most `pixels` pixels, else a copy scaled to about that many
    /// (aspect kept, shrunk from the smallest halving that holds it), with the scale.
    static func reduced(_ image: UprightImage, toPixels pixels: Int) throws(AnalysisError) -> (OpenCVMat, Double) {
        let count = image.width * image.height
        guard count > pixels else { return (try image.gray(), 1) }
        let scale = (Double(pixels) / Double(count)).squareRoot()
        let w = max(1, Int((Double(image.width) * scale).rounded())),
            h = max(1, Int((Double(image.height) * scale).rounded()))
        let source = try image.reduction(toAtLeast: w, h, gray: true)
        let copy = source.width == w && source.height == h ? source : try source.resized(width: w, height: h)
        return (copy, Double(w) / Double(image.width))
    }

    /// The image itself when it is small enough, else a copy scaled to `maximumSide`, with the scale.
    static func limited(_ gray: OpenCVMat, maximumSide: Int) throws(AnalysisError) -> (OpenCVMat, Double) {
        let side = max(gray.width, gray.height)
        guard side > maximumSide else { return (gray, 1) }
        return try scaled(gray, by: Double(maximumSide) / Double(side))
    }

    /// A copy scaled by about `scale` (whole pixels), with the exact scale along its width.
    private static func scaled(_ gray: OpenCVMat, by scale: Double) throws(AnalysisError) -> (OpenCVMat, Double) {
        let w = max(1, Int((Double(gray.width) * scale).rounded())),
            h = max(1, Int((Double(gray.height) * scale).rounded()))
        return (try gray.resized(width: w, height: h), Double(w) / Double(gray.width))
    }
}

extension [BarcodeObservation] {
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
