/// A recognised line of text with its words (and, on request, characters).
/// Coordinates are pixels of the upright image, origin top-left. Strings are untrusted OCR output.
public struct TextObservation: Sendable, Hashable, Codable {
    /// The line's text, without the trailing newline.
    public let string: String
    /// The recognizer's line confidence, 0–1 (Tesseract's, or the network's mean character probability).
    public let confidence: Double
    public let boundingBox: BoundingBox
    /// The words of the line, in reading order.
    public let words: [RecognizedWord]
    /// The line's quadrilateral (top-left, top-right, bottom-right, bottom-left of the line as it
    /// reads), like Vision's `topLeft`…`bottomLeft`: present when a network read the line, whose
    /// detector finds lines turned or in perspective.
    public let corners: [PixelPoint]?
    /// Other readings of the line, best first, after `string` itself (Vision's `topCandidates(_:)`):
    /// present when the network had another reading worth giving.
    public let topCandidates: [TextCandidate]?
    /// What read the line: nil for Tesseract, `ppocr` for PP-OCRv4's recognizer network.
    public let recognizer: String?
    /// The language the line was read as, BCP 47 (``TextLanguages/language(of:)``): `zh-Hans`, `en`; nil
    /// for a line of digits and signs.
    public let language: String?

    public init(
        string: String, confidence: Double, boundingBox: BoundingBox, words: [RecognizedWord],
        corners: [PixelPoint]? = nil,
        topCandidates: [TextCandidate]? = nil, recognizer: String? = nil
    ) {
        self.init(
            string: string, confidence: confidence, boundingBox: boundingBox, words: words, corners: corners,
            topCandidates: topCandidates, recognizer: recognizer, language: nil)
    }

    /// A line said to be read as `language` (BCP 47).
    public init(
        string: String, confidence: Double, boundingBox: BoundingBox, words: [RecognizedWord],
        corners: [PixelPoint]?, topCandidates: [TextCandidate]?, recognizer: String?, language: String?
    ) {
        self.string = string
        self.confidence = confidence.roundedConfidence
        self.boundingBox = boundingBox
        self.words = words
        self.corners = corners
        self.topCandidates = topCandidates
        self.recognizer = recognizer
        self.language = language
    }

    /// The line, said to be read as `language`.
    func reading(as language: String?) -> TextObservation {
        TextObservation(
            string: string, confidence: confidence, boundingBox: boundingBox, words: words, corners: corners,
            topCandidates: topCandidates, recognizer: recognizer, language: language)
    }
}

/// Another reading of a line and its confidence (``TextObservation/topCandidates``).
public struct TextCandidate: Sendable, Hashable, Codable {
    public let string: String
    public let confidence: Double

    public init(string: String, confidence: Double) {
        self.string = string
        self.confidence = confidence.roundedConfidence
    }
}

/// One recognised word.
public struct RecognizedWord: Sendable, Hashable, Codable {
    public let string: String
    /// Tesseract's word confidence, 0–1.
    public let confidence: Double
    public let boundingBox: BoundingBox
    /// Per-character boxes (Vision's `characterBoxes`); present only with `--characters`.
    public let characters: [RecognizedCharacter]?

    public init(string: String, confidence: Double, boundingBox: BoundingBox, characters: [RecognizedCharacter]?) {
        self.string = string
        self.confidence = confidence.roundedConfidence
        self.boundingBox = boundingBox
        self.characters = characters
    }
}

/// One recognised character (Vision's character box).
public struct RecognizedCharacter: Sendable, Hashable, Codable {
    public let string: String
    public let confidence: Double
    public let boundingBox: BoundingBox

    public init(string: String, confidence: Double, boundingBox: BoundingBox) {
        self.string = string
        self.confidence = confidence.roundedConfidence
        self.boundingBox = boundingBox
    }
}

extension BoundingBox {
    /// The box around this box's corners mapped through a 2×3 affine matrix (row-major).
    func mapped(through m: [Double]) -> BoundingBox {
        BoundingBox(enclosing: corners.map { $0.applying(m) })
    }
}

extension TextObservation {
    /// The same line with every box mapped through a 2×3 affine matrix (e.g. from a turned copy back to the image).
    func mapped(through m: [Double]) -> TextObservation {
        TextObservation(
            string: string, confidence: confidence, boundingBox: boundingBox.mapped(through: m),
            words: words.map { w in
                RecognizedWord(
                    string: w.string, confidence: w.confidence, boundingBox: w.boundingBox.mapped(through: m),
                    characters: w.characters?.map { c in
                        RecognizedCharacter(
                            string: c.string, confidence: c.confidence, boundingBox: c.boundingBox.mapped(through: m))
                    })
            }, corners: corners?.map { $0.applying(m) }, topCandidates: topCandidates, recognizer: recognizer,
            language: language)
    }
}

/// The text of one image (the result of a ``TextRequest``): its lines with their words, and the
/// whole text, lines separated by newlines and blocks by blank lines. Written to the image's JSON
/// as `text` (the lines) and `fullText`, and `textSource` when the text was not read by OCR.
public struct RecognizedPage: RequestResult {
    public let lines: [TextObservation]
    public let fullText: String
    /// Where the text came from.
    public let source: TextSource

    public init(lines: [TextObservation], fullText: String, source: TextSource = .ocr) {
        self.lines = lines
        self.fullText = fullText
        self.source = source
    }

    /// Where an image's text came from.
    public enum TextSource: String, Sendable, Codable {
        /// Tesseract, reading the pixels (the JSON has no `textSource`).
        case ocr
        /// A PDF page's own text layer (`pdftotext`): exact words, confidence 1.
        case pdfTextLayer
        /// A PDF page's text layer, then Tesseract reading the rest of the page (its images: a figure,
        /// a photo, a screenshot), with the layer's words blanked out.
        case pdfTextLayerAndOCR
    }

    /// Lines shown in the report.
    public static let previewLines = 5
    /// Lines read with less confidence are left out of the report's preview (and not drawn).
    public static let minimumPreviewConfidence = 0.5

    public var summary: ResultSummary {
        let words = lines.reduce(0) { $0 + $1.words.count }
        let origin =
            switch source {
            case .ocr: ""
            case .pdfTextLayer: " from the PDF's text layer"
            case .pdfTextLayerAndOCR: " from the PDF's text layer and OCR of its images"
            }
        var summary = ResultSummary(
            count: lines.count, phrase: "\(lines.count) text line(s), \(words) word(s)\(origin)")
        summary.extraCounts = ["words": words]
        // The report's preview: lines read with some confidence (a video frame's "ye A. ate aye" is not shown).
        summary.textPreview = lines.filter { $0.confidence >= Self.minimumPreviewConfidence }.prefix(Self.previewLines)
            .map(\.string)
        summary.searchable = lines.map(\.string)
        return summary
    }

    public func encode(into container: inout KeyedEncodingContainer<AnalysisCodingKey>, as kind: ObservationKind) throws
    {
        try container.encode(lines, forKey: AnalysisCodingKey(kind.rawValue))
        try container.encode(fullText, forKey: Self.fullTextKey)
        if source != .ocr { try container.encode(source, forKey: Self.textSourceKey) }
    }

    public static func decode(from container: KeyedDecodingContainer<AnalysisCodingKey>, as kind: ObservationKind)
        throws -> RecognizedPage?
    {
        guard
            let lines = try container.decodeIfPresent([TextObservation].self, forKey: AnalysisCodingKey(kind.rawValue))
        else { return nil }
        return RecognizedPage(
            lines: lines, fullText: try container.decodeIfPresent(String.self, forKey: fullTextKey) ?? "",
            source: try container.decodeIfPresent(TextSource.self, forKey: textSourceKey) ?? .ocr)
    }

    static let fullTextKey = AnalysisCodingKey("fullText")
    static let textSourceKey = AnalysisCodingKey("textSource")
}
