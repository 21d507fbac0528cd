/// An object followed across the frames of a sequence, in one frame, like the
/// `VNDetectedObjectObservation` a `VNTrackObjectRequest` returns: its box in that frame, a
/// confidence, and the track it belongs to. Pixels of the upright frame, origin top-left.
public struct TrackedObjectObservation: Sendable, Hashable, Codable {
    /// The track's identifier: the same object keeps it from frame to frame (1, 2, 3… in the
    /// order tracks start).
    public let trackID: Int
    /// The kind of detection that started the track (`faces`, `objects`, `rectangles`,
    /// `barcodes`), or `box` for a `--track-box`.
    public let kind: String
    /// The object's label when its detector gives one (an object's class, a barcode's payload).
    public let label: String?
    public let boundingBox: BoundingBox
    /// On a key frame where a detection placed the track, that detection's confidence; on the
    /// frames between, how much the box still looks like the object's recent appearance
    /// (normalised cross-correlation of 32×32 gray copies, 0–1; the appearance is set by each
    /// detection and follows slow change).
    public let confidence: Double
    /// `detected` when a detection placed the box on this frame, `tracked` when the tracker followed it.
    public let source: Source

    public enum Source: String, Sendable, Hashable, Codable {
        case detected, tracked
    }

    public init(
        trackID: Int, kind: String, label: String?, boundingBox: BoundingBox, confidence: Double, source: Source
    ) {
        self.trackID = trackID
        self.kind = kind
        self.label = label
        self.boundingBox = boundingBox
        self.confidence = confidence.roundedConfidence
        self.source = source
    }
}

/// One track of a sequence from start to end, written in the sequence's `tracks` array.
public struct TrackSummary: Sendable, Hashable, Codable {
    public let trackID: Int
    public let kind: String
    public let label: String?
    /// The first and last frames (source frame indices) the object was seen on, and their times in seconds.
    public let firstFrame: Int
    public let lastFrame: Int
    public let firstTime: Double?
    public let lastTime: Double?
    /// Analysed frames on which the track has a box.
    public let frames: Int
    /// Key frames on which a detection confirmed it.
    public let detections: Int
    /// The mean confidence over its frames.
    public let meanConfidence: Double
    /// Why it ended.
    public let end: End

    public enum End: String, Sendable, Hashable, Codable {
        /// The tracker lost the object, or it no longer looked like it (confidence under the threshold).
        case lost
        /// Detections on several key frames in a row did not find it where the tracker was.
        case notRedetected = "not-redetected"
        /// The video cut to another shot.
        case sceneCut = "scene-cut"
        /// It was still followed when the sequence ended.
        case sequenceEnded = "sequence-ended"
    }

    public init(
        trackID: Int, kind: String, label: String?, firstFrame: Int, lastFrame: Int, firstTime: Double?,
        lastTime: Double?,
        frames: Int, detections: Int, meanConfidence: Double, end: End
    ) {
        self.trackID = trackID
        self.kind = kind
        self.label = label
        self.firstFrame = firstFrame
        self.lastFrame = lastFrame
        self.firstTime = firstTime.map { ($0 * 1000).rounded() / 1000 }
        self.lastTime = lastTime.map { ($0 * 1000).rounded() / 1000 }
        self.frames = frames
        self.detections = detections
        self.meanConfidence = meanConfidence.roundedConfidence
        self.end = end
    }
}

/// An observation a track can start from: a box, a confidence, and a label when there is one.
public protocol TrackableObservation {
    var boundingBox: BoundingBox { get }
    var confidence: Double { get }
    /// What the object is, when its detector says (an object's class, a barcode's symbology and payload).
    var trackLabel: String? { get }
}

extension TrackableObservation {
    public var trackLabel: String? { nil }
}

extension FaceObservation: TrackableObservation {}
extension RectangleObservation: TrackableObservation {}

extension RecognizedObjectObservation: TrackableObservation {
    public var trackLabel: String? { identifier.isEmpty ? nil : identifier }
}

extension BarcodeObservation: TrackableObservation {
    public var trackLabel: String? { "\(symbology): \(String(payload.prefix(64)))" }
}

/// A result whose observations tracks can start from (a list of trackable observations).
protocol TrackableResult {
    var trackables: [any TrackableObservation] { get }
}

extension Array: TrackableResult where Element: TrackableObservation {
    var trackables: [any TrackableObservation] { map { $0 } }
}
