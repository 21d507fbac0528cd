import AnalyzeCore

/// A feature print is data, not a place in the image: nothing is drawn, and the SVG has an empty group.
extension FeaturePrintObservation: AnnotationDrawable {
    package static let color: RGB = (128, 128, 128)

    package func draw(on canvas: OpenCVMat, style: AnnotationStyle) {}

    package func svgElements(style: AnnotationStyle) -> String { "" }
}
