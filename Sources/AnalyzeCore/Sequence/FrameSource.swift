import Foundation

/// One frame read from a sequence, upright, with its place in the sequence.
package struct SourceFrame {
    /// Index in the source, from 0.
    package let index: Int
    /// Seconds from the start; nil when the source has no times.
    package let time: Double?
    package let image: UprightImage
}

/// Where the frames of a sequence come from: a video file, a folder of images, a live stream.
/// Read by one worker thread, in order; frames not selected by the ``FrameSelector`` are skipped
/// as cheaply as the source allows.
package protocol FrameSource: AnyObject {
    var kind: SequenceAnalysis.SequenceKind { get }
    var declaredFPS: Double? { get }
    var declaredFrames: Int? { get }
    /// Frames read so far (analysed or skipped), and frames dropped because they arrived while
    /// another was being analysed (live sources).
    var framesRead: Int { get }
    var framesDropped: Int { get }
    /// The next frame to analyse; nil when the sequence is over, the selector says stop, or
    /// reading failed (then ``readError`` says why).
    func next(_ selector: inout FrameSelector) -> SourceFrame?
    /// Why reading stopped before the end; nil when it did not.
    var readError: String? { get }
    /// Problems met while reading since the last call (FFmpeg's error lines, unreadable frames).
    func takeWarnings() -> [String]
    /// Stops reading (a live source stops its reader).
    func close()
}

/// The frames of a video file, decoded by FFmpeg one after the other.
package final class VideoFrameSource: FrameSource {
    package let kind = SequenceAnalysis.SequenceKind.video
    private let capture: VideoCapture
    private let path: String
    package private(set) var framesRead = 0
    package let framesDropped = 0
    package private(set) var readError: String?
    private var warnings: [String] = []
    private var ffmpegLines = 0
    /// The latest presentation time FFmpeg reported.
    private var furthestTime: Double?
    private let maximumPixels: Int
    /// The size of the frames last analysed, and the pictures the decoder refused so far.
    private var frameSize: (width: Int, height: Int)?
    private var refusedNoted = 0

    package var declaredFPS: Double? { capture.declaredFPS }
    package var declaredFrames: Int? { capture.declaredFrameCount }

    package init(path: String, maximumPixels: Int) throws(AnalysisError) {
        // A directory, a FIFO or a device is not read as a video file.
        try RegularFile.validate(path)
        if RegularFile.head(path, count: 1)?.isEmpty == true { throw AnalysisError(.emptyFile, "the file is empty") }
        self.path = path
        capture = try VideoCapture(path, localFile: true, maximumPixels: maximumPixels)
        self.maximumPixels = maximumPixels
        guard capture.width > 0, capture.height > 0 else {
            throw AnalysisError(.undecodable, "the video has no frame size")
        }
        guard capture.width * capture.height <= maximumPixels else {
            throw AnalysisError(
                .tooLarge,
                "\(capture.width)x\(capture.height) frames are over the limit of \(maximumPixels) pixels (raise it with --max-pixels)"
            )
        }
    }

    package func next(_ selector: inout FrameSelector) -> SourceFrame? {
        while !selector.isFinished {
            guard let time = grab() else {
                collectLog()
                // The container said more frames than could be read, and the frames read stop
                // well before its declared duration: truncated or damaged. A shortfall alone is
                // not: AVI indexes count "repeat the previous frame" entries that FFmpeg skips
                // (tree.avi declares 444 frames and holds 68 that span its 29.6 s).
                if let declared = declaredFrames, framesRead < declared - max(2, declared / 100),
                    declaredFPS.map({ (furthestTime ?? 0) < 0.9 * Double(declared) / $0 }) ?? (ffmpegLines > 0)
                {
                    readError =
                        "the video ended after \(framesRead) of its \(declared) frames: it is truncated or damaged"
                        + (warnings.last.map { " (\($0))" } ?? "")
                }
                return nil
            }
            let index = framesRead
            framesRead += 1
            // The frame's place at the declared rate: OpenCV's position after a grab is the next
            // frame's time for some containers (and 0 after the last one); it is used only when
            // the container declares no rate.
            let seconds = declaredFPS.map { Double(index) / $0 } ?? time
            if let time { furthestTime = max(furthestTime ?? time, time) }
            switch selector.decide(index: index, time: seconds) {
            case .stop: return nil
            case .skip: continue
            case .analyse:
                do {
                    let pixels = try capture.retrieve()
                    noteSizeChange(pixels, index: index)
                    return SourceFrame(
                        index: index, time: seconds, image: UprightImage(pixels: pixels, orientation: .up))
                } catch {
                    note("frame \(index): \(error.message)")
                }
            }
        }
        return nil
    }

    /// The next frame's time, or nil at the end. A damaged packet can fail one read with data after
    /// it: a few reads are tried before the video is taken as ended (at its real end they fail at once).
    private func grab() -> Double?? {
        for _ in 0..<Self.readAttempts {
            if let time = capture.grab() { return time }
            if capture.end == .ended { return nil }
        }
        if capture.end == .stalled { readError = "reading the video stalled (no data for 10 s)" }
        return nil
    }

    /// A frame whose size differs from the frames before it is analysed at its own size, and said.
    private func noteSizeChange(_ pixels: OpenCVMat, index: Int) {
        let size = (width: pixels.width, height: pixels.height)
        if let previous = frameSize, previous != size {
            note(
                "frame \(index) is \(size.width)x\(size.height), the frames before it \(previous.width)x\(previous.height): each frame is analysed at its own size"
            )
        }
        frameSize = size
    }

    /// Reads tried in a row before the video is taken as ended.
    static let readAttempts = 8

    private func collectLog() {
        let (lines, total) = capture.takeLog()
        ffmpegLines += total
        for line in lines { note("FFmpeg: \(line)") }
        let refused = capture.refusedFrames
        if refused > refusedNoted {
            note(
                "\(refused - refusedNoted) picture(s) could not be decoded (damaged, or over the limit of \(maximumPixels) pixels) and were skipped"
            )
            refusedNoted = refused
        }
    }

    private func note(_ warning: String) {
        // At most 20 distinct lines per video: a damaged stream repeats the same complaint per frame.
        if warnings.count < 20 && !warnings.contains(warning) { warnings.append(warning) }
    }

    package func takeWarnings() -> [String] {
        collectLog()
        defer { warnings = [] }
        return warnings
    }

    package func close() {}
}

/// A folder of images read as the frames of one sequence (`--sequence DIR`), in natural name
/// order (`frame2` before `frame10`). Each frame is decoded and oriented as a still image is; a
/// frame that cannot be read is noted and skipped.
package final class FolderFrameSource: FrameSource {
    package let kind = SequenceAnalysis.SequenceKind.frames
    package let declaredFPS: Double? = nil
    package let framesDropped = 0
    package let readError: String? = nil
    private let paths: [String]
    private let maximumPixels: Int
    private let maximumBytes: Int
    package private(set) var framesRead = 0
    private var warnings: [String] = []

    package var declaredFrames: Int? { paths.count }

    package init(folder: String, maximumPixels: Int, maximumBytes: Int) throws(AnalysisError) {
        paths = try Self.framePaths(in: folder)
        self.maximumPixels = maximumPixels
        self.maximumBytes = maximumBytes
    }

    /// The images of `folder` (not its subfolders, no hidden files), in natural name order.
    package static func framePaths(in folder: String) throws(AnalysisError) -> [String] {
        guard FilePathBytes.isDirectory(folder) else { throw AnalysisError(.missingFile, "not a folder") }
        let paths = FilePathBytes.entries(of: folder)
            .filter {
                !$0.isDirectory && !$0.name.hasPrefix(".")
                    && InputCollector.imageExtensions.contains(($0.name as NSString).pathExtension.lowercased())
            }
            .map(\.name)
            .sorted(by: naturalOrder)
            .map { folder.hasSuffix("/") ? folder + $0 : folder + "/" + $0 }
        guard !paths.isEmpty else { throw AnalysisError(.missingFile, "the folder holds no images") }
        return paths
    }

    /// `a2` before `a10`: runs of digits compare by value, the rest by Unicode scalars.
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if x[i].properties.numericType == .decimal && x[i].isASCII && y[j].properties.numericType == .decimal
                && y[j].isASCII
            {
                var ei = i, ej = j
                while ei < x.count && x[ei].isASCII && x[ei].properties.numericType == .decimal { ei += 1 }
                while ej < y.count && y[ej].isASCII && y[ej].properties.numericType == .decimal { ej += 1 }
                let nx = String(String.UnicodeScalarView(x[i..<ei])).drop { $0 == "0" }
                let ny = String(String.UnicodeScalarView(y[j..<ej])).drop { $0 == "0" }
                if nx.count != ny.count { return nx.count < ny.count }
                if nx != ny { return nx < ny }
                i = ei
                j = ej
            } else {
                if x[i] != y[j] { return x[i].value < y[j].value }
                i += 1
                j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return a < b
    }

    package func next(_ selector: inout FrameSelector) -> SourceFrame? {
        while framesRead < paths.count && !selector.isFinished {
            let index = framesRead
            framesRead += 1
            switch selector.decide(index: index, time: nil) {
            case .stop: return nil
            case .skip: continue
            case .analyse:
                let path = paths[index]
                do {
                    let bytes = try RegularFile.read(path, maximumBytes: maximumBytes)
                    let orientation: ImageOrientation
                    if case .valid(let o) = ExifOrientationReader.orientationTag(in: bytes), !HEIFDecoder.isHEIF(bytes)
                    {
                        orientation = o
                    } else {
                        orientation = .up
                    }
                    let image = try UprightImage(
                        decoding: bytes, orientation: orientation, maximumPixels: maximumPixels)
                    return SourceFrame(index: index, time: nil, image: image)
                } catch {
                    if warnings.count < 20 {
                        warnings.append(
                            "frame \(index) (\((path as NSString).lastPathComponent)): \(error.message) [\(error.code)]"
                        )
                    }
                }
            }
        }
        return nil
    }

    package func takeWarnings() -> [String] {
        defer { warnings = [] }
        return warnings
    }

    package func close() {}
}
