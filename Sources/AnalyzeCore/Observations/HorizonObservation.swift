import Foundation

/// The horizon of an image, like Vision's `VNHorizonObservation`: its angle and the transform that
/// levels the image. Coordinates are pixels of the upright image, origin top-left.
public struct HorizonObservation: Sendable, Hashable, Codable {
    /// Degrees the horizon is tilted, positive when it rises to the right (counter-clockwise, as
    /// Vision measures it). Turning the image by `-angle` levels it.
    public let angle: Double
    /// Where the horizon meets the image's left edge and right edge.
    public let start: PixelPoint
    public let end: PixelPoint
    /// How likely the line is the horizon (0–1), judged from the scene (``HorizonRequest``):
    /// calibrated so that about this share of lines reported at it are the horizon.
    public let confidence: Double
    /// The affine transform (2×3, row-major: `[a, b, tx, c, d, ty]`) that levels the image: it
    /// turns it by `-angle` about its centre, in pixels of the same size.
    public let transform: [Double]

    public init(angle: Double, start: PixelPoint, end: PixelPoint, confidence: Double, width: Int, height: Int) {
        self.angle = angle.roundedAngle
        self.start = start
        self.end = end
        self.confidence = confidence.roundedConfidence
        // OpenCV's getRotationMatrix2D(centre, -angle, 1): y down, so a positive OpenCV angle turns counter-clockwise.
        let radians = -angle * .pi / 180, cx = Double(width) / 2, cy = Double(height) / 2
        let a: Double = cos(radians), b: Double = sin(radians)
        let tx: Double = (1 - a) * cx - b * cy, ty: Double = b * cx + (1 - a) * cy
        let matrix: [Double] = [a, b, tx, -b, a, ty]
        transform = matrix.map { ($0 * 1_000_000).rounded() / 1_000_000 }
    }
}

extension Double {
    /// Angles are written with two decimals.
    var roundedAngle: Double { (self * 100).rounded() / 100 }
}

/// The result of a ``HorizonRequest``: the horizon, or nil when the image has no discernible one.
/// Written to the image's JSON under `horizon` as an object, or `null`.
public struct HorizonResult: RequestResult {
    public let horizon: HorizonObservation?

    public init(horizon: HorizonObservation?) { self.horizon = horizon }

    public var summary: ResultSummary {
        guard let horizon else { return ResultSummary(count: 0, phrase: "no horizon") }
        var summary = ResultSummary(count: 1, phrase: "horizon \(horizon.angle)°")
        summary.highlights = ["horizon: \(horizon.angle)°"]
        return summary
    }

    public func encode(into container: inout KeyedEncodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
    {
        if let horizon {
            try container.encode(horizon, forKey: AnalysisCodingKey(kind.rawValue))
        } else {
            try container.encodeNil(forKey: AnalysisCodingKey(kind.rawValue))
        }
    }

    public static func decode(from container: KeyedDecodingContainer<AnalysisCodingKey>, as kind: ObservationKind)
        throws -> HorizonResult?
    {
        let key = AnalysisCodingKey(kind.rawValue)
        guard container.contains(key) else { return nil }
        return HorizonResult(horizon: try container.decodeIfPresent(HorizonObservation.self, forKey: key))
    }
}
