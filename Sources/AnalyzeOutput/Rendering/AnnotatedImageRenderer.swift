import AnalyzeCore

/// Draws every observation on a copy of the upright image and encodes it as PNG.
///
/// Each kind draws itself through its ``AnnotationDrawable`` conformance, in the order the
/// requests ran (captions last, in the corner left free); lines and labels scale with the image so they stay visible on large photos.
public enum AnnotatedImageRenderer {
    /// With `drawingOnTheImage`, the observations are drawn on the image's own pixels instead of a
    /// copy (the batch runner does this as the image's last use: a 12 MP photo then costs 36 MB
    /// less at the peak).
    public static func png(of image: UprightImage, analysis: ImageAnalysis, drawingOnTheImage: Bool = false)
        throws(AnalysisError) -> [UInt8]
    {
        try encode(image, analysis: analysis, format: .png, maximumSide: nil, drawingOnTheImage: drawingOnTheImage)
    }

    /// The annotated image as PNG or JPEG (quality 90), scaled down to `maximumSide` when larger
    /// (drawn at full size first, so lines and labels scale with it).
    public static func encode(
        _ image: UprightImage, analysis: ImageAnalysis, format: OutputLayout.ImageFormat, maximumSide: Int?,
        drawingOnTheImage: Bool = false
    ) throws(AnalysisError) -> [UInt8] {
        var canvas = try image.canvas(reusingPixels: drawingOnTheImage)
        var style = AnnotationStyle(width: image.width, height: image.height)
        for (_, drawable) in analysis.drawables(style: &style) { drawable.draw(on: canvas, style: style) }
        if let maximumSide, maximumSide > 0, max(canvas.width, canvas.height) > maximumSide {
            let scale = Double(maximumSide) / Double(max(canvas.width, canvas.height))
            canvas = try canvas.resized(
                width: max(1, Int((Double(canvas.width) * scale).rounded())),
                height: max(1, Int((Double(canvas.height) * scale).rounded())))
        }
        switch format {
        case .png: return try canvas.pngData()
        case .jpeg: return try canvas.jpegData(quality: 90)
        }
    }
}
