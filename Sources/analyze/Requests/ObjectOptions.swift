import AnalyzeCore
import ArgumentParser

/// `--objects`, its threshold, and a detector network of one's own.
struct ObjectOptions: RequestOptions {
    @Flag(name: .customLong("objects"), help: "Find objects with a detector network (YOLOv4-tiny, 80 COCO classes: person, car, dog, cup...; needs scripts/fetch-models): box, confidence, top-5 labels.")
    var objects = false

    @Option(name: .customLong("min-object-confidence"), help: ArgumentHelp("With --objects, drop objects whose best label scores below this, 0-1 (default \(ObjectRequest.defaultMinimumConfidence)).", valueName: "c"))
    var minObjectConfidence: Double = ObjectRequest.defaultMinimumConfidence

    @Option(name: .customLong("model"), help: ArgumentHelp("With --objects, your own detector instead of YOLOv4-tiny: Darknet .weights (with --model-config) or ONNX with YOLO-style outputs [N, 5+classes] (see the README).", valueName: "file"))
    var model: String?

    @Option(name: .customLong("model-config"), help: ArgumentHelp("With --model, the Darknet .cfg of the weights.", valueName: "file"))
    var modelConfig: String?

    @Option(name: .customLong("labels"), help: ArgumentHelp("With --model, the class names, one a line, in class order.", valueName: "file"))
    var labels: String?

    @Option(name: .customLong("model-input"), help: ArgumentHelp("With --model, the network's input size WxH (default 416x416).", valueName: "WxH"))
    var modelInput: String = "416x416"

    var isAsked: Bool { objects || model != nil }

    func validate() throws {
        try requireUnitInterval(minObjectConfidence, "--min-object-confidence")
        if model != nil && labels == nil { throw ValidationError("--model needs --labels FILE (the class names, one a line)") }
        if model == nil && (labels != nil || modelConfig != nil) { throw ValidationError("--labels and --model-config go with --model") }
        if inputSize == nil { throw ValidationError("--model-input must be WxH, e.g. 416x416") }
    }

    var inputSize: (Int, Int)? {
        let parts = modelInput.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, (16 ... 4096).contains(parts[0]), (16 ... 4096).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    func request(models: inout ModelLocator) throws -> any ImageRequest {
        var network = NetworkModel.yolov4Tiny
        if let model, let labels, let (w, h) = inputSize {
            do {
                network = NetworkModel(role: .detector, weights: try models.add(file: model), configuration: try modelConfig.map { try models.add(file: $0) },
                                       labels: try models.add(file: labels), inputWidth: w, inputHeight: h, scale: 1.0 / 255)
            } catch {
                throw ValidationError("--model: \(error)")
            }
        }
        return ObjectRequest(model: network, minimumConfidence: minObjectConfidence)
    }
}
