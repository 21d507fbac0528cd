import AnalyzeCore
import AnalyzeOutput
import Foundation

/// A network of one's own (`--model`), like a `VNCoreMLRequest`: loaded once to see what its
/// outputs are, then performed as an ``ObjectRequest`` (YOLO-style detections; an anchor-free YOLOv8 or
/// YOLO11 ONNX on ONNX Runtime) or a ``ClassificationRequest`` (one score per class).
public enum CustomModel {
    /// How pixel values are brought to the network's input, in RGB order.
    public enum Preprocessing: String, Sendable, CaseIterable {
        /// value / 255 (YOLO and most detectors).
        case unit
        /// (value / 255 − ImageNet mean) / ImageNet std (torchvision classifiers).
        case torch
        /// (value − 127.5) / 127.5 (TensorFlow/Keras "inception" models).
        case tf
    }

    /// The request that runs `weights` (ONNX, or Darknet with `configuration`) with class names
    /// from `labels`. The files are added to `models` by identity. Fails, before any image is read,
    /// when the network cannot be loaded, its outputs cannot be interpreted, its class count
    /// differs from the labels', or an ONNX file names external data outside its folder
    /// (``ONNXExternalData``). With `isolation`, a network that runs on ONNX Runtime runs every forward
    /// in a process of its own within those bounds (on OpenCV, what a forward costs depends on the
    /// input's size alone, which is fixed, so the probe's run bounds every later one).
    public static func request(
        weights: String, configuration: String?, labels: String, inputWidth: Int, inputHeight: Int,
        preprocessing: Preprocessing?, minimumConfidence: Double?, isolation: NetworkIsolation? = nil,
        models: inout ModelLocator
    ) throws(AnalysisError) -> any ImageRequest {
        if configuration == nil { try ONNXExternalData.check(modelAt: weights) }
        var network = NetworkModel(
            role: .detector, weights: try models.add(file: weights),
            configuration: try configuration.map { c throws(AnalysisError) in try models.add(file: c) },
            labels: try models.add(file: labels), inputWidth: inputWidth, inputHeight: inputHeight)
        do {
            network.role = try DNNNetwork(model: network, models: models, decidingRole: true).role
        } catch {
            // OpenCV 4.6 cannot run (or read the outputs of) an anchor-free YOLO (YOLOv8, YOLO11):
            // an ONNX file whose one output is [1, 4 + C, N] runs on ONNX Runtime instead.
            guard configuration == nil,
                try isAnchorFreeDetector(
                    network, classes: try DNNNetwork.readLabels(models.path(of: network.labels)).count,
                    isolation: isolation, models: models)
            else {
                throw error
            }
            network.runtime = .onnxRuntime
            network.role = .detector
            network.isolation = isolation
        }
        switch (preprocessing ?? (network.role == .detector ? .unit : .torch)) {
        case .unit:
            network.scale = 1.0 / 255
        case .torch:
            network.scale = 1.0 / 255
            network.mean = [0.485, 0.456, 0.406]
            network.std = [0.229, 0.224, 0.225]
        case .tf:
            network.mean = [127.5, 127.5, 127.5]
            network.std = [127.5, 127.5, 127.5]
        }
        switch network.role {
        case .detector:
            return ObjectRequest(
                model: network, minimumConfidence: minimumConfidence ?? ObjectRequest.singlePassMinimumConfidence)
        case .classifier:
            network.centreCrop = true
            return ClassificationRequest(model: network, minimumConfidence: minimumConfidence ?? 0)
        }
    }
}

extension CustomModel {
    /// Whether `network`, an ONNX file, runs on ONNX Runtime at its input size and gives one output
    /// [1, 4 + classes, N]: an anchor-free YOLO head (``AnchorFreeDetections``).
    /// With `isolation`, the run is made in the network's own process.
    static func isAnchorFreeDetector(
        _ network: NetworkModel, classes: Int, isolation: NetworkIsolation?, models: ModelLocator
    ) throws(AnalysisError) -> Bool {
        let session: any FloatNetworkSession
        if let isolation {
            guard let isolated = try? IsolatedONNXSession(model: network.weights, models: models, isolation: isolation)
            else { return false }
            session = isolated
        } else {
            guard let inProcess = try? ONNXSession(model: network.weights, models: models) else { return false }
            session = inProcess
        }
        let shape = [1, 3, network.inputHeight, network.inputWidth]
        guard let output = try? session.run([Float](repeating: 0.5, count: shape.reduce(1, *)), shape: shape) else {
            return false
        }
        return output.shape.count == 3 && output.shape[0] == 1 && output.shape[1] == 4 + classes && output.shape[2] > 0
    }

    /// Address space a network of one's own may map while it loads and runs once (or 8 times its file),
    /// and, on ONNX Runtime, while it runs on each image.
    public static let probeMemoryLimit = 4 << 30
    /// Seconds it may take to load and run once; on ONNX Runtime, the default for each image.
    public static let probeTimeout = 60.0

    /// The address space the network in `weights` is given: ``probeMemoryLimit``, or 8 times its file.
    public static func memoryLimit(weights: String) -> Int {
        let fileBytes = ((try? FileManager.default.attributesOfItem(atPath: weights))?[.size] as? Int) ?? 0
        return max(probeMemoryLimit, 8 * fileBytes)
    }

    /// Loads the network and runs it once, as ``request(weights:configuration:labels:inputWidth:inputHeight:preprocessing:minimumConfidence:models:)``
    /// does, but in a process of its own (`executable probe-model …`, this program's hidden
    /// subcommand) under a memory cap and a time limit: a model is untrusted input, and a tiny ONNX
    /// whose graph expands its input to [100000, 3, 224, 224] grew to 43 GB in 40 s in the run's own
    /// process. Throws, with the reason, when the network does not load within the limits.
    public static func probe(
        executable: String, weights: String, configuration: String?, labels: String,
        inputWidth: Int, inputHeight: Int
    ) throws(AnalysisError) {
        var arguments = [
            "probe-model", "--model", weights, "--labels", labels, "--model-input", "\(inputWidth)x\(inputHeight)",
        ]
        if let configuration { arguments += ["--model-config", configuration] }
        // Nothing the model names outside its folder is opened, by this process or the probe's.
        if configuration == nil { try ONNXExternalData.check(modelAt: weights) }
        let limit = memoryLimit(weights: weights)
        let run = try Subprocess(
            executable: executable, arguments: arguments, timeout: probeTimeout, memoryLimit: limit,
            maximumOutput: 1 << 16
        )
        .run(input: [])
        if run.timedOut {
            throw AnalysisError(
                .engineFailed, "the network did not load and run within \(Int(probeTimeout)) s: refused")
        }
        guard let status = run.status else {
            throw AnalysisError(
                .engineFailed,
                "loading the network was stopped: it needed more than \(limit >> 30) GiB of memory, or crashed: refused"
            )
        }
        guard status == 0 else {
            let said = run.errors.split(separator: "\n").last.map { String($0) } ?? "it could not be loaded"
            throw AnalysisError(.engineFailed, said.hasPrefix("Error: ") ? String(said.dropFirst(7)) : said)
        }
    }
}
