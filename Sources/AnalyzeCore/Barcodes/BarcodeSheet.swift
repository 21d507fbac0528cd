/// A crowded image (a sheet of labels, a page of tickets, the labels on a pallet): when zxing-cpp's
/// read of an image, or of a large image's copy, shows that it may have missed matrix codes, the image
/// is read again at full resolution in overlapping tiles, each small enough for zxing-cpp to read all
/// the codes it holds.
///
/// The evidence, from the matrix codes (QR, Micro QR, rMQR, Aztec, Data Matrix, MaxiCode) that read
/// found and trusts:
/// - at least ``crowdedCount`` of them: zxing-cpp's QR detector weighs a bounded number of
///   finder-pattern triples in one read, the tightest first, so in a sheet of a hundred codes the
///   triples that span neighbouring codes crowd out most real ones, and a read finds a few or none;
/// - or, on a large image's copy, one whose modules are under ``fineModulePixels`` of the copy's
///   pixels (a symbology whose version gives its module count): codes of its kind a little smaller
///   were not read on the copy at all.
///
/// The tiles overlap by the largest code found and a margin, so that every code as large holds
/// whole in one of them, and are ``codesPerTileSide`` of the smallest code across. Only the families
/// of the codes found are read in them. An image without such evidence costs nothing more. The
/// measurements behind the numbers: `eval/barcodes/evaluate-barcode-sheet` (docs/benchmarks.md).
enum BarcodeSheet {
    /// Matrix codes in one read that make an image crowded.
    static let crowdedCount = 4
    /// Module size, in pixels of a large image's copy, under which a code read there is near the
    /// copy's resolution limit.
    static let fineModulePixels = 2.0
    /// A tile's side, in sides of the smallest code found.
    static let codesPerTileSide = 8
    /// The tiles' overlap beyond the largest code found, as a share of its side.
    static let overlapMargin = 0.25

    /// The families to read again and the tiles (pixels of the full image) to read them in.
    struct Plan: Equatable {
        var families: [BarcodeSymbology.Family]
        var tiles: [BarcodeRegions.Region]
    }

    /// The matrix families (read by zxing-cpp, not striped).
    static func isMatrix(_ family: BarcodeSymbology.Family) -> Bool {
        switch family {
        case .qr, .aztec, .dataMatrix, .maxiCode: true
        default: false
        }
    }

    /// The full-resolution read a first read's readings call for, or nil. `copyScale` is the scale of
    /// the image that read saw (copy pixels per image pixel; 1 when it read the image itself); the
    /// readings are in the image's pixels.
    static func plan(after readings: [BarcodeReading], copyScale: Double, width: Int, height: Int) -> Plan? {
        let codes = readings.filter {
            $0.engine == .zxing && isMatrix($0.symbology.family) && BarcodeValidation.keepsMisdecodeProtection($0)
        }
        let crowded = codes.count >= crowdedCount
        let fine =
            copyScale < 1
            && codes.contains { code in
                guard let modules = code.moduleCount else { return false }
                return code.longestSide * copyScale / Double(modules) < fineModulePixels
            }
        guard crowded || fine else { return nil }
        let sides = codes.map(\.longestSide)
        guard let largest = sides.max(), let smallest = sides.min() else { return nil }
        let tiles = self.tiles(largestCode: largest, smallestCode: smallest, width: width, height: height)
        // The image itself read once more at the same resolution would find nothing new.
        if copyScale >= 1 && tiles.count == 1 { return nil }
        return Plan(families: Array(Set(codes.map(\.symbology.family))).sorted(), tiles: tiles)
    }

    /// Overlapping tiles covering a `width` × `height` image, in reading order: they overlap by the
    /// largest code's side and ``overlapMargin`` of it, and are ``codesPerTileSide`` of the smallest
    /// code's side across (at least twice the overlap), the last of a row or column flush with the
    /// image's edge.
    static func tiles(largestCode: Double, smallestCode: Double, width: Int, height: Int) -> [BarcodeRegions.Region] {
        let overlap = Int((largestCode * (1 + overlapMargin)).rounded(.up))
        let side = max(2 * overlap, Int((smallestCode * Double(codesPerTileSide)).rounded(.up)))
        func starts(_ length: Int) -> [Int] {
            guard length > side else { return [0] }
            var starts = Array(stride(from: 0, to: length - side, by: side - overlap))
            starts.append(length - side)
            return starts
        }
        var tiles: [BarcodeRegions.Region] = []
        for y in starts(height) {
            for x in starts(width) {
                tiles.append(BarcodeRegions.Region(x: x, y: y, width: min(side, width), height: min(side, height)))
            }
        }
        return tiles
    }
}
