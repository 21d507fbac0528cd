/// Finds objects with a detector network and names them with ranked labels, like a
/// `VNCoreMLRequest` with an object detector (`VNRecognizedObjectObservation`s). The default
/// network is YOLO11n (80 COCO classes); `--model` brings another.
public struct ObjectRequest: ImageRequest {
    public static let kind = ObservationKind.objects
    public static let kindAliases = ["object"]
    /// About 190 ms a photo.
    public static let cost = 3
    public static var optionalModels: [OptionalModel] {
        NetworkModel.yolov4Tiny.files.map {
            OptionalModel(
                use: "objects, MIT-licensed alternative (--model yolov4-tiny.weights)", model: $0,
                without: "--objects has YOLO11n (AGPL-3.0) only")
        }
    }

    /// The detector network.
    public var model: NetworkModel
    /// Objects whose best label scores below this are dropped (0–1).
    public var minimumConfidence: Double
    /// Boxes of one class overlapping more than this (IoU) are merged (class-wise NMS).
    public var maximumOverlap: Double
    /// At most this many objects per image, most confident first.
    public var maximumObservations: Int
    /// Other input sizes (the side of the square of the input's area) the detector also runs at, its
    /// boxes fused with those of the model's own size (weighted box fusion). Only a detector that fits
    /// the image by area (YOLO11n) runs at other sizes; for another, this is ignored, and so is a size
    /// outside 32–2048.
    public var fusedInputSizes: [Int]
    /// A photo that the detector's whole view shrinks to less than half is also cut into `tiles` × `tiles`
    /// overlapping tiles, each seen at the model's own input size, and the small objects they find are
    /// added to the whole view's (nil or under 2: the whole view only). Only a detector that fits the image
    /// by area (YOLO11n) is run on tiles. Each tile costs about one pass of the whole view.
    public var tiles: Int?

    /// The default threshold, chosen for F1 on the development set of `eval/objects/evaluate-objects`
    /// (56 photos, 198 boxes; the curve in docs/benchmarks.md): YOLO11n at 800 and 640 fused has its
    /// best F1 at 0.25 on the photos as they are and on their dim, dark and webcam-like copies.
    public static let defaultMinimumConfidence = 0.25
    /// The threshold of a detector run once (`--model`): YOLO11n's best F1 on the same set in one pass
    /// at 800 lies at 0.3.
    public static let singlePassMinimumConfidence = 0.3
    /// The side of the square whose area the default detector's input has (in the image's proportions):
    /// chosen on the development set (docs/benchmarks.md), where 800 beat YOLO11n's training size 640 and
    /// 960 in mAP and F1, on the photos as they are and shrunk to COCO's 640 px.
    public static let defaultInputSize = NetworkModel.yolo11n.inputWidth
    /// The default detector also runs at 640 (YOLO11n's training size), its boxes fused with those at
    /// 800: 1 point more mAP on the development set's photos as they are, 5–6 on its dim and webcam-like
    /// copies, at about 1.6 times the detector's time (docs/benchmarks.md).
    public static let defaultFusedInputSizes = [640]
    /// Boxes of one class from different input sizes overlapping more than this are one object.
    public static let fusionOverlap = 0.55
    /// Each size's objects are kept down to this score before they are fused: an object one size sees
    /// at 0.5 and the other misses scores 0.25 fused.
    static let fusionFloor = 0.01
    /// ... and at most this many of them a pass.
    static let fusionCapacity = 300
    /// Boxes of one class overlapping more than this are one object (docs/benchmarks.md).
    public static let defaultMaximumOverlap = 0.45
    /// A detection's other labels below this score are left out (a `person` is not also `titi 0%`).
    public static let minimumLabelScore = 0.01

    public init() { self.init(model: .yolo11n) }

    public init(
        model: NetworkModel = .yolo11n, minimumConfidence: Double = ObjectRequest.defaultMinimumConfidence,
        maximumOverlap: Double = ObjectRequest.defaultMaximumOverlap, maximumObservations: Int = 100
    ) {
        self.init(
            model: model, minimumConfidence: minimumConfidence, maximumOverlap: maximumOverlap,
            maximumObservations: maximumObservations, fusedInputSizes: Self.defaultFusedInputSizes)
    }

    public init(
        model: NetworkModel = .yolo11n, minimumConfidence: Double = ObjectRequest.defaultMinimumConfidence,
        maximumOverlap: Double = ObjectRequest.defaultMaximumOverlap, maximumObservations: Int = 100,
        fusedInputSizes: [Int]
    ) {
        self.model = model
        self.minimumConfidence = minimumConfidence
        self.maximumOverlap = maximumOverlap
        self.maximumObservations = maximumObservations
        self.fusedInputSizes = fusedInputSizes
    }

    public init(
        model: NetworkModel = .yolo11n, minimumConfidence: Double = ObjectRequest.defaultMinimumConfidence,
        maximumOverlap: Double = ObjectRequest.defaultMaximumOverlap, maximumObservations: Int = 100,
        fusedInputSizes: [Int] = ObjectRequest.defaultFusedInputSizes, tiles: Int?
    ) {
        self.init(
            model: model, minimumConfidence: minimumConfidence, maximumOverlap: maximumOverlap,
            maximumObservations: maximumObservations, fusedInputSizes: fusedInputSizes)
        self.tiles = tiles
    }

    public var models: [ModelIdentity] { model.files }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError)
        -> [RecognizedObjectObservation]
    {
        let network = try engines.network(model)
        let tileRects =
            model.fitsByArea
            ? DetectionTiles.rects(width: image.width, height: image.height, grid: tiles ?? 1, area: model.inputWidth)
            : []
        guard let first = tileRects.first else {
            return try wholeView(
                of: image, network: network, minimumConfidence: minimumConfidence,
                maximumObservations: maximumObservations)
        }
        // The whole view and every tile kept down to the fusion's floor, then one suppression per class and
        // the threshold over all of them.
        var found = try wholeView(
            of: image, network: network, minimumConfidence: min(minimumConfidence, Self.fusionFloor),
            maximumObservations: Self.fusionCapacity)
        // Every tile has one size, so one scale and one source: each tile is cut from the halving that the
        // whole image would be shrunk from at the tiles' scale.
        let canvas = NetworkCanvas.fitted(width: first.width, height: first.height, area: model.inputWidth)
        let scale = Double(canvas.width) / Double(first.width)
        let reduction = try image.reduction(
            toFit: Int((Double(image.width) * scale).rounded(.up)), Int((Double(image.height) * scale).rounded(.up)))
        let sx = Double(reduction.width) / Double(image.width), sy = Double(reduction.height) / Double(image.height)
        for rect in tileRects {
            let tile = try reduction.cropped(
                x: Int((Double(rect.x) * sx).rounded()), y: Int((Double(rect.y) * sy).rounded()),
                width: Int((Double(rect.width) * sx).rounded()), height: Int((Double(rect.height) * sy).rounded()))
            let objects = try network.detect(
                in: tile, reducedFrom: (rect.width, rect.height),
                minimumConfidence: min(minimumConfidence, Self.fusionFloor), maximumOverlap: maximumOverlap,
                maximumObservations: Self.fusionCapacity, minimumLabelScore: Self.minimumLabelScore,
                area: model.inputWidth)
            found += DetectionTiles.placed(objects, from: rect, scale: scale, width: image.width, height: image.height)
        }
        return WeightedBoxFusion.suppressedPerClass(
            found.filter { $0.confidence >= minimumConfidence }, overlap: maximumOverlap,
            maximumObservations: maximumObservations)
    }

    /// The objects of the whole image: one pass, or one pass a size fused.
    private func wholeView(
        of image: UprightImage, network: DNNNetwork, minimumConfidence: Double, maximumObservations: Int
    ) throws(AnalysisError) -> [RecognizedObjectObservation] {
        // Each size once, the model's own first; a size outside 32–2048 is no input a network takes.
        var sizes: [Int] = []
        if model.fitsByArea {
            for size in [model.inputWidth] + fusedInputSizes where (32...2048).contains(size) && !sizes.contains(size) {
                sizes.append(size)
            }
        }
        guard sizes.count > 1, let largest = sizes.max() else {
            return try network.detect(
                in: network.source(in: image), reducedFrom: (image.width, image.height),
                minimumConfidence: minimumConfidence, maximumOverlap: maximumOverlap,
                maximumObservations: maximumObservations, minimumLabelScore: Self.minimumLabelScore)
        }
        // One source for every size (the halving the largest input is shrunk from), one pass a size.
        let source = try network.source(in: image, area: largest)
        var passes: [[RecognizedObjectObservation]] = []
        for size in sizes {
            passes.append(
                try network.detect(
                    in: source, reducedFrom: (image.width, image.height),
                    minimumConfidence: min(minimumConfidence, Self.fusionFloor), maximumOverlap: maximumOverlap,
                    maximumObservations: Self.fusionCapacity, minimumLabelScore: Self.minimumLabelScore, area: size))
        }
        return WeightedBoxFusion.fuse(
            passes, overlap: Self.fusionOverlap, suppression: maximumOverlap, minimumConfidence: minimumConfidence,
            maximumObservations: maximumObservations, minimumLabelScore: Self.minimumLabelScore)
    }
}

extension ObservationKind {
    /// Objects found by a detector network (``ObjectRequest``).
    public static let objects = ObservationKind("objects")
}

extension ImageAnalysis {
    /// The objects found; nil when not requested.
    public var objects: [RecognizedObjectObservation]? { result(.objects) }
}
