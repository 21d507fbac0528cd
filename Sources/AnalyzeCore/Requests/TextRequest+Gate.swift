import Foundation

/// The gate of a large photo (``TextRequest/gate``): where PP-OCR's detector finds text, the parts of the
/// photo read around it (``TextRequest/TextArea``), and the lines of those parts that a region or a sure
/// reading vouches for.
extension TextRequest {
    /// Where the gate's detector (``TextRegionDetector``, on a copy of at most 672×512 pixels) finds text.
    static func regions(in image: UprightImage, detector model: TextDetectorModel, engines: WorkerEngines)
        throws(AnalysisError) -> [BoundingBox]
    {
        let detector = try engines.textRegionDetector(model)
        let input = TextDetectorModel.input(forWidth: image.width, height: image.height)
        let source = try image.reduction(toFit: input.width, input.height)
        return try detector.regions(in: source, reducedFrom: (image.width, image.height))
    }

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
    /// (`eval/text/evaluate-text-gate`; the junk read around them is dropped by ``vouched(_:regions:)``):
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
}
