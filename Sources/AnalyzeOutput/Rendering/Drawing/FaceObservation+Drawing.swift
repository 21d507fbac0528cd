import AnalyzeCore

/// Faces: yellow boxes, magenta landmark dots, region outlines (pupils as orange dots).
extension FaceObservation: DrawableObservation {
    package static let color: RGB = (255, 214, 0)

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        let thickness = style.thickness
        canvas.drawPolyline(boundingBox.corners, closed: true, color: Self.color, thickness: thickness + 1)
        for region in regions?.named ?? [] {
            if region.points.count == 1, let p = region.points.first {
                canvas.drawCircle(at: p, radius: Double(thickness) * 1.5, color: (255, 80, 0), filled: true)
            } else {
                canvas.drawPolyline(
                    region.points, closed: region.closed, color: Self.color, thickness: max(1, thickness / 2))
            }
        }
        for point in landmarks?.points ?? [] {
            canvas.drawCircle(at: point, radius: Double(thickness) * 2, color: (255, 0, 255), filled: true)
        }
        style.drawLabel("face \(Int((confidence * 100).rounded()))%", for: boundingBox, color: Self.color, on: canvas)
    }

    package func svgElements(style: AnnotationStyle) -> String {
        let f = SVGRenderer.fmt
        var out = "  <g class=\"face\">\n"
        out +=
            "    " + AnnotationStyle.rect(boundingBox, extra: "")
            + "<title>face, confidence \(f(confidence))</title></rect>\n"
        for point in landmarks?.points ?? [] {
            out +=
                "    <circle class=\"landmark\" cx=\"\(f(point.x))\" cy=\"\(f(point.y))\" r=\"\(style.stroke)\" fill=\"#ff00ff\" stroke=\"none\"/>\n"
        }
        for region in regions?.named ?? [] {
            let tag = region.closed ? "polygon" : "polyline"
            out +=
                "    <\(tag) class=\"\(region.name)\" points=\"\(AnnotationStyle.points(region.points))\" stroke-width=\"\(f(max(0.5, style.side / 800)))\"/>\n"
        }
        out += "  " + style.svgLabel("face \(Int((confidence * 100).rounded()))%", for: boundingBox, color: Self.color)
        return out + "  </g>\n"
    }
}
