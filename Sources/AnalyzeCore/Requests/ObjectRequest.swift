/// Finds objects with a detector network and names them with ranked labels, like a
/// `VNCoreMLRequest` with an object detector (`VNRecognizedObjectObservation`s). The default
/// network is YOLOv4-tiny (80 COCO classes); `--model` brings another.
public struct ObjectRequest: ImageRequest {
    public static let kind = ObservationKind.objects
    public static let kindAliases = ["object"]

    /// The detector network.
    public var model: NetworkModel
    /// Objects whose best label scores below this are dropped (0–1).
    public var minimumConfidence: Double
    /// Boxes of one class overlapping more than this (IoU) are merged (class-wise NMS).
    public var maximumOverlap: Double
    /// At most this many objects per image, most confident first.
    public var maximumObservations: Int

    /// The default threshold, chosen for F1 on the development set of `scripts/evaluate-objects`
    /// (37 photos, 159 boxes; the curve in docs/benchmarks.md): at 0.5 precision 100%, recall 56%;
    /// at 0.3 95% and 67%; the best F1 lies at 0.15–0.25 on either half of the set. 0.3 leaves room
    /// for photos more cluttered than the set's.
    public static let defaultMinimumConfidence = 0.3
    /// A detection's other labels below this score are left out (a `person` is not also `titi 0%`).
    public static let minimumLabelScore = 0.01

    public init() { self.init(model: .yolov4Tiny) }

    public init(model: NetworkModel = .yolov4Tiny, minimumConfidence: Double = ObjectRequest.defaultMinimumConfidence,
                maximumOverlap: Double = 0.45, maximumObservations: Int = 100) {
        self.model = model
        self.minimumConfidence = minimumConfidence
        self.maximumOverlap = maximumOverlap
        self.maximumObservations = maximumObservations
    }

    public var models: [ModelIdentity] { model.files }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [RecognizedObjectObservation] {
        let network = try engines.network(model)
        return try network.detect(in: network.source(in: image), reducedFrom: (image.width, image.height), minimumConfidence: minimumConfidence, maximumOverlap: maximumOverlap,
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
