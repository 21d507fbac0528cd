import AnalyzeCore
import Foundation

/// Writes recognised text as hOCR (the HTML microformat Tesseract's `hocr` output uses, read by
/// OCRmyPDF, hocr-tools, gImageReader…): one `ocr_page` holding `ocr_line`s of `ocrx_word`s, each
/// with its `bbox` in pixels of the upright image and the word's `x_wconf` (0–100). Every string
/// is escaped: the file stays well-formed and inert whatever the page says.
public enum HOCRRenderer {
    public static func hocr(for analysis: ImageAnalysis) -> String {
        let lines = analysis.text ?? []
        // A page of a multi-page TIFF keeps its number, as tesseract numbers the pages of such a file.
        let page = analysis.page?.number ?? 1
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
            <head>
            <title>\(MarkupEscaping.escape(analysis.file))</title>
            <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
            <meta name="ocr-system" content="analyze \(AnalyzeVersion.tool) (Tesseract)"/>
            <meta name="ocr-capabilities" content="ocr_page ocr_line ocrx_word"/>
            </head>
            <body>
            <div class="ocr_page" id="page_\(page)" title="image \(quoted(analysis.file)); bbox 0 0 \(analysis.width) \(analysis.height); ppageno \(page - 1)">

            """
        for (l, line) in lines.enumerated() {
            out += "  <span class=\"ocr_line\" id=\"line_\(page)_\(l + 1)\" title=\"\(bbox(line.boundingBox))\">"
            for (w, word) in line.words.enumerated() {
                let confidence = Int((word.confidence * 100).rounded())
                out +=
                    "\n    <span class=\"ocrx_word\" id=\"word_\(page)_\(l + 1)_\(w + 1)\" title=\"\(bbox(word.boundingBox)); x_wconf \(confidence)\">"
                    + MarkupEscaping.escape(word.string, exact: true) + "</span>"
            }
            out += "\n  </span>\n"
        }
        out += "</div>\n</body>\n</html>\n"
        return out
    }

    /// `bbox x0 y0 x1 y1` in whole pixels.
    static func bbox(_ box: BoundingBox) -> String {
        "bbox \(Int(box.x.rounded(.down))) \(Int(box.y.rounded(.down))) \(Int(box.maxX.rounded(.up))) \(Int(box.maxY.rounded(.up)))"
    }

    /// A file name as an hOCR property value: double-quoted, with `"` and `\` escaped, then
    /// escaped for the attribute it sits in.
    static func quoted(_ file: String) -> String {
        MarkupEscaping.escape(
            "\"" + file.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                + "\"", exact: true)
    }
}
