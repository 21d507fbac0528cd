internal import COpenCVShim

/// A network read at a feature map inside its graph (a 1 × channels × grid × grid tensor), for the whole
/// image stretched to the model's input size: an ONNX Runtime session whose output is that tensor and
/// whose image input is declared that size (`aort_session_create_inner_output`), so a network exported
/// for one size (EfficientNet-Lite0's 224 × 224) is read at another. `HorizonSky` reads its sky map so.
/// Not thread-safe: each worker owns one.
final class FeatureMapNetwork {
    /// What is read: the model (its input size, square, and its pixel preparation), the tensor's name in
    /// the ONNX graph, and the channels it has.
    struct Configuration: Hashable, Sendable {
        var model: NetworkModel
        var tensor: String
        var channels: Int
    }

    let configuration: Configuration
    private let session: ONNXSession
    private let params: aocv_dnn_params

    init(_ configuration: Configuration, models: ModelLocator) throws(AnalysisError) {
        let model = configuration.model
        guard model.inputWidth == model.inputHeight, model.inputWidth >= 32, model.inputWidth <= 2048 else {
            throw AnalysisError(
                .engineUnavailable, "\(model.weights.name): a feature map's input must be square, 32–2048 px")
        }
        self.configuration = configuration
        session = try ONNXSession(
            model: model.weights, models: models, innerOutput: configuration.tensor,
            inputSize: (model.inputWidth, model.inputHeight))
        var params = DNNNetwork.parameters(of: model, classes: 0)
        params.resize = AOCV_DNN_STRETCH
        self.params = params
    }

    /// The map of an upright image: its values channel by channel, each row-major, and its side in cells.
    /// `prepare` may replace the copy the network reads (a reduction of the image, at least twice its
    /// input) by another of the same size.
    func featureMap(
        of image: UprightImage, prepare: (OpenCVMat) throws(AnalysisError) -> OpenCVMat = { $0 }
    ) throws(AnalysisError) -> (values: [Float], grid: Int) {
        let side = configuration.model.inputWidth
        let output = try session.run(
            stretching: image, to: (side, side), params: params, what: "feature map", prepare: prepare)
        let channels = configuration.channels
        guard output.shape.count == 4, output.shape[0] == 1, output.shape[1] == channels,
            output.shape[2] == output.shape[3],
            output.values.count == channels * output.shape[2] * output.shape[3], output.values.allSatisfy(\.isFinite)
        else {
            throw AnalysisError(
                .engineFailed, "feature map failed: a tensor of shape \(output.shape), not 1 × \(channels) × n × n")
        }
        return (output.values, output.shape[2])
    }
}

extension ONNXSession {
    /// Runs the network on an upright image stretched to `size` and prepared by `params` (scale, mean,
    /// std, channel order: `aocv_dnn_input_planes`). The pixels come from the image's halvings (shared
    /// with the other requests): the smallest still twice the input each way, passed through `prepare`.
    func run(
        stretching image: UprightImage, to size: (width: Int, height: Int), params: aocv_dnn_params, what: String,
        prepare: (OpenCVMat) throws(AnalysisError) -> OpenCVMat = { $0 }
    ) throws(AnalysisError) -> FloatTensor {
        let source = try prepare(image.reduction(toAtLeast: 2 * size.width, 2 * size.height, gray: false))
        let shape = [1, 3, size.height, size.width]
        var planes = [Float](repeating: 0, count: shape.reduce(1, *))
        var status = aocv_status()
        let made = planes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return aocv_dnn_input_planes(
                source.handle, Int32(image.width), Int32(image.height), params, base, buffer.count, nil, &status)
        }
        guard made == 0 else { throw AnalysisError(.engineFailed, "\(what) failed: " + OpenCVMat.message(of: &status)) }
        return try run(planes, shape: shape)
    }
}

extension WorkerEngines {
    /// The worker's network read at `configuration`'s feature map, loaded once.
    func featureMapNetwork(_ configuration: FeatureMapNetwork.Configuration) throws(AnalysisError) -> FeatureMapNetwork
    {
        try engine(FeatureMapNetwork.self, for: configuration) { () throws(AnalysisError) in
            try FeatureMapNetwork(configuration, models: models)
        }
    }
}
