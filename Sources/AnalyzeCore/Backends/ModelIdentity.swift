/// A model file named by what it is, not where it is: its file name and the SHA-256 of its bytes.
///
/// Requests carry identities, never paths, so runs on machines with different folders give the
/// same options hash (sharded runs merge), and a changed model changes the hash (`--resume`
/// redoes the images). The worker's ``ModelLocator`` finds the file.
public struct ModelIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file name the model is looked for under (`centerface.onnx`).
    public let name: String
    /// The SHA-256 of the file, 64 lower-case hex digits.
    public let sha256: String

    public init(name: String, sha256: String) {
        self.name = name
        self.sha256 = sha256
    }

    public var description: String { "\(name) (sha256 \(sha256.prefix(12))…)" }
}
