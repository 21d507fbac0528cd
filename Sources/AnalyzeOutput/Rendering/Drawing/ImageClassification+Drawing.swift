import AnalyzeCore

/// Classification: a caption in the corner the other labels leave free (top-left first), one line
/// per label of 5% or more with its confidence; in the SVG, the same lines as labels.
extension ImageClassification: AnnotationDrawable {
    package static let color: RGB = (20, 160, 160)

    package static var isCaption: Bool { true }

    /// The labels shown: those of 5% or more (the JSON keeps every label above the request's floor).
    private func shown() -> [String] {
        labels.filter { $0.confidence >= Self.minimumShownConfidence }.map {
            MarkupEscaping.label("\($0.identifier) \(Int(($0.confidence * 100).rounded()))%", limit: 40)
        }
    }

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {
        style.drawCaption(shown(), color: Self.color, on: canvas)
    }

    package func svgElements(style: AnnotationStyle) -> String {
        style.svgCaption(shown(), color: Self.color)
    }
}
