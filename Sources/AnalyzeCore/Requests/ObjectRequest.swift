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

    /// The default threshold, chosen on about 90 sample photos (opencv-doc, darknet): real objects
    /// mostly score 0.5–0.99, and 0.5 removes most mistakes but not all (a baboon is a person at
    /// 0.59); see the README.
    public static let defaultMinimumConfidence = 0.5

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
                                  maximumObservations: maximumObservations)
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
