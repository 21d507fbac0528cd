/// Rectangles: blue quadrilaterals with their confidence.
extension RectangleObservation: DrawableObservation {
    static let color: RGB = (0, 90, 255)

    func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        canvas.drawPolyline(corners, closed: true, color: Self.color, thickness: style.thickness + 1)
        canvas.drawLabel("rect \(Int((confidence * 100).rounded()))%", at: topLeft, scale: style.labelScale, color: Self.color)
    }

    func svgElements(style: AnnotationStyle) -> String {
        "  <polygon class=\"rectangle\" points=\"\(AnnotationStyle.points(corners))\"><title>rectangle, confidence \(SVGRenderer.fmt(confidence))</title></polygon>\n"
    }
}
