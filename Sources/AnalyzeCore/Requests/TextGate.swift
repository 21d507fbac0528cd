import Foundation

/// Whether PP-OCRv4's text detector decides which large images Tesseract reads (`--text-gate`).
public enum TextGate: String, Sendable, CaseIterable {
    /// The detector and PP-OCR's reading networks when they have been fetched; otherwise Tesseract
    /// reads every image whole.
    case auto
    /// The detector and the networks, which must be there (the request cannot run without them).
    case on
    /// No network: Tesseract reads every image whole.
    case off

    /// The networks that read what is not a clean page under this setting, and whether the request may
    /// run without them.
    public var reader: (models: TextReaderModels?, isOptional: Bool) {
        switch self {
        case .auto: (TextReaderModels.ppocrV4, true)
        case .on: (TextReaderModels.ppocrV4, false)
        case .off: (nil, false)
        }
    }

    /// A text request's detector under this setting, and whether the request may run without it (auto:
    /// decided by ``TextRequest/resolvingOptionalModels(with:)`` when a run performs the request, so a
    /// run without text never reads the detector's files).
    public var detector: (model: TextDetectorModel?, isOptional: Bool) {
        switch self {
        case .auto: (TextRequest.ppocrDetector, true)
        case .on: (TextRequest.ppocrDetector, false)
        case .off: (nil, false)
        }
    }
}
