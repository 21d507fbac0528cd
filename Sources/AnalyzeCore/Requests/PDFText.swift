/// Where `--text` takes a PDF page's text from (`--pdf-text`).
public enum PDFText: String, Sendable, Codable, CaseIterable {
    /// The page's text layer when it has usable text and its images cover under a tenth of it (a
    /// typeset page: exact words, no OCR); the layer and OCR of the rest of the page when its images
    /// cover under half of it (a page with a figure or a photo: the layer's words blanked out, Tesseract
    /// reads what is left); otherwise OCR of the rendered page (a scan, even one with another tool's OCR
    /// layer, a page mostly of photos or charts, a page without text). With character boxes asked,
    /// always OCR (the layer has none).
    case auto
    /// The text layer only, never OCR: a page without one has no text.
    case layer
    /// OCR of the rendered page, as for any image.
    case ocr

    /// The share of a page its images may cover for `auto` to take its text layer: a logo or a
    /// signature, not a scan, a photo or a chart drawn as an image.
    public static let maximumImageCoverage = 0.1

    /// The share of a page its images may cover for `auto` to take its text layer and read only the
    /// rest by OCR: figures and photos beside typeset text. A scanned page (with or without another
    /// tool's OCR layer) is one image over the whole page.
    public static let maximumFigureCoverage = 0.5
}

extension TextRequest {
    /// Page `page` of a PDF, rendered at `resolution` dpi to `width` × `height` pixels: its text from its
    /// own text layer when ``pdfText`` says to take it there, with the boxes in those pixels; nil when the
    /// page is to be read by OCR. What poppler could not read becomes a warning.
    func pdfPageText(
        of document: PDFRenderer.Source, page: Int, resolution: Int, width: Int, height: Int,
        warnings: inout [String]
    ) -> RecognizedPage? {
        if pdfText == .ocr || (pdfText == .auto && characterBoxes) { return nil }
        let scale = Double(resolution) / 72
        let layer: PDFTextLayer.Layer
        do {
            layer = try PDFTextLayer.read(document, page: page, pixelsPerPoint: scale, width: width, height: height)
        } catch {
            warnings.append(pdfText == .auto ? "\(error.message); the page's pixels are read instead" : error.message)
            return pdfText == .auto ? nil : RecognizedPage(lines: [], fullText: "", source: .pdfTextLayer)
        }
        if pdfText == .auto {
            guard layer.wordCount > 0, layer.isUsable else { return nil }
            let coverage: Double
            do {
                coverage = try PDFTextLayer.imageCoverage(
                    document, page: page, area: Double(width * height) / (scale * scale))
            } catch {
                warnings.append("\(error.message); the page's pixels are read instead")
                return nil
            }
            guard coverage < PDFText.maximumFigureCoverage else { return nil }
            if coverage >= PDFText.maximumImageCoverage {
                return RecognizedPage(lines: layer.lines, fullText: layer.fullText, source: .pdfTextLayerAndOCR)
            }
        }
        return RecognizedPage(lines: layer.lines, fullText: layer.fullText, source: .pdfTextLayer)
    }
}
