/// A network of one's own (`--model`), like a `VNCoreMLRequest`: loaded once to see what its
/// outputs are, then performed as an ``ObjectRequest`` (YOLO-style detections) or a
/// ``ClassificationRequest`` (one score per class).
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
    /// when the network cannot be loaded, its outputs cannot be interpreted, or its class count
    /// differs from the labels'.
    public static func request(weights: String, configuration: String?, labels: String, inputWidth: Int, inputHeight: Int,
                               preprocessing: Preprocessing?, minimumConfidence: Double?,
                               models: inout ModelLocator) throws(AnalysisError) -> any ImageRequest {
        var network = NetworkModel(role: .detector, weights: try models.add(file: weights),
                                   configuration: try configuration.map { c throws(AnalysisError) in try models.add(file: c) },
                                   labels: try models.add(file: labels), inputWidth: inputWidth, inputHeight: inputHeight)
        network.role = try DNNNetwork(model: network, models: models, decidingRole: true).role
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
            return ObjectRequest(model: network, minimumConfidence: minimumConfidence ?? ObjectRequest.defaultMinimumConfidence)
        case .classifier:
            network.centreCrop = true
            return ClassificationRequest(model: network, minimumConfidence: minimumConfidence ?? 0)
        }
    }
}
