import Foundation

/// A PDF page whose text layer covers only part of it: the layer's words, and what Tesseract reads on
/// the rest of the page.
extension TextRequest {
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
}
