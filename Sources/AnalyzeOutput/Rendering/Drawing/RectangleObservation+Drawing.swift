import AnalyzeCore

/// Rectangles: blue quadrilaterals with their confidence (those of 50% or more, and not a barcode's outline).
extension RectangleObservation: DrawableObservation {
    package static let color: RGB = (0, 90, 255)

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        guard style.drawsRectangle(boundingBox, confidence: confidence) else { return }
        canvas.drawPolyline(corners, closed: true, color: Self.color, thickness: style.thickness + 1)
        style.drawLabel("rect \(Int((confidence * 100).rounded()))%", for: boundingBox, color: Self.color, on: canvas)
    }

    package func svgElements(style: AnnotationStyle) -> String {
        guard style.drawsRectangle(boundingBox, confidence: confidence) else { return "" }
        return
            "  <polygon class=\"rectangle\" points=\"\(AnnotationStyle.points(corners))\"><title>rectangle, confidence \(SVGRenderer.fmt(confidence))</title></polygon>\n"
            + style.svgLabel("rect \(Int((confidence * 100).rounded()))%", for: boundingBox, color: Self.color)
    }
}
