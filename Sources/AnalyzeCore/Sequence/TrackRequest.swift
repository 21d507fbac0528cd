/// `--track`: follow what the detection requests find across the frames of a sequence, like
/// `VNTrackObjectRequest` performed by a `VNSequenceRequestHandler`.
///
/// On key frames (every `redetectEvery`-th analysed frame) the still requests run; their boxes
/// (faces, objects, rectangles, barcodes) are matched to the live tracks by overlap. A match
/// places its track on the detection (correcting drift); a detection that matches no track starts
/// a new one with the next ID; a track that no detection confirms on `maximumMisses` key frames in a
/// row ends. Between key frames each track's tracker (CSRT or KCF) follows its object alone; a
/// track whose tracker loses it, or whose box no longer looks like the object, is lost: it looks
/// for its object again for `maximumLostFrames` frames and keeps its ID when it finds it.
public struct TrackRequest: Sendable, Hashable, Codable {
    /// The tracker (`--tracker`).
    public var algorithm: Algorithm
    /// Detections run on every N-th analysed frame (`--redetect`); 1: every frame.
    public var redetectEvery: Int
    /// Which kinds of detection start tracks; empty: every requested kind that has boxes.
    public var kinds: [ObservationKind]
    /// Boxes to follow from the first analysed frame (`--track-box x,y,w,h`), as `box` tracks.
    public var boxes: [BoundingBox]
    /// Least intersection-over-union for a detection to confirm a track.
    public var minimumOverlap: Double
    /// Least appearance similarity (0–1) for a tracked box to be kept.
    public var minimumSimilarity: Double
    /// Key frames in a row without a confirming detection after which a track ends.
    public var maximumMisses: Int
    /// Analysed frames a lost track looks for its object before it ends (a person walking behind a
    /// pillar, a box under a passing hand keep their IDs).
    public var maximumLostFrames: Int
    /// Least similarity (0–1) at which a lost track's search, or its tracker, finds its object again.
    public var reacquireSimilarity: Double

    /// The kind of the tracks `--track-box` starts.
    public static let boxKind = "box"

    /// The trackers OpenCV contrib offers here.
    public enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable {
        /// Accurate, about 10–30 ms per object per frame.
        case csrt
        /// Fast, about 1–3 ms per object per frame; loses objects that change size.
        case kcf
    }

    public init(
        algorithm: Algorithm = .csrt, redetectEvery: Int = 10, kinds: [ObservationKind] = [], boxes: [BoundingBox] = [],
        minimumOverlap: Double = 0.3, minimumSimilarity: Double = 0.2, maximumMisses: Int = 2,
        maximumLostFrames: Int = 30,
        reacquireSimilarity: Double = 0.6
    ) {
        self.algorithm = algorithm
        self.redetectEvery = max(1, redetectEvery)
        self.kinds = kinds
        self.boxes = boxes
        self.minimumOverlap = minimumOverlap
        self.minimumSimilarity = minimumSimilarity
        self.maximumMisses = max(1, maximumMisses)
        self.maximumLostFrames = max(0, maximumLostFrames)
        self.reacquireSimilarity = reacquireSimilarity
    }

    /// The kinds whose results can start tracks.
    public static let trackableKinds: [ObservationKind] = [.faces, .objects, .rectangles, .barcodes]
}
