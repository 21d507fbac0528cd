internal import COpenCVShim
import Foundation

/// An open video file or stream (demuxed and decoded by FFmpeg in the video shim) or camera (V4L2,
/// `/dev/video*`), read frame by frame. Used by one thread at a time; closed in `deinit`.
///
/// Opening and every read give up after their timeouts, or as soon as `shouldStop` says so (Ctrl-C,
/// `--duration`), so a stalled stream or a damaged file cannot hang a worker. Every frame is
/// converted at its own size, turned upright by the stream's rotation; a picture over the pixel
/// limit is refused by the decoder before it is allocated and counted in ``refusedFrames``.
/// FFmpeg's error lines never reach stderr: ``takeLog()`` returns them.
/// `@unchecked Sendable`: a live source hands it to its reader thread, which alone uses it from then on.
final class VideoCapture: @unchecked Sendable {
    private let library: VideoLibrary
    private let handle: OpaquePointer
    /// Kept alive for the handle's interrupt callback.
    private let stopCheck: StopCheck?
    /// Frames per second the container declares; nil when it does not say.
    let declaredFPS: Double?
    /// Frames the container declares (an estimate for some formats); nil when unknown (streams).
    let declaredFrameCount: Int?
    let width: Int
    let height: Int

    /// Why reading stopped.
    enum End: Int32 {
        case reading = 0, ended, stalled, aborted, failed
    }

    /// Opens `source`: a local file (`localFile`; its absolute path, opened through FFmpeg's file
    /// protocol alone and only when its container cannot name other files or addresses), or a stream
    /// URL or `/dev/video*` device the user named as such.
    init(
        _ source: String, localFile: Bool, maximumPixels: Int = .max, openTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(10),
        shouldStop: (@Sendable () -> Bool)? = nil
    ) throws(AnalysisError) {
        let library = try VideoLibrary.get()
        var status = aocv_status()
        let stopCheck = shouldStop.map(StopCheck.init)
        let context = stopCheck.map { Unmanaged.passUnretained($0).toOpaque() }
        let callback: VideoLibrary.AbortCallback? =
            stopCheck == nil
            ? nil
            : { context in
                guard let context else { return 0 }
                return Unmanaged<StopCheck>.fromOpaque(context).takeUnretainedValue().check() ? 1 : 0
            }
        let opened = withExtendedLifetime(stopCheck) {
            library.videoOpen(
                localFile ? Self.absolute(source) : source, localFile ? 1 : 0,
                Int32(clamping: openTimeout.milliseconds),
                Int32(clamping: readTimeout.milliseconds), Int64(maximumPixels), callback, context, &status)
        }
        guard let handle = opened else {
            throw AnalysisError(.undecodable, OpenCVMat.message(of: &status))
        }
        self.library = library
        self.handle = handle
        self.stopCheck = stopCheck
        var fps = 0.0, count = 0.0
        var w: Int32 = 0, h: Int32 = 0
        library.videoInfo(handle, &fps, &count, &w, &h)
        declaredFPS = fps > 0 ? fps : nil
        declaredFrameCount = count >= 1 && count < 1e9 ? Int(count) : nil
        width = Int(w)
        height = Int(h)
    }

    /// The closure FFmpeg's interrupt callback asks, boxed for its context pointer.
    private final class StopCheck {
        let check: @Sendable () -> Bool
        init(_ check: @escaping @Sendable () -> Bool) { self.check = check }
    }

    deinit { library.videoClose(handle) }

    /// `path` made absolute against the working directory, its bytes otherwise untouched (no `..` or
    /// symbolic link resolved: the file named is the file opened).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let cwd = FileManager.default.currentDirectoryPath
        return (cwd.hasSuffix("/") ? cwd : cwd + "/") + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }

    /// Reads the next frame without converting it; its presentation time in seconds (nil when the
    /// stream has none). Nil at the end of the stream or when reading failed.
    func grab() -> Double?? {
        var milliseconds = 0.0
        guard library.videoGrab(handle, &milliseconds) != 0 else { return nil }
        return .some(milliseconds >= 0 ? milliseconds / 1000 : nil)
    }

    /// Why the last grab found no frame (``End/reading`` while frames come).
    var end: End {
        var refused: Int32 = 0
        return End(rawValue: library.videoEnd(handle, &refused)) ?? .failed
    }

    /// Pictures the decoder refused so far: damaged, or over the pixel limit.
    var refusedFrames: Int {
        var refused: Int32 = 0
        _ = library.videoEnd(handle, &refused)
        return Int(refused)
    }

    /// The frame last grabbed, 8-bit BGR at its own size, upright, owning its pixels.
    func retrieve() throws(AnalysisError) -> OpenCVMat {
        try OpenCVMat.make(.undecodable) { library.videoRetrieve(handle, $0) }
    }

    /// FFmpeg's error lines since the last call, and how many there were in all.
    func takeLog() -> (lines: [String], total: Int) {
        var text = [CChar](repeating: 0, count: 8192)
        let total = text.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            return library.videoTakeLog(handle, base, buffer.count)
        }
        let length = text.firstIndex(of: 0) ?? text.count
        let joined = String(decoding: text[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (joined.split(separator: "\n").map(String.init), Int(total))
    }
}

/// Writes frames into a video file (`cv::VideoWriter` through FFmpeg). Finished in ``finish()``
/// (or `deinit`).
package final class VideoWriter {
    private let library: VideoLibrary
    private var handle: OpaquePointer?
    let width: Int
    let height: Int

    /// Starts `path`; `codec` is a four-character code that suits the extension (`mp4v` for .mp4).
    package init(path: String, codec: String, fps: Double, width: Int, height: Int) throws(AnalysisError) {
        let library = try VideoLibrary.get()
        var status = aocv_status()
        guard let handle = library.writerOpen(path, codec, fps, Int32(width), Int32(height), &status) else {
            throw AnalysisError(.outputFailed, OpenCVMat.message(of: &status), file: path)
        }
        self.library = library
        self.handle = handle
        self.width = width
        self.height = height
    }

    deinit { library.writerClose(handle) }

    /// Appends a frame (scaled to the video's size when it differs).
    package func write(_ frame: OpenCVMat) throws(AnalysisError) {
        guard let handle else { throw AnalysisError(.outputFailed, "the video is already finished") }
        var status = aocv_status()
        guard library.writerWrite(handle, frame.handle, &status) != 0 else {
            throw AnalysisError(.outputFailed, "writing a video frame failed: " + OpenCVMat.message(of: &status))
        }
    }

    /// Finishes the file.
    package func finish() {
        library.writerClose(handle)
        handle = nil
    }
}

extension Duration {
    /// The duration in whole milliseconds (clamped to Int32's range by the callers' use).
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
