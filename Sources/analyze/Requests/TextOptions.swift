import AnalyzeCore
import ArgumentParser

/// `--text`, languages, character boxes, confidence.
struct TextOptions: RequestOptions {
    @Flag(name: .customLong("text"), help: "Recognise text (Tesseract): lines and words with boxes and confidences, and the whole text.")
    var text = false

    @Flag(name: .customLong("characters"), help: "With --text, also report a box per character (Vision's characterBoxes).")
    var characters = false

    @Option(help: ArgumentHelp("Tesseract languages for --text, joined with '+', e.g. eng+deu (needs tesseract-ocr-<lang>).", valueName: "langs"))
    var languages: String = "eng"

    @Option(name: .customLong("min-text-confidence"), help: ArgumentHelp("With --text, drop words whose confidence (0-1) is below this.", valueName: "c"))
    var minTextConfidence: Double = 0

    @Option(name: .customLong("text-gate"), help: ArgumentHelp("With --text, on colour images over 4 MP (photos): first look for text with PP-OCRv4's detector and run Tesseract only where some is found. auto: when the detector is fetched (scripts/fetch-models); on: require it; off: Tesseract reads every image whole (slower on photos; also reads text under about 0.5% of the long side, which the detector misses).", valueName: "auto|on|off"))
    var textGate: TextGate = .auto

    @Option(name: .customLong("pdf-text"), help: ArgumentHelp("With --text, where a PDF page's text comes from. auto: the page's own text layer (exact words, no OCR) when it has usable text and its images cover under a tenth of it; the layer and OCR of the rest of the page (its figures and photos) when they cover under half; else OCR of the rendered page (a scan, a page of photos); always OCR with --characters. layer: the text layer only (a page without one has no text). ocr: always OCR.", valueName: "auto|layer|ocr"))
    var pdfText: PDFText = .auto

    var isAsked: Bool { text }

    func validate() throws {
        try requireUnitInterval(minTextConfidence, "--min-text-confidence")
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        TextRequest(languages: languages, characterBoxes: characters, minimumConfidence: minTextConfidence,
                    textDetector: textGate.detector.model, detectorIsOptional: textGate.detector.isOptional, pdfText: pdfText)
    }
}
