internal import COpenCVShim

/// Runs PP-OCRv4's DB text detector on ONNX Runtime for the text gate: where text is in an image, not
/// what it says. Each worker owns one session; it takes any input size.
final class TextRegionDetector {
    private let session: ONNXSession
    /// Probability above which a map pixel is text. PaddleOCR's 0.3 splits a line of small print
    /// (20-px capitals in a 12 MP photo) into specks; at 0.2 they are whole enough to join.
    static let threshold = 0.2
    /// A region of the map, closed by two pixels across and one up and down (`aocv_text_regions_from_map`),
    /// must be at least this many map pixels on its shorter side and in area: smaller specks come from
    /// texture (measured on the corpus's face and orientation photos and the nine photos of
    /// `scripts/bench --photos`), a line of 20-px capitals in a 12 MP photo is 5-8 px tall once closed.
    static let minimumSide = 5
    static let minimumArea = 60
    /// At most this many regions are reported.
    static let capacity = 512

    init(model: ModelIdentity, engines: WorkerEngines) throws(AnalysisError) {
        session = try engines.onnxSession(model)
    }

    /// The text regions of an upright gray or BGR image, in its pixels, in raster order of the
    /// detector's map, read at ``TextDetectorModel/input(forWidth:height:)``: the input made by
    /// `aocv_text_region_planes`, one forward on ONNX Runtime, the map split by `aocv_text_regions_from_map`.
    /// `image` may be a reduction (at least the input's size) of an image of `original` size; the
    /// regions are then in the original's pixels.
    func regions(in image: OpenCVMat, reducedFrom original: (width: Int, height: Int)? = nil) throws(AnalysisError)
        -> [BoundingBox]
    {
        let size = original ?? (width: image.width, height: image.height)
        let input = TextDetectorModel.input(forWidth: size.width, height: size.height)
        var planes = [Float](repeating: 0, count: 3 * input.width * input.height)
        var fitted: (width: Int32, height: Int32) = (0, 0)
        var status = aocv_status()
        let made = planes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return aocv_text_region_planes(
                image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0), Int32(input.width),
                Int32(input.height), base, buffer.count, &fitted.width, &fitted.height, &status)
        }
        guard made == 0 else {
            throw AnalysisError(.engineFailed, "text detection failed: " + OpenCVMat.message(of: &status))
        }
        let map = try session.run(planes, shape: [1, 3, input.height, input.width])
        guard map.values.count == input.width * input.height else {
            throw AnalysisError(
                .engineFailed, "text detection failed: the detector's map is not one value per input pixel")
        }
        var boxes = [aocv_box](repeating: aocv_box(), count: Self.capacity)
        let count = map.values.withUnsafeBufferPointer { values in
            boxes.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let v = values.baseAddress, let base = buffer.baseAddress else { return -1 }
                return aocv_text_regions_from_map(
                    v, Int32(input.width), Int32(input.height), fitted.width, fitted.height, Int32(size.width),
                    Int32(size.height), Self.threshold, Int32(Self.minimumSide), Int32(Self.minimumArea),
                    base, Int32(buffer.count), &status)
            }
        }
        guard count >= 0 else {
            throw AnalysisError(.engineFailed, "text detection failed: " + OpenCVMat.message(of: &status))
        }
        return boxes.prefix(Int(min(count, Int32(Self.capacity)))).map {
            BoundingBox(x: Double($0.x), y: Double($0.y), width: Double($0.width), height: Double($0.height))
        }
    }
}

extension WorkerEngines {
    /// The worker's text-region detector with `model`, created on first use: one network for images of
    /// every size.
    func textRegionDetector(_ model: TextDetectorModel) throws(AnalysisError) -> TextRegionDetector {
        try engine(TextRegionDetector.self, for: model.identity) { () throws(AnalysisError) in
            try TextRegionDetector(model: model.identity, engines: self)
        }
    }
}
