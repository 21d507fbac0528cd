import AnalyzeCore

/// `--hocr`: the recognised text as hOCR, `<name>.hocr`, for images with a text result.
extension TextRequest: SideOutputProducing {
    public static let sideOutputs = [
        SideOutput(
            name: "hocr",
            help:
                "With --text, also write the recognised text as hOCR, <name>.hocr (lines and words with their boxes and confidences; what `tesseract … hocr` writes).",
            files: { analysis, _ in analysis.text == nil ? [] : ["hocr"] },
            render: { _, analysis, _, _ in Array(HOCRRenderer.hocr(for: analysis).utf8) })
    ]
}
