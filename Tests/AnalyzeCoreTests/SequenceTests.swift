import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

/// A sequence's JSON as read back: frames by index, tracks.
struct SequenceJSON {
    struct Box { let x, y, width, height: Double }
    let frames: [[String: Any]]
    let sequence: [String: Any]
    let tracks: [[String: Any]]

    init(_ url: URL) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        frames = try #require(object["frames"] as? [[String: Any]])
        sequence = try #require(object["sequence"] as? [String: Any])
        tracks = try #require(object["tracks"] as? [[String: Any]])
    }

    static func box(_ value: Any?) -> Box? {
        guard let b = value as? [String: Double], let x = b["x"], let y = b["y"], let w = b["width"],
            let h = b["height"]
        else { return nil }
        return Box(x: x, y: y, width: w, height: h)
    }

    /// The boxes of `kind` per frame index (objects: only those labelled `label`).
    func detections(_ kind: String, label: String? = nil) -> [Int: [Box]] {
        var out: [Int: [Box]] = [:]
        for frame in frames {
            guard let index = frame["index"] as? Int else { continue }
            let list = (frame[kind] as? [[String: Any]] ?? []).filter { o in
                label == nil || ((o["labels"] as? [[String: Any]])?.first?["identifier"] as? String) == label
            }
            out[index] = list.compactMap { Self.box($0["boundingBox"]) }
        }
        return out
    }

    /// The tracked boxes per frame index, with their track IDs.
    var tracked: [Int: [(id: Int, box: Box)]] {
        var out: [Int: [(id: Int, box: Box)]] = [:]
        for frame in frames {
            guard let index = frame["index"] as? Int else { continue }
            out[index] = (frame["tracked"] as? [[String: Any]] ?? []).compactMap { t in
                guard let id = t["trackID"] as? Int, let box = Self.box(t["boundingBox"]) else { return nil }
                return (id, box)
            }
        }
        return out
    }

    static func iou(_ a: Box, _ b: Box) -> Double {
        let w = min(a.x + a.width, b.x + b.width) - max(a.x, b.x),
            h = min(a.y + a.height, b.y + b.height) - max(a.y, b.y)
        guard w > 0, h > 0 else { return 0 }
        let i = w * h
        return i / (a.width * a.height + b.width * b.height - i)
    }
}

/// A small seeded generator (SplitMix64): test data that is the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Tracking measured against a per-frame detection run of the same video.
struct TrackingScore {
    /// Tracked boxes on frames with reference detections, and how many of them overlap one (IoU ≥ 0.5).
    var trackedBoxes = 0
    var overlapping = 0
    /// Reference detections linked frame to frame (IoU ≥ 0.5 between consecutive frames) into
    /// chains; along a chain, a change of the track ID that covers it is an ID switch.
    var links = 0
    var switches = 0

    init(reference: [Int: [SequenceJSON.Box]], tracked: [Int: [(id: Int, box: SequenceJSON.Box)]]) {
        func covering(_ box: SequenceJSON.Box, in frame: Int) -> Int? {
            let best = (tracked[frame] ?? []).map { ($0.id, SequenceJSON.iou($0.box, box)) }.max { $0.1 < $1.1 }
            return best.flatMap { $0.1 >= 0.5 ? $0.0 : nil }
        }
        for (frame, boxes) in tracked where !(reference[frame] ?? []).isEmpty {
            for t in boxes {
                trackedBoxes += 1
                if (reference[frame] ?? []).contains(where: { SequenceJSON.iou($0, t.box) >= 0.5 }) { overlapping += 1 }
            }
        }
        for frame in reference.keys.sorted() {
            for box in reference[frame] ?? [] {
                guard
                    let next = (reference[frame + 1] ?? []).max(by: {
                        SequenceJSON.iou($0, box) < SequenceJSON.iou($1, box)
                    }),
                    SequenceJSON.iou(next, box) >= 0.5, let a = covering(box, in: frame),
                    let b = covering(next, in: frame + 1)
                else { continue }
                links += 1
                if a != b { switches += 1 }
            }
        }
    }
}

@Suite("Sequences")
struct SequenceTests {
    func run(
        _ sources: [ImageSource], _ requests: RequestSet, sampling: FrameSampling = FrameSampling(),
        tracking: TrackRequest? = nil,
        jobs: Int = 1, png: Bool = false
    ) throws -> (outcomes: [ImageOutcome], folder: URL) {
        let folder = try Fixture.temporaryDirectory()
        var runner = BatchRunner(
            sources: sources, requests: requests,
            output: OutputOptions(directory: folder, writePNG: png, writeSVG: false), jobs: jobs)
        runner.sampling = sampling
        runner.tracking = tracking
        return (try runner.run(), folder)
    }

    func video(_ name: String) throws -> ImageSource {
        let path = try OpenCVSample.path(name)
        return ImageSource(path: path, outputName: (name as NSString).deletingPathExtension, kind: .video)
    }

    @Test func theFaceInMegamindKeepsOneTrackPerShotAndFollowsTheDetections() throws {
        let source = try video("Megamind.avi")
        let (_, reference) = try run([source], RequestSet([FaceRequest()]))
        let (outcomes, tracked) = try run([source], RequestSet([FaceRequest()]), tracking: TrackRequest(), png: true)
        let outcome = try #require(outcomes.first)
        #expect(outcome.error == nil && outcome.analysis?.requestErrors.isEmpty == true)
        let truth = try SequenceJSON(reference.appendingPathComponent("Megamind.json"))
        let result = try SequenceJSON(tracked.appendingPathComponent("Megamind.json"))
        #expect(result.sequence["framesAnalysed"] as? Int == 270)
        // The video cuts to another shot at frames 98, 154 and 200: every track there ends.
        let cuts = Set(
            result.tracks.filter { $0["end"] as? String == "scene-cut" }.compactMap { $0["lastFrame"] as? Int })
        #expect(cuts == [97, 153, 199])
        let score = TrackingScore(reference: truth.detections("faces"), tracked: result.tracked)
        let share = Double(score.overlapping) / Double(max(1, score.trackedBoxes))
        #expect(
            share >= 0.9,
            "tracked face boxes overlapping a per-frame detection: \(score.overlapping) of \(score.trackedBoxes)")
        #expect(score.links > 200)
        #expect(score.switches == 0, "ID switches along \(score.links) linked detections: \(score.switches)")
        // The first shot's main face (found on frame 1) keeps its ID to the cut.
        let first = try #require(result.tracks.first { ($0["trackID"] as? Int) == 1 })
        #expect(first["firstFrame"] as? Int == 1 && first["lastFrame"] as? Int == 97)
        // Every track's summary is what its frames say: a mean confidence of at most 1, its last frame
        // the last one it was reported on (a track ended "not-redetected" took back its last frame).
        for track in result.tracks {
            let id = try #require(track["trackID"] as? Int)
            let seen = result.tracked.filter { $0.value.contains { $0.id == id } }.map(\.key)
            #expect((track["meanConfidence"] as? Double ?? 2) <= 1, "\(track)")
            #expect(track["lastFrame"] as? Int == seen.max() && track["frames"] as? Int == seen.count, "\(track)")
        }
        // The whole video's JSON (the demo's) validates against its schema.
        let validation = try SchemaTests().validate([tracked.path])
        #expect(validation.status == 0, "\(validation.output)")
        // The annotated video holds every analysed frame.
        let written = try VideoCapture(tracked.appendingPathComponent("Megamind.mp4").path, localFile: true)
        var frames = 0
        while written.grab() != nil { frames += 1 }
        #expect(frames == 270)
        #expect(FileManager.default.fileExists(atPath: tracked.appendingPathComponent("Megamind.contact.png").path))
    }

    @Test func walkersInVtestKeepTheirIDsBetweenRedetections() throws {
        let source = try video("vtest.avi")
        let sampling = FrameSampling(maximumFrames: 150)
        let (_, reference) = try run([source], RequestSet([ObjectRequest()]), sampling: sampling)
        let (_, tracked) = try run(
            [source], RequestSet([ObjectRequest()]), sampling: sampling, tracking: TrackRequest())
        let truth = try SequenceJSON(reference.appendingPathComponent("vtest.json"))
        let result = try SequenceJSON(tracked.appendingPathComponent("vtest.json"))
        let score = TrackingScore(reference: truth.detections("objects", label: "person"), tracked: result.tracked)
        print(
            "vtest.avi, 150 frames: \(score.switches) ID switches along \(score.links) linked person detections; \(score.overlapping) of \(score.trackedBoxes) tracked boxes overlap a detection; \(result.tracks.count) tracks"
        )
        #expect(score.links > 500)
        #expect(
            Double(score.switches) <= 0.02 * Double(score.links),
            "\(score.switches) ID switches along \(score.links) links")
        // YOLO's boxes of a walking person change shape from frame to frame; the tracker's keep theirs.
        #expect(Double(score.overlapping) >= 0.5 * Double(score.trackedBoxes))
    }

    @Test func aTruncatedVideoGivesTheFramesBeforeTheCutAndAClearError() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("vtest.avi")))
        let folder = try Fixture.temporaryDirectory()
        let truncated = folder.appendingPathComponent("cut.avi")
        try bytes.prefix(bytes.count * 4 / 10).write(to: truncated)
        let garbage = folder.appendingPathComponent("noise.mp4")
        var generator = SplitMix64(seed: 11)
        try Data((0..<50_000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: garbage)
        let sources = [
            ImageSource(path: truncated.path, outputName: "cut", kind: .video),
            ImageSource(path: garbage.path, outputName: "noise", kind: .video),
            try video("tree.avi"),
        ]
        let (outcomes, out) = try run(sources, RequestSet([RectangleRequest()]), png: true)
        try #require(outcomes.count == 3)
        // The truncated copy: its first ~314 frames analysed and written, the error said.
        let cut = try #require(outcomes[0].sequence)
        #expect(cut.sequence.framesAnalysed > 250 && cut.sequence.framesAnalysed < 795)
        let error = try #require(outcomes[0].analysis?.requestErrors["read"])
        #expect(error.message.contains("truncated or damaged") && error.message.contains("795"))
        #expect(outcomes[0].isFailure)
        let json = try SequenceJSON(out.appendingPathComponent("cut.json"))
        #expect(json.frames.count == cut.sequence.framesAnalysed)
        // Random bytes: a clear per-input failure, no crash.
        #expect(outcomes[1].error?.code == .undecodable)
        // tree.avi declares 444 frames and holds 68 (its index repeats frames): read to its end, no error.
        let tree = try #require(outcomes[2].sequence)
        #expect(tree.sequence.framesRead == 68 && tree.sequence.readError == nil)
        #expect(!outcomes[2].isFailure)
        // Nothing half-written is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!names.contains { $0.hasPrefix(".analyze-") })
        #expect(!names.contains("noise.json"))
    }

    @Test func framesAreChosenByEveryFpsAndMaximum() throws {
        let source = try video("vtest.avi")  // 10 frames per second
        let every = try run(
            [source], RequestSet([RectangleRequest()]), sampling: FrameSampling(every: 5, maximumFrames: 4))
        let a = try SequenceJSON(every.folder.appendingPathComponent("vtest.json"))
        #expect(a.frames.compactMap { $0["index"] as? Int } == [0, 5, 10, 15])
        #expect(a.frames.compactMap { $0["time"] as? Double } == [0, 0.5, 1, 1.5])
        let fps = try run([source], RequestSet([RectangleRequest()]), sampling: FrameSampling(fps: 4, duration: 1))
        let b = try SequenceJSON(fps.folder.appendingPathComponent("vtest.json"))
        // Slots of 0.25 s: frames 0, 3 (0.3 s), 5, 8, 10; the duration stops after 1 s.
        #expect(b.frames.compactMap { $0["index"] as? Int } == [0, 3, 5, 8, 10])
        // --every 3 --fps 2 on 10 frames a second: frames 0.3 s apart against 0.5-s slots give evenly
        // spaced picks (not 0, 6, 12, 15); 29.97 fps at --fps 10 keeps every third frame.
        func picks(every: Int, fps: Double, rate: Double, frames: Int) -> [Int] {
            var selector = FrameSelector(FrameSampling(every: every, fps: fps))
            return (0..<frames).filter { selector.decide(index: $0, time: Double($0) / rate) == .analyse }
        }
        #expect(picks(every: 3, fps: 2, rate: 10, frames: 40) == [0, 6, 12, 18, 24, 30, 36])
        #expect(picks(every: 1, fps: 10, rate: 29.97, frames: 31) == [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30])
        #expect(picks(every: 1, fps: 7, rate: 30, frames: 300).count == 70)
    }

    @Test func aFolderOfFramesIsOneSequenceInNaturalOrder() throws {
        #expect(
            ["f10.png", "f2.png", "f1.png", "f02b.png"].sorted(by: FolderFrameSource.naturalOrder) == [
                "f1.png", "f2.png", "f02b.png", "f10.png",
            ])
        let folder = try Fixture.temporaryDirectory().appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let card = Fixture.path("barcodes/qr-hello.png")
        for name in ["frame10.png", "frame2.png", "frame1.png"] {
            try FileManager.default.copyItem(atPath: card, toPath: folder.appendingPathComponent(name).path)
        }
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("frame3.png"))
        let source = try #require(InputCollector.collect([], sequences: [folder.path]).first)
        #expect(source.kind == .frames && source.outputName == "shots")
        let (outcomes, out) = try run([source], RequestSet([BarcodeRequest()]))
        let json = try SequenceJSON(out.appendingPathComponent("shots.json"))
        // frame1, frame2, frame3 (unreadable: a warning), frame10.
        #expect(json.frames.compactMap { $0["index"] as? Int } == [0, 1, 3])
        #expect(json.frames.allSatisfy { ($0["barcodes"] as? [Any])?.isEmpty == false })
        #expect((json.sequence["warnings"] as? [String])?.first?.contains("frame3.png") == true)
        #expect(outcomes.first?.sequence?.tracks.isEmpty == true)
    }

    @Test func aTrackBoxFollowsAWalker() throws {
        // A pedestrian in vtest.avi's first frame (YOLO's box for that person).
        let tracking = TrackRequest(boxes: [BoundingBox(x: 255, y: 221, width: 28, height: 86)])
        let (outcomes, out) = try run(
            [try video("vtest.avi")], RequestSet(), sampling: FrameSampling(maximumFrames: 61), tracking: tracking)
        #expect(outcomes.first?.error == nil)
        let json = try SequenceJSON(out.appendingPathComponent("vtest.json"))
        let track = try #require(json.tracks.first)
        #expect(
            json.tracks.count == 1 && track["kind"] as? String == "box" && track["end"] as? String == "sequence-ended")
        let at60 = try #require(json.tracked[60]?.first).box
        // Frame 60 decoded on its own: the tracked box lies on a person YOLO finds there, who has walked away from the start.
        let capture = try VideoCapture(try OpenCVSample.path("vtest.avi"), localFile: true)
        for _ in 0...60 { _ = capture.grab() }
        let frame = UprightImage(pixels: try capture.retrieve(), orientation: .up)
        let people = try ObjectRequest().perform(on: frame, engines: WorkerEngines()).filter {
            $0.identifier == "person"
        }.map(\.boundingBox)
        // YOLO's box of a walker is wider than the stride-long box given: its centre inside, overlapping by 0.3 or more.
        let centre = (x: at60.x + at60.width / 2, y: at60.y + at60.height / 2)
        let onAPerson = people.contains { p in
            p.x <= centre.x && centre.x <= p.maxX && p.y <= centre.y && centre.y <= p.maxY
                && SequenceJSON.iou(SequenceJSON.Box(x: p.x, y: p.y, width: p.width, height: p.height), at60) >= 0.3
        }
        #expect(onAPerson, "tracked box \(at60) vs people \(people)")
        #expect(abs(at60.x - 255) + abs(at60.y - 221) > 20)
    }

    /// The frames of `range` on which track #1 is reported on the target (IoU 0.5 or more).
    static func framesOnTarget(
        _ range: Range<Int>, _ tracked: [Int: [(id: Int, box: SequenceJSON.Box)]], _ truth: [SequenceJSON.Box?]
    ) -> [Int] {
        range.filter { i in
            guard let t = tracked[i]?.first, let true_ = truth[i] else { return false }
            return t.id == 1 && SequenceJSON.iou(t.box, true_) >= 0.5
        }
    }

    /// A folder of frames drawn by Tests/Support/make-track-frames, with the target's true boxes.
    func drawnFrames(_ variant: String) throws -> (
        source: ImageSource, initial: BoundingBox, truth: [SequenceJSON.Box?]
    ) {
        let folder = try Fixture.temporaryDirectory().appendingPathComponent(variant)
        let made = try runScript("make-track-frames", [folder.path, variant])
        try #require(made.status == 0, "\(made.output)")
        let truth = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path + ".truth.json")))
                as? [String: Any])
        let boxes = try #require(truth["boxes"] as? [Any]).map { value -> SequenceJSON.Box? in
            guard let b = value as? [Double], b.count == 4 else { return nil }
            return SequenceJSON.Box(x: b[0], y: b[1], width: b[2], height: b[3])
        }
        let initial = try #require(truth["initial"] as? [Double])
        return (
            ImageSource(path: folder.path, outputName: variant, kind: .frames),
            BoundingBox(x: initial[0], y: initial[1], width: initial[2], height: initial[3]), boxes
        )
    }

    /// A box hidden for 12 frames keeps its ID: it reports nothing while hidden and is found again
    /// within two frames of coming back, on the target (issue: a short occlusion ended it for good).
    @Test func aTrackBoxHiddenForTwelveFramesIsFoundAgainWithItsID() throws {
        let (source, initial, truth) = try drawnFrames("occlusion")
        let (outcomes, out) = try run([source], RequestSet(), tracking: TrackRequest(boxes: [initial]))
        #expect(outcomes.first?.error == nil)
        let json = try SequenceJSON(out.appendingPathComponent("occlusion.json"))
        #expect(json.tracks.count == 1 && json.tracks.first?["end"] as? String == "sequence-ended", "\(json.tracks)")
        let tracked = json.tracked
        // Hidden (frames 20-31): nothing on the gray block for long.
        #expect((20..<32).filter { !(tracked[$0] ?? []).isEmpty }.count <= 2)
        // Back (frames 34-59): the one track, on the target.
        let back = Self.framesOnTarget(34..<60, tracked, truth)
        #expect(back.count >= 24, "on target after the occlusion on \(back.count) of 26 frames")
        // Before: on target all along.
        #expect(
            (0..<20).allSatisfy { i in tracked[i]?.first.map { SequenceJSON.iou($0.box, truth[i]!) >= 0.5 } ?? false })
    }

    /// Hidden for 14 frames behind a textured block (a patch of a real photo, which the tracker could
    /// take for its object), beside a look-alike (the target mirrored), and back 25% larger: the track
    /// is lost while hidden, does not settle on the block or the look-alike, and is found again with its
    /// ID on the target's new size.
    @Test func aTrackBoxHiddenBehindATexturedBlockIsFoundAgainLarger() throws {
        let (source, initial, truth) = try drawnFrames("hidden")
        let (outcomes, out) = try run([source], RequestSet(), tracking: TrackRequest(boxes: [initial]))
        #expect(outcomes.first?.error == nil)
        let json = try SequenceJSON(out.appendingPathComponent("hidden.json"))
        #expect(json.tracks.count == 1 && json.tracks.first?["end"] as? String == "sequence-ended", "\(json.tracks)")
        let tracked = json.tracked
        #expect((20..<34).filter { !(tracked[$0] ?? []).isEmpty }.count <= 2)
        let lookalike = SequenceJSON.Box(x: 110, y: 0, width: 72, height: 72)
        #expect(
            (0..<60).allSatisfy { i in (tracked[i] ?? []).allSatisfy { SequenceJSON.iou($0.box, lookalike) < 0.3 } })
        let back = Self.framesOnTarget(34..<60, tracked, truth)
        #expect(back.count >= 22, "on target after the occlusion on \(back.count) of 26 frames")
    }

    /// Frames skipped (`--every 2`, `--every 4`) are not losses: the box stays on its target on every
    /// analysed frame but at most one.
    @Test func skippedFramesAreNotLosses() throws {
        let (source, initial, truth) = try drawnFrames("clean")
        for step in [2, 4] {
            let (_, out) = try run(
                [source], RequestSet(), sampling: FrameSampling(every: step), tracking: TrackRequest(boxes: [initial]))
            let json = try SequenceJSON(out.appendingPathComponent("clean.json"))
            #expect(
                json.tracks.count == 1 && json.tracks.first?["end"] as? String == "sequence-ended",
                "every \(step): \(json.tracks)")
            let analysed = Array(stride(from: 0, to: 60, by: step))
            let onTarget = analysed.filter { i in
                json.tracked[i]?.first.map { SequenceJSON.iou($0.box, truth[i]!) >= 0.5 } ?? false
            }
            #expect(
                onTarget.count >= analysed.count - 1,
                "every \(step): on target on \(onTarget.count) of \(analysed.count) frames")
        }
    }

    /// A handheld camera that jumps by 12-20 px every third frame is one shot: no scene cut ends the
    /// track, which stays on its target.
    @Test func aShakyCameraIsNotASceneCut() throws {
        let (source, initial, truth) = try drawnFrames("shake")
        let (_, out) = try run([source], RequestSet(), tracking: TrackRequest(boxes: [initial]))
        let json = try SequenceJSON(out.appendingPathComponent("shake.json"))
        #expect(json.tracks.count == 1 && json.tracks.first?["end"] as? String == "sequence-ended", "\(json.tracks)")
        let onTarget = (0..<60).filter { i in
            json.tracked[i]?.first.map { SequenceJSON.iou($0.box, truth[i]!) >= 0.5 } ?? false
        }
        #expect(onTarget.count >= 54, "on target on \(onTarget.count) of 60 frames")
    }

    /// A --track-box outside the frame is an error naming it, not a silent run without a track.
    @Test func aTrackBoxOutsideTheFrameIsAnError() throws {
        let (source, _, _) = try drawnFrames("clean")
        let (outcomes, _) = try run(
            [source], RequestSet(),
            tracking: TrackRequest(boxes: [BoundingBox(x: 5000, y: 5000, width: 20, height: 20)]))
        let error = try #require(outcomes.first?.analysis?.requestErrors["track"])
        #expect(error.message.contains("outside the 520x320 frame"), "\(error.message)")
        #expect(outcomes.first?.isFailure == true)
    }

    /// A video stopped part-way (Ctrl-C, SIGTERM) says so in its JSON, and --resume analyses it
    /// again to its end instead of taking the part for the whole.
    @Test func anInterruptedVideoIsMarkedAndResumeFinishesIt() throws {
        let source = try video("vtest.avi")
        let folder = try Fixture.temporaryDirectory()
        let cancellation = CancellationFlag()
        var runner = BatchRunner(
            sources: [source], requests: RequestSet(),
            output: OutputOptions(directory: folder, writePNG: false, writeSVG: false), jobs: 1)
        runner.sampling = FrameSampling(maximumFrames: 40)
        runner.cancellation = cancellation
        runner.onFrame = { _, frame in if frame.index >= 9 { cancellation.cancel() } }
        _ = try runner.run()
        let stopped = try SequenceJSON(folder.appendingPathComponent("vtest.json"))
        #expect(stopped.sequence["interrupted"] as? Bool == true && stopped.frames.count < 40, "\(stopped.sequence)")
        var again = BatchRunner(
            sources: [source], requests: RequestSet(),
            output: OutputOptions(directory: folder, writePNG: false, writeSVG: false), jobs: 1)
        again.sampling = FrameSampling(maximumFrames: 40)
        again.resume = true
        let outcomes = try again.run()
        #expect(outcomes.first?.resumed == false)
        let finished = try SequenceJSON(folder.appendingPathComponent("vtest.json"))
        #expect(finished.sequence["interrupted"] == nil && finished.frames.count == 40)
    }

    /// --track-box alone follows its box and runs no detection; asking for one still runs it.
    @Test func aTrackBoxAloneRunsNoDetection() throws {
        let none = try RequestPlan(configured: RequestSet(), asked: [], everyWhenNoneAsked: false).resolve(
            models: .standard)
        #expect(none.requests.requests.isEmpty)
        let faces = try RequestPlan(configured: RequestSet(), asked: [.faces], everyWhenNoneAsked: false).resolve(
            models: .standard)
        #expect(faces.requests.requests.map(\.kind) == [.faces])
        let every = try RequestPlan(configured: RequestSet(), asked: []).resolve(models: .standard)
        #expect(every.requests.requests.count > 3)
    }

    /// A video of frames 2 pixels wide and 8,000 high: its contact sheet's thumbnails fit a 320-pixel box
    /// (not 320 × 1,280,000 each), and when a side output cannot be written (here the contact sheet's name
    /// is taken by a folder) the frames' JSON is still written, with a warning (issue 63, item 4).
    @Test func aNarrowVideosSideOutputsNeverTakeItsJSONWithThem() throws {
        let made = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: made) }
        let path = made.appendingPathComponent("narrow.avi").path
        let ffmpeg = try runProgram(
            "/usr/bin/ffmpeg",
            [
                "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=size=2x8000:rate=10", "-t", "2", "-c:v", "rawvideo",
                "-pix_fmt", "yuv420p", path,
            ])
        try #require(ffmpeg.status == 0, "ffmpeg (scripts/test installs it): \(ffmpeg.output)")
        let source = ImageSource(path: path, outputName: "narrow", kind: .video)
        let (outcomes, folder) = try run([source], RequestSet([RectangleRequest()]), png: true)
        #expect(outcomes.first?.error == nil)
        let sheet = try OpenCVMat.decode([UInt8](Data(contentsOf: folder.appendingPathComponent("narrow.contact.png"))))
            .0
        #expect(sheet.height < 4 * (ContactSheet.thumbnailHeight + 38) && sheet.width <= 4 * 328 + 8)
        #expect(ContactSheet.thumbnailSize(width: 2, height: 8000) == (1, 320))
        #expect(ContactSheet.thumbnailSize(width: 1920, height: 1080) == (320, 180))
        #expect(try SequenceJSON(folder.appendingPathComponent("narrow.json")).frames.count == 20)

        let blocked = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: blocked) }
        try FileManager.default.createDirectory(
            at: blocked.appendingPathComponent("narrow.contact.png/taken"), withIntermediateDirectories: true)
        var runner = BatchRunner(
            sources: [source], requests: RequestSet([RectangleRequest()]),
            output: OutputOptions(directory: blocked, writePNG: true, writeSVG: false), jobs: 1)
        runner.sampling = FrameSampling()
        let again = try runner.run()
        #expect(again.first?.error == nil)
        let json = try SequenceJSON(blocked.appendingPathComponent("narrow.json"))
        #expect(json.frames.count == 20)
        let warnings = json.sequence["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("the contact sheet was not written") }, "\(warnings)")
        #expect(FileManager.default.fileExists(atPath: blocked.appendingPathComponent("narrow.mp4").path))
    }

    /// The annotated video's rate: the declared one over --every, lowered by --fps, never raised.
    @Test func theAnnotatedVideoPlaysAtTheRateOfTheFramesKept() {
        #expect(BatchRunner.annotatedRate(declared: 29.97, sampling: FrameSampling(fps: 100)) == 29.97)
        #expect(BatchRunner.annotatedRate(declared: 30, sampling: FrameSampling(every: 3)) == 10)
        #expect(BatchRunner.annotatedRate(declared: 30, sampling: FrameSampling(fps: 2)) == 2)
        #expect(BatchRunner.annotatedRate(declared: nil, sampling: FrameSampling(fps: 2)) == 10)
    }

    @Test func sequenceJSONIsTheSameWhateverTheJobs() throws {
        let sources = [try video("tree.avi"), try video("Megamind.avi")]
        let sampling = FrameSampling(maximumFrames: 30)
        let one = try run(
            sources, RequestSet([FaceRequest(), RectangleRequest()]), sampling: sampling, tracking: TrackRequest(),
            jobs: 1)
        let two = try run(
            sources.reversed(), RequestSet([FaceRequest(), RectangleRequest()]), sampling: sampling,
            tracking: TrackRequest(), jobs: 2)
        for name in ["tree.json", "Megamind.json"] {
            let a = try Data(contentsOf: one.folder.appendingPathComponent(name)),
                b = try Data(contentsOf: two.folder.appendingPathComponent(name))
            #expect(a == b, "\(name) differs between --jobs 1 and --jobs 2")
        }
        // One video alone at --jobs 2: two frames analysed at once (no tracking), two trackers at once (tracking).
        for tracking in [nil, TrackRequest()] {
            let alone = try run(
                [sources[1]], RequestSet([FaceRequest(), RectangleRequest()]), sampling: sampling, tracking: tracking,
                jobs: 2)
            let single = try run(
                [sources[1]], RequestSet([FaceRequest(), RectangleRequest()]), sampling: sampling, tracking: tracking,
                jobs: 1)
            let a = try Data(contentsOf: single.folder.appendingPathComponent("Megamind.json"))
            let b = try Data(contentsOf: alone.folder.appendingPathComponent("Megamind.json"))
            #expect(a == b, "Megamind.json differs between one and two lanes (tracking: \(tracking != nil))")
        }
    }

    @Test func aLiveStreamIsAnalysedAsFastAsItCanBeAndLateFramesAreDropped() throws {
        let ffmpeg = try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "ffmpeg serves the stream (scripts/test installs it)")
        /// One attempt, with its own server and stream: vtest.avi at its own pace (10 frames per second), as
        /// MPEG-TS over UDP on loopback on a fresh port, a key frame every 5 frames, analysed for 4 s.
        func attempt() throws -> (source: ImageSource, outcomes: [ImageOutcome], out: URL, elapsed: TimeInterval) {
            let port = Int.random(in: 20_000...40_000)
            let url = "udp://127.0.0.1:\(port)"
            let server = Process()
            server.executableURL = URL(fileURLWithPath: ffmpeg)
            server.arguments = [
                "-nostdin", "-loglevel", "error", "-re", "-i", try OpenCVSample.path("vtest.avi"), "-t", "12", "-c:v",
                "mpeg4", "-g", "5",
                "-f", "mpegts", url + "?pkt_size=1316",
            ]
            server.standardError = FileHandle.nullDevice
            try server.run()
            defer { server.terminate() }
            let source = try #require(InputCollector.collect([url]).first)
            #expect(source.kind == .stream && source.outputName == "stream-127.0.0.1-\(port)")
            // Faces take longer than a frame's 100 ms in a debug build: frames pile up and are dropped.
            let started = Date()
            let (outcomes, out) = try run(
                [source], RequestSet([FaceRequest(), RectangleRequest()]), sampling: FrameSampling(duration: 4))
            return (source, outcomes, out, Date().timeIntervalSince(started))
        }
        // On a machine busy with the other suites, FFmpeg's probe can give up before the server's first
        // packets arrive ("could not open it as a video": seen in fresh-clone runs, once twice in a row with
        // a second try on the same stream): up to three attempts, each with a new server and stream.
        var result = try attempt()
        for _ in 0..<2
        where result.outcomes.first?.sequence == nil
            && result.outcomes.first?.error?.message.contains("could not open") == true
        {
            result = try attempt()
        }
        let (source, outcomes, out, elapsed) = result
        let outcome = try #require(outcomes.first)
        let sequence = try #require(
            outcome.sequence?.sequence, "the stream was not analysed: \(String(describing: outcome.error))")
        #expect(sequence.source == .stream && sequence.width == 768 && sequence.height == 576)
        #expect(sequence.framesAnalysed >= 5)
        #expect(sequence.framesDropped > 0 && sequence.framesRead >= sequence.framesAnalysed + sequence.framesDropped)
        // Stopped by --duration, not by the stream's end: the stream has 120 frames over 12 s, and 4 s of
        // it holds about 40. (Counted in frames, not in seconds of this test's own clock: on a loaded
        // machine the debug build's last faces and the probe can take the whole run past 10 s; once did.)
        #expect(
            sequence.framesRead < 90 && sequence.readError == nil, "\(sequence.framesRead) frames read in \(elapsed) s")
        let json = try SequenceJSON(out.appendingPathComponent(source.outputName + ".json"))
        #expect(json.frames.count == sequence.framesAnalysed)
        #expect(json.frames.compactMap { $0["time"] as? Double }.allSatisfy { $0 <= 4.5 })
    }

    @Test func aVideoWithRotationMetadataComesUpright() throws {
        let ffmpeg = try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "ffmpeg makes the rotated copy (scripts/test installs it)")
        let folder = try Fixture.temporaryDirectory()
        let base = folder.appendingPathComponent("base.mp4"), turned = folder.appendingPathComponent("turned.mp4")
        // A phone's portrait video: landscape pixels and a display matrix saying "turn 90° clockwise".
        for arguments in [
            ["-i", try OpenCVSample.path("vtest.avi"), "-t", "0.5", "-c:v", "mpeg4", "-q:v", "2", base.path],
            ["-i", base.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", turned.path],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ffmpeg)
            process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
        }
        let (outcomes, _) = try run(
            [ImageSource(path: turned.path, outputName: "turned", kind: .video)], RequestSet([RectangleRequest()]))
        let sequence = try #require(outcomes.first?.sequence?.sequence)
        #expect(sequence.width == 576 && sequence.height == 768)
        // Its first frame is the plain copy's first frame turned clockwise (EXIF orientation 6), not anticlockwise.
        func firstFrame(_ url: URL) throws -> OpenCVMat {
            let capture = try VideoCapture(url.path, localFile: true)
            _ = capture.grab()
            return try capture.retrieve()
        }
        let upright = try firstFrame(turned), plain = try firstFrame(base)
        func difference(_ a: OpenCVMat, _ b: OpenCVMat) -> Double {
            let x = a.packedPixels, y = b.packedPixels
            guard x.count == y.count, !x.isEmpty else { return 255 }
            return Double(zip(x, y).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(x.count)
        }
        let clockwise = difference(upright, try plain.oriented(.right)),
            anticlockwise = difference(upright, try plain.oriented(.left))
        #expect(
            clockwise < 3 && anticlockwise > 20,
            "mean difference: clockwise \(clockwise), anticlockwise \(anticlockwise)")
    }

    @Test func aFolderOfPhotosAndVideosGivesEachItsOutputsAndOneReport() throws {
        let folder = try Fixture.temporaryDirectory()
        let inputs = folder.appendingPathComponent("trip"), out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: try OpenCVSample.path("Megamind.avi"), toPath: inputs.appendingPathComponent("clip.avi").path)
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/qr-hello.png"), toPath: inputs.appendingPathComponent("code.png").path)
        let run = try CommandLineTests().run([
            inputs.path, "--faces", "--barcodes", "--track", "--max-frames", "40", "-o", out.path,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "clip.avi: video 720x528, 40 of 40 frame(s) analysed (of 270 in the video), 2 track(s); in all: "),
            "\(run.stderr)")
        // The run's line counts the inputs by what they are.
        #expect(run.stderr.contains("analyze: 1 image and 1 video, 0 failed"), "\(run.stderr)")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        #expect(
            names.isSuperset(of: [
                "clip.json", "clip.mp4", "clip.contact.png", "code.png", "code.svg", "code.json", "index.html",
                "summary.json",
            ]))
        // The report: the video as one card with its contact sheet, frames and tracks.
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("src=\"clip.contact.png\"") && html.contains("href=\"clip.mp4\""))
        #expect(html.contains("video, 40 of 40 frames analysed") && html.contains("<table class=\"tracks\">"))
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
                as? [String: Any])
        #expect((summary["totals"] as? [String: Int])?["tracks"] == 2)
    }

    @Test func hostileVideosFailCleanlyAndTheBatchGoesOn() throws {
        let ffmpeg = try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "ffmpeg makes the damaged copies (scripts/test installs it)")
        let folder = try Fixture.temporaryDirectory()
        let clip = folder.appendingPathComponent("clip.mp4")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        // An MP4 whose index (moov) comes last, as cameras write them: cut short, it has no index at all.
        process.arguments = [
            "-nostdin", "-loglevel", "error", "-y", "-i", try OpenCVSample.path("vtest.avi"), "-t", "3", "-c:v",
            "mpeg4", clip.path,
        ]
        try process.run()
        process.waitUntilExit()
        let bytes = try Data(contentsOf: clip)
        // Seeded: the same damage on every run (a random one once cut the copy to 11 frames).
        var generator = SplitMix64(seed: 7)
        var noisy = bytes
        for _ in 0..<200 {  // the index kept, the frames' bytes overwritten here and there
            let at = Int.random(in: bytes.count / 10..<bytes.count * 8 / 10, using: &generator)
            noisy[at] = UInt8.random(in: 0...255, using: &generator)
        }
        let files: [(String, Data)] = [
            ("empty.mp4", Data()),
            ("noise.mkv", Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            ("text.webm", Data("this is not a video\n".utf8)),
            ("no-index.mp4", bytes.prefix(bytes.count / 2)),
            ("noisy.mp4", noisy),
            (
                "header-only.avi",
                try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("vtest.avi"))).prefix(4096)
            ),
        ]
        for (name, data) in files { try data.write(to: folder.appendingPathComponent(name)) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("folder.mp4"), withIntermediateDirectories: true)
        let sources = InputCollector.collect([folder.path])
        #expect(sources.filter { $0.kind == .video }.count == 7)
        let started = Date()
        let (outcomes, out) = try run(sources, RequestSet([RectangleRequest(), BarcodeRequest()]), png: true)
        #expect(Date().timeIntervalSince(started) < 120)
        let byName = Dictionary(
            uniqueKeysWithValues: outcomes.map { (($0.source.path as NSString).lastPathComponent, $0) })
        #expect(byName["empty.mp4"]?.error?.code == .emptyFile)
        for name in ["noise.mkv", "text.webm", "no-index.mp4", "header-only.avi"] {
            let error = try #require(byName[name]?.error, "\(name) should fail")
            #expect(
                error.message.hasPrefix("FFmpeg could not open it") && error.code == .undecodable, "\(name): \(error)")
        }
        // The noisy copy: its index is intact, so its frames are read (damaged ones decode with artefacts or are skipped).
        let noisyOutcome = try #require(byName["noisy.mp4"])
        #expect((noisyOutcome.sequence?.sequence.framesAnalysed ?? 0) > 20, "\(String(describing: noisyOutcome.error))")
        // The good clip is analysed whatever its neighbours did.
        #expect(byName["clip.mp4"]?.sequence?.sequence.framesAnalysed == 30)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!names.contains { $0.hasPrefix(".analyze-") })
        #expect(names.contains("clip.mp4") && names.contains("clip.json"))
    }

    @Test func printListsEachBarcodeOfASequenceOnce() throws {
        let folder = try Fixture.temporaryDirectory().appendingPathComponent("scan")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, fixture) in [
            ("f1.png", "qr-hello.png"), ("f2.png", "qr-hello.png"), ("f3.png", "code128.png"),
            ("f4.png", "qr-hello.png"),
        ] {
            try FileManager.default.copyItem(
                atPath: Fixture.path("barcodes/" + fixture), toPath: folder.appendingPathComponent(name).path)
        }
        let out = folder.deletingLastPathComponent().appendingPathComponent("out")
        let run = try CommandLineTests().run(["--sequence", folder.path, "--barcodes", "--print", "-q", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "qr:Hello, analyze!\ncode128:ANALYZE-128\n")
    }

    @Test func resumeReusesUpToDateSequencesAndRedoesChangedOnes() throws {
        let folder = try Fixture.temporaryDirectory()
        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        for (name, fixture) in [("a1.png", "qr-hello.png"), ("a2.png", "code128.png")] {
            try FileManager.default.copyItem(
                atPath: Fixture.path("barcodes/" + fixture), toPath: frames.appendingPathComponent(name).path)
        }
        let out = folder.appendingPathComponent("out")
        let sources = [try video("Megamind.avi"), InputCollector.collect([], sequences: [frames.path])[0]]
        func runner(redetect: Int = 10) -> BatchRunner {
            var runner = BatchRunner(
                sources: sources, requests: RequestSet([FaceRequest(), BarcodeRequest()]),
                output: OutputOptions(directory: out), jobs: 2)
            runner.sampling = FrameSampling(maximumFrames: 30)
            runner.tracking = TrackRequest(redetectEvery: redetect)
            runner.resume = true
            return runner
        }
        let first = try runner().run()
        #expect(first.allSatisfy { !$0.resumed && $0.error == nil })
        let json = try Data(contentsOf: out.appendingPathComponent("Megamind.json"))
        let second = try runner().run()
        #expect(second.allSatisfy { $0.resumed })
        // The reused outcome says what the first said: counts, payloads, tracks.
        #expect(second.map(\.digest) == first.map(\.digest))
        #expect(second[1].sequence?.barcodeLines == ["qr:Hello, analyze!", "code128:ANALYZE-128"])
        #expect(try Data(contentsOf: out.appendingPathComponent("Megamind.json")) == json)
        // Other options, or another frame in the folder: analysed again.
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/ean13.png"), toPath: frames.appendingPathComponent("a3.png").path)
        let third = try runner(redetect: 5).run()
        #expect(third.allSatisfy { !$0.resumed })
        let fourth = try runner(redetect: 5).run()
        #expect(fourth.allSatisfy { $0.resumed })
        #expect(fourth[1].sequence?.sequence.framesAnalysed == 3)
    }

    @Test func normalizedCoordinatesReachTheFramesAndTheirLines() throws {
        let folder = try Fixture.temporaryDirectory()
        let megamind = try OpenCVSample.path("Megamind.avi")  // 720x528
        let cli = CommandLineTests()
        let pixels = try cli.run([
            megamind, "--faces", "--max-frames", "3", "--no-png", "-q", "-o", folder.appendingPathComponent("p").path,
        ])
        let normal = try cli.run([
            megamind, "--faces", "--max-frames", "3", "--no-png", "-q", "--normalized", "--jsonl", "-o",
            folder.appendingPathComponent("n").path,
        ])
        #expect(pixels.status == 0 && normal.status == 0)
        let p = try SequenceJSON(folder.appendingPathComponent("p/Megamind.json")),
            n = try SequenceJSON(folder.appendingPathComponent("n/Megamind.json"))
        let raw = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("n/Megamind.json")))
                as? [String: Any])
        #expect(raw["coordinates"] as? String == "normalized")
        let a = try #require(p.detections("faces")[1]?.first), b = try #require(n.detections("faces")[1]?.first)
        #expect(
            abs(b.x - a.x / 720) < 1e-4 && abs(b.y - (1 - (a.y + a.height) / 528)) < 1e-4
                && abs(b.width - a.width / 720) < 1e-4)
        // The --jsonl lines say so too, with the same numbers as the file.
        let lines = normal.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 3 && lines.allSatisfy { $0["coordinates"] as? String == "normalized" })
        let lineBox = try #require(SequenceJSON.box(((lines[1]["faces"] as? [[String: Any]])?.first)?["boundingBox"]))
        #expect(lineBox.x == b.x && lineBox.y == b.y)
    }

    @Test func ctrlCStopsALiveStreamWithItsOutputsComplete() throws {
        let ffmpeg = try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "ffmpeg serves the stream (scripts/test installs it)")
        let port = Int.random(in: 40_001...60_000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: ffmpeg)
        server.arguments = [
            "-nostdin", "-loglevel", "error", "-re", "-i", try OpenCVSample.path("vtest.avi"), "-t", "20", "-c:v",
            "mpeg4", "-g", "5",
            "-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316",
        ]
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { server.terminate() }
        let out = try Fixture.temporaryDirectory()
        // No --duration: the stream would run 20 s; Ctrl-C after 4 s stops it.
        let process = Process()
        process.executableURL = CommandLineTests.binary
        process.arguments = ["udp://127.0.0.1:\(port)", "--rects", "--track", "-q", "-o", out.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 4)
        process.interrupt()
        let stopped = Date()
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(stopped) < 5)
        #expect(process.terminationStatus == 130)
        let json = try SequenceJSON(out.appendingPathComponent("stream-127.0.0.1-\(port).json"))
        #expect(!json.frames.isEmpty && (json.sequence["framesAnalysed"] as? Int) == json.frames.count)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(names.contains("stream-127.0.0.1-\(port).mp4") && !names.contains { $0.hasPrefix(".analyze-") })
    }

    /// The contact sheet spreads its thumbnails over all the analysed frames (not over key frames,
    /// which crowd the start of a tracked video) and passes over a fade from black.
    @Test func theContactSheetSpreadsOverTheSequenceAndSkipsFlatFrames() throws {
        let photo = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("messi5.jpg"))))
        ).0
        let black = try OpenCVMat.blank(width: photo.width, height: photo.height, color: (0, 0, 0))
        let sheet = ContactSheet()
        // Every analysed frame is offered (a tracked video's key frames, every frame for its first 20
        // and then one in 10, used to be the only ones, which crowded the sheet into its first second).
        for n in 0..<200 { try sheet.offer(n < 3 ? black : photo, caption: "#\(n)") }
        let captions = sheet.picks.map(\.1)
        #expect(
            captions.count == 12 && captions.first == "#3"
                && (captions.last.flatMap { Int($0.dropFirst()) } ?? 0) >= 180, "\(captions)")
        #expect(captions.filter { (Int($0.dropFirst()) ?? 0) < 20 }.count <= 2, "\(captions)")
        let dark = ContactSheet()
        for n in 0..<5 { try dark.offer(black, caption: "#\(n)") }
        #expect(dark.picks.map(\.1) == ["#0"])
    }

    /// A long video reports its progress frame by frame: frames read of those declared, the frames
    /// analysed of --max-frames, and a time left.
    @Test func aVideoReportsItsProgressFrameByFrame() throws {
        final class Collected: @unchecked Sendable {
            let lock = NSLock()
            var progress: [SequenceProgress] = []
        }
        let collected = Collected()
        var runner = BatchRunner(
            sources: [try video("vtest.avi")], requests: RequestSet([RectangleRequest()]), output: nil, jobs: 1)
        runner.sampling = FrameSampling(every: 2, maximumFrames: 10)
        runner.onSequenceProgress = { _, progress in collected.lock.withLock { collected.progress.append(progress) } }
        _ = try runner.run()
        let reports = collected.progress
        #expect(reports.map(\.framesAnalysed) == Array(1...10))
        #expect(reports.last?.declaredFrames == 795 && reports.last?.fraction == 1 && reports.last?.remaining == 0)
        let line = try #require(reports.dropLast().last).line(name: "vtest.avi")
        #expect(
            line.hasPrefix("vtest.avi 17/795 frames (9/10 analysed)") && line.contains(" fps")
                && line.contains("ETA 0:"), "\(line)")
        #expect(SequenceProgress.clock(3725) == "1:02:05" && SequenceProgress.clock(.nan) == "0:00")
    }

    @Test func aTrackIsLabelledWithItsKindInTheSingular() {
        func caption(_ kind: String, _ label: String? = nil) -> String {
            TrackedObjectObservation(
                trackID: 3, kind: kind, label: label, boundingBox: BoundingBox(x: 0, y: 0, width: 4, height: 4),
                confidence: 1, source: .tracked
            ).caption
        }
        #expect(caption("faces") == "#3 face" && caption("rectangles") == "#3 rectangle" && caption("box") == "#3 box")
        #expect(caption("objects", "person") == "#3 person")
    }

    @Test func countsReadTheSameOnEveryLine() {
        #expect(
            CountWording.phrase(kind: "faces", count: 1) == "1 face"
                && CountWording.phrase(kind: "barcodes", count: 2) == "2 barcodes")
        #expect(CountWording.phrase(kind: "classification", count: 80) == "80 labels")
        #expect(CountWording.phrase(kind: "text", count: 15, extra: ["words": 49]) == "15 text lines (49 words)")
        #expect(CountWording.totals(["faces": 1, "classification": 135]) == "found 135 labels, 1 face")
        #expect(
            CountWording.totals(["text": 6, "words": 22, "barcodes": 2, "tracks": 3])
                == "found 2 barcodes, 6 text lines (22 words), 3 tracks")
        let sources = [
            ImageSource(path: "a.jpg", outputName: "a"), ImageSource(path: "b.jpg", outputName: "b"),
            ImageSource(path: "c.mp4", outputName: "c", kind: .video),
        ]
        #expect(CountWording.inputs(sources) == "2 images and 1 video" && CountWording.inputs([]) == "0 images")
        #expect(CountWording.inputs(Array(sources.prefix(1))) == "1 image")
    }

    /// Runs ffmpeg with `arguments` (quiet, no stdin) and waits for it.
    static func ffmpeg(_ arguments: [String]) throws {
        let ffmpeg = try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "ffmpeg makes the test videos (scripts/test installs it)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg \(arguments)")
    }

    /// An MJPEG AVI whose frames change size: three 320×240, one 1600×1000 (over a 1 MP limit), two 64×48.
    @Test func framesThatChangeSizeAreEachDecodedAtTheirOwnSizeAndOneOverTheLimitIsRefused() throws {
        let folder = try Fixture.temporaryDirectory()
        let photo = try OpenCVSample.path("messi5.jpg")
        var stream = Data()
        for (name, size) in [("a", "320:240"), ("b", "1600:1000"), ("c", "64:48")] {
            let jpeg = folder.appendingPathComponent(name + ".jpg")
            try Self.ffmpeg(["-i", photo, "-vf", "scale=" + size, jpeg.path])
            let bytes = try Data(contentsOf: jpeg)
            stream += name == "a" ? bytes + bytes + bytes : name == "b" ? bytes : bytes + bytes
        }
        let pipe = folder.appendingPathComponent("frames.mjpeg"), video = folder.appendingPathComponent("mixed.avi")
        try stream.write(to: pipe)
        try Self.ffmpeg(["-f", "jpeg_pipe", "-framerate", "10", "-i", pipe.path, "-c", "copy", video.path])
        let source = ImageSource(path: video.path, outputName: "mixed", kind: .video)
        var runner = BatchRunner(
            sources: [source], requests: RequestSet([RectangleRequest()]),
            output: OutputOptions(directory: folder.appendingPathComponent("out"), writePNG: true, writeSVG: false),
            jobs: 1)
        runner.maximumPixels = 1_000_000
        let outcome = try #require(try runner.run().first)
        let sequence = try #require(outcome.sequence?.sequence, "\(String(describing: outcome.error))")
        // The large frame is refused by the decoder (never allocated) and said; the small ones are
        // themselves, not copies of the frame before, and carry their own size.
        #expect(sequence.framesAnalysed == 5 && sequence.width == 320 && sequence.height == 240)
        #expect(
            sequence.warnings.contains {
                $0.contains("1 picture(s) could not be decoded") && $0.contains("1000000 pixels")
            }, "\(sequence.warnings)")
        #expect(
            sequence.warnings.contains { $0.contains("frame 3 is 64x48, the frames before it 320x240") },
            "\(sequence.warnings)")
        let json = try SequenceJSON(folder.appendingPathComponent("out/mixed.json"))
        #expect(
            json.frames.map { "\($0["width"] as? Int ?? 0)x\($0["height"] as? Int ?? 0)" } == [
                "0x0", "0x0", "0x0", "64x48", "64x48",
            ])
        #expect(json.frames.prefix(3).allSatisfy { ($0["rectangles"] as? [Any])?.isEmpty == false })
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/mixed.mp4").path))
    }

    /// A stream served over HTTP that ends when its video does is a complete analysis, not a failure.
    @Test func anHTTPStreamThatEndsIsComplete() throws {
        let port = Int.random(in: 20_000...40_000)
        let url = "http://127.0.0.1:\(port)/clip.ts"
        let ffmpeg = try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) })
        let server = Process()
        server.executableURL = URL(fileURLWithPath: ffmpeg)
        server.arguments = [
            "-nostdin", "-loglevel", "error", "-i", try OpenCVSample.path("vtest.avi"), "-t", "2", "-c:v", "mpeg4",
            "-f", "mpegts", "-listen", "1", url,
        ]
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { server.terminate() }
        Thread.sleep(forTimeInterval: 0.5)
        let out = try Fixture.temporaryDirectory()
        let run = try CommandLineTests().run([url, "--rects", "--no-png", "-o", out.path])
        #expect(run.status == 0 && run.stderr.contains("ok   " + url), "\(run.stderr)")
        #expect(!run.stderr.contains("stalled") && !run.stderr.contains("partial"), "\(run.stderr)")
    }

    /// A stream that accepts the connection and sends nothing: `--duration 2` ends the wait for it
    /// (FFmpeg's open would otherwise wait out its 15 s), as Ctrl-C does.
    @Test func durationCutsShortTheOpeningOfASilentStream() throws {
        let port = Int.random(in: 20_000...40_000)
        let silent = Process()
        silent.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        silent.arguments = [
            "-c",
            "import socket, time\ns = socket.socket()\ns.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                + "s.bind(('127.0.0.1', \(port)))\ns.listen()\nc, _ = s.accept()\ntime.sleep(40)\n",
        ]
        try silent.run()
        defer { silent.terminate() }
        Thread.sleep(forTimeInterval: 0.5)
        let out = try Fixture.temporaryDirectory()
        let started = Date()
        let run = try CommandLineTests().run([
            "http://127.0.0.1:\(port)/live", "--rects", "--duration", "2", "-o", out.path,
        ])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 1 && run.stderr.contains("interrupted"), "\(run.stderr)")
        #expect(elapsed < 12, "waited \(elapsed) s: the 15 s open timeout, not --duration")
    }

    @Test func aStreamsPasswordNeverReachesTheOutputs() throws {
        let out = try Fixture.temporaryDirectory()
        // Nothing listens on port 9: both fail at once, with FFmpeg's reason (which quotes the URL).
        let run = try CommandLineTests().run([
            "tcp://user:s3cret-pw@127.0.0.1:9/live", "rtsp://admin:hunter2@127.0.0.1:9/cam",
            "http://127.0.0.1:9/live?user=u&password=Qy7-query-pw&token=tok3n-abc",
            Fixture.path("barcodes/qr-hello.png"), "--barcodes", "--jsonl", "-o", out.path,
        ])
        #expect(run.status == 1)
        #expect(run.stderr.contains("password=***") && run.stderr.contains("token=***"), "\(run.stderr)")
        #expect(run.stderr.contains("FAIL tcp://***@127.0.0.1:9/live: FFmpeg could not open it"), "\(run.stderr)")
        var everything = run.stdout + run.stderr
        for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
            everything += name + String(decoding: try Data(contentsOf: out.appendingPathComponent(name)), as: UTF8.self)
        }
        #expect(!everything.contains("s3cret-pw") && !everything.contains("hunter2"))
        #expect(!everything.contains("Qy7-query-pw") && !everything.contains("tok3n-abc"))
        #expect(
            InputCollector.collect(["rtsp://admin:hunter2@cam.local:554/stream"]).first?.outputName
                == "stream-cam.local-554-stream")
    }
}
