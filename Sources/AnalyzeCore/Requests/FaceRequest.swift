/// Which face detector a ``FaceRequest`` uses.
public enum FaceDetectorKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// CenterFace (ONNX, OpenCV DNN): boxes, confidences and five landmarks. Needs the model
    /// fetched by `scripts/fetch-models`.
    case centerface
    /// OpenCV's frontal-face Haar cascade (Debian `opencv-data`): no download, no landmarks,
    /// more false positives.
    case haar

    /// The score below which faces are dropped by default. CenterFace: 0.6 — on photos it was not
    /// tuned on (OpenCV's sample images) false faces scored 0.52–0.55 (a circuit board, a dark
    /// background shape) and true faces 0.66 and up. Haar: 0.5 (level weight 2, see the shim).
    public var defaultMinimumConfidence: Double {
        switch self {
        case .centerface: 0.6
        case .haar: 0.5
        }
    }
}

/// Detects faces, like `VNDetectFaceRectanglesRequest`, and with `landmarks` also the 68-point
/// regions of `VNDetectFaceLandmarksRequest` (dlib).
public struct FaceRequest: ImageRequest, Codable, Hashable {
    public static let kind = ObservationKind.faces

    public var detector: FaceDetectorKind
    /// Faces scoring below this are dropped (0–1); nil means the detector's own default.
    public var minimumConfidence: Double?
    /// Add dlib's 68 landmarks grouped into Vision's regions.
    public var landmarks: Bool
    /// Where the models are (see ``ModelLocator``).
    public var models: ModelLocator

    public init(detector: FaceDetectorKind = .centerface, minimumConfidence: Double? = nil, landmarks: Bool = false,
                models: ModelLocator = ModelLocator()) {
        self.detector = detector
        self.minimumConfidence = minimumConfidence
        self.landmarks = landmarks
        self.models = models
    }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [FaceObservation] {
        let threshold = minimumConfidence ?? detector.defaultMinimumConfidence
        let faces = try engines.faceDetector(detector, models: models).detect(in: image.pixels, minimumConfidence: threshold)
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
