internal import COpenCVShim
import Foundation

/// Owns a network with its class names: an OpenCV DNN network (`aocv_dnn_load`), or an ONNX Runtime
/// session (``ONNXSession``) fed and read by the same shim code (`aocv_dnn_input_planes`,
/// `aocv_dnn_rank_classes`) when the model runs there. Neither is thread-safe, and an OpenCV network must
/// keep one input size, so each worker thread owns one per model.
package final class DNNNetwork {
    private enum Engine {
        case openCV(OpaquePointer)
        case onnxRuntime(any FloatNetworkSession)
    }

    private let engine: Engine
    let model: NetworkModel
    /// Class names in class order.
    let labels: [String]

    package init(model: NetworkModel, models: ModelLocator, decidingRole: Bool = false) throws(AnalysisError) {
        let labelsPath = try models.path(of: model.labels)
        var labels = try Self.readLabels(labelsPath)
        // Darknet's coco.names: COCO's own names (``ClassNameSpelling``).
        if model.labels == NetworkModel.yolov4Tiny.labels { labels = labels.map(ClassNameSpelling.coco) }
        switch model.runtime {
        case .onnxRuntime:
            guard model.configuration == nil, !decidingRole else {
                throw AnalysisError(
                    .engineUnavailable, "\(model.weights.name): only ONNX files of a known role run on ONNX Runtime")
            }
            if let isolation = model.isolation {
                engine = .onnxRuntime(
                    try IsolatedONNXSession(model: model.weights, models: models, isolation: isolation))
            } else {
                engine = .onnxRuntime(try ONNXSession(model: model.weights, models: models))
            }
        case .openCV:
            let weights = try models.path(of: model.weights)
            let configuration = try model.configuration.map { c throws(AnalysisError) in try models.path(of: c) }
            var params = Self.parameters(of: model, classes: labels.count)
            params.role =
                switch model.role {
                case _ where decidingRole: AOCV_DNN_AUTO
                case .detector: AOCV_DNN_DETECTOR
                case .classifier: AOCV_DNN_CLASSIFIER
                }
            var status = aocv_status()
            guard let handle = aocv_dnn_load(weights, configuration, params, &status) else {
                throw AnalysisError(
                    .engineUnavailable, "cannot load \(model.weights.name): " + OpenCVMat.message(of: &status))
            }
            engine = .openCV(handle)
        }
        self.model = model
        self.labels = labels
    }

    deinit { if case .openCV(let handle) = engine { aocv_dnn_free(handle) } }

    /// How the shim feeds the model: input size, scale, mean, deviation, RGB, resize.
    static func parameters(of model: NetworkModel, classes: Int) -> aocv_dnn_params {
        var params = aocv_dnn_params()
        params.role = model.role == .classifier ? AOCV_DNN_CLASSIFIER : AOCV_DNN_DETECTOR
        params.input_width = Int32(model.inputWidth)
        params.input_height = Int32(model.inputHeight)
        params.scale = model.scale
        let mean = model.mean + [0, 0, 0], std = model.std + [1, 1, 1]
        params.mean = (mean[0], mean[1], mean[2])
        params.std = (std[0], std[1], std[2])
        params.swap_rb = 1
        params.resize = model.centreCrop ? AOCV_DNN_CENTER_CROP : AOCV_DNN_LETTERBOX
        params.crop_fraction = Self.cropFraction
        params.class_count = Int32(classes)
        return params
    }

    /// A classifier's centre crop: this fraction of the shorter side (ImageNet's 224 of 256).
    static let cropFraction = 0.875

    /// What the network's outputs make it (`aocv_dnn_role` after loading it in AUTO mode).
    package var role: NetworkModel.Role {
        switch engine {
        case .openCV(let handle): aocv_dnn_role(handle) == AOCV_DNN_CLASSIFIER ? .classifier : .detector
        case .onnxRuntime: model.role
        }
    }

    /// Class names, one a line (blank lines and a trailing newline ignored; `_` read as a space,
    /// so Darknet's `sports_ball` is `sports ball`). At most 100,000 names, each cut to 200 characters.
    package static func readLabels(_ path: String) throws(AnalysisError) -> [String] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 16 << 20 else {
            throw AnalysisError(.unreadable, "cannot read the labels (or over 16 MB)", file: path)
        }
        let names = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map {
                String($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: " ").prefix(200))
            }
            .filter { !$0.isEmpty }
        guard !names.isEmpty, names.count <= 100_000 else {
            throw AnalysisError(.undecodable, "no labels, or too many", file: path)
        }
        return names
    }

    private func label(_ index: Int32) -> String {
        labels.indices.contains(Int(index)) ? labels[Int(index)] : "class \(index)"
    }

    /// Objects in an upright image (`aocv_dnn_detect`), most confident first. `image` may be a
    /// reduction of an image of size `original` (see ``source(in:)``): boxes are the original's pixels.
    /// `area` replaces the model's input size for a detector that fits the image by area (one session
    /// serves every size; `image` must then be a source for the largest, see ``source(in:area:)``).
    func detect(
        in image: OpenCVMat, reducedFrom original: (width: Int, height: Int)? = nil, minimumConfidence: Double,
        maximumOverlap: Double,
        maximumObservations: Int, minimumLabelScore: Double = 0, area: Int? = nil
    ) throws(AnalysisError) -> [RecognizedObjectObservation] {
        let handle: OpaquePointer
        switch engine {
        case .openCV(let h): handle = h
        case .onnxRuntime(let session):
            return try detect(
                in: image, reducedFrom: original, session: session, minimumConfidence: minimumConfidence,
                maximumOverlap: maximumOverlap,
                maximumObservations: maximumObservations, minimumLabelScore: minimumLabelScore, area: area)
        }
        var found = [aocv_detection](repeating: aocv_detection(), count: max(1, maximumObservations))
        var status = aocv_status()
        let count = found.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return aocv_dnn_detect(
                handle, image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0), minimumConfidence,
                maximumOverlap,
                base, Int32(buffer.count), &status)
        }
        guard count >= 0 else {
            throw AnalysisError(.engineFailed, "object detection failed: " + OpenCVMat.message(of: &status))
        }
        // A network's numbers are untrusted (`--model`): a box or a score that is NaN or infinite is
        // dropped here, before it reaches a renderer or the JSON encoder.
        return found.prefix(Int(min(count, Int32(found.count)))).compactMap { d in
            guard [d.x, d.y, d.width, d.height, d.confidence].allSatisfy(\.isFinite) else { return nil }
            let l = d.labels
            let ranked = [l.0, l.1, l.2, l.3, l.4].prefix(Int(max(0, min(5, d.label_count)))).enumerated()
                .filter { $0.element.score.isFinite && ($0.offset == 0 || $0.element.score >= minimumLabelScore) }.map(
                    \.element)
            return RecognizedObjectObservation(
                boundingBox: BoundingBox(x: d.x, y: d.y, width: d.width, height: d.height), confidence: d.confidence,
                labels: ranked.map { ClassificationObservation(identifier: label($0.index), confidence: $0.score) })
        }
    }

    /// Objects found by an anchor-free YOLO (``AnchorFreeDetections``) on ONNX Runtime. The network takes
    /// any input in multiples of 32: the image is letterboxed into a canvas of its own proportions with the
    /// area of the model's input size squared (``NetworkCanvas/fitted(width:height:area:)``), so a 4:3 photo
    /// and a portrait photo cost the same forward and their objects are seen at the same scale.
    private func detect(
        in image: OpenCVMat, reducedFrom original: (width: Int, height: Int)?, session: any FloatNetworkSession,
        minimumConfidence: Double,
        maximumOverlap: Double, maximumObservations: Int, minimumLabelScore: Double, area: Int?
    ) throws(AnalysisError) -> [RecognizedObjectObservation] {
        guard model.role == .detector else {
            throw AnalysisError(.engineFailed, "\(model.weights.name) is not a detector")
        }
        let size = original ?? (width: image.width, height: image.height)
        let canvas = detectorInput(width: size.width, height: size.height, area: area)
        var params = Self.parameters(of: model, classes: labels.count)
        params.input_width = Int32(canvas.width)
        params.input_height = Int32(canvas.height)
        let shape = [1, 3, canvas.height, canvas.width]
        var planes = [Float](repeating: 0, count: shape.reduce(1, *))
        var mapping = aocv_dnn_mapping()
        var status = aocv_status()
        let made = planes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return aocv_dnn_input_planes(
                image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0), params, base, buffer.count,
                &mapping, &status)
        }
        guard made == 0 else {
            throw AnalysisError(.engineFailed, "object detection failed: " + OpenCVMat.message(of: &status))
        }
        let output = try session.run(planes, shape: shape)
        let found = try AnchorFreeDetections.decode(
            output, classes: labels.count,
            mapping: .init(ax: mapping.ax, bx: mapping.bx, ay: mapping.ay, by: mapping.by),
            width: size.width, height: size.height, minimumConfidence: minimumConfidence,
            maximumOverlap: maximumOverlap, capacity: max(1, maximumObservations), minimumLabelScore: minimumLabelScore)
        return found.map { d in
            RecognizedObjectObservation(
                boundingBox: d.box, confidence: d.score,
                labels: d.labels.map {
                    ClassificationObservation(identifier: label(Int32($0.index)), confidence: $0.score)
                })
        }
    }

    /// The input an ONNX Runtime detector gets for an image of `width` × `height`: a canvas of the image's
    /// proportions when the model fits by area, else its fixed input size.
    private func detectorInput(width: Int, height: Int, area: Int? = nil) -> (width: Int, height: Int) {
        model.fitsByArea
            ? NetworkCanvas.fitted(width: width, height: height, area: area ?? model.inputWidth)
            : (model.inputWidth, model.inputHeight)
    }

    /// The `k` best classes of an upright image (`aocv_dnn_classify`), most probable first. `image`
    /// may be a reduction of an image of size `original` (see ``source(in:)``).
    func classify(_ image: OpenCVMat, reducedFrom original: (width: Int, height: Int)? = nil, best k: Int)
        throws(AnalysisError) -> [ClassificationObservation]
    {
        var scores = [aocv_class_score](repeating: aocv_class_score(), count: max(1, k))
        var status = aocv_status()
        let count: Int32
        switch engine {
        case .openCV(let handle):
            count = scores.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return aocv_dnn_classify(
                    handle, image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0), base,
                    Int32(buffer.count), &status)
            }
        case .onnxRuntime(let session):
            let shape = [1, 3, model.inputHeight, model.inputWidth]
            var planes = [Float](repeating: 0, count: shape.reduce(1, *))
            let params = Self.parameters(of: model, classes: labels.count)
            let made = planes.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return -1 }
                return aocv_dnn_input_planes(
                    image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0), params, base, buffer.count,
                    nil, &status)
            }
            guard made == 0 else {
                throw AnalysisError(.engineFailed, "classification failed: " + OpenCVMat.message(of: &status))
            }
            let output = try session.run(planes, shape: shape)
            guard output.values.count == labels.count else {
                throw AnalysisError(
                    .engineFailed, "classification failed: \(output.values.count) scores for \(labels.count) classes")
            }
            count = output.values.withUnsafeBufferPointer { values in
                scores.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    guard let v = values.baseAddress, let base = buffer.baseAddress else { return 0 }
                    return aocv_dnn_rank_classes(v, Int32(values.count), base, Int32(buffer.count))
                }
            }
        }
        guard count >= 0 else {
            throw AnalysisError(.engineFailed, "classification failed: " + OpenCVMat.message(of: &status))
        }
        return scores.prefix(Int(min(count, Int32(scores.count)))).filter { $0.score.isFinite }
            .map { ClassificationObservation(identifier: label($0.index), confidence: $0.score) }
    }
}

extension DNNNetwork {
    /// The copy of `image` the network reads its pixels from, taken from the image's halvings (shared
    /// with the other requests) instead of shrinking the whole image in one step: a 12 MP photo to a
    /// 416-px letterbox cost about 40 ms that way, from the halvings about 10.
    /// - A detector's letterbox: the smallest halving at least twice the letterbox (the last shrink
    ///   still averages two or more pixels each way), as CenterFace's; the image itself when it is
    ///   under four times that.
    /// - A classifier's centre crop: the smallest halving whose crop is at least four times the input,
    ///   so that the crop is still box-filtered to twice the input before the bicubic step of the
    ///   reference pipeline (at twice, the probabilities of uncertain photos moved by up to 0.05; at
    ///   four times, by up to 0.03, the best label unchanged on the nine photos of the benchmark).
    func source(in image: UprightImage, area: Int? = nil) throws(AnalysisError) -> OpenCVMat {
        if case .onnxRuntime = engine, model.role == .detector {
            let canvas = detectorInput(width: image.width, height: image.height, area: area)
            return try image.reduction(toFit: canvas.width, canvas.height)
        }
        guard model.centreCrop else { return try image.reduction(toFit: model.inputWidth, model.inputHeight) }
        let aspect = Double(model.inputWidth) / Double(model.inputHeight)
        let cropWidth = min(Double(image.width), Double(image.height) * aspect) * Self.cropFraction
        let cropHeight = cropWidth / aspect
        let scale = max(4 * Double(model.inputWidth) / cropWidth, 4 * Double(model.inputHeight) / cropHeight)
        guard scale < 0.5 else { return image.pixels }
        return try image.reduction(
            toAtLeast: Int((Double(image.width) * scale).rounded(.up)),
            Int((Double(image.height) * scale).rounded(.up)),
            gray: false)
    }
}

extension WorkerEngines {
    /// The worker's network for `model`, loaded once.
    func network(_ model: NetworkModel) throws(AnalysisError) -> DNNNetwork {
        try engine(DNNNetwork.self, for: model) { () throws(AnalysisError) in
            try DNNNetwork(model: model, models: models)
        }
    }
}
