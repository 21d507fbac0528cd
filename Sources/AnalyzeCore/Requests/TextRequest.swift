/// Recognises text with Tesseract (like `VNRecognizeTextRequest`): lines, words, optionally characters.
public struct TextRequest: ImageRequest {
    public static let kind = ObservationKind.text

    /// Tesseract language codes joined with `+`, e.g. `eng` or `eng+deu`.
    public var languages: String
    /// Also report per-character boxes (Vision's `characterBoxes`).
    public var characterBoxes: Bool
    /// Words below this confidence (0–1) are dropped; lines left empty are dropped.
    public var minimumConfidence: Double

    public init(languages: String = "eng", characterBoxes: Bool = false, minimumConfidence: Double = 0) {
        self.languages = languages
        self.characterBoxes = characterBoxes
        self.minimumConfidence = minimumConfidence
    }

    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> [TextObservation] {
        try performWithFullText(on: image, engines: engines).lines
    }

    /// Lines and the whole page text, from one recognition pass.
    func performWithFullText(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> (lines: [TextObservation], fullText: String) {
        let engine = try engines.textEngine(languages: languages)
        let page = try engine.recognize(try image.gray(), characterBoxes: characterBoxes)
        guard minimumConfidence > 0 else { return page }
        let lines = page.lines.compactMap { line -> TextObservation? in
            let words = line.words.filter { $0.confidence >= minimumConfidence }
            guard !words.isEmpty else { return nil }
            return TextObservation(string: words.map(\.string).joined(separator: " "), confidence: line.confidence,
                                   boundingBox: line.boundingBox, words: words)
        }
        return (lines, lines.map(\.string).joined(separator: "\n"))
    }
}
