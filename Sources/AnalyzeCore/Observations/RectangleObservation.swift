/// A projected rectangle (a document, card, screen or sign seen at an angle), like
/// `VNRectangleObservation`. Corners are pixels of the upright image, origin top-left; the
/// top-left corner is the one nearest the image's top-left, and the others follow clockwise.
public struct RectangleObservation: ListedObservation {
    public static let noun = "rectangle"

    public let topLeft: PixelPoint
    public let topRight: PixelPoint
    public let bottomRight: PixelPoint
    public let bottomLeft: PixelPoint
    public let boundingBox: BoundingBox
    /// 0–1, from edge strength along the sides, how straight the sides are and how square the
    /// corners are: thresholding on it (`--min-confidence`) drops weak, ragged shapes first.
    public let confidence: Double

    public init(
        topLeft: PixelPoint, topRight: PixelPoint, bottomRight: PixelPoint, bottomLeft: PixelPoint, confidence: Double
    ) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
        boundingBox = BoundingBox(enclosing: [topLeft, topRight, bottomRight, bottomLeft])
        self.confidence = confidence.roundedConfidence
    }

    /// The corners clockwise from the top-left.
    public var corners: [PixelPoint] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The size of the perspective-corrected crop: the longer of each pair of opposite sides.
    public var rectifiedSize: (width: Int, height: Int) {
        func distance(_ a: PixelPoint, _ b: PixelPoint) -> Double {
            ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
        }
        let width = max(distance(topLeft, topRight), distance(bottomLeft, bottomRight))
        let height = max(distance(topLeft, bottomLeft), distance(topRight, bottomRight))
        return (max(1, Int(width.rounded())), max(1, Int(height.rounded())))
    }
}
