/// A point in pixels of the upright image, origin at the top-left, y growing downwards.
public struct PixelPoint: Sendable, Hashable, Codable {
    public let x: Double
    public let y: Double

    public init(x: Double, y: Double) {
        self.x = x.roundedForOutput
        self.y = y.roundedForOutput
    }

    private enum CodingKeys: String, CodingKey { case x, y }

    /// Pixels, or Vision's normalized coordinates when the JSON is written that way (`--normalized`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if let space = encoder.normalizedCoordinates {
            try c.encode(space.x(x), forKey: .x)
            try c.encode(space.y(y), forKey: .y)
        } else {
            try c.encode(x, forKey: .x)
            try c.encode(y, forKey: .y)
        }
    }
}

extension PixelPoint {
    /// This point mapped through a 2×3 affine matrix (row-major), e.g. from a turned copy of the
    /// image back into the image.
    func applying(_ m: [Double]) -> PixelPoint {
        PixelPoint(x: m[0] * x + m[1] * y + m[2], y: m[3] * x + m[4] * y + m[5])
    }
}

extension Double {
    /// Coordinates are written with two decimals: sub-pixel precision without float noise in JSON.
    var roundedForOutput: Double { (self * 100).rounded() / 100 }
    /// Confidences are written with four decimals.
    var roundedConfidence: Double { (self * 10_000).rounded() / 10_000 }
}
