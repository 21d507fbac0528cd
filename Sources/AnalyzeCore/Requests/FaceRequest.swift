/// Which face detector a ``FaceRequest`` uses.
public enum FaceDetectorKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// CenterFace (ONNX, OpenCV DNN): boxes, confidences and five landmarks. Needs the model
    /// fetched by `scripts/fetch-models`.
    case centerface
    /// OpenCV's frontal-face Haar cascade (Debian `opencv-data`): no download, no landmarks,
    /// more false positives.
    case haar
}

/// Detects faces, like `VNDetectFaceRectanglesRequest`, and with `landmarks` also the 68-point
/// regions of `VNDetectFaceLandmarksRequest` (dlib).
public struct FaceRequest: ImageRequest, Codable, Hashable {
    public static let kind = ObservationKind.faces

    public var detector: FaceDetectorKind
    /// Faces scoring below this are dropped (CenterFace heatmap score, 0–1).
    public var minimumConfidence: Double
    /// Add dlib's 68 landmarks grouped into Vision's regions.
    public var landmarks: Bool
    /// Where the models are (see ``ModelLocator``).
    public var models: ModelLocator

    public init(detector: FaceDetectorKind = .centerface, minimumConfidence: Double = 0.5, landmarks: Bool = false,
                models: ModelLocator = ModelLocator()) {
        self.detector = detector
        self.minimumConfidence = minimumConfidence
        self.landmarks = landmarks
        self.models = models
    }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [FaceObservation] {
        let faces = try engines.faceDetector(detector, models: models).detect(in: image.color, minimumConfidence: minimumConfidence)
        let predictor = landmarks ? try LandmarkPredictor.shared(models: models) : nil
        let gray = landmarks ? try image.gray() : nil
        return faces.map { face in
            var regions: FaceRegions?
            if let predictor, let gray {
                regions = predictor.regions(in: gray, faceBox: face.box)
            }
            return FaceObservation(boundingBox: face.box, confidence: face.confidence, landmarks: face.landmarks, regions: regions)
        }
    }
}
