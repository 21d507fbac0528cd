import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// Videos, folders of frames and live streams: which frames are analysed, and tracking.
struct SequenceOptionGroup: ParsableArguments {
    @Option(
        name: .customLong("sequence"),
        help: ArgumentHelp(
            "Analyse the images in DIR as the frames of one sequence (natural name order: frame2 before frame10), with tracks across them. Repeatable.",
            valueName: "dir"))
    var sequences: [String] = []

    @Option(
        name: .customLong("every"),
        help: ArgumentHelp("In videos and sequences, analyse every N-th frame (1: all).", valueName: "n"))
    var every: Int = 1

    @Option(
        name: .customLong("fps"),
        help: ArgumentHelp(
            "In videos and streams, analyse at most F frames per second of the video's time (e.g. 2).", valueName: "f"))
    var fps: Double?

    @Option(
        name: .customLong("duration"),
        help: ArgumentHelp(
            "Stop each video after SECONDS of its time, and a live stream after SECONDS of wall time (a live stream otherwise runs until it ends or Ctrl-C).",
            valueName: "seconds"))
    var duration: Double?

    @Option(
        name: .customLong("max-frames"),
        help: ArgumentHelp("Analyse at most N frames of each video, sequence or stream.", valueName: "n"))
    var maxFrames: Int?

    @Flag(
        name: .customLong("track"),
        help:
            "Follow what the detection requests find (faces, objects, rectangles, barcodes) from frame to frame, like VNTrackObjectRequest: each object gets a trackID kept while it is visible, and kept when it comes back within 30 analysed frames of being lost (hidden, or out of sight). Detections run on key frames only (see --redetect); a tracker follows the objects in between."
    )
    var track = false

    @Option(
        name: .customLong("tracker"),
        help: ArgumentHelp(
            "The tracker: csrt (default), or kcf: faster, but OpenCV 4.6's KCF keeps one box size and loses an object that grows, shrinks or turns within a few frames; between key frames only, where re-detection puts it back.",
            valueName: "name"))
    var tracker: TrackRequest.Algorithm = .csrt

    @Option(
        name: .customLong("redetect"),
        help: ArgumentHelp(
            "With --track, run the detections on every N-th analysed frame (and on every frame while nothing is tracked) to correct drift, start new tracks and end lost ones (1: every frame).",
            valueName: "n"))
    var redetect: Int = 10

    @Option(
        name: .customLong("track-box"),
        help: ArgumentHelp(
            "Follow this box (pixels of the first analysed frame: x,y,width,height) through the sequence, as a `box` track; implies --track. Repeatable.",
            valueName: "x,y,w,h"))
    var trackBoxes: [TrackBox] = []

    var sampling: FrameSampling { FrameSampling(every: every, fps: fps, duration: duration, maximumFrames: maxFrames) }

    var tracking: TrackRequest? {
        guard track || !trackBoxes.isEmpty else { return nil }
        return TrackRequest(algorithm: tracker, redetectEvery: redetect, boxes: trackBoxes.map(\.box))
    }

    func validate() throws {
        if every < 1 { throw ValidationError("--every must be at least 1") }
        if let fps, !(fps > 0) { throw ValidationError("--fps must be positive") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if let maxFrames, maxFrames < 1 { throw ValidationError("--max-frames must be at least 1") }
        if redetect < 1 { throw ValidationError("--redetect must be at least 1") }
    }
}

/// A `--track-box x,y,w,h` argument.
struct TrackBox: ExpressibleByArgument {
    let box: BoundingBox

    init?(argument: String) {
        let parts = argument.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3],
            [x, y, w, h].allSatisfy(\.isFinite), x >= 0, y >= 0, w >= 2, h >= 2
        else { return nil }
        box = BoundingBox(x: x, y: y, width: w, height: h)
    }
}

extension TrackRequest.Algorithm: ExpressibleByArgument {}
