internal import COpenCVShim

/// Finds the horizon and its angle (like `VNDetectHorizonRequest`), or reports that the image has
/// none. Two judgements make a horizon:
/// - **a line**: a straight colour step between two regions across most of the picture, within 25°
///   of level, its borders and frame left out, with sky above it and ground or water below it by
///   `HorizonSky`'s map (`aocv_detect_horizon`);
/// - **a scene that has one**: the classifier's probability that the photo shows an open view (a
///   shore, a lake, a field, a boat at sea: `HorizonScene`). A portrait, a room or a page has
///   straight steps too (a shoulder, a table edge, a text line), but no open view.
///
/// The reported confidence is the scene's and the sky map's (`HorizonScene.confidence(openView:skyAbove:)`); below
/// ``minimumConfidence`` the image has no horizon, so `--level` never turns a photo for a line that
/// is not one.
public struct HorizonRequest: ImageRequest {
    public static let kind = ObservationKind.horizon
    public static let kindAliases = ["horizons"]
    /// Below the detectors and above the classifier (docs/benchmarks.md: what the horizon costs).
    public static let cost = 2

    /// The classifier that judges the scene (its labels must be ImageNet's).
    public var sceneModel: NetworkModel
    /// Horizons less sure than this (0–1) are not reported.
    public var minimumConfidence: Double

    /// Chosen on the development set (docs/benchmarks.md: horizons).
    public static let defaultMinimumConfidence = 0.15

    public init() { self.init(sceneModel: .efficientNetLite0) }

    public init(sceneModel: NetworkModel, minimumConfidence: Double = HorizonRequest.defaultMinimumConfidence) {
        self.sceneModel = sceneModel
        self.minimumConfidence = minimumConfidence
    }

    public var models: [ModelIdentity] { sceneModel.files }

    /// OpenCV's Lab tables, which the search's colour copy needs (docs/benchmarks.md: a fixed cost of
    /// 110–155 ms the first time).
    public static func prepareProcess() { OpenCVRuntime.prepareLabTables() }

    /// The long side of the copy the horizon is looked for in: a horizon is a large structure.
    static let workingSide = 320

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> HorizonResult {
        // The copy it looks in is shrunk from the image's halvings (a 12 MP photo in one step cost about 35 ms).
        let colour = try image.reduction(toFit: Self.workingSide, Self.workingSide)
        let sky = try skyMap(of: image, engines: engines)
        var found = aocv_horizon()
        var status = aocv_status()
        let cells = sky?.cells ?? []
        let result = cells.withUnsafeBufferPointer { map in
            aocv_detect_horizon(
                colour.handle, Int32(Self.workingSide), Int32(image.width), Int32(image.height),
                map.isEmpty ? nil : map.baseAddress, Int32(sky?.grid ?? 0), &found, &status)
        }
        guard result >= 0 else { throw AnalysisError(.engineFailed, "horizon: " + OpenCVMat.message(of: &status)) }
        guard result == 1 else { return HorizonResult(horizon: nil) }
        // The scene, judged on the image levelled by the line: a sea turned by 20° is a "pole" or a
        // "syringe" to the classifier, the same sea levelled a "sandbar"; a photo levelled by a line
        // that is not its horizon looks no more like an open view than before.
        let network = try engines.network(sceneModel)
        // It is levelled by the line as judged, before the line was fitted to its edge: the fit moves the
        // line, not the judgement.
        let levelled = try image.reduction(toFit: Self.sceneSide, Self.sceneSide).straightened(
            byDegrees: -found.judged_angle)
        let labels = try network.classify(levelled, best: HorizonScene.labelsRead)
        let confidence = HorizonScene.confidence(
            openView: HorizonScene.openView(labels), skyAbove: found.sky_above >= 0 ? found.sky_above : nil)
        guard confidence >= minimumConfidence else { return HorizonResult(horizon: nil) }
        return HorizonResult(
            horizon: HorizonObservation(
                angle: found.angle, start: PixelPoint(x: found.x1, y: found.y1),
                end: PixelPoint(x: found.x2, y: found.y2), confidence: confidence,
                width: image.width, height: image.height))
    }

    /// Where the sky is (`HorizonSky`), from the scene classifier's own features; nil with another
    /// classifier.
    private func skyMap(of image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> (
        cells: [Float], grid: Int
    )? {
        guard sceneModel == .efficientNetLite0 else { return nil }
        // The empty corners of a photo turned without cropping read as dark ground to the map: the
        // network sees them filled with the picture next to them.
        let map = try engines.featureMapNetwork(HorizonSky.network).featureMap(of: image) {
            (copy) throws(AnalysisError) in try copy.emptyCornersFilled() ?? copy
        }
        guard let cells = HorizonSky.probabilities(of: map.values, grid: map.grid) else { return nil }
        return (cells, map.grid)
    }

    /// The long side of the copy that is levelled and classified (the classifier reads a 224-px
    /// centre square of it).
    static let sceneSide = 448
}

extension ObservationKind {
    /// The horizon (``HorizonRequest``).
    public static let horizon = ObservationKind("horizon")
}

extension ImageAnalysis {
    /// The horizon; nil when not requested or when the image has none (see `result(.horizon)`).
    public var horizon: HorizonObservation? { result(.horizon, as: HorizonResult.self)?.horizon }
}
