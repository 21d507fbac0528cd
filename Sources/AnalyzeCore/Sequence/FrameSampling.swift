/// Which frames of a sequence are analysed (`--every`, `--fps`, `--duration`, `--max-frames`).
public struct FrameSampling: Sendable, Hashable, Codable {
    /// Every N-th frame read (1: all of them).
    public var every: Int
    /// At most this many frames per second of the sequence's time; nil: no limit.
    public var fps: Double?
    /// Stop after this many seconds of the sequence (a live source: of wall time); nil: to the end.
    public var duration: Double?
    /// Stop after analysing this many frames; nil: no limit.
    public var maximumFrames: Int?

    public init(every: Int = 1, fps: Double? = nil, duration: Double? = nil, maximumFrames: Int? = nil) {
        self.every = max(1, every)
        self.fps = fps.flatMap { $0 > 0 ? $0 : nil }
        self.duration = duration.flatMap { $0 > 0 ? $0 : nil }
        self.maximumFrames = maximumFrames.flatMap { $0 > 0 ? $0 : nil }
    }
}

/// Applies a ``FrameSampling`` to the frames of one sequence as they are read.
package struct FrameSelector {
    let sampling: FrameSampling
    private var start: Double?
    private var nextTime: Double?
    private var lastTime: Double?
    private(set) var analysed = 0

    package init(_ sampling: FrameSampling) { self.sampling = sampling }

    enum Decision { case analyse, skip, stop }

    /// Whether `--max-frames` frames have been analysed (the source need not read another).
    var isFinished: Bool { sampling.maximumFrames.map { analysed >= $0 } ?? false }

    /// Whether the frame at `index` (its `time` in seconds, when known) is analysed; `stop` once
    /// the duration or the frame limit is reached.
    mutating func decide(index: Int, time: Double?) -> Decision {
        if let maximum = sampling.maximumFrames, analysed >= maximum { return .stop }
        if let time {
            if start == nil { start = time }
            if let duration = sampling.duration, let start, time - start > duration + 1e-9 { return .stop }
        }
        guard index % sampling.every == 0 else { return .skip }
        if let fps = sampling.fps, let time {
            if let nextTime, time + 1e-6 < nextTime { return .skip }
            // Nor closer than 3/4 of a slot to the frame before: frames every 0.3 s (--every 3 of 10 fps)
            // against 0.5-s slots would otherwise come 0.6, 0.6, 0.3 s apart.
            if let lastTime, time - lastTime + 1e-6 < 0.75 / fps { return .skip }
            // The next slot after this frame's: rounding to slots keeps the rate exact over long videos.
            nextTime = ((time * fps + 1e-6).rounded(.down) + 1) / fps
            lastTime = time
        }
        analysed += 1
        return .analyse
    }
}
