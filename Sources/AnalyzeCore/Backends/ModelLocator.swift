import Foundation
import Synchronization

/// Finds model files: the environment side of a ``ModelIdentity``.
///
/// A model is looked for by file name in ``directories`` (in order) and accepted only when its
/// SHA-256 matches the identity; a file given explicitly (`--face-model`, `--model`) is used as
/// it is. The standard directories are: `$ANALYZE_MODELS`; `.models/` in the current folder or a
/// folder above the executable (a source checkout); `$XDG_DATA_HOME/analyze/models` (default
/// `$HOME/.local/share/analyze/models`); `share/analyze/models` beside the executable's `bin/`
/// (an installed prefix); `$HOME/.cache/analyze/models`; `/usr/local/share/analyze/models`;
/// `/usr/share/analyze/models`.
public struct ModelLocator: Sendable, Hashable {
    /// Folders searched by file name, in order.
    public var directories: [String]
    /// Files given explicitly, by identity.
    public var files: [ModelIdentity: String]

    public init(directories: [String], files: [ModelIdentity: String] = [:]) {
        self.directories = directories
        self.files = files
    }

    /// The standard search folders of this process's environment.
    public static var standard: ModelLocator { ModelLocator(directories: standardDirectories()) }

    static func standardDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var folders: [String] = []
        if let dir = environment["ANALYZE_MODELS"], !dir.isEmpty { folders.append(dir) }
        folders.append(FileManager.default.currentDirectoryPath + "/.models")
        let executable = executablePath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<6 {
            folders.append(folder.appendingPathComponent(".models").path)
            folder.deleteLastPathComponent()
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        folders.append(dataHome + "/analyze/models")
        folders.append(
            executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
                "share/analyze/models"
            ).path)
        folders.append(home + "/.cache/analyze/models")
        folders += ["/usr/local/share/analyze/models", "/usr/share/analyze/models"]
        var seen = Set<String>()
        return folders.filter { seen.insert($0).inserted }
    }

    /// The running executable, symlinks resolved: `/proc/self/exe` (right even when the binary was
    /// found through `PATH`, where `argv[0]` is just `analyze`), else `argv[0]`.
    static func executablePath() -> URL {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: resolved)
        }
        return URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
    }

    /// Registers an explicit file (a `--face-model` or `--model` argument) and returns its identity.
    public mutating func add(file path: String) throws(AnalysisError) -> ModelIdentity {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw AnalysisError(.engineUnavailable, "the model file cannot be read", file: path)
        }
        let identity = ModelIdentity(name: (path as NSString).lastPathComponent, sha256: try Self.sha256(ofFile: path))
        files[identity] = path
        return identity
    }

    /// The file of `model`, or an error saying where it was looked for and how to fetch it.
    public func path(of model: ModelIdentity) throws(AnalysisError) -> String {
        if let explicit = files[model] { return explicit }
        var mismatched: [String] = []
        for folder in directories {
            let candidate = folder + "/" + model.name
            guard FileManager.default.isReadableFile(atPath: candidate) else { continue }
            if (try? Self.sha256(ofFile: candidate)) == model.sha256 { return candidate }
            mismatched.append(candidate)
        }
        var message = "the model \(model) was not found"
        if !mismatched.isEmpty { message += "; \(mismatched.joined(separator: ", ")) has other contents" }
        message +=
            ". Fetch the models with `scripts/fetch-models` in a checkout (or `analyze models` to see where they are looked for)"
        throw AnalysisError(.engineUnavailable, message)
    }

    /// The identity of the first file named `name` in the search folders (for a model whose bytes
    /// are made on each machine, such as an exported network), or nil.
    public func identify(named name: String) -> ModelIdentity? {
        for folder in directories {
            let candidate = folder + "/" + name
            if FileManager.default.isReadableFile(atPath: candidate), let sha = try? Self.sha256(ofFile: candidate) {
                return ModelIdentity(name: name, sha256: sha)
            }
        }
        return nil
    }

    /// Whether the file of `model` can be found.
    public func contains(_ model: ModelIdentity) -> Bool { (try? path(of: model)) != nil }

    public static let haarCascadePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    public static let dlibLandmarksPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"

    /// The file for a Debian-packaged model, or an error naming the package.
    static func packaged(_ path: String, package: String) throws(AnalysisError) -> String {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw AnalysisError(.engineUnavailable, "\(path) is missing: install the Debian package \(package)")
        }
        return path
    }

    /// SHA-256 of a file, computed once per process for each path, size and modification time.
    static func sha256(ofFile path: String) throws(AnalysisError) -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let key = FileStamp(path: path, size: size, modified: modified)
        if let known = hashCache.withLock({ $0[key] }) { return known }
        let sha = try ContentHash.sha256Hex(ofFile: path)
        hashCache.withLock { $0[key] = sha }
        return sha
    }

    private struct FileStamp: Hashable {
        let path: String
        let size: Int
        let modified: Double
    }

    private static let hashCache = Mutex<[FileStamp: String]>([:])
}
