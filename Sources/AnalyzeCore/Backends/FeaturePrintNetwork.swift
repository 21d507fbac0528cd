internal import COpenCVShim
import Foundation

/// EfficientNet-Lite0 read one layer before its classes: the 1280 pooled features its classifier weighs
/// (`/Reshape_output_0`, after the global average pooling), for ``FeaturePrintRequest``. The same model
/// file as the classifier's, in an ONNX Runtime session of its own whose output is that inner tensor.
/// The whole image is stretched to the network's 224 × 224 input: a centre crop would make two photos
/// that differ in their borders alike, and a letterbox's gray bands cost separation (docs/benchmarks.md).
/// Not thread-safe: each worker owns one.
final class FeaturePrintNetwork {
    /// The tensor read: the pooled features, reshaped to [1, 1280].
    static let featureTensor = "/Reshape_output_0"
    static let model = NetworkModel.efficientNetLite0

    private let session: ONNXSession
    private let params: aocv_dnn_params

    init(models: ModelLocator) throws(AnalysisError) {
        session = try ONNXSession(model: Self.model.weights, models: models, innerOutput: Self.featureTensor)
        var params = DNNNetwork.parameters(of: Self.model, classes: 0)
        params.resize = AOCV_DNN_STRETCH
        self.params = params
    }

    /// The features of an upright image, L2-normalised (unit length).
    func features(of image: UprightImage) throws(AnalysisError) -> [Float] {
        let output = try session.run(
            stretching: image, to: (Self.model.inputWidth, Self.model.inputHeight), params: params,
            what: "feature print")
        guard output.values.count == 1280, output.values.allSatisfy(\.isFinite) else {
            throw AnalysisError(
                .engineFailed, "feature print failed: \(output.values.count) features, not 1280 finite values")
        }
        let norm = output.values.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
        guard norm > 0 else { return output.values }
        return output.values.map { Float(Double($0) / norm) }
    }
}

extension WorkerEngines {
    /// The worker's feature-print network, loaded once.
    func featurePrintNetwork() throws(AnalysisError) -> FeaturePrintNetwork {
        try engine(FeaturePrintNetwork.self, for: FeaturePrintNetwork.model) { () throws(AnalysisError) in
            try FeaturePrintNetwork(models: models)
        }
    }
}
