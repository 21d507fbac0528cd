internal import COpenCVShim

/// The PP-OCR networks that read text lines, as `scripts/fetch-models` fetches them from PyPI wheels
/// (Apache-2.0), unchanged, run on ONNX Runtime: PP-OCRv4's DB detector (where the lines are, at any
/// input size) and the mobile v2.0 direction classifier (0° or 180°) from `rapidocr-onnxruntime==1.4.4`,
/// PP-OCRv6's small CTC recognizer (Chinese, English and other Latin scripts, with the spaces between
/// words; its alphabet in its own metadata) from `rapidocr==3.10.0`.
public struct TextReaderModels: Sendable, Hashable, Codable {
    public let detector: ModelIdentity
    public let classifier: ModelIdentity
    public let recognizer: ModelIdentity

    public static let ppocrV4 = TextReaderModels(
        detector: ModelIdentity(
            name: "ppocr-det-v4.onnx", sha256: "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"),
        classifier: ModelIdentity(
            name: "ppocr-cls.onnx", sha256: "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"),
        recognizer: ModelIdentity(
            name: "ppocr-rec-v6.onnx", sha256: "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"))

    /// Every file a run with these networks needs, ONNX Runtime's library included.
    public var identities: [ModelIdentity] { [detector, classifier, recognizer, ONNXRuntime.library] }
}

/// A line the detector found: its corners in image pixels (top-left, top-right, bottom-right,
/// bottom-left as it reads, for a horizontal line) and the detector's mean probability inside.
struct DetectedLine: Sendable, Hashable {
    var corners: [PixelPoint]
    var score: Double
}

/// A line as the recognizer read it: the text, its mean character probability, and for each character
/// the span of the line it was read in (fractions 0–1 along the line as it reads) and its probability.
struct ReadLine: Sendable {
    var line: DetectedLine
    var text: String
    var confidence: Double
    var characters: [(character: String, start: Double, end: Double, probability: Double)]
    /// Other readings, best first, with their confidences.
    var alternatives: [(text: String, confidence: Double)]
    /// How the line was turned to be read: a quarter turn (a vertical line) and/or a half turn (upside down).
    var quarterTurn: Bool
    var halfTurn: Bool
}

/// Owns one worker's sessions of the PP-OCR networks (``TextReaderModels``) and does what PaddleOCR's own
/// pipeline does around them: the detector's input and post-processing (DB), the line crops, the
/// direction classifier, batched recognition and CTC decoding. Decisions about which lines to keep are
/// the request's (``TextRequest``).
final class TextLineReader {
    private let detector: ONNXSession
    private let classifier: ONNXSession
    private let recognizer: ONNXSession
    /// The recognizer's characters: index 0 of its output is CTC's blank, index i the alphabet's i-1.
    private let alphabet: [String]
    /// For each output class, whether it is written in English (blank, space, printable ASCII and the
    /// typographic signs of English text): a line read in English alone is decoded among these only, so
    /// that a Latin letter is not read as an accented one or as a look-alike Chinese character.
    private let english: [Bool]

    /// What English text is written with, beyond printable ASCII.
    static let englishSigns: Set<Unicode.Scalar> = Set("€£¥¢°±×÷§©®™•–—‘’“”…·µ".unicodeScalars)

    init(models: TextReaderModels, engines: WorkerEngines) throws(AnalysisError) {
        detector = try engines.onnxSession(models.detector)
        classifier = try engines.onnxSession(models.classifier)
        recognizer = try engines.onnxSession(models.recognizer)
        guard let characters = recognizer.metadata("character"), !characters.isEmpty else {
            throw AnalysisError(.engineUnavailable, "the recognizer \(models.recognizer.name) carries no alphabet")
        }
        // PaddleOCR adds the space after the dictionary (use_space_char).
        alphabet = characters.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) + [" "]
        english =
            [true]
            + alphabet.map { character in
                !character.isEmpty
                    && character.unicodeScalars.allSatisfy {
                        (0x20...0x7E).contains($0.value) || Self.englishSigns.contains($0)
                    }
            }
    }

    // MARK: Detection

    /// PaddleOCR's DB post-processing constants (its defaults, with which the detector was trained).
    static let mapThreshold = 0.3, unclipRatio = 1.6, minimumSide: Int32 = 3
    /// At most this many lines are taken from one detection.
    static let capacity = 1000

    /// The detector's input for a part of `width` × `height` pixels: PaddleOCR's rule (the shorter side
    /// brought up to `shortSide`, the longer side at most `longSide`), enlarged at most `maximumZoom`
    /// times, both sides rounded to multiples of 32.
    static func detectorInput(width: Int, height: Int, shortSide: Int, longSide: Int, maximumZoom: Double) -> (
        width: Int, height: Int
    ) {
        var scale = min(maximumZoom, max(1, Double(shortSide) / Double(max(1, min(width, height)))))
        scale = min(scale, Double(longSide) / Double(max(width, height)))
        func side(_ v: Int) -> Int { max(32, Int((Double(v) * scale / 32).rounded()) * 32) }
        return (side(width), side(height))
    }

    /// The lines in the part `x, y, width × height` of `image` (the whole image when nil), read at
    /// `input` (``detectorInput(width:height:shortSide:longSide:maximumZoom:)``); lines whose mean
    /// probability is under `boxThreshold` are left out. Largest first.
    func detect(
        in image: OpenCVMat, part: (x: Int, y: Int, width: Int, height: Int)?, input: (width: Int, height: Int),
        boxThreshold: Double
    ) throws(AnalysisError) -> [DetectedLine] {
        let region = part ?? (0, 0, image.width, image.height)
        var planes = [Float](repeating: 0, count: 3 * input.width * input.height)
        var status = aocv_status()
        let mean = [0.485, 0.456, 0.406], std = [0.229, 0.224, 0.225]
        let made = planes.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let base = out.baseAddress else { return -1 }
            return aocv_network_planes(
                image.handle, Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height),
                Int32(input.width), Int32(input.height), mean, std, base, &status)
        }
        guard made == 0 else { throw AnalysisError(.engineFailed, "text lines: " + OpenCVMat.message(of: &status)) }
        let map = try detector.run(planes, shape: [1, 3, input.height, input.width])
        guard map.values.count == input.width * input.height else {
            throw AnalysisError(.engineFailed, "text lines: the detector's output is not one value per input pixel")
        }
        var quads = [aocv_quad](repeating: aocv_quad(), count: Self.capacity)
        let sx = Double(region.width) / Double(input.width), sy = Double(region.height) / Double(input.height)
        let count = map.values.withUnsafeBufferPointer { values in
            quads.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let v = values.baseAddress, let o = out.baseAddress else { return -1 }
                return aocv_text_lines_from_map(
                    v, Int32(input.width), Int32(input.height), Self.mapThreshold, boxThreshold, Self.unclipRatio,
                    Self.minimumSide, sx, sy, Double(region.x), Double(region.y), Int32(image.width),
                    Int32(image.height), o, Int32(out.count), &status)
            }
        }
        guard count >= 0 else { throw AnalysisError(.engineFailed, "text lines: " + OpenCVMat.message(of: &status)) }
        return quads.prefix(min(Int(count), Self.capacity)).map { q in
            let xs = [q.x.0, q.x.1, q.x.2, q.x.3], ys = [q.y.0, q.y.1, q.y.2, q.y.3]
            return DetectedLine(corners: (0..<4).map { PixelPoint(x: xs[$0], y: ys[$0]) }, score: q.confidence)
        }
    }

    // MARK: Recognition

    /// The recognizer's input height, and the width its inputs are padded to at least (PP-OCRv4's
    /// training shape 3×48×320).
    static let lineHeight = 48, minimumBatchWidth = 320
    /// The widest input a line is given (a receipt's full-width line at 48 px high is about 1,600).
    static let maximumLineWidth = 2400
    /// A line at least this many times as tall as wide is vertical (PaddleOCR's rule).
    static let verticalRatio = 1.5
    /// Lines recognised in one forward (PaddleOCR's rec_batch_num), sorted by aspect ratio so a batch's
    /// padding is small.
    static let batchSize = 6
    /// The direction classifier's input (3×48×192) and the probability of "180°" above which a line is
    /// read turned (PaddleOCR's cls_thresh).
    static let classifierWidth = 192, halfTurnProbability = 0.9

    /// Reads `lines` of `image`: each cut out upright, turned when `classifyDirection` finds it upside
    /// down, recognised in batches, decoded among English characters only when `englishOnly` or when the
    /// line holds no Chinese character. The
    /// results are in the order of `lines`.
    func read(_ lines: [DetectedLine], in image: OpenCVMat, classifyDirection: Bool, englishOnly: Bool)
        throws(AnalysisError) -> [ReadLine]
    {
        guard !lines.isEmpty else { return [] }
        var halfTurns = [Bool](repeating: false, count: lines.count)
        if classifyDirection {
            for start in stride(from: 0, to: lines.count, by: Self.batchSize) {
                let batch = Array(start..<min(lines.count, start + Self.batchSize))
                let h = Self.lineHeight, w = Self.classifierWidth
                var planes = [Float](repeating: 0, count: batch.count * 3 * h * w)
                for (k, i) in batch.enumerated() {
                    _ = try crop(
                        lines[i], of: image, into: &planes, at: k * 3 * h * w, width: w, stride: w, halfTurn: false)
                }
                let out = try classifier.run(planes, shape: [batch.count, 3, h, w])
                guard out.values.count == batch.count * 2 else {
                    throw AnalysisError(.engineFailed, "the direction classifier's output is not two values a line")
                }
                for (k, i) in batch.enumerated()
                where out.values[2 * k + 1] > out.values[2 * k]
                    && Double(out.values[2 * k + 1]) > Self.halfTurnProbability
                {
                    halfTurns[i] = true
                }
            }
        }
        // Batches of lines of similar proportions.
        let ratios = lines.map { line -> Double in
            let c = line.corners
            let w = max(c[0].distance(to: c[1]), c[3].distance(to: c[2])),
                h = max(c[0].distance(to: c[3]), c[1].distance(to: c[2]))
            let r = w / max(1, h)
            return r >= 1 / Self.verticalRatio ? r : 1 / r  // a vertical line is read turned
        }
        let order = lines.indices.sorted { (ratios[$0], $0) < (ratios[$1], $1) }
        var results = [ReadLine?](repeating: nil, count: lines.count)
        for start in stride(from: 0, to: order.count, by: Self.batchSize) {
            let batch = Array(order[start..<min(order.count, start + Self.batchSize)])
            let h = Self.lineHeight
            let widest = batch.map { Int((Double(h) * ratios[$0]).rounded(.up)) }.max() ?? Self.minimumBatchWidth
            let width = min(Self.maximumLineWidth, max(Self.minimumBatchWidth, widest))
            var planes = [Float](repeating: 0, count: batch.count * 3 * h * width)
            var used: [(columns: Int, quarter: Bool)] = []
            for (k, i) in batch.enumerated() {
                used.append(
                    try crop(
                        lines[i], of: image, into: &planes, at: k * 3 * h * width, width: width, stride: width,
                        halfTurn: halfTurns[i]))
            }
            let out = try recognizer.run(planes, shape: [batch.count, 3, h, width])
            guard out.shape.count == 3, out.shape[0] == batch.count, out.shape[2] == alphabet.count + 1 else {
                throw AnalysisError(
                    .engineFailed,
                    "the recognizer's output has the shape \(out.shape), not [\(batch.count), T, \(alphabet.count + 1)]"
                )
            }
            let steps = out.shape[1], classes = out.shape[2]
            for (k, i) in batch.enumerated() {
                let columnsPerStep = Double(width) / Double(max(1, steps))
                var read = decode(
                    out.values, offset: k * steps * classes, steps: steps, classes: classes,
                    columnsPerStep: columnsPerStep, columns: used[k].columns, allowed: englishOnly ? english : nil)
                // A line read among every character that holds no Chinese one is a line of English: it is
                // decoded again among English characters, so that an i is not read as an í.
                if !englishOnly, !read.text.unicodeScalars.contains(where: { $0.properties.isIdeographic }) {
                    read = decode(
                        out.values, offset: k * steps * classes, steps: steps, classes: classes,
                        columnsPerStep: columnsPerStep, columns: used[k].columns, allowed: english)
                }
                read.line = lines[i]
                read.quarterTurn = used[k].quarter
                read.halfTurn = halfTurns[i]
                results[i] = read
            }
        }
        return results.compactMap { $0 }
    }

    /// Cuts `line` out of `image` into `planes` at `offset` (``aocv_text_line_planes``).
    private func crop(
        _ line: DetectedLine, of image: OpenCVMat, into planes: inout [Float], at offset: Int, width: Int, stride: Int,
        halfTurn: Bool
    ) throws(AnalysisError) -> (columns: Int, quarter: Bool) {
        var quad = aocv_quad()
        let c = line.corners
        quad.x = (c[0].x, c[1].x, c[2].x, c[3].x)
        quad.y = (c[0].y, c[1].y, c[2].y, c[3].y)
        var status = aocv_status()
        var turned: Int32 = 0
        let columns = planes.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let base = out.baseAddress else { return -1 }
            return aocv_text_line_planes(
                image.handle, &quad, Int32(Self.lineHeight), 1, Int32(width), Self.verticalRatio, halfTurn ? 1 : 0,
                &turned, base + offset, Int32(stride), &status)
        }
        guard columns > 0 else { throw AnalysisError(.engineFailed, "text line: " + OpenCVMat.message(of: &status)) }
        return (Int(columns), turned != 0)
    }

    /// CTC's best path: each step's most probable class, repeats merged, blanks dropped; the line's
    /// confidence is its characters' mean probability (PaddleOCR's). Alternatives: the reading with the
    /// least sure character replaced by that step's second choice, for the two least sure characters
    /// whose second choice is a character and at least a tenth as probable.
    private func decode(
        _ p: [Float], offset: Int, steps: Int, classes: Int, columnsPerStep: Double, columns: Int, allowed: [Bool]?
    ) -> ReadLine {
        var chars: [(character: String, start: Double, end: Double, probability: Double)] = []
        var seconds: [(index: Int, character: String, probability: Double)] = []
        var previous = 0
        // Steps whose best class of all is a character the restriction leaves out (a Chinese sign read
        // in an English run): a line mostly of those is not English, and is given no confidence.
        var foreign = 0, written = 0
        for t in 0..<steps {
            let row = offset + t * classes
            if let allowed {
                var top = 0
                var topP: Float = -1
                for c in 0..<classes where p[row + c] > topP { (top, topP) = (c, p[row + c]) }
                if top != 0 && top < allowed.count {
                    written += 1
                    if !allowed[top] { foreign += 1 }
                }
            }
            var best = 0, second = 0
            var bestP: Float = -1, secondP: Float = -1
            for c in 0..<classes where allowed?[c] ?? true {
                let v = p[row + c]
                if v > bestP {
                    second = best; secondP = bestP; best = c; bestP = v
                } else if v > secondP {
                    second = c; secondP = v
                }
            }
            defer { previous = best }
            guard best != 0, best != previous else {
                // The same character held over more steps: its span grows.
                if best != 0, let last = chars.last {
                    chars[chars.count - 1].end = max(last.end, Double(t + 1) * columnsPerStep / Double(columns))
                }
                continue
            }
            let start = Double(t) * columnsPerStep / Double(columns),
                end = Double(t + 1) * columnsPerStep / Double(columns)
            chars.append((alphabet[best - 1], min(1, start), min(1, end), Double(bestP)))
            if second != 0, Double(secondP) >= 0.1 * Double(bestP) {
                seconds.append((chars.count - 1, alphabet[second - 1], Double(secondP)))
            }
        }
        let text = chars.map(\.character).joined()
        let confidence =
            chars.isEmpty || 2 * foreign >= max(1, written)
            ? 0 : chars.reduce(0) { $0 + $1.probability } / Double(chars.count)
        var alternatives: [(String, Double)] = []
        for s in seconds.sorted(by: { ($0.probability, $1.index) > ($1.probability, $0.index) }).prefix(2) {
            var replaced = chars.map(\.character)
            replaced[s.index] = s.character
            let alt = replaced.joined()
            guard alt != text, !alternatives.contains(where: { $0.0 == alt }) else { continue }
            let altConfidence = confidence + (s.probability - chars[s.index].probability) / Double(chars.count)
            alternatives.append((alt, altConfidence))
        }
        return ReadLine(
            line: DetectedLine(corners: [], score: 0), text: text, confidence: confidence, characters: chars,
            alternatives: alternatives, quarterTurn: false, halfTurn: false)
    }
}

extension PixelPoint {
    func distance(to other: PixelPoint) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

extension WorkerEngines {
    /// The worker's PP-OCR networks, created on first use.
    func textLineReader(_ models: TextReaderModels) throws(AnalysisError) -> TextLineReader {
        try engine(TextLineReader.self, for: models) { () throws(AnalysisError) in
            try TextLineReader(models: models, engines: self)
        }
    }
}
