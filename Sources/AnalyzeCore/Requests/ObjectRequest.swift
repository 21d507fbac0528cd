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

    /// The default threshold, chosen for F1 on the development set of `scripts/evaluate-objects`
    /// (37 photos, 159 boxes; the curve in docs/benchmarks.md): YOLO11n at input 800 has its best F1
    /// at 0.3 (precision 86%, recall 83%), on the photos as they are and shrunk to 640 px.
    public static let defaultMinimumConfidence = 0.3
    /// The side of the square whose area the default detector's input has (in the image's proportions):
    /// chosen on the development set (docs/benchmarks.md), where 800 beat YOLO11n's training size 640 and
    /// 960 in mAP and F1, on the photos as they are and shrunk to COCO's 640 px.
    public static let defaultInputSize = NetworkModel.yolo11n.inputWidth
    /// Boxes of one class overlapping more than this are one object (docs/benchmarks.md).
    public static let defaultMaximumOverlap = 0.45
    /// A detection's other labels below this score are left out (a `person` is not also `titi 0%`).
    public static let minimumLabelScore = 0.01

    public init() { self.init(model: .yolo11n) }

    public init(
        model: NetworkModel = .yolo11n, minimumConfidence: Double = ObjectRequest.defaultMinimumConfidence,
        maximumOverlap: Double = ObjectRequest.defaultMaximumOverlap, maximumObservations: Int = 100
    ) {
        self.model = model
        self.minimumConfidence = minimumConfidence
        self.maximumOverlap = maximumOverlap
        self.maximumObservations = maximumObservations
    }

    public var models: [ModelIdentity] { model.files }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError)
        -> [RecognizedObjectObservation]
    {
        let network = try engines.network(model)
        return try network.detect(
            in: network.source(in: image), reducedFrom: (image.width, image.height),
            minimumConfidence: minimumConfidence, maximumOverlap: maximumOverlap,
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
