internal import COpenCVShim

/// Owns an OpenCV face detector (`aocv_centerface_create` or `aocv_haar_create`). A DNN net is
/// not thread-safe, so each worker thread owns one detector; CenterFace's network takes any input size.
final class FaceDetector {
    private let handle: OpaquePointer
    let kind: FaceDetectorKind

    /// The box CenterFace's input fits an image into: 640×480 for a landscape (or square) image,
    /// 480×640 for a portrait one. A portrait photo fitted into 640×480 is seen at three quarters of the
    /// scale: with a group photo pasted into portrait photos so that its faces were 1/40 of the height,
    /// 640×480 found 43 of 108 faces and 480×640 88 (at 1/50: 30 and 66; at 1/25: 99 and 108), with no
    /// false face.
    static func centerFaceBounds(forWidth width: Int, height: Int) -> (width: Int, height: Int) {
        width >= height ? (width: 640, height: 480) : (width: 480, height: 640)
    }

    /// CenterFace's input for an image of this size: the image fitted into
    /// ``centerFaceBounds(forWidth:height:)``, each side rounded up to a multiple of 32 (the network's
    /// stride), so that the canvas holds the image and at most 31 rows or columns of padding. A 16:9 photo
    /// is read at 640×384, a 156×56 barcode at 640×256, a square at 480×480: the cost of a forward follows
    /// the canvas's area (640×352: 66 ms against 90 at 640×480), and the image is seen at the same scale as
    /// in the whole box.
    static func centerFaceInput(forWidth width: Int, height: Int) -> (width: Int, height: Int) {
        NetworkCanvas.fitted(width: width, height: height, into: centerFaceBounds(forWidth: width, height: height))
    }

    init(kind: FaceDetectorKind, model: ModelIdentity?, models: ModelLocator) throws(AnalysisError) {
        var status = aocv_status()
        let created: OpaquePointer?
        switch kind {
        case .centerface:
            guard let model else { throw AnalysisError(.engineUnavailable, "CenterFace needs a model") }
            let path = try models.path(of: model)
            created = aocv_centerface_create(path, &status)
        case .haar:
            let path = try ModelLocator.packaged(ModelLocator.haarCascadePath, package: "opencv-data")
            created = aocv_haar_create(path, &status)
        }
        guard let created else {
            throw AnalysisError(
                .engineUnavailable, "cannot load the \(kind.rawValue) face detector: " + OpenCVMat.message(of: &status))
        }
        handle = created
        self.kind = kind
    }

    deinit { aocv_face_detector_free(handle) }

    /// One detected face before landmarks: box, score, and CenterFace's five points.
    struct Detection {
        let box: BoundingBox
        let confidence: Double
        let landmarks: FaceLandmarks?

        /// The detection with its box and points mapped through a 2×3 affine matrix (row-major).
        func mapped(through m: [Double]) -> Detection {
            Detection(
                box: box.mapped(through: m), confidence: confidence,
                landmarks: landmarks.map { l in
                    FaceLandmarks(
                        rightEye: l.rightEye.applying(m), leftEye: l.leftEye.applying(m), nose: l.nose.applying(m),
                        mouthRight: l.mouthRight.applying(m), mouthLeft: l.mouthLeft.applying(m))
                })
        }
    }

    /// The overlap (IoU) over which two faces are one: the shim's non-maximum suppression uses the same.
    static let maximumOverlap = 0.3

    /// Non-maximum suppression as the shim does it (IoU over ``maximumOverlap`` keeps the more
    /// confident face), best first; equal confidences in reading order.
    static func suppressingOverlaps(_ faces: [Detection]) -> [Detection] {
        var kept: [Detection] = []
        for face in bestFirst(faces)
        where !kept.contains(where: { $0.box.intersectionOverUnion(face.box) > maximumOverlap }) {
            kept.append(face)
        }
        return kept
    }

    /// The faces most confident first; equal confidences in reading order.
    static func bestFirst(_ faces: [Detection]) -> [Detection] {
        faces.sorted { a, b in
            a.confidence != b.confidence ? a.confidence > b.confidence : (a.box.y, a.box.x) < (b.box.y, b.box.x)
        }
    }

    /// Detects faces in an upright BGR image (`aocv_detect_faces`), best first. CenterFace reads it at
    /// ``centerFaceInput(forWidth:height:)`` of the image (of `original`, when `image` is a reduction of
    /// an image of that size, at least the input in size; faces are then in the original's pixels).
    func detect(
        in image: OpenCVMat, reducedFrom original: (width: Int, height: Int)? = nil,
        minimumConfidence: Double
    ) throws(AnalysisError) -> [Detection] {
        let input = Self.centerFaceInput(
            forWidth: original?.width ?? image.width, height: original?.height ?? image.height)
        var faces = [aocv_face](repeating: aocv_face(), count: 256)
        var status = aocv_status()
        let count = faces.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return aocv_detect_faces(
                handle, image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0),
                Int32(input.width), Int32(input.height), minimumConfidence, base, Int32(buffer.count), &status)
        }
        guard count >= 0 else {
            throw AnalysisError(.engineFailed, "face detection failed: " + OpenCVMat.message(of: &status))
        }
        return faces.prefix(Int(count)).map { f in
            let l = f.landmarks
            let values = [l.0, l.1, l.2, l.3, l.4, l.5, l.6, l.7, l.8, l.9]
            let landmarks: FaceLandmarks? =
                values.allSatisfy(\.isFinite)
                ? FaceLandmarks(
                    rightEye: PixelPoint(x: l.0, y: l.1), leftEye: PixelPoint(x: l.2, y: l.3),
                    nose: PixelPoint(x: l.4, y: l.5),
                    mouthRight: PixelPoint(x: l.6, y: l.7), mouthLeft: PixelPoint(x: l.8, y: l.9))
                : nil
            return Detection(
                box: BoundingBox(x: f.x, y: f.y, width: f.width, height: f.height), confidence: f.confidence,
                landmarks: landmarks)
        }
    }
}

extension WorkerEngines {
    /// The worker's face detector of `kind` (CenterFace with `model`, or the Haar cascade): one network
    /// for images of every size.
    func faceDetector(_ kind: FaceDetectorKind, model: ModelIdentity?) throws(AnalysisError) -> FaceDetector {
        struct Configuration: Hashable { let kind: FaceDetectorKind; let model: ModelIdentity? }
        return try engine(FaceDetector.self, for: Configuration(kind: kind, model: model)) {
            () throws(AnalysisError) in try FaceDetector(kind: kind, model: model, models: models)
        }
    }
}
