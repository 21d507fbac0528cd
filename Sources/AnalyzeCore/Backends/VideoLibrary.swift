internal import COpenCVShim
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The video shim, `libAnalyzeVideo.so` (Sources/CVideoShim: FFmpeg's demuxers and decoders, `cv::VideoWriter`,
/// the CSRT/KCF trackers), opened the first time a sequence needs it.
///
/// Why not linked: OpenCV's videoio brings FFmpeg, GStreamer and their codecs, 100 shared libraries
/// that the dynamic loader would map and relocate on every start, `analyze --version` included
/// (measured: 0.15 s → 0.24 s median). Looked for beside the executable, in `../lib/analyze/` of its
/// folder (an install), then by the dynamic loader's own rules; `ANALYZE_VIDEO_LIBRARY` names it
/// explicitly.
struct VideoLibrary: @unchecked Sendable {
    typealias Status = UnsafeMutablePointer<aocv_status>
    typealias AbortCallback = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    typealias VideoOpenFunction =
        @convention(c) (
            UnsafePointer<CChar>, Int32, Int32, Int32, Int64, AbortCallback?, UnsafeMutableRawPointer?,
            Status
        ) -> OpaquePointer?
    let videoOpen: VideoOpenFunction
    typealias VideoInfoFunction =
        @convention(c) (
            OpaquePointer, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>,
            UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>
        ) -> Void
    let videoInfo: VideoInfoFunction
    typealias VideoGrabFunction = @convention(c) (OpaquePointer, UnsafeMutablePointer<Double>) -> Int32
    let videoGrab: VideoGrabFunction
    typealias VideoEndFunction = @convention(c) (OpaquePointer, UnsafeMutablePointer<Int32>) -> Int32
    let videoEnd: VideoEndFunction
    typealias VideoRetrieveFunction = @convention(c) (OpaquePointer, Status) -> OpaquePointer?
    let videoRetrieve: VideoRetrieveFunction
    typealias VideoTakeLogFunction = @convention(c) (OpaquePointer, UnsafeMutablePointer<CChar>, Int) -> Int32
    let videoTakeLog: VideoTakeLogFunction
    typealias VideoCloseFunction = @convention(c) (OpaquePointer?) -> Void
    let videoClose: VideoCloseFunction
    typealias WriterOpenFunction =
        @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, Double, Int32, Int32, Status) -> OpaquePointer?
    let writerOpen: WriterOpenFunction
    typealias WriterWriteFunction = @convention(c) (OpaquePointer, OpaquePointer, Status) -> Int32
    let writerWrite: WriterWriteFunction
    typealias WriterCloseFunction = @convention(c) (OpaquePointer?) -> Void
    let writerClose: WriterCloseFunction
    typealias TrackerCreateFunction =
        @convention(c) (Int32, OpaquePointer, UnsafePointer<Double>, Status) -> OpaquePointer?
    let trackerCreate: TrackerCreateFunction
    typealias TrackerUpdateFunction =
        @convention(c) (
            OpaquePointer, OpaquePointer, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>, Status
        ) -> Int32
    let trackerUpdate: TrackerUpdateFunction
    typealias TrackerResetFunction =
        @convention(c) (OpaquePointer, OpaquePointer, UnsafePointer<Double>, Int32, Status) -> Int32
    let trackerReset: TrackerResetFunction
    typealias TrackerSearchFunction =
        @convention(c) (
            OpaquePointer, OpaquePointer, UnsafePointer<Double>, Double, UnsafeMutablePointer<Double>,
            UnsafeMutablePointer<Double>, Status
        ) -> Int32
    let trackerSearch: TrackerSearchFunction
    typealias TrackerFreeFunction = @convention(c) (OpaquePointer?) -> Void
    let trackerFree: TrackerFreeFunction

    /// The file name SwiftPM gives the `AnalyzeVideo` product.
    static let fileName = "libAnalyzeVideo.so"

    /// The library, opened once for the process (or why it could not be).
    static let shared: Result<VideoLibrary, AnalysisError> = load()

    /// The library, or an error that says where it was looked for.
    static func get() throws(AnalysisError) -> VideoLibrary { try shared.get() }

    static func candidates() -> [String] {
        if let explicit = ProcessInfo.processInfo.environment["ANALYZE_VIDEO_LIBRARY"], !explicit.isEmpty {
            return [explicit]
        }
        var paths: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = (executable as NSString).deletingLastPathComponent
            paths.append(folder + "/" + fileName)
            paths.append(
                ((folder as NSString).deletingLastPathComponent as NSString).appendingPathComponent(
                    "lib/analyze/" + fileName))
        }
        paths.append(fileName)
        return paths
    }

    private static func load() -> Result<VideoLibrary, AnalysisError> {
        var reasons: [String] = []
        let paths = candidates()
        for path in paths {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                let reason = dlerror().map { String(cString: $0) } ?? "not found"
                // A candidate that is not there is just not there; one that is there and fails matters.
                if path.contains("/") ? FileManager.default.fileExists(atPath: path) : !reason.contains(fileName) {
                    reasons.append(reason)
                }
                continue
            }
            if let library = VideoLibrary(handle) { return .success(library) }
            reasons.append("\(path) lacks the aocv_video functions")
        }
        if let reason = reasons.first {
            // The library is there but what it links is not (a package installed without its Recommends).
            return .failure(
                AnalysisError(
                    .engineUnavailable,
                    "video support is missing: \(fileName) cannot be loaded (\(reason)); install OpenCV's video and contrib libraries and FFmpeg's (on Debian 12: apt install libopencv-videoio406 libopencv-contrib406 libavformat59 libavcodec59 libswscale6 libavutil57, which the analyze package recommends)"
                ))
        }
        return .failure(
            AnalysisError(
                .engineUnavailable,
                "video support is missing: \(fileName) was not found (looked for \(paths.joined(separator: ", "))); build it with `swift build --product AnalyzeVideo` (scripts/setup does)"
            ))
    }

    private init?(_ handle: UnsafeMutableRawPointer) {
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let pointer = dlsym(handle, name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        }
        guard let videoOpen = symbol("aocv_video_open", as: VideoOpenFunction.self),
            let videoInfo = symbol("aocv_video_info", as: VideoInfoFunction.self),
            let videoGrab = symbol("aocv_video_grab", as: VideoGrabFunction.self),
            let videoEnd = symbol("aocv_video_end", as: VideoEndFunction.self),
            let videoRetrieve = symbol("aocv_video_retrieve", as: VideoRetrieveFunction.self),
            let videoTakeLog = symbol("aocv_video_take_log", as: VideoTakeLogFunction.self),
            let videoClose = symbol("aocv_video_close", as: VideoCloseFunction.self),
            let writerOpen = symbol("aocv_video_writer_open", as: WriterOpenFunction.self),
            let writerWrite = symbol("aocv_video_writer_write", as: WriterWriteFunction.self),
            let writerClose = symbol("aocv_video_writer_close", as: WriterCloseFunction.self),
            let trackerCreate = symbol("aocv_tracker_create", as: TrackerCreateFunction.self),
            let trackerUpdate = symbol("aocv_tracker_update", as: TrackerUpdateFunction.self),
            let trackerReset = symbol("aocv_tracker_place", as: TrackerResetFunction.self),
            let trackerSearch = symbol("aocv_tracker_search", as: TrackerSearchFunction.self),
            let trackerFree = symbol("aocv_tracker_free", as: TrackerFreeFunction.self)
        else { return nil }
        self.videoOpen = videoOpen
        self.videoInfo = videoInfo
        self.videoGrab = videoGrab
        self.videoEnd = videoEnd
        self.videoRetrieve = videoRetrieve
        self.videoTakeLog = videoTakeLog
        self.videoClose = videoClose
        self.writerOpen = writerOpen
        self.writerWrite = writerWrite
        self.writerClose = writerClose
        self.trackerCreate = trackerCreate
        self.trackerUpdate = trackerUpdate
        self.trackerReset = trackerReset
        self.trackerSearch = trackerSearch
        self.trackerFree = trackerFree
    }
}
