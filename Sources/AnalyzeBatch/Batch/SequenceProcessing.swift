import AnalyzeCore
import AnalyzeOutput
import Foundation

extension BatchRunner {
    /// Analyses one sequence (a video, a folder of frames, a live stream) frame by frame with a
    /// ``SequenceRequestHandler``, writing its outputs as it goes; never throws: errors become the
    /// outcome. Frames read before a read error are analysed and written, and the error is
    /// reported (`read` in the outcome's request errors), so the input counts as failed.
    ///
    /// `lanes` > 1: that many frames are analysed at once when nothing is tracked (every frame's
    /// still requests are independent; each lane has its own engines), and that many trackers
    /// run at once when tracking. The outputs are the same bytes either way.
    func processSequence(index: Int, engines: WorkerEngines, optionsHash: String, lanes: Int = 1) -> ImageOutcome {
        let source = sources[index]
        var timings = StageTimings()
        var writer: SequenceOutputWriter?
        do throws(AnalysisError) {
            // A file or folder's content identity (a stream has none): recorded in the JSON, compared by --resume.
            let fingerprint =
                source.kind == .stream
                ? nil
                : try timings.measure("fingerprint") { () throws(AnalysisError) in
                    try SequenceFingerprint.of(source, maximumBytes: maximumFileBytes)
                }
            if resume, let output, let fingerprint,
                let previous = StoredSequence.upToDate(
                    source, fingerprint: fingerprint, optionsHash: optionsHash, in: output)
            {
                return outcome(
                    source: source, index: index, sequence: previous.sequence, tracks: previous.tracks,
                    summary: previous.summary,
                    optionsHash: optionsHash, timings: timings, resumed: true)
            }
            let frames: any FrameSource = try timings.measure("open") { () throws(AnalysisError) -> any FrameSource in
                switch source.kind {
                case .frames:
                    try FolderFrameSource(
                        folder: source.path, maximumPixels: maximumPixels, maximumBytes: maximumFileBytes)
                case .stream:
                    try LiveFrameSource(
                        url: source.path, maximumPixels: maximumPixels, duration: sampling.duration,
                        cancellation: cancellation)
                case .video, .image: try VideoFrameSource(path: source.path, maximumPixels: maximumPixels)
                }
            }
            defer { frames.close() }
            let opened = DispatchTime.now().uptimeNanoseconds
            let handler = SequenceRequestHandler(requests: requests, tracking: tracking)
            handler.parallelTrackers = lanes
            // Frames whose still requests run at once. Without tracking every frame is a key frame. With
            // it, while nothing is tracked every frame is one too, unless a track starts on a frame
            // of the batch: the detections are then performed ahead for the whole batch, and a frame
            // that turns out not to be a key frame ignores its own (the output is the same bytes).
            let frameLanes = lanes
            let laneEngines = [engines] + (1..<max(1, frameLanes)).map { _ in WorkerEngines(models: engines.models) }
            var selector = FrameSelector(sampling)
            var sequence = SequenceAnalysis(
                file: source.displayPath,
                source: source.kind == .frames ? .frames : source.kind == .stream ? .stream : .video,
                sampling: sampling, tracking: tracking)
            sequence.declaredFPS = frames.declaredFPS.map { ($0 * 1000).rounded() / 1000 }
            sequence.declaredFrames = frames.declaredFrames
            sequence.optionsHash = optionsHash
            sequence.input = fingerprint
            // The annotated video plays the analysed frames at their own rate: the declared rate over
            // --every, or --fps when that keeps fewer; frames without times (a folder) at 10 a second.
            let rate = Self.annotatedRate(declared: frames.declaredFPS, sampling: sampling)
            if let output { writer = try SequenceOutputWriter(source: source, output: output, fps: max(1, rate)) }
            var summary = SequenceSummaryAccumulator()
            var firstTime: Double?, lastTime: Double?
            while cancellation?.isCancelled != true {
                var batch: [SourceFrame] = []
                let ahead = tracking == nil || handler.isIdle ? frameLanes : 1
                while batch.count < ahead, let frame = timings.measure("decode", { frames.next(&selector) }) {
                    batch.append(frame)
                }
                if batch.isEmpty { break }
                let precomputed =
                    batch.count > 1
                    ? Self.performInParallel(requests, on: batch, engines: laneEngines, timings: &timings)
                    : [nil]
                for (frame, analysis) in zip(batch, precomputed) {
                    if sequence.framesAnalysed == 0 {
                        sequence.width = frame.image.width
                        sequence.height = frame.image.height
                    }
                    if firstTime == nil { firstTime = frame.time }
                    lastTime = frame.time ?? lastTime
                    var result = handler.perform(
                        on: frame.image, index: frame.index, time: frame.time, engines: engines, precomputed: analysis,
                        timings: &timings)
                    if frame.image.width != sequence.width || frame.image.height != sequence.height {
                        result.size = (frame.image.width, frame.image.height)
                    }
                    sequence.framesAnalysed += 1
                    summary.add(result)
                    if let onFrame { onFrame(source, result) }
                    if let onSequenceProgress {
                        onSequenceProgress(
                            source,
                            SequenceProgress(
                                framesRead: frames.framesRead, framesAnalysed: sequence.framesAnalysed,
                                declaredFrames: frames.declaredFrames, maximumFrames: sampling.maximumFrames,
                                elapsed: Double(DispatchTime.now().uptimeNanoseconds - opened) / 1e9))
                    }
                    try writer?.add(result, image: frame.image, timings: &timings)
                }
            }
            if cancellation?.isCancelled == true {
                frames.close()
                // A live stream ends when the user stops it; a video or a folder is then unfinished.
                if source.kind != .stream { sequence.interrupted = true }
            }
            sequence.warnings = frames.takeWarnings().map(source.redacting)
            sequence.framesRead = frames.framesRead
            sequence.framesDropped = frames.framesDropped
            sequence.readError = frames.readError.map(source.redacting)
            if let firstTime, let lastTime { sequence.duration = ((lastTime - firstTime) * 1000).rounded() / 1000 }
            guard sequence.framesAnalysed > 0 || (sequence.readError == nil && sequence.framesRead > 0) else {
                writer?.discard()
                throw AnalysisError(
                    .undecodable,
                    sequence.readError ?? "no frame could be read" + (sequence.warnings.first.map { ": \($0)" } ?? ""))
            }
            let tracks = handler.finish()
            try writer?.finish(&sequence, tracks: tracks, timings: &timings)
            return outcome(
                source: source, index: index, sequence: sequence, tracks: tracks, summary: summary,
                optionsHash: optionsHash,
                timings: timings, resumed: false)
        } catch {
            writer?.discard()
            var error = AnalysisError(
                error.code, source.redacting(error.message), file: error.file.map(source.redacting))
            if error.file == nil { error.file = source.displayPath }
            return ImageOutcome(source: source, index: index, result: .failure(error), timings: timings)
        }
    }
}

extension BatchRunner {
    /// The outcome of an analysed (or resumed) sequence: its read error and its frames' request
    /// errors make it fail; the checks count over all its frames.
    func outcome(
        source: ImageSource, index: Int, sequence: SequenceAnalysis, tracks: [TrackSummary],
        summary: SequenceSummaryAccumulator,
        optionsHash: String, timings: StageTimings, resumed: Bool
    ) -> ImageOutcome {
        var analysis = ImageAnalysis(
            file: source.displayPath, orientation: 1, width: sequence.width, height: sequence.height,
            warnings: sequence.warnings)
        analysis.optionsHash = optionsHash
        analysis.input = sequence.input
        analysis.requestErrors = summary.requestErrors
        if let readError = sequence.readError {
            analysis.requestErrors["read"] = ImageAnalysis.RequestError(
                code: AnalysisError.Code.undecodable.rawValue, message: readError)
        }
        let outcomeSequence = SequenceOutcome(
            sequence: sequence, tracks: tracks, summaries: summary.summaries, barcodeLines: summary.barcodeLines)
        let checkFailures = checks.compactMap { $0.failure(count: outcomeSequence.count(of: $0.kind, label: $0.label)) }
        return ImageOutcome(
            source: source, index: index, analysis: analysis, sequence: outcomeSequence, checkFailures: checkFailures,
            resumed: resumed, timings: timings)
    }

    /// The still requests performed on several frames at once, one frame per lane with that lane's
    /// engines; the stage timings of all lanes are added to `timings`.
    static func performInParallel(
        _ requests: RequestSet, on frames: [SourceFrame], engines: [WorkerEngines],
        timings: inout StageTimings
    ) -> [ImageAnalysis?] {
        let slots = ResultSlots<(ImageAnalysis, StageTimings)>(count: frames.count)
        let shared = DisjointShare((frames, engines))
        DispatchQueue.concurrentPerform(iterations: frames.count) { i in
            let (frames, engines) = shared.value
            let image = frames[i].image
            var analysis = ImageAnalysis(file: "", orientation: 1, width: image.width, height: image.height)
            var laneTimings = StageTimings()
            ImageRequestHandler.perform(
                requests, on: image, engines: engines[i], into: &analysis, timings: &laneTimings)
            slots.set(i, (analysis, laneTimings))
        }
        return slots.values.map { slot in
            if let slot { timings.add(slot.1) }
            return slot?.0
        }
    }
}

/// What a run keeps of an analysed sequence: how it was read, its tracks, and what its frames
/// held in all, per kind (summed over the analysed frames).
extension BatchRunner {
    /// The frame rate of an annotated video: the declared rate divided by `--every`, lowered to
    /// `--fps` when that keeps fewer frames (never raised: `--fps 100` on a 29.97 fps video plays at
    /// 29.97); 10 a second when the frames have no declared rate (a folder of frames).
    static func annotatedRate(declared: Double?, sampling: FrameSampling) -> Double {
        guard let declared, declared.isFinite, declared > 0 else { return 10 }
        return min(declared / Double(sampling.every), sampling.fps ?? .infinity)
    }
}

public struct SequenceOutcome: Sendable {
    public let sequence: SequenceAnalysis
    public let tracks: [TrackSummary]
    /// Per kind, in the order the requests ran: counts summed over frames, labels, payloads and
    /// text gathered without repeats.
    public let summaries: [(kind: ObservationKind, summary: ResultSummary)]
    /// Every distinct barcode read in its frames as `symbology:payload`, in the order first read
    /// (at most 10,000): what `--print` prints for a sequence.
    public let barcodeLines: [String]

    /// Observations of `kind` over all analysed frames (with `label`: only those so labelled).
    public func count(of kind: ObservationKind, label: String?) -> Int {
        guard let summary = summaries.first(where: { $0.kind == kind })?.summary else { return 0 }
        guard let label else { return summary.count }
        return summary.labels.filter { ObservationCheck.label($0, matches: label) }.count
    }
}

/// Sums the frames' results of a sequence as they are analysed (bounded: distinct labels,
/// payloads and text lines are capped).
struct SequenceSummaryAccumulator {
    private(set) var summaries: [(kind: ObservationKind, summary: ResultSummary)] = []
    private(set) var requestErrors: [String: ImageAnalysis.RequestError] = [:]
    private(set) var barcodeLines: [String] = []
    private var seenBarcodes = Set<String>()

    mutating func add(_ frame: FrameAnalysis) {
        for (kind, error) in frame.analysis.requestErrors where requestErrors[kind] == nil {
            requestErrors[kind] = error
        }
        for code in frame.analysis.barcodes ?? [] where barcodeLines.count < 10_000 {
            let line = "\(code.symbology):\(code.payload)"
            if seenBarcodes.insert(line).inserted { barcodeLines.append(line) }
        }
        for entry in frame.analysis.results {
            let s = entry.result.summary
            if let i = summaries.firstIndex(where: { $0.kind == entry.kind }) {
                var total = summaries[i].summary
                total.count += s.count
                total.extraCounts.merge(s.extraCounts) { $0 + $1 }
                Self.merge(&total.labels, s.labels, limit: 200)
                // Labels and objects: one line of the names seen, not a line per frame ("person 71%" ×40).
                if entry.result is ImageClassification || entry.result is [RecognizedObjectObservation] {
                    total.highlights = Self.namesLine(kind: entry.kind, total.labels)
                } else {
                    Self.merge(&total.highlights, s.highlights, limit: 20)
                }
                Self.merge(&total.textPreview, s.textPreview, limit: 5)
                Self.merge(&total.searchable, s.searchable, limit: 400)
                summaries[i].summary = total
            } else {
                var first = s
                // Labels once each: "person" in 300 frames is one label to filter on.
                first.labels = []
                Self.merge(&first.labels, s.labels, limit: 200)
                if entry.result is ImageClassification || entry.result is [RecognizedObjectObservation] {
                    first.highlights = Self.namesLine(kind: entry.kind, first.labels)
                }
                summaries.append((entry.kind, first))
            }
        }
    }

    /// `objects seen: person, car, dog, …` (the first 12 names in order of appearance); nothing when none.
    private static func namesLine(kind: ObservationKind, _ names: [String]) -> [String] {
        guard !names.isEmpty else { return [] }
        let noun = kind.rawValue == "classification" ? "labels" : kind.rawValue
        return ["\(noun) seen: " + names.prefix(12).joined(separator: ", ") + (names.count > 12 ? ", …" : "")]
    }

    private static func merge(_ list: inout [String], _ more: [String], limit: Int) {
        for item in more where list.count < limit && !list.contains(item) { list.append(item) }
    }
}
