import AnalyzeCore

/// `--level`: an image with a reported horizon turned so that the horizon is level and zoomed to fill
/// its frame (a straighten tool's crop), `<name>.level.jpg` or `.png` (the annotated image's format).
extension HorizonRequest: SideOutputProducing {
    public static let sideOutputs = [
        SideOutput(
            name: "level",
            help:
                "With --horizon, also write each image that has a horizon turned so that the horizon is level, <name>.level.jpg or .png (zoomed to fill the same frame, as a photo editor's straighten tool does).",
            files: { analysis, format in analysis.horizon == nil ? [] : [format == .jpeg ? "level.jpg" : "level.png"] },
            render: { _, analysis, image, format throws(AnalysisError) in
                // Turned clockwise by the horizon's angle (OpenCV turns counter-clockwise for
                // positive degrees).
                let levelled = try image.pixels.straightened(byDegrees: -(analysis.horizon?.angle ?? 0))
                return format == .jpeg ? try levelled.jpegData(quality: 90) : try levelled.pngData()
            })
    ]
}
