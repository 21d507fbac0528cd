internal import CTesseract
import Foundation

/// Owns one Tesseract engine (`TessBaseAPICreate` + `TessBaseAPIInit3`) for a language set. The library
/// itself is opened on first use (CTesseract's loader), so runs without text never load it.
///
/// Initialisation costs tens of milliseconds and the engine is not thread-safe, so each worker
/// thread creates one, once, and reuses it for every image it processes.
final class TesseractEngine {
    private let api: OpaquePointer
    let languages: String

    init(languages: String) throws(AnalysisError) {
        // Creation and Init touch Tesseract's process-wide parameters (debug_file is a global
        // std::string): concurrent initialisation corrupts the heap, so it is serialised.
        Self.initialisation.lock()
        defer { Self.initialisation.unlock() }
        if let reason = atess_load_error() { throw AnalysisError(.engineUnavailable, String(cString: reason)) }
        _ = Self.processSettings
        guard let api = TessBaseAPICreate() else { throw AnalysisError(.engineUnavailable, "TessBaseAPICreate failed") }
        // Tesseract's debug printing goes nowhere; errors still surface through return codes.
        TessBaseAPISetVariable(api, "debug_file", "/dev/null")
        guard TessBaseAPIInit3(api, nil, languages) == 0 else {
            // Freed here: `self` is not initialised yet, so deinit will not run.
            TessBaseAPIDelete(api)
            throw AnalysisError(
                .engineUnavailable,
                "Tesseract could not load the trained data for '\(languages)' (install tesseract-ocr-<lang>, e.g. `apt-get install tesseract-ocr-deu`, or set TESSDATA_PREFIX)"
            )
        }
        self.api = api
        self.languages = languages
        TessBaseAPISetPageSegMode(api, PSM_AUTO)
    }

    private static let initialisation = NSLock()

    /// Leptonica's message severity is process-wide: set it to L_SEVERITY_NONE (6) once.
    private static let processSettings: Void = { _ = setMsgSeverity(6) }()

    /// Makes Tesseract's OpenMP regions run on the calling thread (`omp_set_max_active_levels(0)`),
    /// so the batch runner's workers, not OpenMP, use the cores. libgomp keeps this setting per
    /// thread (measured: set on one worker only, the other worker's regions still fan out and CPU
    /// time rose 45%), so it is applied on the thread that is about to run Tesseract, every time.
    private static func limitOpenMPOnThisThread() {
        omp_set_max_active_levels(0)
    }

    deinit {
        Self.initialisation.lock()
        defer { Self.initialisation.unlock() }
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Recognises the text of an 8-bit gray image: lines with words (and characters on request),
    /// and the whole page text (`TessBaseAPIRecognize`, a result iterator, `TessBaseAPIGetUTF8Text`).
    func recognize(_ gray: OpenCVMat, characterBoxes: Bool) throws(AnalysisError) -> (
        lines: [TextObservation], fullText: String
    ) {
        guard gray.channels == 1 else { throw AnalysisError(.engineFailed, "Tesseract needs a gray image") }
        Self.limitOpenMPOnThisThread()
        let recognized = gray.withPixels { pixels, stride -> Bool in
            TessBaseAPISetImage(api, pixels, Int32(gray.width), Int32(gray.height), 1, Int32(stride))
            TessBaseAPISetSourceResolution(api, 300)
            return TessBaseAPIRecognize(api, nil) == 0
        }
        defer {
            TessBaseAPIClear(api)
            // Forget what the legacy classifier adapted to on this page: every image is read as if
            // it were the first (results independent of which worker read what before), and the
            // adapted templates do not grow over a long run.
            TessBaseAPIClearAdaptiveClassifier(api)
        }
        guard recognized else { throw AnalysisError(.engineFailed, "Tesseract failed to recognise the page") }

        var fullText = ""
        if let text = TessBaseAPIGetUTF8Text(api) {
            fullText = String(cString: text)
            TessDeleteText(text)
        }
        guard let iterator = TessBaseAPIGetIterator(api) else { return ([], Self.tidy(fullText)) }
        defer { TessResultIteratorDelete(iterator) }
        let page = TessResultIteratorGetPageIterator(iterator)

        let level = characterBoxes ? RIL_SYMBOL : RIL_WORD
        var lines: [TextObservation] = []
        var lineStart: (text: String, confidence: Double, box: BoundingBox)?
        var words: [RecognizedWord] = []
        var wordStart: (text: String, confidence: Double, box: BoundingBox)?
        var characters: [RecognizedCharacter] = []

        func closeWord() {
            if let w = wordStart, !w.text.isEmpty {
                words.append(
                    RecognizedWord(
                        string: w.text, confidence: w.confidence, boundingBox: w.box,
                        characters: characterBoxes ? characters : nil))
            }
            wordStart = nil
            characters = []
        }
        func closeLine() {
            closeWord()
            if let l = lineStart, !words.isEmpty {
                lines.append(
                    TextObservation(string: l.text, confidence: l.confidence, boundingBox: l.box, words: words))
            }
            lineStart = nil
            words = []
        }
        func element(_ level: TessPageIteratorLevel) -> (text: String, confidence: Double, box: BoundingBox)? {
            guard let raw = TessResultIteratorGetUTF8Text(iterator, level) else { return nil }
            defer { TessDeleteText(raw) }
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            guard TessPageIteratorBoundingBox(page, level, &left, &top, &right, &bottom) != 0 else { return nil }
            let text = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
            let confidence = min(1, max(0, Double(TessResultIteratorConfidence(iterator, level)) / 100))
            return (
                text, confidence,
                BoundingBox(x: Double(left), y: Double(top), width: Double(right - left), height: Double(bottom - top))
            )
        }

        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 {
                closeLine()
                lineStart = element(RIL_TEXTLINE)
            }
            if TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0 {
                closeWord()
                wordStart = element(RIL_WORD)
            }
            if characterBoxes, let c = element(RIL_SYMBOL), !c.text.isEmpty {
                characters.append(RecognizedCharacter(string: c.text, confidence: c.confidence, boundingBox: c.box))
            }
        } while TessResultIteratorNext(iterator, level) != 0
        closeLine()
        return (lines, Self.tidy(fullText))
    }

    /// Tesseract's orientation and script detection (`TessBaseAPIDetectOrientationScript`; the
    /// engine must be initialised with the `osd` data): how many degrees the page must be turned
    /// counter-clockwise to read upright (0, 90, 180, 270), with Tesseract's confidence.
    func detectOrientation(_ gray: OpenCVMat) -> (degrees: Int, confidence: Double)? {
        Self.limitOpenMPOnThisThread()
        gray.withPixels { pixels, stride in
            TessBaseAPISetImage(api, pixels, Int32(gray.width), Int32(gray.height), 1, Int32(stride))
            TessBaseAPISetSourceResolution(api, 300)
        }
        defer { TessBaseAPIClear(api) }
        var degrees: Int32 = 0
        var confidence: Float = 0
        var script: UnsafePointer<CChar>?
        var scriptConfidence: Float = 0
        guard TessBaseAPIDetectOrientationScript(api, &degrees, &confidence, &script, &scriptConfidence) != 0 else {
            return nil
        }
        // Not freed: despite capi.h's comment, Tesseract 5.3 points `script` into its own
        // unicharset (baseapi.cpp), and TessDeleteText on it corrupts the heap.
        _ = script
        return (Int(degrees), Double(confidence))
    }

    /// Trailing white space and form feeds removed; at most one blank line between blocks.
    static func tidy(_ text: String) -> String {
        var lines = text.replacingOccurrences(of: "\u{0C}", with: "").components(separatedBy: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var result: [String] = []
        for line in lines where !(line.isEmpty && (result.last?.isEmpty ?? true)) { result.append(line) }
        while result.last?.isEmpty == true { result.removeLast() }
        lines = result
        return lines.joined(separator: "\n")
    }
}

extension WorkerEngines {
    /// The worker's Tesseract engine for a language set (`eng`, `eng+deu`, `osd`).
    func textEngine(languages: String) throws(AnalysisError) -> TesseractEngine {
        try engine(TesseractEngine.self, for: languages) { () throws(AnalysisError) in
            try TesseractEngine(languages: languages)
        }
    }
}
