import AnalyzeCore

/// Tracked objects: a box per track in the track's own colour, labelled `#ID kind` (and the
/// object's label); dashed in SVG where the tracker (not a detection) placed it.
extension TrackedObjectObservation {
    /// Twelve distinct colours, taken in turn by track ID.
    static let palette: [RGB] = [
        (230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 240, 240),
        (240, 50, 230), (210, 245, 60), (250, 190, 212), (0, 128, 128), (170, 110, 40), (128, 0, 0),
    ]

    var color: RGB { Self.palette[(trackID - 1 + Self.palette.count * 1000) % Self.palette.count] }

    /// The label drawn beside the box.
    var caption: String {
        // The kind in the singular: `#6 face`, `#14 rectangle`, `#1 box`.
        let name = kind.hasSuffix("s") && kind != "classification" ? String(kind.dropLast()) : kind
        return "#\(trackID) " + (label.map { MarkupEscaping.label($0, limit: 24) } ?? name)
    }

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        canvas.drawPolyline(
            boundingBox.corners, closed: true, color: color, thickness: style.thickness + (source == .detected ? 2 : 1))
        style.drawLabel(caption, for: boundingBox, color: color, on: canvas)
    }
}
