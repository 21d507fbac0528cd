import AnalyzeCore

/// Places the labels of one annotated image (PNG or SVG) so that none hides another and none leaves
/// the canvas: each label tries the places around its box in turn (below it, above it, inside its
/// top, beside it) and takes the first that overlaps no label placed before it; when every place
/// is taken, the one that overlaps least. Captions (image classification) are placed last, in the
/// corner that covers the fewest labels, lines of text and outlines.
///
/// One layout per drawing of one image; a reference type so the drawables of every kind share it.
final class LabelLayout {
    struct Rect: Equatable {
        var x, y, width, height: Double
        var maxX: Double { x + width }
        var maxY: Double { y + height }

        func overlap(_ other: Rect) -> Double {
            max(0, min(maxX, other.maxX) - max(x, other.x)) * max(0, min(maxY, other.maxY) - max(y, other.y))
        }
    }

    let width: Double, height: Double
    /// The labels placed so far, and the outlines drawn (boxes a caption should not cover).
    private(set) var labels: [Rect] = []
    private(set) var outlines: [Rect] = []

    init(width: Int, height: Int) {
        self.width = Double(max(1, width))
        self.height = Double(max(1, height))
    }

    /// What a caption must not cover at all (a text line: under a caption, what it says is lost).
    private(set) var contents: [Rect] = []

    /// Records a drawn box: captions keep off it.
    func noteOutline(_ box: BoundingBox) {
        outlines.append(Rect(x: box.x, y: box.y, width: box.width, height: box.height))
    }

    /// Records a drawn box whose inside matters (a line of text): captions keep off all of it.
    func noteContent(_ box: BoundingBox) {
        contents.append(Rect(x: box.x, y: box.y, width: box.width, height: box.height))
    }

    /// `rect` moved onto the canvas (its top-left corner kept on it when it is larger).
    func clamped(_ rect: Rect) -> Rect {
        var r = rect
        r.x = max(0, min(r.x, width - r.width))
        r.y = max(0, min(r.y, height - r.height))
        return r
    }

    /// A label's place, and when it stands away from its box, the leader line to draw from the label to
    /// the box's nearest edge.
    struct Placement: Equatable {
        var rect: Rect
        var leader: (from: PixelPoint, to: PixelPoint)?

        static func == (a: Placement, b: Placement) -> Bool {
            a.rect == b.rect && a.leader?.from == b.leader?.from && a.leader?.to == b.leader?.to
        }
    }

    /// Where a label of `size` goes for `box`, recorded as taken: the first free place beside the box;
    /// when those are all taken (a crowd of boxes), the nearest free place in rows and columns further
    /// out, with a leader line; when the canvas has none, the place beside the box that overlaps least.
    func place(_ size: (width: Double, height: Double), near box: BoundingBox) -> Placement {
        let (w, h) = size
        let beside = [
            Rect(x: box.x, y: box.maxY + 2, width: w, height: h),  // below, left-aligned
            Rect(x: box.x, y: box.y - h - 2, width: w, height: h),  // above
            Rect(x: box.x + 2, y: box.y + 2, width: w, height: h),  // inside the top
            Rect(x: box.maxX + 2, y: box.y, width: w, height: h),  // right
            Rect(x: box.x - w - 2, y: box.y, width: w, height: h),  // left
            Rect(x: box.maxX - w, y: box.maxY + 2, width: w, height: h),  // below, right-aligned
            Rect(x: box.x, y: box.maxY + h + 4, width: w, height: h),  // further below
            Rect(x: box.x, y: box.y - 2 * h - 4, width: w, height: h),  // further above
        ].map(clamped)
        if let free = beside.first(where: { cost($0) == 0 }) {
            labels.append(free)
            return Placement(rect: free)
        }
        if let far = fartherPlaces(w, h, around: box).first(where: { cost($0) == 0 }) {
            labels.append(far)
            return Placement(rect: far, leader: leader(from: far, to: box))
        }
        return Placement(rect: take(beside, avoiding: labels))
    }

    /// Places further from `box`, nearest first: rows of labels above and below it and columns beside
    /// it, up to 12 label heights away, on the canvas.
    private func fartherPlaces(_ w: Double, _ h: Double, around box: BoundingBox) -> [Rect] {
        var places: [(distance: Double, order: Int, rect: Rect)] = []
        let step = h + 2
        for k in 1...12 {
            let d = Double(k) * step
            let rows = [box.maxY + 2 + d, box.y - h - 2 - d]
            let columns = [box.x, box.maxX - w, box.x + box.width / 2 - w / 2, box.x - w - 2 - d, box.maxX + 2 + d]
            for y in rows {
                for x in columns { places.append((d, places.count, clamped(Rect(x: x, y: y, width: w, height: h)))) }
            }
            for x in [box.maxX + 2 + d, box.x - w - 2 - d] {
                for y in [box.y, box.y + box.height / 2 - h / 2, box.maxY - h] {
                    places.append((d, places.count, clamped(Rect(x: x, y: y, width: w, height: h))))
                }
            }
        }
        return places.sorted { ($0.distance, $0.order) < ($1.distance, $1.order) }.map(\.rect)
    }

    /// The line from the edge of label `r` nearest `box` to the nearest point of the box's outline.
    private func leader(from r: Rect, to box: BoundingBox) -> (from: PixelPoint, to: PixelPoint) {
        let cx = r.x + r.width / 2, cy = r.y + r.height / 2
        let to = PixelPoint(x: max(box.x, min(cx, box.maxX)), y: max(box.y, min(cy, box.maxY)))
        let from = PixelPoint(x: max(r.x, min(to.x, r.maxX)), y: max(r.y, min(to.y, r.maxY)))
        return (from, to)
    }

    private func cost(_ r: Rect) -> Double { labels.reduce(0) { $0 + r.overlap($1) } }

    /// Where a caption block of `size` goes: the corner that covers the least of the labels and
    /// outlines already there (top-left first on a tie), recorded as taken.
    func placeCaption(_ size: (width: Double, height: Double), margin: Double = 4) -> Rect {
        let (w, h) = size
        let candidates = [
            Rect(x: margin, y: margin, width: w, height: h),
            Rect(x: width - w - margin, y: margin, width: w, height: h),
            Rect(x: margin, y: height - h - margin, width: w, height: h),
            Rect(x: width - w - margin, y: height - h - margin, width: w, height: h),
        ].map(clamped)
        // A label under a caption is lost; an outline under it only partly: labels weigh more.
        func cost(_ r: Rect) -> Double {
            labels.reduce(0) { $0 + 4 * r.overlap($1) } + contents.reduce(0) { $0 + 2 * r.overlap($1) }
                + outlines.reduce(0) { $0 + edgeOverlap(r, $1) }
        }
        let best =
            candidates.enumerated().min { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }?.element
            ?? candidates[0]
        labels.append(best)
        return best
    }

    /// The first candidate free of `taken`, else the one overlapping it least.
    private func take(_ candidates: [Rect], avoiding taken: [Rect]) -> Rect {
        func cost(_ r: Rect) -> Double { taken.reduce(0) { $0 + r.overlap($1) } }
        let chosen =
            candidates.first { cost($0) == 0 }
            ?? candidates.enumerated().min { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }?.element
            ?? candidates[0]
        labels.append(chosen)
        return chosen
    }

    /// How much of an outline's border band (a few pixels each side of its edges) `r` covers: a
    /// caption over the middle of a large box hides little of it, one over its edge hides the box.
    private func edgeOverlap(_ r: Rect, _ box: Rect) -> Double {
        let band = 6.0
        let outer = Rect(x: box.x - band, y: box.y - band, width: box.width + 2 * band, height: box.height + 2 * band)
        let innerWidth = box.width - 2 * band, innerHeight = box.height - 2 * band
        let inner =
            innerWidth > 0 && innerHeight > 0
            ? Rect(x: box.x + band, y: box.y + band, width: innerWidth, height: innerHeight) : nil
        return r.overlap(outer) - (inner.map { r.overlap($0) } ?? 0)
    }
}
