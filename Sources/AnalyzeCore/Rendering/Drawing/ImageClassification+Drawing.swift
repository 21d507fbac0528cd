/// Classification: a caption in the image's top-left corner, one line per label with its
/// confidence; in the SVG, the same lines as text.
extension ImageClassification: AnnotationDrawable {
    static let color: RGB = (20, 160, 160)

    private func captions() -> [String] {
        labels.map { "\($0.identifier) \(Int(($0.confidence * 100).rounded()))%" }
    }

    /// Height of one caption line, in pixels of the image.
    private static func lineHeight(_ style: AnnotationStyle) -> Double { 30 * style.labelScale + 6 }

    func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        for (n, caption) in captions().enumerated() {
            canvas.drawLabel(MarkupEscaping.label(caption, limit: 40), at: PixelPoint(x: 4, y: 4 + Double(n) * Self.lineHeight(style)),
                             scale: style.labelScale, color: Self.color)
        }
    }

    func svgElements(style: AnnotationStyle) -> String {
        let f = SVGRenderer.fmt
        return captions().enumerated().map { n, caption in
            "  <text class=\"label\" fill=\"\(AnnotationStyle.css(Self.color))\" stroke=\"none\" x=\"4\" y=\"\(f(4 + Double(n) * Self.lineHeight(style)))\" dy=\"1em\">\(MarkupEscaping.escape(caption))</text>\n"
        }.joined()
    }
}
