import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser
import Foundation

/// `--text`, languages, character boxes, confidence.
struct TextOptions: RequestOptions {
    @Flag(
        name: .customLong("text"),
        help:
            "Recognise text: lines and words with boxes and confidences, and the whole text. Clean pages are read by Tesseract; photos, signs, receipts and screenshots by PP-OCRv4's networks (when fetched)."
    )
    var text = false

    @Flag(
        name: .customLong("characters"), help: "With --text, also report a box per character (Vision's characterBoxes)."
    )
    var characters = false

    @Option(
        help: ArgumentHelp(
            "Languages for --text, joined with '+' (Vision's recognitionLanguages). auto: every language the engines read (the text network's simplified Chinese and English, Tesseract's English), each line saying which it was read as. Or Tesseract's codes, e.g. eng+deu (needs tesseract-ocr-<lang>; a missing one is a warning); the network reads eng and chi_sim (also written en-US, zh-Hans), only English characters when chi_sim is not named; with any other language Tesseract reads every image.",
            valueName: "langs"))
    var languages: String = TextLanguages.automatic

    @Option(
        name: .customLong("min-text-confidence"),
        help: ArgumentHelp("With --text, drop words whose confidence (0-1) is below this.", valueName: "c"))
    var minTextConfidence: Double = 0

    @Option(
        name: .customLong("text-gate"),
        help: ArgumentHelp(
            "With --text, the networks: on colour images over 4 MP (photos) PP-OCRv4's detector first looks for text and only the parts with some are read; what is not a clean page is read by PP-OCRv4's line networks (on ONNX Runtime). auto: when they are fetched (scripts/fetch-models); on: require them; off: no network, Tesseract reads every image whole (slower on photos, and barely reads signs or photographed receipts).",
            valueName: "auto|on|off"))
    var textGate: TextGate = .auto

    @Option(
        name: .customLong("pdf-text"),
        help: ArgumentHelp(
            "With --text, where a PDF page's text comes from. auto: the page's own text layer (exact words, no OCR) when it has usable text and its images cover under a tenth of it; the layer and OCR of the rest of the page (its figures and photos) when they cover under half; else OCR of the rendered page (a scan, a page of photos); always OCR with --characters. layer: the text layer only (a page without one has no text). ocr: always OCR.",
            valueName: "auto|layer|ocr"))
    var pdfText: PDFText = .auto

    @Option(
        name: .customLong("recognition-level"),
        help: ArgumentHelp(
            "With --text, how hard the text network looks (Vision's recognitionLevel). accurate: lines found on a copy of up to 2000 px, upside-down lines turned; fast: up to 1280 px, lines read as they stand.",
            valueName: "accurate|fast"))
    var recognitionLevel: TextRecognitionLevel = .accurate

    @Option(
        name: .customLong("min-text-height"),
        help: ArgumentHelp(
            "With --text, drop lines less tall than this fraction (0-1) of the image's height (Vision's minimumTextHeight).",
            valueName: "f"))
    var minTextHeight: Double = 0

    @Option(
        name: .customLong("custom-words"),
        help: ArgumentHelp(
            "With --text, words to prefer, joined with commas (Vision's customWords): a word read one edit away (two for words of 8 or more characters) from one of these becomes it. Repeatable.",
            valueName: "w1,w2"))
    var customWordLists: [String] = []

    /// The custom words of every `--custom-words`, split at commas.
    var customWords: [String] {
        customWordLists.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Flag(
        name: .customLong("language-correction"), inversion: .prefixedNo,
        help: "With --text, correct words towards --custom-words (Vision's usesLanguageCorrection).")
    var languageCorrection = true

    var isAsked: Bool { text }

    func validate() throws {
        try requireUnitInterval(minTextConfidence, "--min-text-confidence")
        try requireUnitInterval(minTextHeight, "--min-text-height")
        if customWords.contains(where: { $0.isEmpty || $0.count > 100 }) {
            throw ValidationError("--custom-words: each word must be 1 to 100 characters")
        }
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        TextRequest(
            languages: languages, characterBoxes: characters, minimumConfidence: minTextConfidence,
            textDetector: textGate.detector.model, detectorIsOptional: textGate.detector.isOptional, pdfText: pdfText,
            reader: textGate.reader.models, readerIsOptional: textGate.reader.isOptional,
            recognitionLevel: recognitionLevel,
            minimumTextHeight: minTextHeight, customWords: languageCorrection ? customWords : [])
    }
}
