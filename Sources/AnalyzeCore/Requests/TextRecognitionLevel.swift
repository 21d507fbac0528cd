/// How hard text recognition works (Vision's `VNRequestTextRecognitionLevel`): what the network path
/// of a ``TextRequest`` looks at. Tesseract reads pages the same way at both levels.
public enum TextRecognitionLevel: String, Sendable, Codable, CaseIterable {
    /// The line detector sees the image at up to 2,000 px on its long side (its short side brought up
    /// to 736: PaddleOCR's own rule) and every line goes through the direction classifier, so that
    /// upside-down lines are read.
    case accurate
    /// The line detector sees the image at up to 1,280 px (short side up to 640) and lines are read as
    /// they stand (no direction classifier): small print and upside-down lines are missed.
    case fast

    /// The detector's input rule (``TextLineReader/detectorInput(width:height:shortSide:longSide:maximumZoom:)``).
    var detectorSides: (short: Int, long: Int) {
        switch self {
        case .accurate: (736, 2000)
        case .fast: (640, 1280)
        }
    }

    var classifiesDirection: Bool { self == .accurate }
}
