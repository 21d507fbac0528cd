import AnalyzeCore

/// Text: red line boxes, fainter word boxes in the SVG, purple character boxes (lines read with 50%
/// confidence or more; the JSON keeps every line).
extension RecognizedPage: AnnotationDrawable {
    package static let color: RGB = (230, 20, 20)
    /// Per-character boxes (purple in the Vision sample).
    static let characterColor: RGB = (150, 40, 200)

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        for line in lines where line.confidence >= AnnotationStyle.minimumDrawnConfidence {
            style.layout.noteContent(line.boundingBox)
            canvas.drawPolyline(line.boundingBox.corners, closed: true, color: Self.color, thickness: style.thickness)
            for word in line.words {
                for character in word.characters ?? [] {
                    canvas.drawPolyline(
                        character.boundingBox.corners, closed: true, color: Self.characterColor, thickness: 1)
                }
            }
        }
    }

    package func svgElements(style: AnnotationStyle) -> String {
        let f = SVGRenderer.fmt
        var out = ""
        for line in lines where line.confidence >= AnnotationStyle.minimumDrawnConfidence {
            style.layout.noteContent(line.boundingBox)
            out += "  <g class=\"line\">\n"
            out +=
                "    " + AnnotationStyle.rect(line.boundingBox, extra: "")
                + "<title>\(MarkupEscaping.escape(line.string))</title></rect>\n"
            for word in line.words {
                out += "    " + AnnotationStyle.rect(word.boundingBox, extra: " class=\"word\" stroke-opacity=\"0.5\"")
                out += "<title>\(MarkupEscaping.escape(word.string)) (\(f(word.confidence)))</title></rect>\n"
                for c in word.characters ?? [] {
                    out +=
                        "    " + AnnotationStyle.rect(c.boundingBox, extra: " class=\"character\" stroke=\"#9628c8\"")
                        + "</rect>\n"
                }
            }
            out +=
                "    <text fill=\"\(AnnotationStyle.css(Self.color))\" stroke=\"none\" x=\"\(f(line.boundingBox.x))\" y=\"\(f(line.boundingBox.y - 2))\">\(MarkupEscaping.escape(line.string))</text>\n"
            out += "  </g>\n"
        }
        return out
    }
}
