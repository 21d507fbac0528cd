/// A recognised line of text with its words (and, on request, characters).
/// Coordinates are pixels of the upright image, origin top-left. Strings are untrusted OCR output.
public struct TextObservation: Sendable, Hashable, Codable {
    /// The line's text, without the trailing newline.
    public let string: String
    /// Tesseract's line confidence, 0–1.
    public let confidence: Double
    public let boundingBox: BoundingBox
    /// The words of the line, in reading order.
    public let words: [RecognizedWord]

    public init(string: String, confidence: Double, boundingBox: BoundingBox, words: [RecognizedWord]) {
        self.string = string
        self.confidence = confidence.roundedConfidence
        self.boundingBox = boundingBox
        self.words = words
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
        TextObservation(string: string, confidence: confidence, boundingBox: boundingBox.mapped(through: m), words: words.map { w in
            RecognizedWord(string: w.string, confidence: w.confidence, boundingBox: w.boundingBox.mapped(through: m),
                           characters: w.characters?.map { c in
                               RecognizedCharacter(string: c.string, confidence: c.confidence, boundingBox: c.boundingBox.mapped(through: m))
                           })
        })
    }
}
