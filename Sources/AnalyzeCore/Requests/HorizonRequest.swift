internal import COpenCVShim

/// Finds the horizon and its angle (like `VNDetectHorizonRequest`), or reports that the image has
/// none: a straight step between two regions running across nearly the whole width, within 35°
/// of level (`aocv_detect_horizon`). Text lines, table rules and the edges of objects do not run
/// across the image that way, so a document page or a portrait reports none.
public struct HorizonRequest: ImageRequest {
    public static let kind = ObservationKind.horizon
    public static let kindAliases = ["horizons"]

    public init() {}

    /// The long side of the copy the horizon is looked for in: a horizon is a large structure.
    static let workingSide = 320

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> HorizonResult {
        // The copy it looks in is shrunk from the grayscale's halvings (a 12 MP photo in one step cost about 35 ms).
        let gray = try image.reduction(toFit: Self.workingSide, Self.workingSide, gray: true)
        var found = aocv_horizon()
        var status = aocv_status()
        let result = aocv_detect_horizon(gray.handle, Int32(Self.workingSide), Int32(image.width), Int32(image.height), &found, &status)
        guard result >= 0 else { throw AnalysisError(.engineFailed, "horizon: " + OpenCVMat.message(of: &status)) }
        guard result == 1 else { return HorizonResult(horizon: nil) }
        return HorizonResult(horizon: HorizonObservation(angle: found.angle, start: PixelPoint(x: found.x1, y: found.y1),
                                                         end: PixelPoint(x: found.x2, y: found.y2), confidence: found.confidence,
                                                         width: image.width, height: image.height))
    }
}

extension ObservationKind {
    /// The horizon (``HorizonRequest``).
    public static let horizon = ObservationKind("horizon")
}

extension ImageAnalysis {
    /// The horizon; nil when not requested or when the image has none (see `result(.horizon)`).
    public var horizon: HorizonObservation? { result(.horizon, as: HorizonResult.self)?.horizon }
}
