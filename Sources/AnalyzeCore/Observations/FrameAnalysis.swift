/// Everything found in one analysed frame of a sequence: its place in the sequence, the still
/// requests' observations (on every analysed frame, or on key frames only when tracking), and the
/// tracked objects. One element of the sequence JSON's `frames` array, and one `--jsonl` line.
public struct FrameAnalysis: Sendable, Encodable {
    /// The frame's index in its source, from 0 (for a folder of frames: its position in name order).
    public let index: Int
    /// Presentation time in seconds from the start (for a live source: since analysis began);
    /// nil when the source has none (a folder of frames).
    public let time: Double?
    /// Whether the still requests (detections) were performed on this frame: every analysed
    /// frame, or every `--redetect`-th when tracking.
    public let keyFrame: Bool
    /// The still requests' results and problems (its `results`, `requestErrors`, `warnings`).
    public var analysis: ImageAnalysis
    /// The objects followed on this frame (with `--track`), by track ID.
    public var tracked: [TrackedObjectObservation]
    /// The frame's own size, set when it differs from its sequence's (the first frame's): its
    /// coordinates are pixels of this size.
    public var size: (width: Int, height: Int)?

    public init(
        index: Int, time: Double?, keyFrame: Bool, analysis: ImageAnalysis, tracked: [TrackedObjectObservation] = []
    ) {
        self.index = index
        self.time = time.map { ($0 * 1000).rounded() / 1000 }
        self.keyFrame = keyFrame
        self.analysis = analysis
        self.tracked = tracked
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnalysisCodingKey.self)
        try container.encode(index, forKey: AnalysisCodingKey("index"))
        try container.encode(time, forKey: AnalysisCodingKey("time"))
        try container.encode(keyFrame, forKey: AnalysisCodingKey("keyFrame"))
        if let size {
            try container.encode(size.width, forKey: AnalysisCodingKey("width"))
            try container.encode(size.height, forKey: AnalysisCodingKey("height"))
        }
        if !analysis.warnings.isEmpty { try container.encode(analysis.warnings, forKey: AnalysisCodingKey("warnings")) }
        if !analysis.requestErrors.isEmpty {
            try container.encode(analysis.requestErrors, forKey: ImageAnalysis.errorsKey)
        }
        for entry in analysis.results {
            try entry.result.encode(into: &container, as: entry.kind)
        }
        try container.encode(tracked, forKey: AnalysisCodingKey("tracked"))
    }
}
