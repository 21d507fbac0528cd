import AnalyzeCore

/// `--rectify`: each rectangle perspective-corrected, `<name>.rect-<n>.png` (a scanner app's crop).
extension RectangleRequest: SideOutputProducing {
    public static let sideOutputs = [
        SideOutput(
            name: "rectify", hashedWhenOff: true,
            help:
                "With --rects, also write each rectangle perspective-corrected as <name>.rect-<n>.png (a scanner app's crop).",
            files: { analysis, _ in (analysis.rectangles ?? []).indices.map { "rect-\($0 + 1).png" } },
            render: { index, analysis, image, _ throws(AnalysisError) in
                guard let rectangles = analysis.rectangles, rectangles.indices.contains(index) else {
                    throw AnalysisError(.outputFailed, "no rectangle \(index + 1) to rectify")
                }
                let rect = rectangles[index], size = rect.rectifiedSize
                return try image.pixels.warped(quad: rect.corners, width: size.width, height: size.height).pngData()
            })
    ]
}
