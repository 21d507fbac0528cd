/// What a sequence (a video file, a folder of frames, a live stream) is and how it was read: the
/// sequence JSON's fields other than `frames` and `tracks`, which are written as they are found.
public struct SequenceAnalysis: Sendable, Hashable, Codable {
    /// The input as given: a path, a folder (`--sequence`) or a stream URL.
    public let file: String
    /// `video`, `frames` (a folder of images) or `stream` (a live source).
    public let source: SequenceKind
    /// The frame size (of the first frame read).
    public var width: Int
    public var height: Int
    /// Frames per second the container declares; nil when unknown (a folder, some streams).
    public var declaredFPS: Double?
    /// Frames the container declares; nil when unknown (streams, folders count their files).
    public var declaredFrames: Int?
    /// Frames read from the source, analysed, and dropped because they arrived while another was
    /// being analysed (live sources only).
    public var framesRead = 0
    public var framesAnalysed = 0
    public var framesDropped = 0
    /// Seconds from the first to the last frame read (nil when the source has no times).
    public var duration: Double?
    /// Which frames were analysed: `--every`, `--fps`, `--duration`, `--max-frames`.
    public var sampling: FrameSampling
    /// Tracking parameters, when `--track` was given.
    public var tracking: TrackRequest?
    /// Non-fatal problems: FFmpeg's error lines while decoding, frames of a folder that could not be read.
    public var warnings: [String] = []
    /// Why reading stopped early (a truncated or damaged video, a stream that stalled); nil when
    /// the sequence was read to its end. The frames before it are analysed and written.
    public var readError: String?
    /// True when the run was stopped (Ctrl-C, SIGTERM) before the end of a video or folder of
    /// frames: the frames before it are analysed and written, and `--resume` analyses it again.
    public var interrupted: Bool?
    /// A hash of the requests and output options (as for images).
    public var optionsHash: String?
    /// The input's identity by content: a video file's size and SHA-256; for a folder of frames, the
    /// total size and the SHA-256 of its frames' names, sizes and hashes. With `optionsHash`, what
    /// `--resume` compares. Absent for live streams.
    public var input: InputFingerprint?

    public enum SequenceKind: String, Sendable, Hashable, Codable {
        case video, frames, stream
    }

    public init(
        file: String, source: SequenceKind, width: Int = 0, height: Int = 0, sampling: FrameSampling,
        tracking: TrackRequest?
    ) {
        self.file = file
        self.source = source
        self.width = width
        self.height = height
        self.sampling = sampling
        self.tracking = tracking
    }
}
