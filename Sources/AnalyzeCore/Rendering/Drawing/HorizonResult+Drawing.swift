/// The horizon: a magenta line across the image with its angle.
extension HorizonResult: AnnotationDrawable {
    static let color: RGB = (220, 0, 180)

    func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        guard let horizon else { return }
        canvas.drawPolyline([horizon.start, horizon.end], closed: false, color: Self.color, thickness: style.thickness + 1)
        canvas.drawLabel("horizon \(horizon.angle) deg", at: PixelPoint(x: horizon.start.x + 4, y: horizon.start.y + 4), scale: style.labelScale, color: Self.color)
    }

    func svgElements(style: AnnotationStyle) -> String {
        guard let horizon else { return "" }
        let f = SVGRenderer.fmt
        var out = "  <line class=\"horizon\" x1=\"\(f(horizon.start.x))\" y1=\"\(f(horizon.start.y))\" x2=\"\(f(horizon.end.x))\" y2=\"\(f(horizon.end.y))\">"
        out += "<title>horizon \(f(horizon.angle))°, confidence \(f(horizon.confidence))</title></line>\n"
        out += "  <text fill=\"\(AnnotationStyle.css(Self.color))\" stroke=\"none\" x=\"\(f(horizon.start.x + 4))\" y=\"\(f(horizon.start.y + 4))\" dy=\"1em\">horizon \(f(horizon.angle))°</text>\n"
        return out
    }
}
