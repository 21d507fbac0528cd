import Dispatch

/// Performs requests on the frames of one sequence, in order, keeping what must survive from
/// frame to frame, like `VNSequenceRequestHandler`: the trackers of `--track` and their tracks.
///
/// Each frame is handed over upright and decoded once; the still requests run on it (on every
/// frame, or on key frames only when tracking), then the trackers follow their objects into it.
/// One handler per sequence, used by one worker thread.
public final class SequenceRequestHandler {
    public let requests: RequestSet
    public let tracking: TrackRequest?
    private var tracks: [LiveTrack] = []
    private var finished: [TrackSummary] = []
    private var nextTrackID = 1
    private var analysedFrames = 0

    public init(requests: RequestSet, tracking: TrackRequest?) {
        self.requests = requests
        self.tracking = tracking
    }

    /// A track being followed.
    private final class LiveTrack {
        let id: Int
        let kind: String
        let label: String?
        let tracker: ObjectTracker
        var box: BoundingBox
        var misses = 0
        var frames = 0
        var detections = 0
        var confidenceSum = 0.0
        let firstFrame: Int
        let firstTime: Double?
        var lastFrame: Int
        var lastTime: Double?
        /// The frame seen before the last one (what `unsee` goes back to).
        private var previous: (frame: Int, time: Double?, box: BoundingBox)?
        /// The analysed frame (``SequenceRequestHandler/analysedFrames``) at which the tracker lost
        /// the object; nil while it is followed. A lost track reports nothing and looks for its
        /// object again until ``TrackRequest/maximumLostFrames`` have passed.
        var lostSince: Int?
        /// Whether the box was last placed by the track's own search rather than by its start or a
        /// detection: such a box may be a look-alike (a patch of background that matched while the
        /// object was hidden), so each frame the search looks again and moves to a clearly better match.
        var searchPlaced = false

        init(id: Int, kind: String, label: String?, tracker: ObjectTracker, box: BoundingBox, frame: Int, time: Double?)
        {
            self.id = id
            self.kind = kind
            self.label = label
            self.tracker = tracker
            self.box = box
            firstFrame = frame
            firstTime = time
            lastFrame = frame
            lastTime = time
        }

        func seen(_ box: BoundingBox, confidence: Double, frame: Int, time: Double?, detected: Bool)
            -> TrackedObjectObservation
        {
            previous = (lastFrame, lastTime, self.box)
            lostSince = nil
            self.box = box
            frames += 1
            confidenceSum += confidence
            if detected { detections += 1 }
            lastFrame = frame
            lastTime = time
            return TrackedObjectObservation(
                trackID: id, kind: kind, label: label, boundingBox: box, confidence: confidence,
                source: detected ? .detected : .tracked)
        }

        /// Takes back the last `seen` (its frame, confidence and box), when a key frame's decision
        /// replaces or withdraws it.
        func unsee(confidence: Double) {
            guard let previous else { return }
            frames -= 1
            confidenceSum -= confidence
            lastFrame = previous.frame
            lastTime = previous.time
            box = previous.box
            self.previous = nil
        }

        func summary(_ end: TrackSummary.End) -> TrackSummary {
            TrackSummary(
                trackID: id, kind: kind, label: label, firstFrame: firstFrame, lastFrame: lastFrame,
                firstTime: firstTime, lastTime: lastTime,
                frames: frames, detections: detections, meanConfidence: frames > 0 ? confidenceSum / Double(frames) : 0,
                end: end)
        }
    }

    /// Whether nothing is being tracked (every next frame is then a key frame, until a track starts).
    public var isIdle: Bool { tracks.isEmpty }

    /// Analysed frames since the detections last ran.
    private var sinceDetection = 0

    /// Whether the still requests run on the next analysed frame: always without tracking; with
    /// it, every `redetectEvery`-th frame, and on every frame while nothing is being tracked (so a
    /// face that appears is picked up on the frame it appears, not up to N frames later).
    public var nextIsKeyFrame: Bool {
        guard let tracking else { return true }
        return analysedFrames == 0 || sinceDetection >= tracking.redetectEvery || tracks.isEmpty
    }

    /// Analyses one frame: the still requests when it is a key frame, then tracking.
    /// `precomputed`: the still requests' results for this frame, already performed (in parallel
    /// with other frames' when nothing is tracked, where every frame is a key frame).
    package func perform(
        on frame: UprightImage, index: Int, time: Double?, engines: WorkerEngines, precomputed: ImageAnalysis? = nil,
        timings: inout StageTimings
    ) -> FrameAnalysis {
        // A cut to another shot ends every track: the object on the next shot is another one.
        let cut = tracking != nil && timings.measure("track") { isCut(frame) }
        if cut {
            finished += tracks.map { $0.summary(.sceneCut) }
            tracks = []
        }
        let keyFrame = nextIsKeyFrame
        analysedFrames += 1
        sinceDetection = keyFrame ? 1 : sinceDetection + 1
        var analysis = ImageAnalysis(file: "", orientation: 1, width: frame.width, height: frame.height)
        if let precomputed, keyFrame {
            analysis = precomputed
        } else if keyFrame {
            ImageRequestHandler.perform(requests, on: frame, engines: engines, into: &analysis, timings: &timings)
        }
        var result = FrameAnalysis(index: index, time: time, keyFrame: keyFrame, analysis: analysis)
        if let tracking {
            do {
                result.tracked = try timings.measure("track") { () throws(AnalysisError) in
                    try track(
                        frame, analysis: analysis, keyFrame: keyFrame, index: index, time: time, tracking: tracking)
                }
            } catch {
                result.analysis.requestErrors["track"] = ImageAnalysis.RequestError(
                    code: error.code.rawValue, message: error.message)
            }
        }
        return result
    }

    /// The previous frame, 64×48 gray, and its size, for cut detection.
    private var previousThumbnail: [UInt8]?
    private var previousSize: (width: Int, height: Int)?

    /// Whether `frame` starts another shot: a frame of another size than the previous one, or the mean absolute difference of 64×48 gray copies of it
    /// and the previous analysed frame, at the best of the shifts up to 6 columns and 5 rows each way
    /// (a camera that jumps by up to a tenth of the frame: a handheld shot is one shot), is over 25
    /// (of 255). Hard cuts in Megamind.avi measure 40–90; motion within a shot under 15.
    private func isCut(_ frame: UprightImage) -> Bool {
        // Frames of another size (a folder of mixed photos, a stream that changes resolution): the
        // boxes of the tracks no longer mean anything on them.
        defer { previousSize = (frame.width, frame.height) }
        if let previousSize, previousSize != (frame.width, frame.height) {
            previousThumbnail = nil
            return true
        }
        guard let thumbnail = try? frame.gray().resized(width: 64, height: 48).packedPixels else { return false }
        defer { previousThumbnail = thumbnail }
        guard let previous = previousThumbnail, previous.count == thumbnail.count, thumbnail.count == 64 * 48 else {
            return false
        }
        return Self.shiftedDifference(previous, thumbnail, width: 64, height: 48, shiftX: 6, shiftY: 5) > 25
    }

    /// The least mean absolute difference of two gray images over the shifts of `b` against `a` up
    /// to `shiftX` × `shiftY` pixels, each over the area both cover.
    static func shiftedDifference(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int, shiftX: Int, shiftY: Int)
        -> Double
    {
        var best = Double.infinity
        for dy in -shiftY...shiftY {
            for dx in -shiftX...shiftX {
                var sum = 0, count = 0
                for y in max(0, -dy)..<min(height, height - dy) {
                    let ra = y * width, rb = (y + dy) * width
                    for x in max(0, -dx)..<min(width, width - dx) {
                        sum += abs(Int(a[ra + x]) - Int(b[rb + x + dx]))
                        count += 1
                    }
                }
                if count > 0 { best = min(best, Double(sum) / Double(count)) }
            }
        }
        return best
    }

    /// Every track, in ID order, once the sequence is over (tracks still followed end as `sequence-ended`).
    public func finish() -> [TrackSummary] {
        finished += tracks.map { $0.summary(.sequenceEnded) }
        tracks = []
        return finished.sorted { $0.trackID < $1.trackID }
    }

    /// A detection a track can start from or be confirmed by.
    private struct Detection {
        let kind: String
        let label: String?
        let box: BoundingBox
        let confidence: Double
    }

    private func track(
        _ frame: UprightImage, analysis: ImageAnalysis, keyFrame: Bool, index: Int, time: Double?,
        tracking: TrackRequest
    ) throws(AnalysisError) -> [TrackedObjectObservation] {
        var observed: [Int: TrackedObjectObservation] = [:]
        // Every track follows its object into this frame. One whose tracker loses it, or whose box no
        // longer looks like it, is lost: it reports nothing and looks for its object again (its own
        // tracker, then its pixels as last placed, around where it was last seen), and ends only
        // when `maximumLostFrames` analysed frames pass without finding it.
        var kept: [LiveTrack] = []
        for (track, update) in zip(tracks, try updates(of: tracks, in: frame)) {
            let clipped = update.map {
                (box: Self.clip($0.box, width: frame.width, height: frame.height), similarity: $0.similarity)
            }
            if let lostSince = track.lostSince {
                if let clipped, clipped.similarity >= tracking.reacquireSimilarity {
                    observed[track.id] = track.seen(
                        clipped.box, confidence: clipped.similarity, frame: index, time: time, detected: false)
                } else if let found = try track.tracker.search(
                    frame.pixels, around: track.box, reach: Self.reach(lostFor: analysedFrames - lostSince)),
                    found.score >= tracking.reacquireSimilarity
                {
                    let box = Self.clip(found.box, width: frame.width, height: frame.height)
                    if box.width >= 2, box.height >= 2 {
                        try track.tracker.reset(frame.pixels, box: box, trusted: false)
                        track.searchPlaced = true
                        observed[track.id] = track.seen(
                            box, confidence: found.score, frame: index, time: time, detected: false)
                    }
                }
                if track.lostSince != nil, analysedFrames - lostSince >= tracking.maximumLostFrames {
                    finished.append(track.summary(.lost))
                    continue
                }
            } else if let clipped, clipped.similarity >= tracking.minimumSimilarity {
                var box = clipped.box, confidence = clipped.similarity
                // Both places are scored the same way: the trusted reference matched there.
                if track.searchPlaced,
                    let found = try track.tracker.search(frame.pixels, around: box, reach: Self.refineReach),
                    found.score >= tracking.reacquireSimilarity, found.box.intersectionOverUnion(box) < 0.5,
                    found.score >= (try track.tracker.search(frame.pixels, around: box, reach: 0.15)?.score ?? 0)
                        + Self.refineMargin
                {
                    let moved = Self.clip(found.box, width: frame.width, height: frame.height)
                    if moved.width >= 2, moved.height >= 2 {
                        try track.tracker.reset(frame.pixels, box: moved, trusted: false)
                        (box, confidence) = (moved, found.score)
                    }
                }
                observed[track.id] = track.seen(box, confidence: confidence, frame: index, time: time, detected: false)
            } else {
                track.lostSince = analysedFrames
            }
            kept.append(track)
        }
        tracks = kept
        // The first analysed frame starts the --track-box tracks.
        if analysedFrames == 1 {
            for box in tracking.boxes {
                let clipped = Self.clip(box, width: frame.width, height: frame.height)
                guard clipped.width >= 2, clipped.height >= 2 else {
                    throw AnalysisError(
                        .usage,
                        "--track-box \(Int(box.x)),\(Int(box.y)),\(Int(box.width)),\(Int(box.height)) is outside the "
                            + "\(frame.width)x\(frame.height) frame (x,y,width,height in pixels of the upright frame)")
                }
                let track = LiveTrack(
                    id: takeID(), kind: TrackRequest.boxKind, label: nil,
                    tracker: try ObjectTracker(tracking.algorithm, frame: frame.pixels, box: clipped),
                    box: clipped, frame: index, time: time)
                tracks.append(track)
                observed[track.id] = track.seen(clipped, confidence: 1, frame: index, time: time, detected: true)
            }
        }

        if keyFrame {
            let detections = self.detections(in: analysis, tracking: tracking)
            // Greedy matching by overlap, best pairs first (same kind; same label when both have one).
            var pairs: [(overlap: Double, track: Int, detection: Int)] = []
            for (t, track) in tracks.enumerated() where track.kind != TrackRequest.boxKind {
                for (d, detection) in detections.enumerated()
                where detection.kind == track.kind
                    && (track.label == nil || detection.label == nil || track.label == detection.label)
                {
                    let overlap = track.box.intersectionOverUnion(detection.box)
                    if overlap >= tracking.minimumOverlap { pairs.append((overlap, t, d)) }
                }
            }
            pairs.sort {
                $0.overlap != $1.overlap ? $0.overlap > $1.overlap : ($0.track, $0.detection) < ($1.track, $1.detection)
            }
            var matchedTracks = Set<Int>(), matchedDetections = Set<Int>()
            var matches: [(track: Int, detection: Int)] = []
            for pair in pairs where !matchedTracks.contains(pair.track) && !matchedDetections.contains(pair.detection) {
                matchedTracks.insert(pair.track)
                matchedDetections.insert(pair.detection)
                matches.append((pair.track, pair.detection))
            }
            // Then, for what is left, the nearest detection whose centre lies within the track's box
            // and whose size is within 2.5× of it: a face the camera zooms in on, or a tracker that
            // drifted, keeps its ID.
            var near: [(distance: Double, track: Int, detection: Int)] = []
            for (t, track) in tracks.enumerated() where track.kind != TrackRequest.boxKind && !matchedTracks.contains(t)
            {
                for (d, detection) in detections.enumerated()
                where !matchedDetections.contains(d) && detection.kind == track.kind
                    && (track.label == nil || detection.label == nil || track.label == detection.label)
                {
                    let a = track.box, b = detection.box
                    let dx = a.center.x - b.center.x, dy = a.center.y - b.center.y
                    let distance = (dx * dx + dy * dy).squareRoot()
                    let ratio = max(a.area, b.area) / max(1, min(a.area, b.area))
                    if distance <= max(a.width, a.height, b.width, b.height) / 2 && ratio <= 6.25 {
                        near.append((distance, t, d))
                    }
                }
            }
            near.sort {
                $0.distance != $1.distance
                    ? $0.distance < $1.distance : ($0.track, $0.detection) < ($1.track, $1.detection)
            }
            for pair in near where !matchedTracks.contains(pair.track) && !matchedDetections.contains(pair.detection) {
                matchedTracks.insert(pair.track)
                matchedDetections.insert(pair.detection)
                matches.append((pair.track, pair.detection))
            }
            for pair in matches {
                let track = tracks[pair.track], detection = detections[pair.detection]
                try track.tracker.reset(frame.pixels, box: detection.box, trusted: true)
                track.searchPlaced = false
                track.misses = 0
                // Replaces the tracked box of this frame by the detection (a lost track is found again).
                if let tracked = observed[track.id] { track.unsee(confidence: tracked.confidence) }
                observed[track.id] = track.seen(
                    detection.box, confidence: detection.confidence, frame: index, time: time, detected: true)
            }
            var remaining: [LiveTrack] = []
            for (t, track) in tracks.enumerated() {
                if track.kind == TrackRequest.boxKind || matchedTracks.contains(t) || track.lostSince != nil {
                    remaining.append(track)
                    continue
                }
                track.misses += 1
                if track.misses >= tracking.maximumMisses {
                    if let tracked = observed.removeValue(forKey: track.id) {
                        track.unsee(confidence: tracked.confidence)
                    }
                    finished.append(track.summary(.notRedetected))
                } else {
                    remaining.append(track)
                }
            }
            tracks = remaining
            for (d, detection) in detections.enumerated() where !matchedDetections.contains(d) {
                let clipped = Self.clip(detection.box, width: frame.width, height: frame.height)
                guard clipped.width >= 2, clipped.height >= 2 else { continue }
                let track = LiveTrack(
                    id: takeID(), kind: detection.kind, label: detection.label,
                    tracker: try ObjectTracker(tracking.algorithm, frame: frame.pixels, box: clipped), box: clipped,
                    frame: index, time: time)
                tracks.append(track)
                observed[track.id] = track.seen(
                    clipped, confidence: detection.confidence, frame: index, time: time, detected: true)
            }
        }
        return observed.values.sorted { $0.trackID < $1.trackID }
    }

    /// Trackers to run at once on a frame (`BatchRunner` sets it to the workers a lone sequence
    /// would leave idle); each tracker is its own object, so they run in parallel safely.
    package var parallelTrackers = 1

    /// Each track's tracker updated on `frame`, in order (in parallel when allowed and worth it).
    private func updates(of following: [LiveTrack], in frame: UprightImage) throws(AnalysisError) -> [(
        box: BoundingBox, similarity: Double
    )?] {
        guard parallelTrackers > 1, following.count > 1 else {
            var out: [(box: BoundingBox, similarity: Double)?] = []
            for track in following { out.append(try track.tracker.update(frame.pixels)) }
            return out
        }
        let slots = ResultSlots<Result<(box: BoundingBox, similarity: Double)?, AnalysisError>>(count: following.count)
        let pixels = frame.pixels
        let lanes = min(parallelTrackers, following.count)
        let shared = DisjointShare(following)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for i in stride(from: lane, to: shared.value.count, by: lanes) {
                do throws(AnalysisError) {
                    slots.set(i, .success(try shared.value[i].tracker.update(pixels)))
                } catch {
                    slots.set(i, .failure(error))
                }
            }
        }
        var out: [(box: BoundingBox, similarity: Double)?] = []
        for result in slots.values {
            switch result {
            case .success(let update): out.append(update)
            case .failure(let error): throw error
            case nil: out.append(nil)
            }
        }
        return out
    }

    private func takeID() -> Int {
        defer { nextTrackID += 1 }
        return nextTrackID
    }

    /// The boxes of the kinds that start tracks, in the order the requests ran and found them.
    private func detections(in analysis: ImageAnalysis, tracking: TrackRequest) -> [Detection] {
        let kinds = tracking.kinds.isEmpty ? TrackRequest.trackableKinds : tracking.kinds
        var found: [Detection] = []
        for entry in analysis.results where kinds.contains(entry.kind) {
            guard let result = entry.result as? any TrackableResult else { continue }
            for observation in result.trackables {
                found.append(
                    Detection(
                        kind: entry.kind.rawValue, label: observation.trackLabel, box: observation.boundingBox,
                        confidence: observation.confidence))
            }
        }
        return found
    }

    /// How far a lost track looks for its object, in its sizes on every side of where it was last
    /// seen: one at once, growing by a quarter a frame to four (an object that moves on while hidden).
    /// How far (× its size) a search-placed box looks for a better match each frame, and by how much
    /// more a match must correlate with the object's trusted appearance to move it there.
    static let refineReach = 4.0
    static let refineMargin = 0.1

    static func reach(lostFor frames: Int) -> Double { min(4, 1 + 0.25 * Double(max(0, frames))) }

    static func clip(_ box: BoundingBox, width: Int, height: Int) -> BoundingBox {
        let x0 = min(max(box.x, 0), Double(width)), y0 = min(max(box.y, 0), Double(height))
        let x1 = min(max(box.maxX, 0), Double(width)), y1 = min(max(box.maxY, 0), Double(height))
        return BoundingBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
