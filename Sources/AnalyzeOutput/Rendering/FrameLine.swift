import AnalyzeCore

/// A `--jsonl` line for one analysed frame: the frame with its sequence's file (and
/// `"coordinates": "normalized"` when written in Vision's coordinates).
public struct FrameLine: Encodable {
    public let file: String
    public let frame: FrameAnalysis
    public let coordinates: OutputLayout.CoordinateSpace

    public init(file: String, frame: FrameAnalysis, coordinates: OutputLayout.CoordinateSpace = .pixels) {
        self.file = file
        self.frame = frame
        self.coordinates = coordinates
    }

    public func encode(to encoder: any Encoder) throws {
        try frame.encode(to: encoder)
        var container = encoder.container(keyedBy: AnalysisCodingKey.self)
        try container.encode(file, forKey: ImageAnalysis.fileKey)
        if coordinates == .normalized { try container.encode(coordinates, forKey: AnalysisCodingKey("coordinates")) }
    }

    /// The line's bytes (no newline), its coordinates relative to the frame's size when normalized.
    public func encoded() throws(AnalysisError) -> [UInt8] {
        guard coordinates == .normalized else { return try JSONRenderer.encode(self, pretty: false) }
        return try JSONRenderer.encode(self, normalizedTo: (frame.analysis.width, frame.analysis.height), pretty: false)
    }
}
