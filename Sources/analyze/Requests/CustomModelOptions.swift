import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser
import Foundation

extension CustomModel.Preprocessing: ExpressibleByArgument {}

/// `--model`: a network of one's own, used as a detector (its objects under `objects`) or a
/// classifier (its labels under `classification`), whichever its outputs say it is.
struct CustomModelOptions: RequestOptions {
    @Option(
        name: .customLong("model"),
        help: ArgumentHelp(
            "Your own network, like a VNCoreMLRequest: ONNX, or Darknet .weights with --model-config. Used as a detector when its outputs are YOLO-style rows [N, 5+classes] or, on ONNX Runtime, an anchor-free YOLO head [1, 4+classes, N] (YOLOv8, YOLO11) (objects), as a classifier when they are one score per class (classification); anything else is refused with the shapes it has. Replaces the default network of that kind.",
            valueName: "file"))
    var model: String?

    @Option(
        name: .customLong("labels"),
        help: ArgumentHelp(
            "With --model, the class names, one a line, in class order (their count must match the network's).",
            valueName: "file"))
    var labels: String?

    @Option(
        name: .customLong("model-config"),
        help: ArgumentHelp("With --model, the Darknet .cfg of the weights.", valueName: "file"))
    var modelConfig: String?

    @Option(
        name: .customLong("model-input"),
        help: ArgumentHelp(
            "With --model, the network's fixed input size WxH (use the size the model was exported with).",
            valueName: "WxH"))
    var modelInput: String = "416x416"

    @Option(
        name: .customLong("model-preprocessing"),
        help: ArgumentHelp(
            "With --model, how pixels become inputs (RGB): unit = value/255 (default for detectors), torch = ImageNet mean/std after /255 (default for classifiers), tf = (value-127.5)/127.5.",
            valueName: "kind"))
    var modelPreprocessing: CustomModel.Preprocessing?

    @Option(
        name: .customLong("model-min-confidence"),
        help: ArgumentHelp(
            "With --model, drop results below this score, 0-1 (default: 0.3 for a detector, 0 for a classifier).",
            valueName: "c"))
    var modelMinConfidence: Double?

    @Option(
        name: .customLong("model-timeout"),
        help: ArgumentHelp(
            "With --model on ONNX Runtime, seconds the network may take on one image; it runs in a process of its own, stopped then, and the image gets an error.",
            valueName: "seconds"))
    var modelTimeout: Double = CustomModel.probeTimeout

    var isAsked: Bool { model != nil }

    var inputSize: (width: Int, height: Int)? {
        let parts = modelInput.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (16...4096).contains(parts[0]), (16...4096).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    func validate() throws {
        if model != nil && labels == nil {
            throw ValidationError("--model needs --labels FILE (the class names, one a line)")
        }
        if model == nil && (labels != nil || modelConfig != nil || modelPreprocessing != nil) {
            throw ValidationError("--labels, --model-config and --model-preprocessing go with --model")
        }
        if inputSize == nil { throw ValidationError("--model-input must be WxH, e.g. 416x416") }
        try requireUnitInterval(modelMinConfidence, "--model-min-confidence")
        guard modelTimeout.isFinite, modelTimeout > 0, modelTimeout <= 86_400 else {
            throw ValidationError("--model-timeout must be a number of seconds above 0")
        }
    }

    /// The custom request; without `--model`, nothing (the option group is then inert).
    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        guard let model, let labels, let size = inputSize else { return nil }
        do {
            // Loaded and run once in a process of its own first, under a memory cap and a time limit.
            try CustomModel.probe(
                executable: Self.executable, weights: model, configuration: modelConfig, labels: labels,
                inputWidth: size.width, inputHeight: size.height)
            let isolation = NetworkIsolation(
                executable: Self.executable, memoryLimit: CustomModel.memoryLimit(weights: model),
                timeout: modelTimeout)
            return try CustomModel.request(
                weights: model, configuration: modelConfig, labels: labels, inputWidth: size.width,
                inputHeight: size.height,
                preprocessing: modelPreprocessing, minimumConfidence: modelMinConfidence, isolation: isolation,
                models: &models)
        } catch {
            throw ValidationError("--model \(model): \(error.message)")
        }
    }
}

extension CustomModelOptions {
    /// This program, for the probe's process.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

/// `analyze probe-model --model …` (hidden): loads a network of one's own and runs it once, as a run
/// would; exits 0 when it can, else prints why and exits 1. The run starts it in a process of its own
/// under a memory cap and a time limit (``CustomModel/probe(executable:weights:configuration:labels:inputWidth:inputHeight:)``).
struct ProbeModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe-model", abstract: "Load a --model network once (used by a run).",
        shouldDisplay: false)

    @OptionGroup var options: CustomModelOptions

    func run() throws {
        guard let model = options.model, let labels = options.labels, let size = options.inputSize else {
            throw ExitCode(2)
        }
        var models = ModelLocator.standard  // where ONNX Runtime's library is, for an anchor-free YOLO
        do {
            _ = try CustomModel.request(
                weights: model, configuration: options.modelConfig, labels: labels, inputWidth: size.width,
                inputHeight: size.height, preprocessing: options.modelPreprocessing,
                minimumConfidence: options.modelMinConfidence, models: &models)
        } catch {
            Terminal.printError(error.message)
            throw ExitCode(1)
        }
    }
}

/// `analyze serve-model --runtime LIBRARY MODEL` (hidden): runs an ONNX network of one's own for a run, in a
/// process of its own, on the tensors the run sends on stdin (``IsolatedONNXSession``).
struct ServeModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-model", abstract: "Run a --model network for a run (used by a run).",
        shouldDisplay: false)

    @Option(name: .customLong("runtime"), help: "ONNX Runtime's library.")
    var runtime: String

    @Argument(help: "The ONNX model.")
    var model: String

    func run() throws {
        let status = IsolatedONNXSession.serve(modelPath: model, libraryPath: runtime)
        if status != 0 { throw ExitCode(status) }
    }
}
