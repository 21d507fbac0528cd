import AnalyzeCore

/// Objects: orange boxes labelled with the best label and its confidence.
extension RecognizedObjectObservation: DrawableObservation {
    package static let color: RGB = (255, 140, 0)

    var caption: String { "\(identifier) \(Int((confidence * 100).rounded()))%" }

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        canvas.drawPolyline(boundingBox.corners, closed: true, color: Self.color, thickness: style.thickness + 1)
        style.drawLabel(MarkupEscaping.label(caption, limit: 40), for: boundingBox, color: Self.color, on: canvas)
    }

    package func svgElements(style: AnnotationStyle) -> String {
        let f = SVGRenderer.fmt
        let ranked = labels.map { "\($0.identifier) \(f($0.confidence))" }.joined(separator: ", ")
        var out = "  <g class=\"object\">\n"
        out +=
            "    " + AnnotationStyle.rect(boundingBox, extra: "")
            + "<title>\(MarkupEscaping.escape(ranked))</title></rect>\n"
        out += "  " + style.svgLabel(MarkupEscaping.label(caption, limit: 40), for: boundingBox, color: Self.color)
        return out + "  </g>\n"
    }
}
