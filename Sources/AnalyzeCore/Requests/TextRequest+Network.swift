import Foundation

/// The network path of a ``TextRequest``: PP-OCR's line detector, direction classifier and recognizer
/// (``TextLineReader``) for what is not a clean page: photos, signs, labels, receipts, screenshots.
extension TextRequest {
    /// Whether every language asked for is one the network reads: English and simplified Chinese, by
    /// Tesseract's codes (`eng`, `chi_sim`) or Vision's (`en-US`, `zh-Hans`).
    /// A clean page: at least this fraction of the image (a gray copy at most 256 px a side) is within
    /// ``paperTolerance`` levels of its paper, the most common light level (from ``lightestPaper`` up).
    /// Scans, rendered documents and light screenshots are; photos, receipts photographed on a table,
    /// signs, a grey road with a sign on it and dark screenshots are not (`eval/text/evaluate-text`).
    static let cleanPageFraction = 0.6
    static let paperTolerance = 16
    static let lightestPaper = 170

    /// The fraction of `gray`'s pixels within ``paperTolerance`` levels of its paper level (0 when it
    /// has no light level common enough to be paper).
    static func paperFraction(of gray: OpenCVMat) -> Double {
        var histogram = [Int](repeating: 0, count: 256)
        var total = 0
        gray.withPixels { base, stride in
            for y in 0..<gray.height {
                let row = base + y * stride
                for x in 0..<gray.width { histogram[Int(row[x])] += 1 }
            }
            total = gray.width * gray.height
        }
        guard total > 0 else { return 0 }
        // The paper: the light level with the most pixels within 8 levels of it.
        var paper = lightestPaper, most = -1
        for level in lightestPaper...255 {
            let count = histogram[max(0, level - 8)...min(255, level + 8)].reduce(0, +)
            if count > most { (paper, most) = (level, count) }
        }
        let near = histogram[max(0, paper - paperTolerance)...min(255, paper + paperTolerance)].reduce(0, +)
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
        if scale < 1 {
            gray = try gray.resized(
                width: max(1, Int(Double(gray.width) * scale)), height: max(1, Int(Double(gray.height) * scale)))
        }
        return paperFraction(of: gray) >= cleanPageFraction
    }

    /// An image this many pixels tall or less, at least as wide as tall, is taken for a line or a word
    /// cut out of a photo: the recognizer reads it whole (the detector, at a short side of 736, would
    /// blow it up past what it was trained on).
    static let lineImageHeight = 160

    /// A line read by the network is kept when its mean character probability is at least this
    /// (PaddleOCR's default is 0.5; `eval/text/evaluate-text`: what lies between is mostly texture read as letters).
    static let minimumLineConfidence = 0.7
    /// The confidence a line needs whose letters and digits are one, or no more than its other characters: a
    /// lone shape (a circle, a QR code's finder squares) is read as such a line (O, 回, 0.:0) with a confidence a
    /// line of words would pass with.
    static let minimumCharacterConfidence = 0.9
    /// The detector's mean probability inside a line for the line to be read (PaddleOCR's box_thresh).
    static let minimumLineScore = 0.5

    /// Reads `area` of `image` (the whole image when nil) with the network: lines found, read, kept
    /// when sure enough, in reading order.
    func readWithNetwork(
        _ image: UprightImage, in area: TextArea?, models: TextReaderModels,
        engines: WorkerEngines
    ) throws(AnalysisError) -> (lines: [TextObservation], fullText: String) {
        let reader = try engines.textLineReader(models)
        let part = area.map { (x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
        let w = part?.width ?? image.width, h = part?.height ?? image.height
        let sides = recognitionLevel.detectorSides
        let input = TextLineReader.detectorInput(
            width: w, height: h, shortSide: sides.short, longSide: sides.long, maximumZoom: 2)
        var found = try reader.detect(in: image.pixels, part: part, input: input, boxThreshold: Self.minimumLineScore)
        if minimumTextHeight > 0 {
            let least = minimumTextHeight * Double(image.height)
            found = found.filter { Self.across($0.corners) >= least }
        }
        let read = try reader.read(
            found, in: image.pixels, classifyDirection: recognitionLevel.classifiesDirection,
            englishOnly: reading.englishOnly)
        let lines = Self.inReadingOrder(Self.joiningRows(Self.withoutEchoes(read.compactMap { observation(of: $0) })))
        return (lines, lines.map(\.string).joined(separator: "\n"))
    }

    /// Reads a line image (``lineImageHeight``) whole with the network; nil when it reads nothing sure enough.
    func readLineImage(_ image: UprightImage, models: TextReaderModels, engines: WorkerEngines) throws(AnalysisError)
        -> [TextObservation]?
    {
        let reader = try engines.textLineReader(models)
        let (w, h) = (Double(image.width), Double(image.height))
        let whole = DetectedLine(
            corners: [PixelPoint(x: 0, y: 0), PixelPoint(x: w, y: 0), PixelPoint(x: w, y: h), PixelPoint(x: 0, y: h)],
            score: 1)
        let read = try reader.read(
            [whole], in: image.pixels, classifyDirection: recognitionLevel.classifiesDirection,
            englishOnly: reading.englishOnly)
        let lines = read.compactMap { observation(of: $0) }
        return lines.isEmpty ? nil : lines
    }

    /// Tesseract's line confidence under which the network reads the line again: what Tesseract
    /// makes of a script it has no data for (a line of Chinese read as English) or of a line it cannot see
    /// well. A line the network reads no better keeps Tesseract's reading.
    static let unsureLineConfidence = 0.8

    /// `read` with each line Tesseract is unsure of (``unsureLineConfidence``) read again by the network in
    /// its box (a little taller and wider, so no stroke is cut), and replaced by what the network reads
    /// when the network is sure of it (``minimumLineConfidence``) and surer than Tesseract: the page's
    /// language is detected line by line, as Vision's `automaticallyDetectsLanguage` does.
    func rereadingUnsureLines(
        _ read: (lines: [TextObservation], fullText: String), in image: UprightImage, models: TextReaderModels,
        engines: WorkerEngines
    ) throws(AnalysisError) -> (lines: [TextObservation], fullText: String) {
        let unsure = read.lines.indices.filter {
            read.lines[$0].recognizer == nil && read.lines[$0].confidence < Self.unsureLineConfidence
        }
        guard !unsure.isEmpty else { return read }
        let reader = try engines.textLineReader(models)
        let detected = unsure.map { i -> DetectedLine in
            let b = read.lines[i].boundingBox
            let dy = 0.15 * b.height, dx = 0.3 * b.height
            let x0 = max(0, b.x - dx), y0 = max(0, b.y - dy)
            let x1 = min(Double(image.width), b.x + b.width + dx), y1 = min(Double(image.height), b.y + b.height + dy)
            return DetectedLine(
                corners: [
                    PixelPoint(x: x0, y: y0), PixelPoint(x: x1, y: y0), PixelPoint(x: x1, y: y1),
                    PixelPoint(x: x0, y: y1),
                ], score: 1)
        }
        let again = try reader.read(
            detected, in: image.pixels, classifyDirection: false, englishOnly: reading.englishOnly)
        var lines = read.lines
        var fullText = read.fullText
        var searchFrom = fullText.startIndex
        for (k, i) in unsure.enumerated() where k < again.count {
            // The same characters spaced otherwise keep Tesseract's words (the network runs words together).
            guard let line = observation(of: again[k]), line.confidence > lines[i].confidence,
                line.string.filter({ !$0.isWhitespace }) != lines[i].string.filter({ !$0.isWhitespace })
            else { continue }
            // The whole text keeps Tesseract's layout (blank lines between blocks): the line's text is replaced
            // where it stands.
            if let at = fullText.range(of: lines[i].string, range: searchFrom..<fullText.endIndex) {
                fullText.replaceSubrange(at, with: line.string)
                searchFrom = fullText.index(at.lowerBound, offsetBy: line.string.count)
            }
            lines[i] = line
        }
        return (lines, fullText)
    }

    /// The line's height across its reading direction.
    static func across(_ c: [PixelPoint]) -> Double {
        let w = max(c[0].distance(to: c[1]), c[3].distance(to: c[2])),
            h = max(c[0].distance(to: c[3]), c[1].distance(to: c[2]))
        return h >= TextLineReader.verticalRatio * w ? w : h
    }

    /// A read line as an observation, or nil when it is not sure enough or holds no letter or digit.
    /// Corners are given as the line reads; words are the runs of characters between spaces, each boxed
    /// by the span of the line it was read in.
    func observation(of read: ReadLine) -> TextObservation? {
        let written = read.text.filter { $0.isLetter || $0.isNumber }.count
        let least =
            written == 1 || 2 * written <= read.text.count
            ? Self.minimumCharacterConfidence : Self.minimumLineConfidence
        guard read.confidence >= least, read.text.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
        let c = read.line.corners
        // The quadrilateral as the line reads: a vertical line was turned a quarter counter-clockwise
        // (its top-right corner first), an upside-down one half a turn.
        var reading = read.quarterTurn ? [c[1], c[2], c[3], c[0]] : c
        if read.halfTurn { reading = [reading[2], reading[3], reading[0], reading[1]] }
        func point(_ u: Double, _ v: Double) -> PixelPoint {
            let top = (
                x: reading[0].x + u * (reading[1].x - reading[0].x), y: reading[0].y + u * (reading[1].y - reading[0].y)
            )
            let bottom = (
                x: reading[3].x + u * (reading[2].x - reading[3].x), y: reading[3].y + u * (reading[2].y - reading[3].y)
            )
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
            let characters =
                characterBoxes
                ? run.map {
                    RecognizedCharacter(
                        string: $0.character, confidence: $0.probability, boundingBox: box($0.start, $0.end))
                } : nil
            if confidence >= minimumConfidence {
                words.append(
                    RecognizedWord(
                        string: text, confidence: confidence, boundingBox: box(first.start, last.end),
                        characters: characters))
            }
            run = []
        }
        for ch in read.characters {
            if ch.character == " " { flush() } else { run.append(ch) }
        }
        flush()
        guard !words.isEmpty else { return nil }
        let string = words.map(\.string).joined(separator: " ")
        let candidates = read.alternatives.map {
            TextCandidate(string: $0.text.trimmingCharacters(in: .whitespaces), confidence: $0.confidence)
        }
        .filter { !$0.string.isEmpty && $0.string != string }
        return TextObservation(
            string: string, confidence: read.confidence, boundingBox: BoundingBox(enclosing: reading), words: words,
            corners: reading, topCandidates: candidates.isEmpty ? nil : candidates, recognizer: "ppocr")
    }

    /// The lines without echoes: a line that lies mostly (70% of its box) inside another's box and reads
    /// as a part of it (the detector found "FOSTER'S" and, overlapping it, "F" and "OSTER'S").
    static func withoutEchoes(_ lines: [TextObservation]) -> [TextObservation] {
        func squeezed(_ s: String) -> String { s.lowercased().filter { !$0.isWhitespace } }
        return lines.enumerated().compactMap { i, line in
            let text = squeezed(line.string), box = line.boundingBox
            let echo = lines.enumerated().contains { j, other in
                guard j != i,
                    other.string.count > line.string.count || (other.string.count == line.string.count && j < i)
                else { return false }
                let o = other.boundingBox
                let w = min(box.x + box.width, o.x + o.width) - max(box.x, o.x),
                    h = min(box.y + box.height, o.y + o.height) - max(box.y, o.y)
                return w > 0 && h > 0 && w * h >= 0.7 * box.width * box.height && squeezed(other.string).contains(text)
            }
            return echo ? nil : line
        }
    }

    /// A network line's geometry as it reads: its middle, its direction (unit vector along the
    /// writing), its length and its height.
    struct LineFrame {
        let cx, cy, dx, dy, length, height: Double

        init?(_ line: TextObservation) {
            guard let c = line.corners, c.count == 4 else { return nil }
            let ux = (c[1].x - c[0].x + c[2].x - c[3].x) / 2, uy = (c[1].y - c[0].y + c[2].y - c[3].y) / 2
            let length = (ux * ux + uy * uy).squareRoot()
            guard length > 0 else { return nil }
            (cx, cy) = ((c[0].x + c[1].x + c[2].x + c[3].x) / 4, (c[0].y + c[1].y + c[2].y + c[3].y) / 4)
            (dx, dy, self.length) = (ux / length, uy / length, length)
            height = (c[0].distance(to: c[3]) + c[1].distance(to: c[2])) / 2
        }

        /// Where `other`'s middle is in this line's frame: along the writing and across it.
        func offset(of other: LineFrame) -> (along: Double, across: Double) {
            let x = other.cx - cx, y = other.cy - cy
            return (x * dx + y * dy, -x * dy + y * dx)
        }
    }

    /// How far apart, in line heights, two pieces of one row may stand and still be one line: the
    /// detector cuts a receipt's "Espresso ........ 2.40" into the item and its price, and a sign's words
    /// set wide apart into words.
    static let rowGap = 10.0

    /// Whether `right`, standing apart from `left` on one row, is a field of its own rather than the rest of
    /// `left`'s line: `left` ends in a number (it holds its value already: "Tea 2.50") and `right` is a
    /// label with its value too ("Cake 3.80"). A label and its value ("Espresso" … "2.40") stay one line;
    /// a shelf strip's prices are four lines, as the detector sees them.
    static func startsAField(left: String, right: String) -> Bool {
        guard let last = left.last(where: { !$0.isWhitespace }), last.isNumber,
            let end = right.last(where: { !$0.isWhitespace }), end.isNumber
        else { return false }
        return right.contains { $0.isLetter }
    }

    /// Network lines that continue one another on the same row joined into one line (reading order
    /// along the row): written the same way (directions within about 6°), of similar height (within a
    /// factor 1.5), the second's middle within a third of a line height of the first's axis, and the gap
    /// between them at most ``rowGap`` heights. Their words are kept; a joined line has no other readings.
    static func joiningRows(_ lines: [TextObservation]) -> [TextObservation] {
        var rows: [[TextObservation]] = lines.map { [$0] }
        var joined = true
        while joined {
            joined = false
            for i in rows.indices {
                // The nearest piece that continues row i.
                var next: (index: Int, gap: Double)?
                for j in rows.indices where j != i {
                    guard let lastOfI = rows[i].last, let firstOfJ = rows[j].first,
                        let a = LineFrame(lastOfI), let b = LineFrame(firstOfJ)
                    else { continue }
                    let o = a.offset(of: b)
                    let gap = o.along - a.length / 2 - b.length / 2
                    guard a.dx * b.dx + a.dy * b.dy > 0.995, max(a.height, b.height) <= 1.5 * min(a.height, b.height),
                        abs(o.across) <= a.height / 3, o.along > 0, gap > -a.height / 2, gap <= rowGap * a.height,
                        gap < a.height || !Self.startsAField(left: lastOfI.string, right: firstOfJ.string)
                    else { continue }
                    if next.map({ gap < $0.gap }) ?? true { next = (j, gap) }
                }
                if let next {
                    rows[i] += rows[next.index]
                    rows.remove(at: next.index)
                    joined = true
                    break
                }
            }
        }
        return rows.map { row in
            guard row.count > 1, let first = row.first, let last = row.last, let f = first.corners, let l = last.corners
            else { return row[0] }
            let words = row.flatMap(\.words)
            let characters = row.reduce(0) { $0 + $1.string.count }
            let confidence = row.reduce(0) { $0 + $1.confidence * Double($1.string.count) } / Double(max(1, characters))
            let corners = [f[0], l[1], l[2], f[3]]
            return TextObservation(
                string: row.map(\.string).joined(separator: " "), confidence: confidence,
                boundingBox: BoundingBox(enclosing: row.flatMap { $0.corners ?? [] }),
                words: words, corners: corners, topCandidates: nil, recognizer: first.recognizer)
        }
    }

    /// Lines in reading order: in the frame of the image's main writing direction (the median of the
    /// lines' directions), top to bottom, and lines side by side (their middles within half a line of
    /// each other across the writing) in the writing's direction. A photo turned 14° reads as it would level.
    static func inReadingOrder(_ lines: [TextObservation]) -> [TextObservation] {
        let frames = lines.map { LineFrame($0) }
        let angles = frames.compactMap { $0.map { atan2($0.dy, $0.dx) } }.sorted()
        let angle = angles.isEmpty ? 0 : angles[angles.count / 2]
        let (dx, dy) = (cos(angle), sin(angle))
        struct Placed { let line: TextObservation; let along, across, height: Double }
        var placed = lines.indices.map { i -> Placed in
            let b = lines[i].boundingBox
            let (x, y) = frames[i].map { ($0.cx, $0.cy) } ?? (b.x + b.width / 2, b.y + b.height / 2)
            return Placed(
                line: lines[i], along: x * dx + y * dy, across: -x * dy + y * dx, height: frames[i]?.height ?? b.height)
        }
        placed.sort { ($0.across, $0.along, $0.line.string) < ($1.across, $1.along, $1.line.string) }
        guard placed.count > 1 else { return placed.map(\.line) }
        var swapped = true
        while swapped {
            swapped = false
            for i in 0..<placed.count - 1 {
                let a = placed[i], b = placed[i + 1]
                if abs(a.across - b.across) < min(a.height, b.height) / 2 && b.along < a.along {
                    placed.swapAt(i, i + 1)
                    swapped = true
                }
            }
        }
        return placed.map(\.line)
    }
}
