/// Draws every observation on a copy of the upright image and encodes it as PNG.
///
/// Each kind draws itself through its ``AnnotationDrawable`` conformance, in the order the
/// requests ran; lines and labels scale with the image so they stay visible on large photos.
public enum AnnotatedImageRenderer {
    /// With `drawingOnTheImage`, the observations are drawn on the image's own pixels instead of a
    /// copy (the batch runner does this as the image's last use: a 12 MP photo then costs 36 MB
    /// less at the peak).
    public static func png(of image: UprightImage, analysis: ImageAnalysis, drawingOnTheImage: Bool = false) throws(AnalysisError) -> [UInt8] {
        let canvas = try image.canvas(reusingPixels: drawingOnTheImage)
        let style = AnnotationStyle(width: image.width, height: image.height)
        for entry in analysis.results {
            (entry.result as? any AnnotationDrawable)?.draw(on: canvas, style: style)
        }
        return try canvas.pngData()
    }
}
