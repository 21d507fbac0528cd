/// A point in pixels of the upright image, origin at the top-left, y growing downwards.
public struct PixelPoint: Sendable, Hashable, Codable {
    public let x: Double
    public let y: Double

    public init(x: Double, y: Double) {
        self.x = x.roundedForOutput
        self.y = y.roundedForOutput
    }
}

extension Double {
    /// Coordinates are written with two decimals: sub-pixel precision without float noise in JSON.
    var roundedForOutput: Double { (self * 100).rounded() / 100 }
    /// Confidences are written with four decimals.
    var roundedConfidence: Double { (self * 10_000).rounded() / 10_000 }
}
