internal import COpenCVShim

/// Where 1-D barcodes may be in a large photo, so that it is decoded at full resolution only there
/// (`aocv_barcode_regions`): tiles whose edges are strong, run along one direction and alternate
/// dark-light, joined into boxes, then grown by a quiet-zone margin and merged where they overlap.
///
/// Found on the reduced copy a large photo's codes are first looked for in; the boxes are pixels
/// of the full image, whole and inside it.
enum BarcodeRegions {
    /// A box in pixels of the full image.
    struct Region: Equatable, Sendable {
        var x, y, width, height: Int
        /// How barcode-like it is: the sum over its tiles of RMS edge response × coherence.
        var score: Double = 0
        /// The direction across its bars in degrees, [0, 180): 0 for upright bars, 90 for bars along
        /// the rows (of the strongest part, when regions were merged).
        var angle: Double = 0
        var area: Int { width * height }
        /// Whether its bars are turned more than ``diagonalTolerance`` from both axes: a 1-D code
        /// there is read by ZBar only on a copy turned by 45°.
        var isDiagonal: Bool {
            let fromAxis = angle.truncatingRemainder(dividingBy: 90)
            return min(fromAxis, 90 - fromAxis) > BarcodeRegions.diagonalTolerance
        }
    }

    /// Tile side in pixels of the reduced copy.
    static let tile = 16
    /// Degrees from an axis within which a region's bars count as upright (ZBar's row and column
    /// scans read a 1-D code turned by up to about 30°, a code's height permitting).
    static let diagonalTolerance = 15.0
    /// At most this many boxes are looked at.
    static let capacity = 256

    /// The candidate regions of the full image, given its reduced copy and the reduced copy's scale
    /// (reduced pixels per full pixel). A box grows by half its shorter side on each side (a
    /// code's quiet zone, and the parts of its bars whose tiles fell under the thresholds).
    static func find(in reduced: OpenCVMat, scale: Double, fullWidth: Int, fullHeight: Int) throws(AnalysisError)
        -> [Region]
    {
        var boxes = [aocv_box](repeating: aocv_box(), count: capacity)
        var status = aocv_status()
        let count = boxes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return aocv_barcode_regions(reduced.handle, Int32(tile), base, Int32(capacity), &status)
        }
        guard count >= 0 else {
            throw AnalysisError(.engineFailed, "barcode regions: " + OpenCVMat.message(of: &status))
        }
        var regions: [Region] = []
        for box in boxes.prefix(Int(min(count, Int32(capacity)))) {
            let margin = Double(min(box.width, box.height)) / 2
            let x0 = max(0, (Double(box.x) - margin) / scale), y0 = max(0, (Double(box.y) - margin) / scale)
            let x1 = min(Double(fullWidth), (Double(box.x + box.width) + margin) / scale)
            let y1 = min(Double(fullHeight), (Double(box.y + box.height) + margin) / scale)
            guard x1 > x0, y1 > y0 else { continue }
            regions.append(
                Region(
                    x: Int(x0), y: Int(y0), width: Int(x1.rounded(.up)) - Int(x0),
                    height: Int(y1.rounded(.up)) - Int(y0),
                    score: box.score, angle: box.angle))
        }
        return merged(regions)
    }

    /// The most barcode-like regions whose areas add up to at most `maximumArea` pixels (a photo of
    /// stripes, cables or ripples is read in its strongest parts, not whole), in reading order.
    static func strongest(_ regions: [Region], maximumArea: Int) -> [Region] {
        var chosen: [Region] = []
        var area = 0
        for region in regions.sorted(by: { ($0.score, $1.y, $1.x) > ($1.score, $0.y, $0.x) })
        where area + region.area <= maximumArea {
            chosen.append(region)
            area += region.area
        }
        return chosen.sorted { ($0.y, $0.x, $0.width, $0.height) < ($1.y, $1.x, $1.width, $1.height) }
    }

    /// Overlapping boxes joined into their enclosing box when it is no larger than the two together
    /// (two boxes along a diagonal stay two, read twice where they overlap); sorted top to bottom,
    /// then left to right.
    static func merged(_ regions: [Region]) -> [Region] {
        var boxes = regions
        var changed = true
        while changed {
            changed = false
            outer: for i in boxes.indices {
                for j in boxes.indices where j > i && overlap(boxes[i], boxes[j]) {
                    let a = boxes[i], b = boxes[j]
                    let x = min(a.x, b.x), y = min(a.y, b.y)
                    let union = Region(
                        x: x, y: y, width: max(a.x + a.width, b.x + b.width) - x,
                        height: max(a.y + a.height, b.y + b.height) - y,
                        score: a.score + b.score, angle: a.score >= b.score ? a.angle : b.angle)
                    guard union.area <= a.area + b.area else { continue }
                    boxes[i] = union
                    boxes.remove(at: j)
                    changed = true
                    break outer
                }
            }
        }
        return boxes.sorted { ($0.y, $0.x, $0.width, $0.height) < ($1.y, $1.x, $1.width, $1.height) }
    }

    private static func overlap(_ a: Region, _ b: Region) -> Bool {
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
    }
}
