/// An axis-aligned box in pixels of the upright image, origin at the top-left.
public struct BoundingBox: Sendable, Hashable, Codable {
    public let x: Double
    public let y: Double
    public let width: Double
    public let height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x.roundedForOutput
        self.y = y.roundedForOutput
        self.width = width.roundedForOutput
        self.height = height.roundedForOutput
    }

    private enum CodingKeys: String, CodingKey { case x, y, width, height }

    /// Pixels, or Vision's normalized coordinates when the JSON is written that way
    /// (`--normalized`): then `y` is the box's bottom edge measured up from the image's bottom.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let space = encoder.normalizedCoordinates {
            try c.encode(space.x(x), forKey: .x)
            try c.encode(space.y(y + height), forKey: .y)
            try c.encode(space.length(width, along: space.width), forKey: .width)
            try c.encode(space.length(height, along: space.height), forKey: .height)
        } else {
            try c.encode(x, forKey: .x)
            try c.encode(y, forKey: .y)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
        }
    }

    /// The smallest box holding every point (an empty box at the origin when there are none).
    public init(enclosing points: [PixelPoint]) {
        guard let first = points.first else {
            self.init(x: 0, y: 0, width: 0, height: 0)
            return
        }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in points.dropFirst() {
            minX = min(minX, p.x); maxX = max(maxX, p.x)
            minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        self.init(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var area: Double { width * height }
    public var center: PixelPoint { PixelPoint(x: x + width / 2, y: y + height / 2) }

    /// The four corners, clockwise from the top-left.
    public var corners: [PixelPoint] {
        [PixelPoint(x: x, y: y), PixelPoint(x: maxX, y: y), PixelPoint(x: maxX, y: maxY), PixelPoint(x: x, y: maxY)]
    }

    /// Whether the two boxes share some area (touching edges do not count).
    public func overlaps(_ other: BoundingBox) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// Whether a point lies in the box (its left and top edges included, its right and bottom ones not).
    public func contains(_ point: PixelPoint) -> Bool {
        point.x >= x && point.x < maxX && point.y >= y && point.y < maxY
    }

    /// The share of this box's area that lies inside `other` (0–1).
    public func fraction(inside other: BoundingBox) -> Double {
        let w = min(maxX, other.maxX) - max(x, other.x)
        let h = min(maxY, other.maxY) - max(y, other.y)
        guard w > 0, h > 0, area > 0 else { return 0 }
        return w * h / area
    }

    /// Intersection over union with another box (0 when they do not overlap).
    public func intersectionOverUnion(_ other: BoundingBox) -> Double {
        let w = min(maxX, other.maxX) - max(x, other.x)
        let h = min(maxY, other.maxY) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let inter = w * h
        let union = area + other.area - inter
        return union > 0 ? inter / union : 0
    }
}
