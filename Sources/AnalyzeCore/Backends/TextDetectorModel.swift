/// PP-OCRv4's DB text detector on ONNX Runtime, for the text gate: one file, one session per worker,
/// fed each image at an input of its own. (Until 0.5 it ran on OpenCV 4.6's DNN, patched by
/// `scripts/fetch-models`; ONNX Runtime gives the same map within 3e-5 in 0.55 of the time: see
/// docs/benchmarks.md.)
///
/// Each image gets the canvas of 672×512 pixels or fewer (sides in multiples of 32) that shows it
/// largest: 672×512 for a 4:3 photo, 512×672 for a 3:4 one, 768×448 for a 16:9 one, 704×480 for a 3:2
/// one, 480×704 for a 2:3 one. A forward costs what its area does, about 150 ms on one thread, whatever
/// the image's shape; analyze 0.4 letterboxed every landscape image into 672×512 (a portrait one into
/// 512×672, a second network), so a 16:9 photo was seen 13% smaller with a black band under it. With
/// 18–24 px capitals pasted at 48 places into the 16:9, 3:2 and 2:3 photos of `scripts/bench --photos`
/// (`eval/text/evaluate-text-gate`), 92.7% of the words were read instead of 72.3%, and 43 of 48 invoice
/// lines instead of 31, in the same time; the same canvas cut to the letterboxed image (672×384 for
/// 16:9: 18% faster) read 71.1%.
///
/// Measured on one thread before: 197 ms at 640×640, 144 at 640×480, 152 at 672×512. 640×480 sees a
/// 4:3 photo at the same scale as 640×640 but missed a line of 20-px capitals in a 12 MP photo that
/// 640×640 half found (the network's squeeze-and-excitation pooling sees a letterbox's padding too);
/// 672×512 sees it 5% larger and found the whole line.
public struct TextDetectorModel: Sendable, Hashable, Codable {
    /// The patched file.
    public let identity: ModelIdentity

    /// The files it needs: the network and ONNX Runtime's library.
    public var identities: [ModelIdentity] { [identity, ONNXRuntime.library] }

    public init(identity: ModelIdentity) {
        self.identity = identity
    }

    /// From the PyPI wheel `rapidocr-onnxruntime==1.4.4` (Apache-2.0), unchanged: the file the line
    /// reader's detector is (``TextReaderModels/ppocrV4``).
    public static let ppocrV4 = TextDetectorModel(identity: TextReaderModels.ppocrV4.detector)

    /// The canvas for a landscape (or square) image with the proportions of a 4:3 photo, and for a
    /// portrait one.
    static func bounds(forWidth width: Int, height: Int) -> (width: Int, height: Int) {
        width >= height ? (width: 672, height: 512) : (width: 512, height: 672)
    }

    /// The network's input for an image of this size: of the canvases with sides in multiples of 32 and
    /// an area at most 672×512, the one that shows the image largest, cut to the fitted image.
    static func input(forWidth width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return bounds(forWidth: width, height: height) }
        let budget = 672 * 512  // pixels of a forward's input
        var best = bounds(forWidth: width, height: height)
        var bestScale = min(Double(best.width) / Double(width), Double(best.height) / Double(height))
        for w in stride(from: 32, through: 4096, by: 32) {
            let h = min(4096, budget / w / 32 * 32)
            guard h >= 32 else { break }
            let scale = min(Double(w) / Double(width), Double(h) / Double(height))
            if scale > bestScale { best = (w, h); bestScale = scale }
        }
        return NetworkCanvas.fitted(width: width, height: height, into: best)
    }
}
