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
    public init() { self.init(languages: "eng", gate: .auto) }

    /// Text in `languages` with the networks `gate` asks for (the command line's `--text-gate`; `.auto`
    /// is its default: PP-OCR's networks read photos when `scripts/fetch-models` has fetched them).
    public init(languages: String = "eng", gate: TextGate) {
        self.init(
            languages: languages, textDetector: gate.detector.model, detectorIsOptional: gate.detector.isOptional,
            reader: gate.reader.models, readerIsOptional: gate.reader.isOptional)
    }

    public init(
        languages: String = "eng", characterBoxes: Bool = false, minimumConfidence: Double = 0,
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
        let network = reader.flatMap { Self.networkReads(languages: languages) ? $0 : nil }
        // Tesseract reads the clean pages when it has the languages' data; when it has not (`chi_sim`
        // not installed) and the network reads them, the network reads everything.
        let tesseractReads = network == nil || (try? engines.textEngine(languages: languages)) != nil
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
        // A gray image (or a gray page saved as RGB) is a scan: it is read whole, as the detector
        // would find text on it.
        if let textDetector, image.width * image.height > Self.gatePixels, image.hasColour {
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
                        } else {
                            Self.vouched(try read(image, in: area, engines: engines), regions: regions)
                        }
                    lines += part.lines
                    if !part.fullText.isEmpty { texts.append(part.fullText) }
                }
                return page(lines, fullText: texts.joined(separator: "\n\n"), image: image)
            }
        }
        // A colour image is read by the network unless it is a clean page standing upright: a light
        // screenshot (landscape, mostly white) is the network's too (`scripts/evaluate-text`: Tesseract
        // read 62% of six light screenshots' words with 43 junk words, the network 9x% of the dark ones).
        if let network, image.hasColour, !(try isPage(nil)) || image.width > image.height {
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
        let read = try read(image, in: nil, engines: engines)
        return page(read.lines, fullText: read.fullText, image: image)
    }

    /// Where the gate's detector (``TextRegionDetector``, on a copy of at most 672×512 pixels) finds text.
    static func regions(in image: UprightImage, detector model: TextDetectorModel, engines: WorkerEngines)
        throws(AnalysisError) -> [BoundingBox]
    {
        let detector = try engines.textRegionDetector(model)
        let input = TextDetectorModel.input(forWidth: image.width, height: image.height)
        let source = try image.reduction(toFit: input.width, input.height)
        return try detector.regions(in: source, reducedFrom: (image.width, image.height))
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

    /// A PDF page's text layer and what Tesseract reads on the rest of the page: the layer's words are
    /// blanked out (white, a little beyond their boxes) on a copy of the page and the copy is read
    /// whole. Lines of the reading that touch a layer word (what is left of a blanked word) or that
    /// Tesseract is unsure of (under ``unvouchedMinimumConfidence``: a chart's axes and ticks read as
    /// letters) are dropped. The layer's lines come first, in the layer's order, then the read lines.
    func readingAround(_ layer: RecognizedPage, in image: UprightImage, engines: WorkerEngines) throws(AnalysisError)
        -> RecognizedPage
    {
        let layerWords = layer.lines.flatMap(\.words).map(\.boundingBox)
        let rest = try read(
            UprightImage(pixels: try Self.blanking(layerWords, in: image), orientation: .up), in: nil, engines: engines)
        let read = rest.lines.filter { line in
            line.confidence >= Self.unvouchedMinimumConfidence && !layerWords.contains { $0.overlaps(line.boundingBox) }
        }
        let texts = [layer.fullText, read.map(\.string).joined(separator: "\n")].filter { !$0.isEmpty }
        return RecognizedPage(
            lines: layer.lines + read, fullText: texts.joined(separator: "\n\n"), source: .pdfTextLayerAndOCR)
    }

    /// A gray copy of `image` with every box (and ``blankingMargin`` around it) white.
    static func blanking(_ boxes: [BoundingBox], in image: UprightImage) throws(AnalysisError) -> OpenCVMat {
        let blanked = try image.gray().gray()  // a copy: a gray page's own pixels are shared
        for box in boxes {
            let x = max(0, Int(box.x) - blankingMargin), y = max(0, Int(box.y) - blankingMargin)
            let right = min(blanked.width, Int((box.x + box.width).rounded(.up)) + blankingMargin)
            let bottom = min(blanked.height, Int((box.y + box.height).rounded(.up)) + blankingMargin)
            guard right > x, bottom > y else { continue }
            blanked.fill(x: x, y: y, width: right - x, height: bottom - y, value: 255)
        }
        return blanked
    }

    /// How far beyond a layer word's box its pixels are blanked (``readingAround(_:in:engines:)``):
    /// pdftotext's boxes are the font's, and a glyph's antialiased edge can stand a pixel or two outside.
    static let blankingMargin = 3

    /// The lines of a part of a large photo that something vouches for: the detector (the line
    /// overlaps one of its regions) or Tesseract (a confidence of at least ``unvouchedMinimumConfidence``).
    /// The part is grown well past the regions so that small print the detector found only pieces of
    /// is read whole; what else Tesseract reads there is mostly the photo's texture read as junk. On
    /// 30 photos with a pasted page, every junk line had a confidence of 0.44 or less and every line of
    /// the page 0.79 or more. The whole text loses the same lines.
    static func vouched(_ page: (lines: [TextObservation], fullText: String), regions: [BoundingBox]) -> (
        lines: [TextObservation], fullText: String
    ) {
        func overlapsARegion(_ box: BoundingBox) -> Bool { regions.contains { $0.overlaps(box) } }
        var kept: [TextObservation] = [], dropped: [String] = []
        for line in page.lines {
            if line.confidence >= unvouchedMinimumConfidence || overlapsARegion(line.boundingBox) {
                kept.append(line)
            } else {
                dropped.append(line.string)
            }
        }
        guard !dropped.isEmpty else { return page }
        // The whole text holds each line as its own row: a row that reads as a dropped line is taken
        // out (once per dropped line), and the blank rows between blocks tidied again.
        var toDrop = Dictionary(dropped.map { ($0, 1) }, uniquingKeysWith: +)
        var rows: [String] = []
        for row in page.fullText.components(separatedBy: "\n") {
            let line = row.trimmingCharacters(in: .whitespaces)
            if let count = toDrop[line], count > 0 { toDrop[line] = count - 1; continue }
            rows.append(row)
        }
        return (kept, TesseractEngine.tidy(rows.joined(separator: "\n")))
    }

    /// The confidence a line outside the detector's regions needs to be kept (``vouched(_:regions:)``).
    static let unvouchedMinimumConfidence = 0.6

    /// When the parts of a large image around the text the detector found cover at most this fraction
    /// of it, Tesseract reads only those parts.
    public static let maximumAreaFraction = 0.5

    /// The part of a large image Tesseract reads: the detector's regions, each grown by its height
    /// (a line's ascenders and descenders), and a region of small print by twice its height up and
    /// down (the lines beside it the detector missed) and six times to the left and right (the rest
    /// of a line it found only part of); regions whose grown boxes overlap are one part, read on its
    /// own (two labels at opposite corners are two small parts, not most of the photo). On 24 photos
    /// with a pasted page of 18-24 px capitals this read 86% of the words instead of 60%
    /// (`scripts/evaluate-text-gate`; the junk read around them is dropped by ``vouched(_:regions:)``):
    /// small print is where the detector, at a sixth of a 12 MP photo's size, is at its limit.
    struct TextArea {
        let x, y, width, height: Int

        /// How far a region of small print is grown, in its heights, up and down and to either side.
        static let verticalMargin = 2.0, horizontalMargin = 6.0
        /// Regions up to this tall (full-resolution pixels) are small print: a line of 20-px capitals
        /// gives 30-36 px. A taller region, which the detector sees whole, is grown by its own height:
        /// a wide margin of a busy background around a label costs Tesseract time and can hide the label.
        static let smallPrintHeight = 48.0

        init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }

        /// A region grown by its margins, within the image; nil when nothing of it is left.
        init?(growing r: BoundingBox, width imageWidth: Int, height imageHeight: Int) {
            let small = r.height > Self.smallPrintHeight ? 0 : r.height
            let dy = max(16, r.height, Self.verticalMargin * small),
                dx = max(16, r.height, Self.horizontalMargin * small)
            let left = max(0, Int(r.x - dx)), top = max(0, Int(r.y - dy))
            let right = min(imageWidth, Int((r.x + r.width + dx).rounded(.up))),
                bottom = min(imageHeight, Int((r.y + r.height + dy).rounded(.up)))
            guard right > left, bottom > top else { return nil }
            self.init(x: left, y: top, width: right - left, height: bottom - top)
        }

        var box: BoundingBox { BoundingBox(x: Double(x), y: Double(y), width: Double(width), height: Double(height)) }

        func union(_ other: TextArea) -> TextArea {
            let left = min(x, other.x), top = min(y, other.y)
            return TextArea(
                x: left, y: top, width: max(x + width, other.x + other.width) - left,
                height: max(y + height, other.y + other.height) - top)
        }

        /// The parts to read: the regions grown, those that overlap joined (again, until none
        /// overlaps), in reading order (top to bottom, then left to right).
        static func areas(enclosing regions: [BoundingBox], width: Int, height: Int) -> [TextArea] {
            var parts = regions.compactMap { TextArea(growing: $0, width: width, height: height) }
            var joined = true
            while joined {
                joined = false
                var i = 0
                while i < parts.count {
                    var j = i + 1
                    while j < parts.count {
                        if parts[i].box.overlaps(parts[j].box) {
                            parts[i] = parts[i].union(parts[j])
                            parts.remove(at: j)
                            joined = true
                        } else {
                            j += 1
                        }
                    }
                    i += 1
                }
            }
            return parts.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
        }
    }

    func read(_ image: UprightImage, in area: TextArea?, engines: WorkerEngines) throws(AnalysisError) -> (
        lines: [TextObservation], fullText: String
    ) {
        let engine = try engines.textEngine(languages: languages)
        var gray = try image.gray()
        var toImage: [Double]?
        if let area {
            gray = try gray.cropped(x: area.x, y: area.y, width: area.width, height: area.height)
            toImage = Affine.translation(x: Double(area.x), y: Double(area.y))
        }
        // Read scaled down, every box mapped back: a page of large print at the size its glyphs need
        // (``GlyphScale``); a page with a side over 32767 px, which Tesseract refuses, to fit.
        let side = max(gray.width, gray.height)
        if let scale = side > Self.maximumSide
            ? Double(Self.maximumSide) / Double(side) : try GlyphScale.scale(for: gray)
        {
            let w = max(1, Int(Double(gray.width) * scale)), h = max(1, Int(Double(gray.height) * scale))
            let (fullWidth, fullHeight) = (gray.width, gray.height)
            gray = try gray.resized(width: w, height: h)
            let scaleBack = Affine.scale(x: Double(fullWidth) / Double(w), y: Double(fullHeight) / Double(h))
            toImage = toImage.map { Affine.compose($0, scaleBack) } ?? scaleBack
        }
        var page = try engine.recognize(gray, characterBoxes: characterBoxes)
        if detectsPageRotation, Self.isPoor(page.lines),
            let osd = try? engines.textEngine(languages: "osd"),
            let (degrees, confidence) = osd.detectOrientation(gray), degrees != 0,
            confidence >= Self.minimumOrientationConfidence
        {
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
            return TextObservation(
                string: words.map(\.string).joined(separator: " "), confidence: line.confidence,
                boundingBox: line.boundingBox, words: words)
        }
        return (lines, lines.map(\.string).joined(separator: "\n"))
    }

    /// Tesseract's mean word confidence on a clean line image for its reading to be taken over the network's.
    static let sureLineConfidence = 0.8

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
