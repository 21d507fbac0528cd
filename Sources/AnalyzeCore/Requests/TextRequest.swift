/// Recognises text with Tesseract (like `VNRecognizeTextRequest`): lines, words, optionally characters.
public struct TextRequest: ImageRequest {
    public static let kind = ObservationKind.text

    /// Tesseract language codes joined with `+`, e.g. `eng` or `eng+deu`.
    public var languages: String
    /// Also report per-character boxes (Vision's `characterBoxes`).
    public var characterBoxes: Bool
    /// Words below this confidence (0–1) are dropped; lines left empty are dropped.
    public var minimumConfidence: Double

    /// When the first reading is poor, ask Tesseract's orientation detector whether the page is
    /// turned by 90°, 180° or 270° in its pixels (a scan fed in sideways, no EXIF tag) and, if so,
    /// read it again turned upright. Coordinates stay those of the image as it is.
    public var detectsPageRotation: Bool

    public init() { self.init(languages: "eng") }

    public init(languages: String = "eng", characterBoxes: Bool = false, minimumConfidence: Double = 0, detectsPageRotation: Bool = true) {
        self.languages = languages
        self.detectsPageRotation = detectsPageRotation
        self.characterBoxes = characterBoxes
        self.minimumConfidence = minimumConfidence
    }

    /// Lines and the whole page text. One recognition pass; a second only when the first reading
    /// is poor and Tesseract's orientation detection (needs `tesseract-ocr-osd`) finds the page turned.
    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> RecognizedPage {
        let page = try read(image, engines: engines)
        return RecognizedPage(lines: page.lines, fullText: page.fullText)
    }

    func read(_ image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> (lines: [TextObservation], fullText: String) {
        let engine = try engines.textEngine(languages: languages)
        var gray = try image.gray()
        // Tesseract refuses pages with a side over 32767 px: such a page is read scaled down to
        // fit, and every box mapped back.
        var toImage: [Double]?
        let side = max(gray.width, gray.height)
        if side > Self.maximumSide {
            let scale = Double(Self.maximumSide) / Double(side)
            let w = max(1, Int(Double(gray.width) * scale)), h = max(1, Int(Double(gray.height) * scale))
            gray = try gray.resized(width: w, height: h)
            toImage = [Double(image.width) / Double(w), 0, 0, 0, Double(image.height) / Double(h), 0]
        }
        var page = try engine.recognize(gray, characterBoxes: characterBoxes)
        if detectsPageRotation, Self.isPoor(page.lines),
           let osd = try? engines.textEngine(languages: "osd"),
           let (degrees, confidence) = osd.detectOrientation(gray), degrees != 0, confidence >= Self.minimumOrientationConfidence {
            let (turned, inverse) = try gray.rotated(byDegrees: Double(degrees), fill: 255)
            let second = try engine.recognize(turned, characterBoxes: characterBoxes)
            if Self.meanConfidence(second.lines) > Self.meanConfidence(page.lines) {
                page = (second.lines.map { $0.mapped(through: inverse) }, second.fullText)
            }
        }
        if let toImage { page.lines = page.lines.map { $0.mapped(through: toImage) } }
        guard minimumConfidence > 0 else { return page }
        let lines = page.lines.compactMap { line -> TextObservation? in
            let words = line.words.filter { $0.confidence >= minimumConfidence }
            guard !words.isEmpty else { return nil }
            return TextObservation(string: words.map(\.string).joined(separator: " "), confidence: line.confidence,
                                   boundingBox: line.boundingBox, words: words)
        }
        return (lines, lines.map(\.string).joined(separator: "\n"))
    }

    /// The longest side Tesseract is given (its limit is 32767); longer pages are scaled to fit.
    static let maximumSide = 30_000

    /// Tesseract's orientation confidence below which a page is left as it is.
    static let minimumOrientationConfidence = 2.0

    /// A reading is poor when it found words but their mean confidence is under 70%: a page
    /// turned in its pixels reads as confident-looking garbage. (A photo with no text at all is
    /// not asked: orientation detection would cost time and find nothing to read.)
    static func isPoor(_ lines: [TextObservation]) -> Bool {
        !lines.isEmpty && meanConfidence(lines) < 0.7
    }

    static func meanConfidence(_ lines: [TextObservation]) -> Double {
        let words = lines.flatMap(\.words)
        return words.isEmpty ? 0 : words.reduce(0) { $0 + $1.confidence } / Double(words.count)
    }
}

extension ObservationKind {
    /// Recognised text (``TextRequest``): `text` holds the lines, `fullText` the whole text.
    public static let text = ObservationKind("text")
}

extension ImageAnalysis {
    /// The recognised lines; nil when text was not requested.
    public var text: [TextObservation]? { result(.text, as: RecognizedPage.self)?.lines }
    /// The whole recognised text; nil when text was not requested.
    public var fullText: String? { result(.text, as: RecognizedPage.self)?.fullText }
}
