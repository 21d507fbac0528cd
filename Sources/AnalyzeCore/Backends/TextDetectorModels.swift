/// PP-OCRv4's DB text detector as `scripts/fetch-models` patches it for OpenCV 4.6: one file per
/// fixed input, 672×512 for landscape (and square) images and 512×672 for portrait ones.
///
/// An OpenCV 4.6 network keeps the input size it was given (MODELS.md). analyze 0.3 had one square
/// 640×640 input, which spent a quarter of its forward on the letterbox's padding for every 4:3
/// photo. Measured on one thread: 197 ms at 640×640, 144 at 640×480, 167 at 672×512. 640×480 sees
/// a 4:3 photo at the same scale as 640×640 but missed a line of 20-px capitals in a 12 MP photo
/// that 640×640 half found (the network's squeeze-and-excitation pooling sees the padding too);
/// 672×512 sees it 5% larger and found the whole line, and the same line in the photo turned to
/// portrait, where 640×640 found nothing.
public struct TextDetectorModels: Sendable, Hashable, Codable {
    /// The 672×512 file, for images at least as wide as they are tall.
    public let landscape: ModelIdentity
    /// The 512×672 file, for images taller than they are wide.
    public let portrait: ModelIdentity

    public init(landscape: ModelIdentity, portrait: ModelIdentity) {
        self.landscape = landscape
        self.portrait = portrait
    }

    /// From the PyPI wheel `rapidocr-onnxruntime==1.4.4` (Apache-2.0), patched by
    /// `scripts/fetch-models` (the patch is deterministic: these are its hashes).
    public static let ppocrV4 = TextDetectorModels(
        landscape: ModelIdentity(name: "ppocr-det-672x512.onnx", sha256: "6846db490b36218b8c12f48ca0a2c1f60a472c99f27681d8413f2844953b4816"),
        portrait: ModelIdentity(name: "ppocr-det-512x672.onnx", sha256: "f18a0d6feb0f3a28e0061e59e63b1946780ac9b1b80189e3d347422edabc46c5"))

    /// Both files.
    public var all: [ModelIdentity] { [landscape, portrait] }

    /// The file and its fixed input for an image of this size.
    func model(forWidth width: Int, height: Int) -> (identity: ModelIdentity, input: (width: Int, height: Int)) {
        if width >= height { return (landscape, (width: 672, height: 512)) }
        return (portrait, (width: 512, height: 672))
    }
}
