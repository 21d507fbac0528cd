/// A large photo cut into overlapping tiles for a detector that would otherwise see its small objects at a
/// few pixels (`--object-tiles`): each tile is seen at the detector's own input size, and what it finds is
/// merged with what the whole photo gave. On 12 MP mosaics of the development set's scenes, 2 × 2 tiles
/// found 78% of the boxes instead of 56%; on natural 12 MP photos F1 stayed the same (docs/benchmarks.md).
enum DetectionTiles {
    /// The share of a tile that its neighbour also covers.
    static let overlap = 0.2
    /// A tile's object is kept only when it is under this share of the photo's width and height: a large
    /// object is the whole photo's to find, and a tile sees only a part of it (a half person, a corner of
    /// a table), which it names as a whole one. At 0.2 natural 12 MP photos kept their precision.
    static let largestShare = 0.2
    /// A tile's box this close (pixels of the tile's network input) to a side it shares with a neighbour is
    /// cut by it: the neighbour or the whole photo sees that object whole.
    static let cutMargin = 2.0

    /// The `grid` × `grid` tiles of an image of `width` × `height` whose whole view (the detector's canvas of
    /// `area` × `area` pixels) shrinks it to less than half: row by row, each tile `1 / (grid − (grid − 1) ×
    /// overlap)` of each side. None for a smaller image, or for a grid under 2: its objects are no smaller in
    /// the whole view than a tile would show them.
    static func rects(width: Int, height: Int, grid: Int, area: Int) -> [PixelRect] {
        guard grid >= 2, width > 0, height > 0 else { return [] }
        let canvas = NetworkCanvas.fitted(width: width, height: height, area: area)
        guard Double(canvas.width) / Double(width) < 0.5 else { return [] }
        let share = 1 / (Double(grid) - Double(grid - 1) * overlap)
        let tileWidth = Int((Double(width) * share).rounded()), tileHeight = Int((Double(height) * share).rounded())
        func starts(_ side: Int, _ tile: Int) -> [Int] {
            (0..<grid).map { Int((Double($0) * Double(side - tile) / Double(grid - 1)).rounded()) }
        }
        return starts(height, tileHeight).flatMap { y in
            starts(width, tileWidth).map { x in PixelRect(x: x, y: y, width: tileWidth, height: tileHeight) }
        }
    }

    /// The objects a tile at `rect` found (boxes in the tile's pixels, seen at `scale` network pixels per
    /// pixel), in the photo's pixels: those cut by a side the tile shares with a neighbour, and those too
    /// large for a tile to judge, left out.
    static func placed(
        _ objects: [RecognizedObjectObservation], from rect: PixelRect, scale: Double, width: Int, height: Int
    ) -> [RecognizedObjectObservation] {
        let margin = cutMargin / max(scale, 1e-9)
        let toPhoto = Affine.translation(x: Double(rect.x), y: Double(rect.y))
        return objects.compactMap { object in
            let b = object.boundingBox
            let cut =
                (rect.x > 0 && b.x <= margin) || (rect.y > 0 && b.y <= margin)
                || (rect.x + rect.width < width && b.x + b.width >= Double(rect.width) - margin)
                || (rect.y + rect.height < height && b.y + b.height >= Double(rect.height) - margin)
            guard !cut, b.width < largestShare * Double(width), b.height < largestShare * Double(height) else {
                return nil
            }
            return RecognizedObjectObservation(
                boundingBox: b.mapped(through: toPhoto), confidence: object.confidence, labels: object.labels)
        }
    }
}

/// A rectangle of whole pixels of an image.
struct PixelRect: Sendable, Hashable {
    let x: Int, y: Int, width: Int, height: Int
}
