/// Recognises text (like `VNRecognizeTextRequest`): lines, words, optionally characters. Clean pages are
/// read by Tesseract; photos, signs, receipts, screenshots and lines cut out of photos by PP-OCR's networks
/// (``TextLineReader``) when they are there.
public struct TextRequest: ImageRequest {
    public static let kind = ObservationKind.text
    /// With its detector, about 180 ms a photo: the costliest.
    public static let cost = 3
    public static let countNoun = "text line"
    public static let extraCountNouns = ["words": "word"]
    public static var optionalModels: [OptionalModel] {
        [
            OptionalModel(
                use: "text (--text-gate auto)", model: ppocrDetector.identity,
                without: "every large image is read whole")
        ]
            + TextReaderModels.ppocrV4.identities.map {
                OptionalModel(
                    use: "text (--text-gate auto)", model: $0, without: "Tesseract reads photos, signs and receipts too"
                )
            }
    }

    /// The languages to read (``TextLanguages``): `auto` (the default) for every language the engines read,
    /// detected line by line; or codes joined with `+`, e.g. `eng`, `eng+deu`, `zh-Hans`.
    public var languages: String

    /// ``languages`` as each engine takes them.
    public var reading: TextLanguages { TextLanguages(languages) }

    /// What the request warns about on every image it reads: a language asked for whose Tesseract data is
    /// not installed.
    public var warnings: [String] { reading.warnings }
    /// Also report per-character boxes (Vision's `characterBoxes`).
    public var characterBoxes: Bool
    /// Words below this confidence (0–1) are dropped; lines left empty are dropped.
    public var minimumConfidence: Double

    /// When the first reading is poor, ask Tesseract's orientation detector whether the page is
    /// turned by 90°, 180° or 270° in its pixels (a scan fed in sideways, no EXIF tag) and, if so,
    /// read it again turned upright. Coordinates stay those of the image as it is.
    public var detectsPageRotation: Bool

    /// The text detector that decides, on a colour image of more than ``gatePixels``, whether there is
    /// any text to read: where it finds none, Tesseract is not run (on a photo without text its
    /// layout analysis alone costs seconds). nil: every image is read whole.
    public var textDetector: TextDetectorModel?
    /// Whether the request runs without ``textDetector`` when its files are missing or damaged
    /// (`--text-gate auto`): ``resolvingOptionalModels(with:)`` decides, for a run that performs the
    /// request. Not part of the options hash: after resolution only ``textDetector`` matters.
    public var detectorIsOptional = false

    /// Where a PDF page's text comes from (`--pdf-text`): the page's own text layer or OCR of its pixels.
    public var pdfText: PDFText = .auto

    /// PP-OCR's networks (``TextReaderModels``), which read what is not a clean page (photos, signs,
    /// receipts, screenshots, lines cut out of photos); nil: Tesseract reads everything.
    public var reader: TextReaderModels?
    /// Whether the request runs without ``reader`` when its files are missing (as ``detectorIsOptional``).
    public var readerIsOptional = false
    /// Vision's `recognitionLevel`: how hard the network path looks (``TextRecognitionLevel``).
    public var recognitionLevel: TextRecognitionLevel = .accurate
    /// Vision's `minimumTextHeight`: lines less tall than this fraction of the image's height are
    /// dropped (0: none).
    public var minimumTextHeight: Double = 0
    /// Vision's `customWords` and `usesLanguageCorrection`: words read close to a custom word become it.
    public var correction = TextCorrection(customWords: [])

    /// PP-OCRv4's DB detector (``TextDetectorModel/ppocrV4``).
    public static let ppocrDetector = TextDetectorModel.ppocrV4

    /// Images of at most this many pixels are always read whole: Tesseract on them costs about what
    /// the detector does or less (measured: 100-150 ms on the corpus's 1800×1200 photos, 80 ms on
    /// 0.5 MP ones, against 200 ms for the detector; 520 ms on 12 MP phone photos).
    public static let gatePixels = 4_000_000

    public var models: [ModelIdentity] {
        var seen = Set<ModelIdentity>()
        return ((textDetector?.identities ?? []) + (reader?.identities ?? [])).filter { seen.insert($0).inserted }
    }

    /// Without the detector (or the reader's networks) when it is optional and its files are not there
    /// (checked by their SHA-256, as when they load); as it is otherwise.
    public func resolvingOptionalModels(with models: ModelLocator) -> TextRequest {
        var resolved = self
        if detectorIsOptional, let textDetector {
            resolved.detectorIsOptional = false
            if !textDetector.identities.allSatisfy({ models.contains($0) }) { resolved.textDetector = nil }
        }
        if readerIsOptional, let reader {
            resolved.readerIsOptional = false
            if !reader.identities.allSatisfy({ models.contains($0) }) { resolved.reader = nil }
        }
        return resolved
    }

    private enum CodingKeys: String, CodingKey {
        case languages, characterBoxes, minimumConfidence, detectsPageRotation, textDetector, pdfText
        case reader, recognitionLevel, minimumTextHeight, customWords
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            languages: try c.decode(String.self, forKey: .languages),
            characterBoxes: try c.decode(Bool.self, forKey: .characterBoxes),
            minimumConfidence: try c.decode(Double.self, forKey: .minimumConfidence),
            detectsPageRotation: try c.decode(Bool.self, forKey: .detectsPageRotation),
            textDetector: try c.decodeIfPresent(TextDetectorModel.self, forKey: .textDetector),
            pdfText: try c.decodeIfPresent(PDFText.self, forKey: .pdfText) ?? .auto,
            reader: try c.decodeIfPresent(TextReaderModels.self, forKey: .reader),
            recognitionLevel: try c.decodeIfPresent(TextRecognitionLevel.self, forKey: .recognitionLevel) ?? .accurate,
            minimumTextHeight: try c.decodeIfPresent(Double.self, forKey: .minimumTextHeight) ?? 0,
            customWords: try c.decodeIfPresent([String].self, forKey: .customWords) ?? [])
    }

    /// Options at their defaults are left out (`pdfText`, the level, the height, the words), so that
    /// the options hash of a run without them stays what it was before they existed.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(languages, forKey: .languages)
        try c.encode(characterBoxes, forKey: .characterBoxes)
        try c.encode(minimumConfidence, forKey: .minimumConfidence)
        try c.encode(detectsPageRotation, forKey: .detectsPageRotation)
        try c.encodeIfPresent(textDetector, forKey: .textDetector)
        if pdfText != .auto { try c.encode(pdfText, forKey: .pdfText) }
        try c.encodeIfPresent(reader, forKey: .reader)
        if recognitionLevel != .accurate { try c.encode(recognitionLevel, forKey: .recognitionLevel) }
        if minimumTextHeight > 0 { try c.encode(minimumTextHeight, forKey: .minimumTextHeight) }
        if !correction.customWords.isEmpty { try c.encode(correction.customWords, forKey: .customWords) }
    }

    /// English text as the command line reads it (`--text`, `--text-gate auto`): PP-OCR's networks
    /// read photos, signs and screenshots when `scripts/fetch-models` has fetched them, Tesseract reads
    /// clean pages (and everything when the networks are not there), as Vision's `RecognizeTextRequest()`
    /// reads any picture. `TextRequest(gate: .off)` is Tesseract alone.
    public init() { self.init(languages: TextLanguages.automatic, gate: .auto) }

    /// Text in `languages` with the networks `gate` asks for (the command line's `--text-gate`; `.auto`
    /// is its default: PP-OCR's networks read photos when `scripts/fetch-models` has fetched them).
    public init(languages: String = TextLanguages.automatic, gate: TextGate) {
        self.init(
            languages: languages, textDetector: gate.detector.model, detectorIsOptional: gate.detector.isOptional,
            reader: gate.reader.models, readerIsOptional: gate.reader.isOptional)
    }

    public init(
        languages: String = TextLanguages.automatic, characterBoxes: Bool = false, minimumConfidence: Double = 0,
        detectsPageRotation: Bool = true,
        textDetector: TextDetectorModel? = nil, detectorIsOptional: Bool = false, pdfText: PDFText = .auto,
        reader: TextReaderModels? = nil, readerIsOptional: Bool = false,
        recognitionLevel: TextRecognitionLevel = .accurate,
        minimumTextHeight: Double = 0, customWords: [String] = []
    ) {
        self.languages = languages
        self.reader = reader
        self.readerIsOptional = readerIsOptional
        self.recognitionLevel = recognitionLevel
        self.minimumTextHeight = minimumTextHeight
        self.correction = TextCorrection(customWords: customWords)
        self.pdfText = pdfText
        self.detectsPageRotation = detectsPageRotation
        self.textDetector = textDetector
        self.detectorIsOptional = detectorIsOptional
        self.characterBoxes = characterBoxes
        self.minimumConfidence = minimumConfidence
    }

    /// Lines and the whole page text. One recognition pass; a second only when the first reading
    /// is poor and Tesseract's orientation detection (needs `tesseract-ocr-osd`) finds the page turned.
    public func perform(on image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> RecognizedPage {
        let page = try recognize(image, engines: engines)
        let reading = self.reading
        return RecognizedPage(
            lines: page.lines.map { $0.reading(as: reading.language(of: $0.string)) }, fullText: page.fullText,
            source: page.source)
    }

    private func recognize(_ image: UprightImage, engines: WorkerEngines) throws(AnalysisError) -> RecognizedPage {
        // A PDF page whose own text is taken (``pdfPageText(of:page:resolution:width:height:warnings:)``),
        // with the rest of the page read when it has figures.
        if let page = image.documentPage {
            var warnings: [String] = []
            let pageText = PDFRenderer.$pageTimeout.withValue(page.timeout) {
                pdfPageText(
                    of: page.document, page: page.number, resolution: page.resolution, width: image.width,
                    height: image.height, warnings: &warnings)
            }
            page.warn(warnings)
            if let pageText {
                return pageText.source == .pdfTextLayerAndOCR
                    ? try readingAround(pageText, in: image, engines: engines) : pageText
            }
        }
        let network = reader.flatMap { reading.networkReads ? $0 : nil }
        // Tesseract reads the clean pages when it has the languages' data; when it has none of them (`chi_sim`
        // not installed) and the network reads them, the network reads everything.
        let tesseractReads = network == nil || reading.tesseract != nil
        func isPage(_ area: TextArea?) throws(AnalysisError) -> Bool {
            guard tesseractReads else { return false }
            return try Self.isCleanPage(image, in: area)
        }
        // A line or a word cut out of a photo: the recognizer reads it whole; one on clean paper (a
        // label, a line of a page) is Tesseract's when Tesseract is sure of it (a mean word confidence of
        // ``sureLineConfidence``: on opencv-doc's crop of a hand-written "HERE" Tesseract reads "pc ee").
        if let network, image.height <= Self.lineImageHeight, image.width >= image.height {
            if try isPage(nil) {
                let read = try read(image, in: nil, engines: engines)
                if Self.meanConfidence(read.lines) >= Self.sureLineConfidence {
                    return page(read.lines, fullText: read.fullText, image: image)
                }
            }
            if let lines = try readLineImage(image, models: network, engines: engines) {
                return page(lines, fullText: lines.map(\.string).joined(separator: "\n"), image: image)
            }
        }
        // Routed by what the image holds, not by how its pixels are stored: a gray image that is not a clean
        // page (a gray photo, a one-channel export of a sign) is read as a colour one is. A clean gray page
        // is a scan: it is read whole, as the detector would find text all over it.
        var wholeIsPage: Bool?
        func isWholePage() throws(AnalysisError) -> Bool {
            if let wholeIsPage { return wholeIsPage }
            let page = try isPage(nil)
            wholeIsPage = page
            return page
        }
        let readAsColour = image.hasColour ? true : !(try isWholePage())
        if let textDetector, image.width * image.height > Self.gatePixels, readAsColour {
            let regions = try Self.regions(in: image, detector: textDetector, engines: engines)
            let areas = TextArea.areas(enclosing: regions, width: image.width, height: image.height)
            // Text in parts of the photo (signs, labels) is read there, each part on its own, in
            // reading order (no region: no part, nothing read); a page of text, whole.
            if areas.reduce(0, { $0 + $1.width * $1.height })
                <= Int(Self.maximumAreaFraction * Double(image.width * image.height))
            {
                var lines: [TextObservation] = [], texts: [String] = []
                for area in areas {
                    // Each part by the engine that reads its kind: a pasted page or a printed label
                    // on white by Tesseract, the rest of a photo by the network.
                    let part =
                        if let network, !(try isPage(area)) {
                            try readWithNetwork(image, in: area, models: network, engines: engines)
                        } else if let network {
                            try rereadingUnsureLines(
                                Self.vouched(try read(image, in: area, engines: engines), regions: regions), in: image,
                                models: network, engines: engines)
                        } else {
                            Self.vouched(try read(image, in: area, engines: engines), regions: regions)
                        }
                    lines += part.lines
                    if !part.fullText.isEmpty { texts.append(part.fullText) }
                }
                return page(lines, fullText: texts.joined(separator: "\n\n"), image: image)
            }
        }
        // An image is read by the network unless it is a clean page standing upright, gray or colour: a light
        // colour screenshot (landscape, mostly white) is the network's too.
        let networkReadsWhole = image.hasColour && image.width > image.height ? true : !(try isWholePage())
        if let network, networkReadsWhole {
            // A photo the detector finds no text in has none to read: the line networks (about half a
            // second on a 1 MP photo) do not run.
            if let textDetector, image.width * image.height <= Self.gatePixels,
                try Self.regions(in: image, detector: textDetector, engines: engines).isEmpty
            {
                return page([], fullText: "", image: image)
            }
            let read = try readWithNetwork(image, in: nil, models: network, engines: engines)
            return page(read.lines, fullText: read.fullText, image: image)
        }
        var read = try read(image, in: nil, engines: engines)
        if let network {
            // What looked like a clean page but where Tesseract found no line (a gray photo with light areas,
            // a sign on it) is read by the network; the lines Tesseract is unsure of are read again by it.
            read =
                read.lines.isEmpty
                ? try readWithNetwork(image, in: nil, models: network, engines: engines)
                : try rereadingUnsureLines(read, in: image, models: network, engines: engines)
        }
        return page(read.lines, fullText: read.fullText, image: image)
    }

    /// The recognised page with ``minimumTextHeight`` and the custom words applied to every line
    /// (those the network read have them already).
    func page(_ lines: [TextObservation], fullText: String, image: UprightImage) -> RecognizedPage {
        guard minimumTextHeight > 0 || !correction.customWords.isEmpty else {
            return RecognizedPage(lines: lines, fullText: fullText)
        }
        let least = minimumTextHeight * Double(image.height)
        var changed = false
        let kept = lines.compactMap { line -> TextObservation? in
            let height = line.corners.map { Self.across($0) } ?? line.boundingBox.height
            guard height >= least else { changed = true; return nil }
            guard line.recognizer == nil, !correction.customWords.isEmpty else { return line }
            let words = line.words.map { w in
                RecognizedWord(
                    string: correction.corrected(w.string), confidence: w.confidence, boundingBox: w.boundingBox,
                    characters: w.characters)
            }
            guard words != line.words else { return line }
            changed = true
            return TextObservation(
                string: words.map(\.string).joined(separator: " "), confidence: line.confidence,
                boundingBox: line.boundingBox,
                words: words, corners: line.corners, topCandidates: line.topCandidates, recognizer: line.recognizer)
        }
        return RecognizedPage(lines: kept, fullText: changed ? kept.map(\.string).joined(separator: "\n") : fullText)
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
