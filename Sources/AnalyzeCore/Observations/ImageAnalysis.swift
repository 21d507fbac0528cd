/// Everything found in one image: the JSON contract scripts rely on.
///
/// All coordinates are pixels of the upright image (EXIF orientation applied), origin top-left.
/// A kind that was not requested is absent; a requested kind with nothing found is an empty array.
/// Encoded with sorted keys and no timestamps, so the same input and options give the same bytes.
/// An input file's identity by content.
public struct InputFingerprint: Sendable, Hashable, Codable {
    public let bytes: Int
    public let sha256: String

    public init(of data: [UInt8]) {
        bytes = data.count
        sha256 = SHA256.hex(data)
    }
}

public struct ImageAnalysis: Sendable, Hashable, Codable {
    /// The input path as given (or as found under a directory argument).
    public let file: String
    /// The EXIF orientation that was applied, 1–8 (1 when the tag is missing or invalid).
    public let orientation: Int
    /// Size of the upright image.
    public let width: Int
    public let height: Int
    public var rectangles: [RectangleObservation]?
    public var faces: [FaceObservation]?
    public var barcodes: [BarcodeObservation]?
    /// Recognised text lines.
    public var text: [TextObservation]?
    /// The whole recognised text, lines separated by newlines and blocks by blank lines.
    public var fullText: String?
    /// Non-fatal problems (e.g. an invalid orientation tag that was treated as 1).
    public var warnings: [String]
    /// The input's size and SHA-256: with `optionsHash`, what `--resume` compares.
    public var input: InputFingerprint?
    /// A hash of the requests and output options that produced this result.
    public var optionsHash: String?

    public init(file: String, orientation: Int, width: Int, height: Int, warnings: [String] = []) {
        self.file = file
        self.orientation = orientation
        self.width = width
        self.height = height
        self.warnings = warnings
    }

    /// How many observations of a kind were found; nil when the kind was not requested.
    public func count(of kind: ObservationKind) -> Int? {
        switch kind {
        case .rectangles: rectangles?.count
        case .faces: faces?.count
        case .barcodes: barcodes?.count
        case .text: text?.count
        }
    }
}
