/// Draws every observation on a copy of the upright image and encodes it as PNG.
///
/// Colours follow the Vision sample: rectangles blue, faces yellow, text red, characters purple,
/// barcodes green. Lines and labels scale with the image so they stay visible on large photos.
public enum AnnotatedImageRenderer {
    /// With `drawingOnTheImage`, the observations are drawn on the image's own pixels instead of a
    /// copy (the batch runner does this as the image's last use: a 12 MP photo then costs 36 MB
    /// less at the peak).
    public static func png(of image: UprightImage, analysis: ImageAnalysis, drawingOnTheImage: Bool = false) throws(AnalysisError) -> [UInt8] {
        let canvas = try image.canvas(reusingPixels: drawingOnTheImage)
        let side = Double(min(image.width, image.height))
        let thickness = max(1, Int((side / 400).rounded()))
        let labelScale = max(0.35, min(2.0, side / 1200))

        for rect in analysis.rectangles ?? [] {
            canvas.drawPolyline(rect.corners, closed: true, color: ObservationKind.rectangles.color, thickness: thickness + 1)
            canvas.drawLabel("rect \(Int((rect.confidence * 100).rounded()))%", at: rect.topLeft, scale: labelScale,
                             color: ObservationKind.rectangles.color)
        }
        for face in analysis.faces ?? [] {
            let color = ObservationKind.faces.color
            canvas.drawPolyline(face.boundingBox.corners, closed: true, color: color, thickness: thickness + 1)
            for region in face.regions?.named ?? [] {
                if region.points.count == 1, let p = region.points.first {
                    canvas.drawCircle(at: p, radius: Double(thickness) * 1.5, color: (255, 80, 0), filled: true)
                } else {
                    canvas.drawPolyline(region.points, closed: region.closed, color: color, thickness: max(1, thickness / 2))
                }
            }
            for point in face.landmarks?.points ?? [] {
                canvas.drawCircle(at: point, radius: Double(thickness) * 2, color: (255, 0, 255), filled: true)
            }
            canvas.drawLabel("face \(Int((face.confidence * 100).rounded()))%",
                             at: PixelPoint(x: face.boundingBox.x, y: face.boundingBox.maxY + 2), scale: labelScale, color: color)
        }
        for line in analysis.text ?? [] {
            canvas.drawPolyline(line.boundingBox.corners, closed: true, color: ObservationKind.text.color, thickness: thickness)
            for word in line.words {
                for character in word.characters ?? [] {
                    canvas.drawPolyline(character.boundingBox.corners, closed: true, color: ObservationKind.characterColor, thickness: 1)
                }
            }
        }
        for code in analysis.barcodes ?? [] {
            canvas.drawPolyline(code.corners, closed: true, color: ObservationKind.barcodes.color, thickness: thickness + 1)
            let label = "\(code.symbology): \(MarkupEscaping.label(code.payload, limit: 32))"
            canvas.drawLabel(label, at: PixelPoint(x: code.boundingBox.x, y: code.boundingBox.maxY + 2), scale: labelScale,
                             color: ObservationKind.barcodes.color)
        }
        return try canvas.pngData()
    }
}
