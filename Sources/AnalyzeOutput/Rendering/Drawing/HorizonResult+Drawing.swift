import AnalyzeCore

/// The horizon: a magenta line across the image with its angle.
extension HorizonResult: AnnotationDrawable {
    package static let color: RGB = (220, 0, 180)

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        guard let horizon else { return }
        canvas.drawPolyline(
            [horizon.start, horizon.end], closed: false, color: Self.color, thickness: style.thickness + 1)
        style.drawLabel("horizon \(horizon.angle) deg", for: anchor(horizon), color: Self.color, on: canvas)
    }

    package func svgElements(style: AnnotationStyle) -> String {
        guard let horizon else { return "" }
        let f = SVGRenderer.fmt
        var out =
            "  <line class=\"horizon\" x1=\"\(f(horizon.start.x))\" y1=\"\(f(horizon.start.y))\" x2=\"\(f(horizon.end.x))\" y2=\"\(f(horizon.end.y))\">"
        out += "<title>horizon \(f(horizon.angle))°, confidence \(f(horizon.confidence))</title></line>\n"
        out += style.svgLabel("horizon \(f(horizon.angle))°", for: anchor(horizon), color: Self.color)
        return out
    }

    /// Where the label hangs: a small box at the line's left end.
    private func anchor(_ horizon: HorizonObservation) -> BoundingBox {
        BoundingBox(x: horizon.start.x, y: horizon.start.y, width: 1, height: 1)
    }
}
