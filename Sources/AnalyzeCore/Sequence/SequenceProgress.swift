import Foundation

/// How far the analysis of one sequence has come, reported after each analysed frame.
public struct SequenceProgress: Sendable, Equatable {
    /// Frames read (analysed or skipped) and analysed so far.
    public var framesRead: Int
    public var framesAnalysed: Int
    /// Frames the container declares (nil for a stream or when it does not say).
    public var declaredFrames: Int?
    /// `--max-frames`, when given.
    public var maximumFrames: Int?
    /// Seconds since the sequence was opened.
    public var elapsed: Double

    public init(framesRead: Int, framesAnalysed: Int, declaredFrames: Int?, maximumFrames: Int?, elapsed: Double) {
        self.framesRead = framesRead
        self.framesAnalysed = framesAnalysed
        self.declaredFrames = declaredFrames
        self.maximumFrames = maximumFrames
        self.elapsed = elapsed
    }

    /// The share done, 0–1: frames read of those declared, or frames analysed of `--max-frames`,
    /// whichever is further; nil when neither is known.
    public var fraction: Double? {
        let read = declaredFrames.map { Double(framesRead) / Double(max(1, $0)) }
        let analysed = maximumFrames.map { Double(framesAnalysed) / Double(max(1, $0)) }
        guard let best = [read, analysed].compactMap({ $0 }).max() else { return nil }
        return min(1, max(0, best))
    }

    /// Frames analysed per second of wall time.
    public var framesPerSecond: Double { elapsed > 0 ? Double(framesAnalysed) / elapsed : 0 }

    /// Seconds left at the pace so far; nil when the share done is unknown or nothing is done yet.
    public var remaining: Double? {
        guard let fraction, fraction > 0 else { return nil }
        return elapsed * (1 - fraction) / fraction
    }

    /// `vtest.avi 120/795 frames  24.5 fps  ETA 0:27` for a progress display (the total and ETA when
    /// the container declares its frames; the frames analysed of `--max-frames` when given).
    public func line(name: String) -> String {
        var frames = declaredFrames.map { "\(framesRead)/\($0) frames" } ?? "\(framesRead) frames"
        if let maximumFrames { frames += " (\(framesAnalysed)/\(maximumFrames) analysed)" }
        let eta = remaining.map { "  ETA " + Self.clock($0) } ?? ""
        return String(name.prefix(40)) + " " + frames + String(format: "  %.1f fps", framesPerSecond) + eta
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    public static func clock(_ seconds: Double) -> String {
        let s = seconds.isFinite ? Int(min(max(0, seconds), 1e7).rounded()) : 0
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
