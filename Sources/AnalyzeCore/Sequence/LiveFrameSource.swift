import Foundation

/// A live source (a stream URL FFmpeg reads, a V4L2 camera) analysed as fast as it can be, like
/// the live-capture samples: a reader thread takes every frame as it arrives and keeps only the
/// newest; a frame that arrives while the previous one is still waiting is dropped and counted.
/// Frame times are seconds since analysis began. Ends when the stream ends or stalls past the
/// read timeout, at `--duration`, or when ``close()`` is called (Ctrl-C).
final class LiveFrameSource: FrameSource, @unchecked Sendable {
    let kind = SequenceAnalysis.SequenceKind.stream
    let declaredFPS: Double?
    let declaredFrames: Int? = nil
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var waiting: (index: Int, time: Double, pixels: OpenCVMat)?
    private var read = 0
    private var dropped = 0
    private var ended = false
    private var stopped = false
    private var failure: String?
    private var warnings: [String] = []
    /// When analysis began (the source opened): frame times count from here.
    private var start: UInt64 = 0
    /// A stream joined mid-way fails to decode until its next key frame, and a network hiccup can
    /// fail a read: reading goes on until no frame has come for this long.
    private let patience: Double = 5

    var framesRead: Int { condition.withLock { read } }
    var framesDropped: Int { condition.withLock { dropped } }
    var readError: String? { condition.withLock { failure } }

    /// Ctrl-C: checked while waiting for a frame, so a quiet stream stops at once too.
    private let cancellation: CancellationFlag?

    init(url: String, maximumPixels: Int, readTimeout: Duration = .seconds(10), cancellation: CancellationFlag? = nil) throws(AnalysisError) {
        self.cancellation = cancellation
        let capture = try VideoCapture(url, localFile: false, openTimeout: .seconds(15), readTimeout: readTimeout)
        guard capture.width * capture.height <= maximumPixels else {
            throw AnalysisError(.tooLarge, "\(capture.width)x\(capture.height) frames are over the limit of \(maximumPixels) pixels")
        }
        declaredFPS = capture.declaredFPS
        start = DispatchTime.now().uptimeNanoseconds
        let thread = Thread { [self] in self.readLoop(capture) }
        thread.name = "analyze.live-reader"
        thread.start()
    }

    private var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    /// The reader thread: owns the capture, closes it when done.
    private func readLoop(_ capture: VideoCapture) {
        var lastFrame = elapsed
        while !condition.withLock({ stopped }) {
            guard capture.grab() != nil else {
                if elapsed - lastFrame < patience {
                    Thread.sleep(forTimeInterval: 0.01)
                    continue
                }
                let (lines, _) = capture.takeLog()
                condition.withLock {
                    if !stopped { failure = "the stream ended or stalled (no frame for \(Int(patience)) s)" + (lines.last.map { " (FFmpeg: \($0))" } ?? "") }
                    ended = true
                    condition.broadcast()
                }
                return
            }
            lastFrame = elapsed
            let time = elapsed
            let pixels: OpenCVMat
            do {
                pixels = try capture.retrieve()
            } catch {
                condition.withLock { if warnings.count < 20 { warnings.append(error.message) } }
                continue
            }
            condition.withLock {
                if waiting != nil { dropped += 1 }
                waiting = (read, time, pixels)
                read += 1
                condition.broadcast()
            }
        }
        condition.withLock {
            ended = true
            condition.broadcast()
        }
    }

    func next(_ selector: inout FrameSelector) -> SourceFrame? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopped || cancellation?.isCancelled == true {
                stopped = true
                return nil
            }
            if selector.isFinished {
                stopped = true
                return nil
            }
            if let frame = waiting {
                waiting = nil
                switch selector.decide(index: frame.index, time: frame.time) {
                case .stop:
                    stopped = true
                    return nil
                case .skip: continue
                case .analyse:
                    return SourceFrame(index: frame.index, time: frame.time, image: UprightImage(pixels: frame.pixels, orientation: .up))
                }
            }
            if ended { return nil }
            // Wake at least every 100 ms to honour --duration on a stream that sends nothing.
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
            if let duration = selector.sampling.duration, elapsed > duration {
                stopped = true
                return nil
            }
        }
    }

    func takeWarnings() -> [String] {
        condition.withLock {
            defer { warnings = [] }
            return warnings
        }
    }

    func close() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
