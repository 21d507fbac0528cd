import Foundation

/// Tesseract's reading of a clean page or of one part of a photo, and when a reading is poor enough to
/// try the page turned.
extension TextRequest {
    /// Tesseract's lines and whole text of the image, or of `area` of it, in the image's pixels.
    func read(_ image: UprightImage, in area: TextArea?, engines: WorkerEngines) throws(AnalysisError) -> (
        lines: [TextObservation], fullText: String
    ) {
        let engine = try engines.textEngine(languages: reading.tesseract ?? languages)
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
        page = Self.splittingFields(page)
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

    /// How far apart, in line heights, two words of one Tesseract line stand for the second to start a field
    /// of its own (``startsAField(left:right:)``): farther than words of one phrase ever are.
    static let fieldGap = 2.0

    /// `page` with each line cut where a field of its own starts (a row of prices far apart on a shelf
    /// strip), as the network's detector cuts such a row.
    static func splittingFields(_ page: (lines: [TextObservation], fullText: String)) -> (
        lines: [TextObservation], fullText: String
    ) {
        var changed = false
        var lines: [TextObservation] = []
        for line in page.lines {
            let words = line.words
            var pieces: [[RecognizedWord]] = []
            var start = 0
            for i in 1..<max(1, words.count) {
                let gap = words[i].boundingBox.x - (words[i - 1].boundingBox.x + words[i - 1].boundingBox.width)
                guard gap > fieldGap * line.boundingBox.height else { continue }
                // The field to the right runs to the next wide gap.
                var end = i + 1
                while end < words.count,
                    words[end].boundingBox.x - (words[end - 1].boundingBox.x + words[end - 1].boundingBox.width)
                        <= fieldGap * line.boundingBox.height
                {
                    end += 1
                }
                let left = words[start..<i].map(\.string).joined(separator: " ")
                let right = words[i..<end].map(\.string).joined(separator: " ")
                if startsAField(left: left, right: right) {
                    pieces.append(Array(words[start..<i]))
                    start = i
                }
            }
            guard !pieces.isEmpty else {
                lines.append(line)
                continue
            }
            pieces.append(Array(words[start...]))
            changed = true
            for piece in pieces {
                let confidence = piece.reduce(0) { $0 + $1.confidence } / Double(max(1, piece.count))
                lines.append(
                    TextObservation(
                        string: piece.map(\.string).joined(separator: " "), confidence: confidence,
                        boundingBox: BoundingBox(enclosing: piece.flatMap(\.boundingBox.corners)), words: piece))
            }
        }
        return changed ? (lines, lines.map(\.string).joined(separator: "\n")) : page
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
