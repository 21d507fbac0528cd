internal import COnnxRuntime

/// ONNX Runtime's C library (`libonnxruntime.so.1.21.0` from PyPI's `onnxruntime==1.21.0` wheel, MIT),
/// a run-time file that `scripts/fetch-models` places beside the models and the ``ModelLocator`` finds
/// like one. It is opened (dlopen) by the first session a run creates, never by runs that need none.
enum ONNXRuntime {
    /// The library file, by its hash: the C API header the shim is built with (Debian's
    /// libonnxruntime-dev 1.21.0) is this exact version's.
    static let library = ModelIdentity(
        name: "libonnxruntime.so.1.21.0",
        sha256: "a0df84fae0f09d9eca3d6919f685ba435f1ae6cb628e128b69bcf2a2b965504c")
}

/// A network's float output: its values, row-major, and its shape.
package struct FloatTensor: Sendable {
    package var shape: [Int]
    var values: [Float]
}

/// One ONNX model loaded into an ONNX Runtime session (`aort_session_create`) that runs on the calling
/// worker's thread alone (one intra-op thread, no spinning): each worker owns its sessions, as it owns
/// its OpenCV networks. Freed in `deinit`.
package final class ONNXSession {
    private let handle: OpaquePointer
    /// The model's identity, for messages.
    let model: ModelIdentity

    /// The session of `model`; its output is `innerOutput`, a tensor inside the graph
    /// (`aort_session_create_inner_output`), when given, else the model's first output. With an inner
    /// output, `inputSize` declares the model's image input that size instead of its own.
    package init(
        model: ModelIdentity, models: ModelLocator, innerOutput: String? = nil,
        inputSize: (width: Int, height: Int)? = nil
    ) throws(AnalysisError) {
        let library = try models.path(of: ONNXRuntime.library)
        let path = try models.path(of: model)
        var error = [CChar](repeating: 0, count: 1024)
        let created = error.withUnsafeMutableBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            if let innerOutput {
                return aort_session_create_inner_output(
                    library, path, innerOutput, Int32(inputSize?.height ?? 0), Int32(inputSize?.width ?? 0), 1, base,
                    buffer.count)
            }
            return aort_session_create(library, path, 1, base, buffer.count)
        }
        guard let created else {
            throw AnalysisError(.engineUnavailable, "cannot load the network \(model.name): " + Self.text(error))
        }
        handle = created
        self.model = model
    }

    deinit { aort_session_free(handle) }

    /// Runs the network on one float tensor (`aort_session_run`) and returns its first output.
    package func run(_ input: [Float], shape: [Int]) throws(AnalysisError) -> FloatTensor {
        guard shape.reduce(1, *) == input.count, !shape.isEmpty else {
            throw AnalysisError(.engineFailed, "\(model.name): the input does not have the shape \(shape)")
        }
        var output = aort_output()
        var error = [CChar](repeating: 0, count: 1024)
        let dims = shape.map(Int64.init)
        let status = input.withUnsafeBufferPointer { values in
            dims.withUnsafeBufferPointer { dimensions in
                error.withUnsafeMutableBufferPointer { message -> Int32 in
                    guard let v = values.baseAddress, let d = dimensions.baseAddress, let m = message.baseAddress else {
                        return -1
                    }
                    return aort_session_run(handle, v, d, dimensions.count, &output, m, message.count)
                }
            }
        }
        defer { aort_free(output.data) }
        guard status == 0, let data = output.data else {
            throw AnalysisError(.engineFailed, "\(model.name): " + Self.text(error))
        }
        let rank = min(Int(output.rank), 8)
        let outShape = withUnsafeBytes(of: output.shape) { raw in
            (0..<rank).map { Int(raw.load(fromByteOffset: $0 * 8, as: Int64.self)) }
        }
        return FloatTensor(shape: outShape, values: Array(UnsafeBufferPointer(start: data, count: Int(output.count))))
    }

    /// The model's custom metadata `key` (`aort_session_metadata`); nil when it has none.
    func metadata(_ key: String) -> String? {
        guard let value = aort_session_metadata(handle, key) else { return nil }
        defer { aort_free(value) }
        return String(cString: value)
    }

    private static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension WorkerEngines {
    /// The worker's session of `model`, created on first use: one per file, whichever engine asks
    /// (the text gate and the line reader share PP-OCRv4's detector).
    func onnxSession(_ model: ModelIdentity) throws(AnalysisError) -> ONNXSession {
        try engine(ONNXSession.self, for: model) { () throws(AnalysisError) in
            try ONNXSession(model: model, models: self.models)
        }
    }
}
