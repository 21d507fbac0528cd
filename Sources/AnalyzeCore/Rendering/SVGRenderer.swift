/// Renders the observations as an SVG overlay of the upright image's pixel size.
///
/// The SVG references the image it overlays (`imageHref`, relative to the SVG) and holds one
/// group per kind (`id` and `class` named after it). Every untrusted string is escaped with
/// ``MarkupEscaping`` and only ever placed as text or in quoted attributes, so the document stays
/// well-formed and inert whatever a barcode or a page says.
public enum SVGRenderer {
    public static func svg(for analysis: ImageAnalysis, imageHref: String?) -> String {
        let w = analysis.width, h = analysis.height
        let side = Double(min(w, h))
        let stroke = fmt(max(1, side / 400))
        let fontSize = fmt(max(10, side / 45))
        var out = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)">
        <title>\(MarkupEscaping.escape(analysis.file))</title>

        """
        if let imageHref {
            let href = MarkupEscaping.escape(imageHref)
            out += "<image href=\"\(href)\" xlink:href=\"\(href)\" x=\"0\" y=\"0\" width=\"\(w)\" height=\"\(h)\"/>\n"
        }
        if let rects = analysis.rectangles {
            out += group(.rectangles, stroke: stroke, fontSize: fontSize)
            for rect in rects {
                out += "  <polygon class=\"rectangle\" points=\"\(points(rect.corners))\"><title>rectangle, confidence \(fmt(rect.confidence))</title></polygon>\n"
            }
            out += "</g>\n"
        }
        if let faces = analysis.faces {
            out += group(.faces, stroke: stroke, fontSize: fontSize)
            for face in faces {
                out += "  <g class=\"face\">\n"
                out += "    " + rect(face.boundingBox, extra: "") + "<title>face, confidence \(fmt(face.confidence))</title></rect>\n"
                for point in face.landmarks?.points ?? [] {
                    out += "    <circle class=\"landmark\" cx=\"\(fmt(point.x))\" cy=\"\(fmt(point.y))\" r=\"\(stroke)\" fill=\"#ff00ff\" stroke=\"none\"/>\n"
                }
                for region in face.regions?.named ?? [] {
                    let tag = region.closed ? "polygon" : "polyline"
                    out += "    <\(tag) class=\"\(region.name)\" points=\"\(points(region.points))\" stroke-width=\"\(fmt(max(0.5, side / 800)))\"/>\n"
                }
                out += "  </g>\n"
            }
            out += "</g>\n"
        }
        if let lines = analysis.text {
            out += group(.text, stroke: stroke, fontSize: fontSize)
            for line in lines {
                out += "  <g class=\"line\">\n"
                out += "    " + rect(line.boundingBox, extra: "") + "<title>\(MarkupEscaping.escape(line.string))</title></rect>\n"
                for word in line.words {
                    out += "    " + rect(word.boundingBox, extra: " class=\"word\" stroke-opacity=\"0.5\"")
                    out += "<title>\(MarkupEscaping.escape(word.string)) (\(fmt(word.confidence)))</title></rect>\n"
                    for c in word.characters ?? [] {
                        out += "    " + rect(c.boundingBox, extra: " class=\"character\" stroke=\"#9628c8\"") + "</rect>\n"
                    }
                }
                out += "    <text fill=\"\(ObservationKind.text.cssColor)\" stroke=\"none\" x=\"\(fmt(line.boundingBox.x))\" y=\"\(fmt(line.boundingBox.y - 2))\">\(MarkupEscaping.escape(line.string))</text>\n"
                out += "  </g>\n"
            }
            out += "</g>\n"
        }
        if let codes = analysis.barcodes {
            out += group(.barcodes, stroke: stroke, fontSize: fontSize)
            for code in codes {
                out += "  <g class=\"barcode \(code.symbology.rawValue.filter { $0.isLetter || $0.isNumber || $0 == "-" })\">\n"
                out += "    <polygon points=\"\(points(code.corners))\"><title>\(MarkupEscaping.escape(code.payload))</title></polygon>\n"
                out += "    <text fill=\"\(ObservationKind.barcodes.cssColor)\" stroke=\"none\" x=\"\(fmt(code.boundingBox.x))\" y=\"\(fmt(code.boundingBox.maxY))\" dy=\"1em\">"
                out += "\(code.symbology.rawValue): \(MarkupEscaping.escape(code.payload))</text>\n"
                out += "  </g>\n"
            }
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }

    private static func points(_ list: [PixelPoint]) -> String {
        list.map { "\(fmt($0.x)),\(fmt($0.y))" }.joined(separator: " ")
    }

    private static func group(_ kind: ObservationKind, stroke: String, fontSize: String) -> String {
        "<g id=\"\(kind.rawValue)\" class=\"\(kind.rawValue)\" fill=\"none\" stroke=\"\(kind.cssColor)\" stroke-width=\"\(stroke)\" font-family=\"sans-serif\" font-size=\"\(fontSize)\">\n"
    }

    private static func rect(_ box: BoundingBox, extra: String) -> String {
        "<rect x=\"\(fmt(box.x))\" y=\"\(fmt(box.y))\" width=\"\(fmt(box.width))\" height=\"\(fmt(box.height))\"\(extra)>"
    }

    /// Numbers without a trailing `.0` and with at most two decimals.
    static func fmt(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(rounded)
    }
}
