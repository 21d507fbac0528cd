/// Computes an image's feature print, like `VNGenerateImageFeaturePrintRequest`: the 1280 features
/// EfficientNet-Lite0 weighs to classify it, unit length (``FeaturePrintObservation``). Compare two
/// with ``FeaturePrintObservation/distance(to:)``; `analyze similar` lists a folder's near-duplicates.
/// Not part of "every request": it is asked for (`--featureprint`).
public struct FeaturePrintRequest: ImageRequest {
    public static let kind = ObservationKind.featurePrint
    public static let kindAliases = ["featureprints", "feature-print"]
    /// About 30 ms a photo, as the classifier.
    public static let cost = 1
    public static let countNoun = "feature print"
    public static let runsWhenNoneAsked = false

    public init() {}

    public var models: [ModelIdentity] { [FeaturePrintNetwork.model.weights, ONNXRuntime.library] }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> FeaturePrintObservation
    {
        FeaturePrintObservation(vector: try engines.featurePrintNetwork().features(of: image))
    }
}

extension ObservationKind {
    /// An image's feature print (``FeaturePrintRequest``).
    public static let featurePrint = ObservationKind("featureprint")
}

extension ImageAnalysis {
    /// The image's feature print; nil when not requested.
    public var featurePrint: FeaturePrintObservation? { result(.featurePrint, as: FeaturePrintObservation.self) }
}
