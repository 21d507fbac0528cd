import AnalyzeCore

/// Barcodes: green outlines with a `symbology: payload` label (escaped, ASCII on the PNG).
extension BarcodeObservation: DrawableObservation {
    package static let color: RGB = (0, 200, 70)

    /// `qr: https://…` shortened to 32 characters of payload (the full payload is in the SVG's title).
    var label: String { "\(symbology): \(MarkupEscaping.label(payload, limit: 32))" }

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        canvas.drawPolyline(corners, closed: true, color: Self.color, thickness: style.thickness + 1)
        style.drawLabel(label, for: boundingBox, color: Self.color, on: canvas)
    }

    package func svgElements(style: AnnotationStyle) -> String {
        var out = "  <g class=\"barcode \(symbology.rawValue.filter { $0.isLetter || $0.isNumber || $0 == "-" })\">\n"
        out +=
            "    <polygon points=\"\(AnnotationStyle.points(corners))\"><title>\(MarkupEscaping.escape(payload))</title></polygon>\n"
        out += "  " + style.svgLabel(label, for: boundingBox, color: Self.color)
        return out + "  </g>\n"
    }
}
