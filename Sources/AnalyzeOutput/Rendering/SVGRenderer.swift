import AnalyzeCore

/// Renders the observations as an SVG overlay of the upright image's pixel size.
///
/// The SVG references the image it overlays (`imageHref`, relative to the SVG) and holds one
/// group per kind (`id` and `class` named after it), drawn by the kind's ``AnnotationDrawable``
/// conformance. A layer can be shown alone by the URL's fragment, without any script:
/// `x.svg#only-barcodes` hides every other kind (CSS `:target` on an empty marker element placed
/// before the groups); the report's detail view switches layers this way. Every untrusted string is escaped with ``MarkupEscaping`` and only ever placed as
/// text or in quoted attributes, so the document stays well-formed and inert whatever a barcode or
/// a page says.
public enum SVGRenderer {
    public static func svg(for analysis: ImageAnalysis, imageHref: String?) -> String {
        let w = analysis.width, h = analysis.height
        var style = AnnotationStyle(width: w, height: h)
        let drawables = analysis.drawables(style: &style)
        let fontSize = fmt(style.fontSize)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)">
            <title>\(MarkupEscaping.escape(analysis.file))</title>

            """
        if let imageHref {
            let href = MarkupEscaping.escape(imageHref)
            out += "<image href=\"\(href)\" xlink:href=\"\(href)\" x=\"0\" y=\"0\" width=\"\(w)\" height=\"\(h)\"/>\n"
        }
        let layers = drawables.map { MarkupEscaping.escape($0.kind.rawValue) }
        if !layers.isEmpty {
            out +=
                "<style>" + layers.map { "#only-\($0):target ~ g:not(#\($0))" }.joined(separator: ", ")
                + " { display: none }</style>\n"
            out += layers.map { "<g id=\"only-\($0)\"/>" }.joined() + "\n"
        }
        for (entryKind, drawable) in drawables {
            let kind = MarkupEscaping.escape(entryKind.rawValue)
            out +=
                "<g id=\"\(kind)\" class=\"\(kind)\" fill=\"none\" stroke=\"\(AnnotationStyle.css(type(of: drawable).color))\" stroke-width=\"\(style.stroke)\" font-family=\"sans-serif\" font-size=\"\(fontSize)\">\n"
            out += drawable.svgElements(style: style)
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// Numbers without a trailing `.0` and with at most two decimals.
    static func fmt(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(rounded)
    }
}
