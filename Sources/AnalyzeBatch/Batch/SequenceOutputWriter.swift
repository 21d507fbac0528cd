import AnalyzeCore
import AnalyzeOutput
import Foundation

/// Writes a sequence's outputs while its frames are analysed, so memory stays bounded whatever
/// the video's length: `<name>.json` (frames appended one per line, then the sequence's details
/// and tracks), the annotated video `<name>.mp4` and the contact sheet `<name>.contact.png`. Each
/// is a hidden temporary file until ``finish(_:tracks:)`` renames it into place; an error or an
/// interruption leaves none of them half-written.
final class SequenceOutputWriter {
    private let source: ImageSource
    private let output: OutputOptions
    private let json: AtomicFileWriter.Pending?
    private var video: AtomicFileWriter.Pending?
    private var videoWriter: VideoWriter?
    private var contactSheet: ContactSheet?
    private let fps: Double
    private var framesWritten = 0

    /// `fps`: the rate of the analysed frames (the annotated video plays at it).
    init(source: ImageSource, output: OutputOptions, fps: Double) throws(AnalysisError) {
        self.source = source
        self.output = output
        self.fps = fps
        let layout = output.layout
        json = layout.json ? try AtomicFileWriter.Pending(output.url(of: .json, for: source)) : nil
        contactSheet = layout.png ? ContactSheet() : nil
        if layout.png {
            video = try AtomicFileWriter.Pending(output.url(of: .video, for: source))
        }
        // In Vision's coordinates, the file says so first (as an image's JSON does).
        let marker = output.layout.coordinates == .normalized ? "\"coordinates\":\"normalized\"," : ""
        try json?.append("{" + marker + "\"file\":" + Self.encodeFragment(source.displayPath) + ",\"frames\":[\n")
    }

    /// Whether frames are drawn (for the video and the contact sheet).
    var draws: Bool { video != nil || contactSheet != nil }

    /// Appends an analysed frame: its JSON line, its annotated picture to the video, and, now and
    /// then, to the contact sheet.
    func add(_ frame: FrameAnalysis, image: UprightImage, timings: inout StageTimings) throws(AnalysisError) {
        if let json {
            let line = try timings.measure("render.json") { () throws(AnalysisError) in
                output.layout.coordinates == .normalized
                    ? try JSONRenderer.encode(frame, normalizedTo: (image.width, image.height), pretty: false)
                    : try JSONRenderer.encode(frame, pretty: false)
            }
            try json.append((framesWritten > 0 ? ",\n" : "") + String(decoding: line, as: UTF8.self))
        }
        framesWritten += 1
        guard draws else { return }
        do throws(AnalysisError) {
            try timings.measure("render.video") { () throws(AnalysisError) in
                let canvas = try image.canvas(reusingPixels: true)
                var style = AnnotationStyle(width: image.width, height: image.height)
                let drawables = frame.analysis.drawables(style: &style)
                for tracked in frame.tracked { tracked.draw(on: canvas, style: style) }
                for (_, drawable) in drawables { drawable.draw(on: canvas, style: style) }
                if let video {
                    if videoWriter == nil {
                        // Even sizes: MPEG-4 Part 2 needs them.
                        videoWriter = try VideoWriter(
                            path: video.temporaryURL.path, codec: "mp4v", fps: fps,
                            width: max(2, image.width & ~1), height: max(2, image.height & ~1))
                    }
                    try videoWriter?.write(canvas)
                }
                try contactSheet?.offer(canvas, caption: Self.caption(of: frame))
            }
        } catch {
            // A side output that fails is given up, with a warning; the frames' JSON goes on.
            sideOutputWarnings.append("the annotated video and contact sheet were not written: \(error.message)")
            dropPictures()
        }
    }

    /// Warnings about side outputs given up (added to the sequence's warnings).
    private var sideOutputWarnings: [String] = []

    private func dropPictures() {
        videoWriter?.finish()
        videoWriter = nil
        video?.discard()
        video = nil
        contactSheet = nil
    }

    static func caption(of frame: FrameAnalysis) -> String {
        "frame \(frame.index)" + (frame.time.map { String(format: " %.2fs", $0) } ?? "")
    }

    /// Puts the annotated video and the contact sheet in place, then writes the sequence's details
    /// (with a warning for a side output that failed) and tracks, and puts the JSON in place: a side
    /// output that fails never takes the frames' JSON with it.
    func finish(_ sequence: inout SequenceAnalysis, tracks: [TrackSummary], timings: inout StageTimings)
        throws(AnalysisError)
    {
        try timings.measure("write") { () throws(AnalysisError) in
            if let contactSheet, output.layout.png {
                do throws(AnalysisError) {
                    let sheet = try contactSheet.render()
                    try AtomicFileWriter.write(try sheet.pngData(), to: output.url(of: .contactSheet, for: source))
                } catch {
                    sideOutputWarnings.append("the contact sheet was not written: \(error.message)")
                }
            }
            videoWriter?.finish()
            videoWriter = nil
            if framesWritten > 0, let video {
                do throws(AnalysisError) {
                    try video.commit()
                } catch {
                    sideOutputWarnings.append("the annotated video was not written: \(error.message)")
                }
            } else {
                video?.discard()
            }
            sequence.warnings += sideOutputWarnings.map(source.redacting)
            if let json {
                let details = try JSONRenderer.encode(sequence, pretty: false)
                let trackList = try JSONRenderer.encode(tracks, pretty: false)
                try json.append("\n],\"schemaVersion\":\(AnalyzeVersion.schema),\"sequence\":")
                try json.append(details)
                try json.append(",\"toolVersion\":" + Self.encodeFragment(AnalyzeVersion.tool) + ",\"tracks\":")
                try json.append(trackList)
                try json.append("}\n")
            }
            // The JSON last: what exists when it exists is complete.
            try json?.commit()
        }
    }

    /// Removes every temporary file (the sequence failed).
    func discard() {
        videoWriter?.finish()
        video?.discard()
        json?.discard()
    }

    static func encodeFragment(_ string: String) -> String {
        (try? JSONRenderer.encode([string], pretty: false)).map {
            String(decoding: $0.dropFirst().dropLast(), as: UTF8.self)
        } ?? "\"\""
    }
}

/// Up to 12 annotated frames spread evenly over a sequence's analysed frames, as thumbnails on a
/// grid with their frame number and time. Keeps every n-th analysed frame, doubling n whenever it
/// holds 24, so memory is bounded and the picks stay spread over sequences of any length. Spread
/// over analysed frames, not key frames: while nothing is tracked every frame is a key frame, so
/// picking key frames crowded the sheet into the first second of a tracked video. A frame of one
/// flat colour (a fade from black) is passed over while any other is there to show.
final class ContactSheet {
    static let thumbnailWidth = 320
    static let thumbnailHeight = 320
    static let columns = 4
    static let shown = 12
    private var kept: [(OpenCVMat, String)] = []
    private var stride = 1
    private var offered = 0
    /// The first flat frame passed over, shown only when no other frame was kept.
    private var flat: (OpenCVMat, String)?

    func offer(_ frame: OpenCVMat, caption: String) throws(AnalysisError) {
        defer { offered += 1 }
        guard offered % stride == 0 else { return }
        let size = Self.thumbnailSize(width: frame.width, height: frame.height)
        let thumbnail = try frame.resized(width: size.width, height: size.height)
        if try Self.isFlat(thumbnail) {
            if flat == nil { flat = (thumbnail, caption) }
            return
        }
        kept.append((thumbnail, caption))
        if kept.count == 2 * Self.shown {
            kept = kept.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            stride *= 2
        }
    }

    /// A thumbnail's size: the frame's proportions within ``thumbnailWidth`` × ``thumbnailHeight``
    /// (a frame 2 pixels wide and 8,000 high makes a thumbnail 1 × 320, not 320 × 1,280,000).
    static func thumbnailSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let w = Double(max(1, width)), h = Double(max(1, height))
        let scale = min(Double(thumbnailWidth) / w, Double(thumbnailHeight) / h)
        return (
            max(1, min(thumbnailWidth, Int((w * scale).rounded()))),
            max(1, min(thumbnailHeight, Int((h * scale).rounded())))
        )
    }

    /// Whether a thumbnail is one flat colour: its 32×24 gray copy's standard deviation under 4 of 255.
    static func isFlat(_ thumbnail: OpenCVMat) throws(AnalysisError) -> Bool {
        let pixels = try thumbnail.gray().resized(width: 32, height: 24).packedPixels
        guard !pixels.isEmpty else { return true }
        let mean = Double(pixels.reduce(0) { $0 + Int($1) }) / Double(pixels.count)
        let variance = pixels.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(pixels.count)
        return variance < 16
    }

    /// The thumbnails shown and their captions: at most 12, evenly picked from those kept.
    var picks: [(OpenCVMat, String)] {
        if kept.isEmpty, let flat { return [flat] }
        if kept.count <= Self.shown { return kept }
        return (0..<Self.shown).map { kept[$0 * (kept.count - 1) / (Self.shown - 1)] }
    }

    /// The grid: at most 12 thumbnails, evenly picked from those kept.
    func render() throws(AnalysisError) -> OpenCVMat {
        let picks = self.picks
        guard let first = picks.first else {
            return try OpenCVMat.blank(width: Self.thumbnailWidth, height: 180, color: (40, 40, 40))
        }
        let cellW = Self.thumbnailWidth + 8, cellH = (picks.map(\.0.height).max() ?? first.0.height) + 30
        let columns = min(Self.columns, picks.count), rows = (picks.count + Self.columns - 1) / Self.columns
        let sheet = try OpenCVMat.blank(width: columns * cellW + 8, height: rows * cellH + 8, color: (32, 32, 32))
        for (n, pick) in picks.enumerated() {
            let x = 8 + (n % Self.columns) * cellW, y = 8 + (n / Self.columns) * cellH
            try sheet.paste(pick.0, x: x, y: y)
            sheet.drawLabel(
                pick.1, at: PixelPoint(x: Double(x), y: Double(y + pick.0.height + 4)), scale: 0.45,
                color: (230, 230, 230))
        }
        return sheet
    }
}
