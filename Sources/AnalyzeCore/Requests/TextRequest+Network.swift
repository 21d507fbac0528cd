import Foundation

/// The network path of a ``TextRequest``: PP-OCR's line detector, direction classifier and recognizer
/// (``TextLineReader``) for what is not a clean page: photos, signs, labels, receipts, screenshots.
extension TextRequest {
    /// Whether every language asked for is one PP-OCRv4's recognizer reads: English and simplified
    /// Chinese, by Tesseract's codes (`eng`, `chi_sim`) or Vision's (`en-US`, `zh-Hans`).
    static func networkReads(languages: String) -> Bool {
        let codes = languages.split(whereSeparator: { $0 == "+" || $0 == "," }).map { $0.lowercased() }
        return !codes.isEmpty && codes.allSatisfy { code in
            code == "eng" || code == "en" || code.hasPrefix("en-") || code.hasPrefix("en_") || code == "chi_sim" || code == "zh"
                || code.hasPrefix("zh-hans") || code == "zh-cn"
        }
    }

    /// A clean page: at least this fraction of the image (a gray copy at most 256 px a side) is within
    /// ``paperTolerance`` levels of its paper, the most common light level (from 128 up). Scans,
    /// rendered documents and light screenshots are; photos, receipts photographed on a table, signs
    /// and dark screenshots are not (`scripts/evaluate-text`).
    static let cleanPageFraction = 0.6
    static let paperTolerance = 24

    /// The fraction of `gray`'s pixels within ``paperTolerance`` levels of its paper level (0 when it
    /// has no light level common enough to be paper).
    static func paperFraction(of gray: OpenCVMat) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        var total = 0
        gray.withPixels { base, stride in
            for y in 0 ..< gray.height {
                let row = base + y * stride
                for x in 0 ..< gray.width { histogram[Int(row[x])] += 1 }
            }
            total = gray.width * gray.height
        }
        guard total > 0 else { return 0 }
        // The paper: the light level with the most pixels within 8 levels of it.
        var paper = 128, most = -1
        for level in 128 ... 255 {
            let count = histogram[max(0, level - 8) ... min(255, level + 8)].reduce(0, +)
            if count > most { (paper, most) = (level, count) }
        }
        let near = histogram[max(0, paper - paperTolerance) ... min(255, paper + paperTolerance)].reduce(0, +)
        return Double(near) / Double(total)
    }

    /// Whether the part `area` of `image` (the whole image when nil) is a clean page, which Tesseract reads.
    static func isCleanPage(_ image: UprightImage, in area: TextArea?) throws(AnalysisError) -> Bool {
        let side = 256
        var gray: OpenCVMat
        if let area {
            gray = try image.gray().cropped(x: area.x, y: area.y, width: area.width, height: area.height)
        } else {
            gray = try image.reduction(toFit: side, side, gray: true)
        }
        let scale = min(1, Double(side) / Double(max(gray.width, gray.height)))
        if scale < 1 { gray = try gray.resized(width: max(1, Int(Double(gray.width) * scale)), height: max(1, Int(Double(gray.height) * scale))) }
        return paperFraction(of: gray) >= cleanPageFraction
    }

    /// An image this many pixels tall or less, at least as wide as tall, is taken for a line or a word
    /// cut out of a photo: the recognizer reads it whole (the detector, at a short side of 736, would
    /// blow it up past what it was trained on).
    static let lineImageHeight = 160

    /// A line read by the network is kept when its mean character probability is at least this
    /// (PaddleOCR's default is 0.5; `scripts/evaluate-text`: what lies between is mostly texture read as letters).
    static let minimumLineConfidence = 0.7
    /// The detector's mean probability inside a line for the line to be read (PaddleOCR's box_thresh).
    static let minimumLineScore = 0.5

    /// Reads `area` of `image` (the whole image when nil) with the network: lines found, read, kept
    /// when sure enough, in reading order.
    func readWithNetwork(_ image: UprightImage, in area: TextArea?, models: TextReaderModels,
                         engines: WorkerEngines) throws(AnalysisError) -> (lines: [TextObservation], fullText: String) {
        let reader = try engines.textLineReader(models)
        let part = area.map { (x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        let w = part?.width ?? image.width, h = part?.height ?? image.height
        let sides = recognitionLevel.detectorSides
        let input = TextLineReader.detectorInput(width: w, height: h, shortSide: sides.short, longSide: sides.long, maximumZoom: 2)
        var found = try reader.detect(in: image.pixels, part: part, input: input, boxThreshold: Self.minimumLineScore)
        if minimumTextHeight > 0 {
            let least = minimumTextHeight * Double(image.height)
            found = found.filter { Self.across($0.corners) >= least }
        }
        let read = try reader.read(found, in: image.pixels, classifyDirection: recognitionLevel.classifiesDirection)
        let lines = Self.inReadingOrder(read.compactMap { observation(of: $0) })
        return (lines, lines.map(\.string).joined(separator: "\n"))
    }

    /// Reads a line image (``lineImageHeight``) whole with the network; nil when it reads nothing sure enough.
    func readLineImage(_ image: UprightImage, models: TextReaderModels, engines: WorkerEngines) throws(AnalysisError) -> [TextObservation]? {
        let reader = try engines.textLineReader(models)
        let (w, h) = (Double(image.width), Double(image.height))
        let whole = DetectedLine(corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: w, y: 0), PixelPoint(x: w, y: h), PixelPoint(x: 0, y: h)], score: 1)
        let read = try reader.read([whole], in: image.pixels, classifyDirection: recognitionLevel.classifiesDirection)
        let lines = read.compactMap { observation(of: $0) }
        return lines.isEmpty ? nil : lines
    }

    /// The line's height across its reading direction.
    static func across(_ c: [PixelPoint]) -> Double {
        let w = max(c[0].distance(to: c[1]), c[3].distance(to: c[2])), h = max(c[0].distance(to: c[3]), c[1].distance(to: c[2]))
        return h >= TextLineReader.verticalRatio * w ? w : h
    }

    /// A read line as an observation, or nil when it is not sure enough or holds no letter or digit.
    /// Corners are given as the line reads; words are the runs of characters between spaces, each boxed
    /// by the span of the line it was read in.
    func observation(of read: ReadLine) -> TextObservation? {
        guard read.confidence >= Self.minimumLineConfidence, read.text.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        let c = read.line.corners
        // The quadrilateral as the line reads: a vertical line was turned a quarter counter-clockwise
        // (its top-right corner first), an upside-down one half a turn.
        var reading = read.quarterTurn ? [c[1], c[2], c[3], c[0]] : c
        if read.halfTurn { reading = [reading[2], reading[3], reading[0], reading[1]] }
        func point(_ u: Double, _ v: Double) -> PixelPoint {
            let top = (x: reading[0].x + u * (reading[1].x - reading[0].x), y: reading[0].y + u * (reading[1].y - reading[0].y))
            let bottom = (x: reading[3].x + u * (reading[2].x - reading[3].x), y: reading[3].y + u * (reading[2].y - reading[3].y))
            return PixelPoint(x: top.x + v * (bottom.x - top.x), y: top.y + v * (bottom.y - top.y))
        }
        func box(_ start: Double, _ end: Double) -> BoundingBox {
            BoundingBox(enclosing: [point(start, 0), point(end, 0), point(end, 1), point(start, 1)])
        }
        var words: [RecognizedWord] = []
        var run: [(character: String, start: Double, end: Double, probability: Double)] = []
        func flush() {
            guard !run.isEmpty, let first = run.first, let last = run.last else { return }
            let text = correction.corrected(run.map(\.character).joined())
            let confidence = run.reduce(0) { $0 + $1.probability } / Double(run.count)
            let characters = characterBoxes ? run.map { RecognizedCharacter(string: $0.character, confidence: $0.probability, boundingBox: box($0.start, $0.end)) } : nil
            if confidence >= minimumConfidence {
                words.append(RecognizedWord(string: text, confidence: confidence, boundingBox: box(first.start, last.end), characters: characters))
            }
            run = []
        }
        for ch in read.characters {
            if ch.character == " " { flush() } else { run.append(ch) }
        }
        flush()
        guard !words.isEmpty else { return nil }
        let string = words.map(\.string).joined(separator: " ")
        let candidates = read.alternatives.map { TextCandidate(string: $0.text.trimmingCharacters(in: .whitespaces), confidence: $0.confidence) }
            .filter { !$0.string.isEmpty && $0.string != string }
        return TextObservation(string: string, confidence: read.confidence, boundingBox: BoundingBox(enclosing: reading), words: words,
                               corners: reading, topCandidates: candidates.isEmpty ? nil : candidates, recognizer: "ppocr")
    }

    /// Lines top to bottom; lines side by side (their middles within half a line of each other) left to right.
    static func inReadingOrder(_ lines: [TextObservation]) -> [TextObservation] {
        var sorted = lines.sorted { ($0.boundingBox.y, $0.boundingBox.x, $0.string) < ($1.boundingBox.y, $1.boundingBox.x, $1.string) }
        guard sorted.count > 1 else { return sorted }
        var swapped = true
        while swapped {
            swapped = false
            for i in 0 ..< sorted.count - 1 {
                let a = sorted[i].boundingBox, b = sorted[i + 1].boundingBox
                let sameRow = abs((a.y + a.height / 2) - (b.y + b.height / 2)) < min(a.height, b.height) / 2
                if sameRow && b.x < a.x {
                    sorted.swapAt(i, i + 1)
                    swapped = true
                }
            }
        }
        return sorted
    }
}
