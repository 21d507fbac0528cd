/// A colour as red, green, blue.
typealias RGB = OpenCVMat.RGB

/// How a request's result draws itself: on the annotated image and as SVG elements.
///
/// Each kind conforms in its own file under `Rendering/Drawing/`; the renderers draw every
/// result through this protocol, in the order the requests ran. The ``RequestRegistry`` only
/// accepts requests whose result conforms.
protocol AnnotationDrawable {
    /// The kind's colour (the Vision sample's where it has one); also its SVG group's stroke.
    static var color: RGB { get }
    /// Draws the result on the annotated image.
    func draw(on canvas: OpenCVMat, style: AnnotationStyle)
    /// The SVG elements of the result, placed inside the kind's `<g>`. Every untrusted string must
    /// go through ``MarkupEscaping``.
    func svgElements(style: AnnotationStyle) -> String
}

/// One observation of a list-shaped result that draws itself.
protocol DrawableObservation {
    static var color: RGB { get }
    func draw(on canvas: OpenCVMat, style: AnnotationStyle)
    func svgElements(style: AnnotationStyle) -> String
}

extension Array: AnnotationDrawable where Element: DrawableObservation {
    static var color: RGB { Element.color }
    func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        for element in self { element.draw(on: canvas, style: style) }
    }
    func svgElements(style: AnnotationStyle) -> String {
        map { $0.svgElements(style: style) }.joined()
    }
}

/// Line widths and label sizes for one image, scaled with its size so they stay visible on
/// large photos.
struct AnnotationStyle {
    /// Smaller side of the image, in pixels.
    let side: Double
    /// PNG line thickness.
    let thickness: Int
    /// PNG label scale.
    let labelScale: Double
    /// SVG stroke width.
    let stroke: String

    init(width: Int, height: Int) {
        side = Double(min(width, height))
        thickness = max(1, Int((side / 400).rounded()))
        labelScale = max(0.35, min(2.0, side / 1200))
        stroke = SVGRenderer.fmt(max(1, side / 400))
    }

    /// `#rrggbb` for SVG and CSS.
    static func css(_ color: RGB) -> String {
        "#" + [color.r, color.g, color.b].map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// SVG points list `x,y x,y …`.
    static func points(_ list: [PixelPoint]) -> String {
        list.map { "\(SVGRenderer.fmt($0.x)),\(SVGRenderer.fmt($0.y))" }.joined(separator: " ")
    }

    /// An SVG `<rect` opening tag for a box, with `extra` attributes.
    static func rect(_ box: BoundingBox, extra: String) -> String {
        let f = SVGRenderer.fmt
        return "<rect x=\"\(f(box.x))\" y=\"\(f(box.y))\" width=\"\(f(box.width))\" height=\"\(f(box.height))\"\(extra)>"
    }
}
