import Foundation
internal import COpenCVShim

/// Owns an OpenCV DNN network (`aocv_dnn_load`) with its class names. A `cv::dnn::Net` is not
/// thread-safe and must keep one input size, so each worker thread owns one per model.
final class DNNNetwork {
    private let handle: OpaquePointer
    let model: NetworkModel
    /// Class names in class order.
    let labels: [String]

    init(model: NetworkModel, models: ModelLocator, decidingRole: Bool = false) throws(AnalysisError) {
        let weights = try models.path(of: model.weights)
        let configuration = try model.configuration.map { c throws(AnalysisError) in try models.path(of: c) }
        let labelsPath = try models.path(of: model.labels)
        let labels = try Self.readLabels(labelsPath)
        var params = aocv_dnn_params()
        params.role = switch model.role {
        case _ where decidingRole: AOCV_DNN_AUTO
        case .detector: AOCV_DNN_DETECTOR
        case .classifier: AOCV_DNN_CLASSIFIER
        }
        params.input_width = Int32(model.inputWidth)
        params.input_height = Int32(model.inputHeight)
        params.scale = model.scale
        let mean = model.mean + [0, 0, 0], std = model.std + [1, 1, 1]
        params.mean = (mean[0], mean[1], mean[2])
        params.std = (std[0], std[1], std[2])
        params.swap_rb = 1
        params.resize = model.centreCrop ? AOCV_DNN_CENTER_CROP : AOCV_DNN_LETTERBOX
        params.crop_fraction = 0.875
        params.class_count = Int32(labels.count)
        var status = aocv_status()
        guard let handle = aocv_dnn_load(weights, configuration, params, &status) else {
            throw AnalysisError(.engineUnavailable, "cannot load \(model.weights.name): " + OpenCVMat.message(of: &status))
        }
        self.handle = handle
        self.model = model
        self.labels = labels
    }

    deinit { aocv_dnn_free(handle) }

    /// What the network's outputs make it (`aocv_dnn_role` after loading it in AUTO mode).
    var role: NetworkModel.Role { aocv_dnn_role(handle) == AOCV_DNN_CLASSIFIER ? .classifier : .detector }

    /// Class names, one a line (blank lines and a trailing newline ignored; `_` read as a space,
    /// so Darknet's `sports_ball` is `sports ball`). At most 100,000 names, each cut to 200 characters.
    static func readLabels(_ path: String) throws(AnalysisError) -> [String] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 << 20 else {
            throw AnalysisError(.unreadable, "cannot read the labels (or over 16 MB)", file: path)
        }
        let names = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { String($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: " ").prefix(200)) }
            .filter { !$0.isEmpty }
        guard !names.isEmpty, names.count <= 100_000 else { throw AnalysisError(.undecodable, "no labels, or too many", file: path) }
        return names
    }

    private func label(_ index: Int32) -> String {
        labels.indices.contains(Int(index)) ? labels[Int(index)] : "class \(index)"
    }

    /// Objects in an upright image (`aocv_dnn_detect`), most confident first.
    func detect(in image: OpenCVMat, minimumConfidence: Double, maximumOverlap: Double, maximumObservations: Int) throws(AnalysisError) -> [RecognizedObjectObservation] {
        var found = [aocv_detection](repeating: aocv_detection(), count: max(1, maximumObservations))
        var status = aocv_status()
        let count = found.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return aocv_dnn_detect(handle, image.handle, minimumConfidence, maximumOverlap, base, Int32(buffer.count), &status)
        }
        guard count >= 0 else { throw AnalysisError(.engineFailed, "object detection failed: " + OpenCVMat.message(of: &status)) }
        return found.prefix(Int(count)).map { d in
            let l = d.labels
            let ranked = [l.0, l.1, l.2, l.3, l.4].prefix(Int(max(0, min(5, d.label_count))))
            return RecognizedObjectObservation(boundingBox: BoundingBox(x: d.x, y: d.y, width: d.width, height: d.height), confidence: d.confidence,
                                               labels: ranked.map { ClassificationObservation(identifier: label($0.index), confidence: $0.score) })
        }
    }

    /// The `k` best classes of an upright image (`aocv_dnn_classify`), most probable first.
    func classify(_ image: OpenCVMat, best k: Int) throws(AnalysisError) -> [ClassificationObservation] {
        var scores = [aocv_class_score](repeating: aocv_class_score(), count: max(1, k))
        var status = aocv_status()
        let count = scores.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return aocv_dnn_classify(handle, image.handle, base, Int32(buffer.count), &status)
        }
        guard count >= 0 else { throw AnalysisError(.engineFailed, "classification failed: " + OpenCVMat.message(of: &status)) }
        return scores.prefix(Int(count)).map { ClassificationObservation(identifier: label($0.index), confidence: $0.score) }
    }
}

extension WorkerEngines {
    /// The worker's network for `model`, loaded once.
    func network(_ model: NetworkModel) throws(AnalysisError) -> DNNNetwork {
        try engine(DNNNetwork.self, for: model) { () throws(AnalysisError) in try DNNNetwork(model: model, models: models) }
    }
}
