import Foundation

/// A live source (a stream URL FFmpeg reads, a V4L2 camera) analysed as fast as it can be, like
/// the live-capture samples: a reader thread takes every frame as it arrives and keeps only the
/// newest; a frame that arrives while the previous one is still waiting is dropped and counted.
/// Frame times are seconds since analysis began. Ends when the stream ends (not a failure), stalls
/// past the read timeout, at `--duration`, or when ``close()`` is called (Ctrl-C); a blocked open or
/// read is cut short by the last two.
package final class LiveFrameSource: FrameSource, @unchecked Sendable {
    package let kind = SequenceAnalysis.SequenceKind.stream
    package let declaredFPS: Double?
    package let declaredFrames: Int? = nil
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

    package var framesRead: Int { condition.withLock { read } }
    package var framesDropped: Int { condition.withLock { dropped } }
    package var readError: String? { condition.withLock { failure } }

    /// Ctrl-C: checked while waiting for a frame, so a quiet stream stops at once too.
    private let cancellation: CancellationFlag?

    /// Set by ``close()``; read by the capture's interrupt callback on the reader thread.
    private let stopRequested = CancellationFlag()

    /// Opens `url` (at most 15 s; Ctrl-C and `duration`, counted from now, cut the wait short).
    package init(
        url: String, maximumPixels: Int, readTimeout: Duration = .seconds(10), duration: Double? = nil,
        cancellation: CancellationFlag? = nil
    ) throws(AnalysisError) {
        self.cancellation = cancellation
        start = DispatchTime.now().uptimeNanoseconds
        let begun = start
        let capture = try VideoCapture(
            url, localFile: false, maximumPixels: maximumPixels, openTimeout: .seconds(15), readTimeout: readTimeout
        ) {
            [stopRequested] in
            if stopRequested.isCancelled || cancellation?.isCancelled == true { return true }
            guard let duration else { return false }
            return Double(DispatchTime.now().uptimeNanoseconds - begun) / 1e9 > duration
        }
        guard capture.width * capture.height <= maximumPixels else {
            throw AnalysisError(
                .tooLarge, "\(capture.width)x\(capture.height) frames are over the limit of \(maximumPixels) pixels")
        }
        declaredFPS = capture.declaredFPS
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
                let end = capture.end
                // A failed read (a network hiccup) is retried until no frame has come for a while;
                // the stream's own end, a stall past the read timeout and a stop end reading.
                if end == .failed && elapsed - lastFrame < patience {
                    Thread.sleep(forTimeInterval: 0.01)
                    continue
                }
                let (lines, _) = capture.takeLog()
                let quiet = Int((elapsed - lastFrame).rounded())
                condition.withLock {
                    if !stopped {
                        switch end {
                        case .ended, .aborted, .reading: break
                        case .stalled:
                            failure =
                                "the stream stalled (no frame for \(quiet) s)"
                                + (lines.last.map { " (FFmpeg: \($0))" } ?? "")
                        case .failed:
                            failure =
                                "reading the stream failed (no frame for \(quiet) s)"
                                + (lines.last.map { " (FFmpeg: \($0))" } ?? "")
                        }
                    }
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

    package func next(_ selector: inout FrameSelector) -> SourceFrame? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopped || cancellation?.isCancelled == true {
                stopReading()
                return nil
            }
            if selector.isFinished {
                stopReading()
                return nil
            }
            if let frame = waiting {
                waiting = nil
                switch selector.decide(index: frame.index, time: frame.time) {
                case .stop:
                    stopReading()
                    return nil
                case .skip: continue
                case .analyse:
                    return SourceFrame(
                        index: frame.index, time: frame.time,
                        image: UprightImage(pixels: frame.pixels, orientation: .up))
                }
            }
            if ended { return nil }
            // Wake at least every 100 ms to honour --duration on a stream that sends nothing.
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
            if let duration = selector.sampling.duration, elapsed > duration {
                stopReading()
                return nil
            }
        }
    }

    /// Under the lock: stops the reader, cutting short a read it is blocked in.
    private func stopReading() {
        stopped = true
        stopRequested.cancel()
    }

    package func takeWarnings() -> [String] {
        condition.withLock {
            defer { warnings = [] }
            return warnings
        }
    }

    package func close() {
        stopRequested.cancel()
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
