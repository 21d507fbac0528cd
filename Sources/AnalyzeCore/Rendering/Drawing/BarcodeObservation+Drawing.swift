/// Barcodes: green outlines with a `symbology: payload` label (escaped, ASCII on the PNG).
extension BarcodeObservation: DrawableObservation {
    static let color: RGB = (0, 200, 70)

    func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        canvas.drawPolyline(corners, closed: true, color: Self.color, thickness: style.thickness + 1)
        let label = "\(symbology): \(MarkupEscaping.label(payload, limit: 32))"
        canvas.drawLabel(label, at: PixelPoint(x: boundingBox.x, y: boundingBox.maxY + 2), scale: style.labelScale, color: Self.color)
    }

    func svgElements(style: AnnotationStyle) -> String {
        let f = SVGRenderer.fmt
        var out = "  <g class=\"barcode \(symbology.rawValue.filter { $0.isLetter || $0.isNumber || $0 == "-" })\">\n"
        out += "    <polygon points=\"\(AnnotationStyle.points(corners))\"><title>\(MarkupEscaping.escape(payload))</title></polygon>\n"
        out += "    <text fill=\"\(AnnotationStyle.css(Self.color))\" stroke=\"none\" x=\"\(f(boundingBox.x))\" y=\"\(f(boundingBox.maxY))\" dy=\"1em\">"
        out += "\(symbology.rawValue): \(MarkupEscaping.escape(payload))</text>\n"
        return out + "  </g>\n"
    }
}
