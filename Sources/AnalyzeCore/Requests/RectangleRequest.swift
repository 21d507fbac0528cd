internal import COpenCVShim

/// Finds projected rectangles at any orientation, like `VNDetectRectanglesRequest`, with
/// Vision's parameters and meanings (OpenCV contours and edges, `aocv_detect_rectangles`).
public struct RectangleRequest: ImageRequest {
    public static let kind = ObservationKind.rectangles
    public static let kindAliases = ["rects", "rectangle"]

    /// Smallest accepted shorter-side / longer-side ratio (Vision's `minimumAspectRatio`).
    public var minimumAspectRatio: Double
    /// Largest accepted ratio (Vision's `maximumAspectRatio`).
    public var maximumAspectRatio: Double
    /// Degrees a corner may depart from 90° (Vision's `quadratureTolerance`).
    public var quadratureTolerance: Double
    /// Shorter side as a fraction of the image's smaller side (Vision's `minimumSize`).
    public var minimumSize: Double
    /// Rectangles below this confidence are dropped (Vision's `minimumConfidence`).
    public var minimumConfidence: Double
    /// At most this many, best first (Vision's `maximumObservations`).
    public var maximumObservations: Int

    /// The default number of rectangles per image: enough for a page with a few cards or a
    /// photo of several documents, few enough that a batch report is not cluttered.
    public static let defaultMaximumObservations = 4

    public init() { self.init(minimumAspectRatio: 0.5) }

    public init(
        minimumAspectRatio: Double = 0.5, maximumAspectRatio: Double = 1.0, quadratureTolerance: Double = 30,
        minimumSize: Double = 0.2, minimumConfidence: Double = 0,
        maximumObservations: Int = RectangleRequest.defaultMaximumObservations
    ) {
        self.minimumAspectRatio = minimumAspectRatio
        self.maximumAspectRatio = maximumAspectRatio
        self.quadratureTolerance = quadratureTolerance
        self.minimumSize = minimumSize
        self.minimumConfidence = minimumConfidence
        self.maximumObservations = maximumObservations
    }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [RectangleObservation]
    {
        guard maximumObservations > 0 else { return [] }
        var params = aocv_rect_params(
            minimum_aspect_ratio: minimumAspectRatio, maximum_aspect_ratio: maximumAspectRatio,
            quadrature_tolerance: quadratureTolerance, minimum_size: minimumSize,
            minimum_confidence: minimumConfidence, maximum_observations: Int32(maximumObservations))
        var quads = [aocv_quad](repeating: aocv_quad(), count: maximumObservations)
        var status = aocv_status()
        let gray = try image.gray()
        let count = quads.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return aocv_detect_rectangles(gray.handle, &params, base, Int32(buffer.count), &status)
        }
        guard count >= 0 else {
            throw AnalysisError(.engineFailed, "rectangle detection failed: " + OpenCVMat.message(of: &status))
        }
        return quads.prefix(Int(count)).map { q in
            let (xs, ys) = (q.x, q.y)
            return RectangleObservation(
                topLeft: PixelPoint(x: xs.0, y: ys.0), topRight: PixelPoint(x: xs.1, y: ys.1),
                bottomRight: PixelPoint(x: xs.2, y: ys.2), bottomLeft: PixelPoint(x: xs.3, y: ys.3),
                confidence: q.confidence)
        }
    }
}

extension ObservationKind {
    /// Projected rectangles (``RectangleRequest``).
    public static let rectangles = ObservationKind("rectangles")
}

extension ImageAnalysis {
    /// The rectangles found; nil when not requested.
    public var rectangles: [RectangleObservation]? { result(.rectangles) }
}
