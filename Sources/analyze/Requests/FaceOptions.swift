import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `--faces`, the detector and its model, landmarks.
struct FaceOptions: RequestOptions {
    @Flag(
        name: .customLong("faces"),
        help: "Detect faces (CenterFace; needs scripts/fetch-models): box, confidence, five landmarks, roll and yaw.")
    var faces = false

    @Flag(
        name: .customLong("landmarks"),
        help:
            "With --faces, add dlib's 68 landmarks grouped into Vision's regions (faceContour, leftEye, outerLips, medianLine, ...)."
    )
    var landmarks = false

    @Option(
        name: .customLong("face-detector"),
        help: ArgumentHelp(
            "With --faces: centerface (default; boxes + 5 landmarks) or haar (OpenCV cascade from opencv-data, no download, no landmarks, more false positives).",
            valueName: "name"))
    var faceDetector: FaceDetectorKind = .centerface

    @Option(
        name: .customLong("face-model"),
        help: ArgumentHelp(
            "With --faces, a CenterFace ONNX file to use instead of the fetched one (see `analyze models`).",
            valueName: "file"))
    var faceModel: String?

    @Option(
        name: .customLong("min-face-confidence"),
        help: ArgumentHelp(
            "With --faces, drop faces below this detector score, 0-1 (default: 0.6 for centerface, 0.5 for haar).",
            valueName: "c"))
    var minFaceConfidence: Double?

    var isAsked: Bool { faces }

    func validate() throws {
        try requireUnitInterval(minFaceConfidence, "--min-face-confidence")
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        var model: ModelIdentity?
        if let faceModel, faceDetector == .centerface {
            do {
                model = try models.add(file: faceModel)
            } catch {
                throw ValidationError("--face-model: \(error)")
            }
        }
        return FaceRequest(
            detector: faceDetector, minimumConfidence: minFaceConfidence, landmarks: landmarks, model: model)
    }
}
