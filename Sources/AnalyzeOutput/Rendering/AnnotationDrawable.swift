import AnalyzeCore

/// A colour as red, green, blue.
package typealias RGB = OpenCVMat.RGB

/// How a request's result draws itself: on the annotated image and as SVG elements.
///
/// Each kind conforms in its own file under `Rendering/Drawing/`; the renderers draw every
/// result through this protocol, in the order the requests ran. The ``RequestRegistry`` only
/// accepts requests whose result conforms.
package protocol AnnotationDrawable {
    /// The kind's colour (the Vision sample's where it has one); also its SVG group's stroke.
    static var color: RGB { get }
    /// Draws the result on the annotated image.
    func draw(on canvas: OpenCVMat, style: AnnotationStyle)
    /// The SVG elements of the result, placed inside the kind's `<g>`. Every untrusted string must
    /// go through ``MarkupEscaping``.
    func svgElements(style: AnnotationStyle) -> String
    /// Whether the result is a caption for the whole image, drawn after every other kind so it
    /// takes the corner the others leave free.
    static var isCaption: Bool { get }
}

extension AnnotationDrawable {
    package static var isCaption: Bool { false }
}

extension ImageAnalysis {
    /// The results that draw themselves, in the order they are drawn: as the requests ran, captions
    /// last; and the style for them (which knows the barcodes found).
    package func drawables(style: inout AnnotationStyle) -> [(kind: ObservationKind, drawable: any AnnotationDrawable)]
    {
        let all = results.compactMap { entry in (entry.result as? any AnnotationDrawable).map { (entry.kind, $0) } }
        style.barcodeBoxes = all.compactMap { $0.1 as? [BarcodeObservation] }.flatMap { $0.map(\.boundingBox) }
        return all.filter { !type(of: $0.1).isCaption } + all.filter { type(of: $0.1).isCaption }
    }
}

/// One observation of a list-shaped result that draws itself.
package protocol DrawableObservation {
    static var color: RGB { get }
    func draw(on canvas: OpenCVMat, style: AnnotationStyle)
    func svgElements(style: AnnotationStyle) -> String
}

extension Array: AnnotationDrawable where Element: DrawableObservation {
    package static var color: RGB { Element.color }
    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        for element in self { element.draw(on: canvas, style: style) }
    }
    package func svgElements(style: AnnotationStyle) -> String {
        map { $0.svgElements(style: style) }.joined()
    }
}

/// Line widths and label sizes for one image, scaled with its size so they stay visible on
/// large photos, and the layout that keeps its labels apart.
package struct AnnotationStyle {
    /// Where the labels of this drawing go (shared by every kind drawn on it).
    let layout: LabelLayout
    /// SVG label font size, in pixels of the image.
    let fontSize: Double
    /// Below this confidence a rectangle or a text line is not drawn (the JSON keeps it): what a
    /// person sees is what is confidently there.
    static let minimumDrawnConfidence = 0.5
    /// Boxes of the barcodes found: a rectangle mostly inside one is the code itself, not drawn.
    var barcodeBoxes: [BoundingBox] = []
    /// Smaller side of the image, in pixels.
    let side: Double
    /// PNG line thickness.
    let thickness: Int
    /// PNG label scale.
    let labelScale: Double
    /// SVG stroke width.
    let stroke: String

    package init(width: Int, height: Int) {
        layout = LabelLayout(width: width, height: height)
        side = Double(min(width, height))
        fontSize = max(10, side / 45)
        thickness = max(1, Int((side / 400).rounded()))
        labelScale = max(0.35, min(2.0, side / 1200))
        stroke = SVGRenderer.fmt(max(1, side / 400))
    }

    /// Draws `text` as a label for `box`, placed by the layout, on the PNG.
    func drawLabel(_ text: String, for box: BoundingBox, color: RGB, on canvas: OpenCVMat) {
        layout.noteOutline(box)
        let place = layout.place(OpenCVMat.labelSize(text, scale: labelScale), near: box)
        if let leader = place.leader {
            canvas.drawPolyline([leader.from, leader.to], closed: false, color: color, thickness: 1)
        }
        canvas.drawLabel(text, at: PixelPoint(x: place.rect.x, y: place.rect.y), scale: labelScale, color: color)
    }

    /// Draws caption lines as one block in the corner the layout finds freest, on the PNG.
    func drawCaption(_ lines: [String], color: RGB, on canvas: OpenCVMat) {
        guard !lines.isEmpty else { return }
        let sizes = lines.map { OpenCVMat.labelSize($0, scale: labelScale) }
        let block = layout.placeCaption((sizes.map(\.width).max() ?? 0, sizes.reduce(0) { $0 + $1.height }))
        var y = block.y
        for (line, size) in zip(lines, sizes) {
            canvas.drawLabel(line, at: PixelPoint(x: block.x, y: y), scale: labelScale, color: color)
            y += size.height
        }
    }

    /// The size of an SVG label: text of `fontSize` sans-serif (about 0.6 em a character) with padding.
    private func svgLabelSize(_ text: String) -> (width: Double, height: Double) {
        (Double(text.count) * fontSize * 0.6 + fontSize * 0.5, fontSize * 1.3)
    }

    /// An SVG label for `box` placed by the layout: a background of `color` and the text, escaped,
    /// in black or white, whichever reads better on it.
    func svgLabel(_ text: String, for box: BoundingBox, color: RGB) -> String {
        layout.noteOutline(box)
        let place = layout.place(svgLabelSize(text), near: box)
        let line =
            place.leader.map { leader in
                let f = SVGRenderer.fmt
                return
                    "  <line class=\"leader\" x1=\"\(f(leader.from.x))\" y1=\"\(f(leader.from.y))\" x2=\"\(f(leader.to.x))\" y2=\"\(f(leader.to.y))\" stroke=\"\(Self.css(color))\" stroke-width=\"1\"/>\n"
            } ?? ""
        return line + svgLabel(text, at: place.rect, color: color)
    }

    /// Caption lines as one SVG block in the corner the layout finds freest.
    func svgCaption(_ lines: [String], color: RGB) -> String {
        guard !lines.isEmpty else { return "" }
        let sizes = lines.map(svgLabelSize)
        let block = layout.placeCaption((sizes.map(\.width).max() ?? 0, sizes.reduce(0) { $0 + $1.height }))
        var y = block.y, out = ""
        for (line, size) in zip(lines, sizes) {
            out += svgLabel(
                line, at: LabelLayout.Rect(x: block.x, y: y, width: size.width, height: size.height), color: color)
            y += size.height
        }
        return out
    }

    private func svgLabel(_ text: String, at place: LabelLayout.Rect, color: RGB) -> String {
        let f = SVGRenderer.fmt
        let luminance = 0.299 * Double(color.r) + 0.587 * Double(color.g) + 0.114 * Double(color.b)
        let ink = luminance > 140 ? "#000000" : "#ffffff"
        return
            "  <rect class=\"label-background\" x=\"\(f(place.x))\" y=\"\(f(place.y))\" width=\"\(f(place.width))\" height=\"\(f(place.height))\" fill=\"\(Self.css(color))\" fill-opacity=\"0.85\" stroke=\"none\"/>"
            + "<text class=\"label\" x=\"\(f(place.x + fontSize * 0.25))\" y=\"\(f(place.y + fontSize * 1.0))\" fill=\"\(ink)\" stroke=\"none\">\(MarkupEscaping.escape(text))</text>\n"
    }

    /// Whether a rectangle is drawn: confident enough, and not the outline of a barcode found.
    func drawsRectangle(_ box: BoundingBox, confidence: Double) -> Bool {
        guard confidence >= Self.minimumDrawnConfidence else { return false }
        let area = box.width * box.height
        return !barcodeBoxes.contains { code in
            let w = max(0, min(box.maxX, code.maxX) - max(box.x, code.x)),
                h = max(0, min(box.maxY, code.maxY) - max(box.y, code.y))
            return area > 0 && w * h >= 0.8 * area
        }
    }

    /// `#rrggbb` for SVG and CSS.
    static func css(_ color: RGB) -> String {
        "#"
            + [color.r, color.g, color.b].map { byte in
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
        return
            "<rect x=\"\(f(box.x))\" y=\"\(f(box.y))\" width=\"\(f(box.width))\" height=\"\(f(box.height))\"\(extra)>"
    }
}
