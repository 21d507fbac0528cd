internal import COpenCVShim

/// Owns PP-OCRv4's DB text detector (`aocv_text_detector_create`): where text is in an image, not
/// what it says. A DNN net is not thread-safe, so each worker owns one; it takes any input size.
final class TextRegionDetector {
    private let handle: OpaquePointer
    /// Probability above which a map pixel is text. PaddleOCR's 0.3 splits a line of small print
    /// (20-px capitals in a 12 MP photo) into specks; at 0.2 they are whole enough to join.
    static let threshold = 0.2
    /// A region of the map, closed by two pixels across and one up and down (`aocv_detect_text_regions`),
    /// must be at least this many map pixels on its shorter side and in area: smaller specks come from
    /// texture (measured on the corpus's face and orientation photos and the nine photos of
    /// `scripts/bench --photos`), a line of 20-px capitals in a 12 MP photo is 5-8 px tall once closed.
    static let minimumSide = 5
    static let minimumArea = 60
    /// At most this many regions are reported.
    static let capacity = 512

    init(model: ModelIdentity, models: ModelLocator) throws(AnalysisError) {
        let path = try models.path(of: model)
        var status = aocv_status()
        guard let created = aocv_text_detector_create(path, &status) else {
            throw AnalysisError(.engineUnavailable, "cannot load the text detector \(model.name): " + OpenCVMat.message(of: &status))
        }
        handle = created
    }

    deinit { aocv_text_detector_free(handle) }

    /// The text regions of an upright gray or BGR image, in its pixels, in raster order of the
    /// detector's map (`aocv_detect_text_regions`), read at ``TextDetectorModel/input(forWidth:height:)``.
    /// `image` may be a reduction (at least the input's size) of an image of `original` size; the
    /// regions are then in the original's pixels.
    func regions(in image: OpenCVMat, reducedFrom original: (width: Int, height: Int)? = nil) throws(AnalysisError) -> [BoundingBox] {
        let input = TextDetectorModel.input(forWidth: original?.width ?? image.width, height: original?.height ?? image.height)
        var boxes = [aocv_box](repeating: aocv_box(), count: Self.capacity)
        var status = aocv_status()
        let count = boxes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return aocv_detect_text_regions(handle, image.handle, Int32(original?.width ?? 0), Int32(original?.height ?? 0),
                                            Int32(input.width), Int32(input.height), Self.threshold, Int32(Self.minimumSide),
                                            Int32(Self.minimumArea), base, Int32(buffer.count), &status)
        }
        guard count >= 0 else { throw AnalysisError(.engineFailed, "text detection failed: " + OpenCVMat.message(of: &status)) }
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
            try TextRegionDetector(model: model.identity, models: self.models)
        }
    }
}
