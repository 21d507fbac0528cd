/// Says what an image shows as a whole, with ranked labels, like `VNClassifyImageRequest` (or a
/// `VNCoreMLRequest` with an image classifier). The default network is EfficientNet-Lite0 over
/// the 1000 ImageNet classes.
public struct ClassificationRequest: ImageRequest {
    public static let kind = ObservationKind.classification
    public static let kindAliases = ["classify", "label", "labels"]
    /// About 55 ms a photo.
    public static let cost = 1
    public static let countNoun = "label"

    /// The classifier network.
    public var model: NetworkModel
    /// How many labels to report, best first.
    public var maximumLabels: Int
    /// Labels below this probability are left out (0–1); the best label is always kept.
    public var minimumConfidence: Double

    public init() { self.init(model: .efficientNetLite0) }

    /// Labels under 1% are left out by default: a card that lists `weasel 0%` says nothing.
    public static let defaultMinimumConfidence = 0.01

    public init(
        model: NetworkModel = .efficientNetLite0, maximumLabels: Int = 5,
        minimumConfidence: Double = ClassificationRequest.defaultMinimumConfidence
    ) {
        self.model = model
        self.maximumLabels = maximumLabels
        self.minimumConfidence = minimumConfidence
    }

    public var models: [ModelIdentity] { model.files }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> ImageClassification {
        let network = try engines.network(model)
        let labels = try network.classify(
            network.source(in: image), reducedFrom: (image.width, image.height), best: maximumLabels)
        return ImageClassification(
            labels: labels.enumerated().filter { $0.offset == 0 || $0.element.confidence >= minimumConfidence }.map(
                \.element))
    }
}

extension ObservationKind {
    /// Ranked labels for the whole image (``ClassificationRequest``).
    public static let classification = ObservationKind("classification")
}

extension ImageAnalysis {
    /// The image's ranked labels; nil when not requested.
    public var classification: [ClassificationObservation]? {
        result(.classification, as: ImageClassification.self)?.labels
    }
}
