import Foundation

/// Which files the batch runner writes for every image, and where.
public struct OutputOptions: Sendable, Hashable {
    /// The folder for the per-image outputs and the run's report (created if missing).
    public var directory: URL
    /// Which outputs exist and how they are named.
    public var layout: OutputLayout

    public init(directory: URL, writePNG: Bool = true, writeSVG: Bool = true, writeJSON: Bool = true, rectify: Bool = false) {
        self.directory = directory
        layout = OutputLayout(png: writePNG, svg: writeSVG, json: writeJSON, rectify: rectify)
    }

    public var writePNG: Bool { layout.png }
    public var writeSVG: Bool { layout.svg }
    public var writeJSON: Bool { layout.json }
    public var rectify: Bool { layout.rectify }

    /// Where `file` of the image named `outputName` goes.
    public func url(of file: OutputLayout.File, for outputName: String) -> URL {
        directory.appendingPathComponent(layout.name(of: file, for: outputName))
    }
}

/// The one value that decides the output files of an image: which exist and their names. Used by
/// the writer, by `--resume` (which checks they are all there) and by the report (which links
/// only what exists).
public struct OutputLayout: Sendable, Hashable, Codable {
    public var png: Bool
    public var svg: Bool
    public var json: Bool
    /// Perspective-corrected crops of the rectangles.
    public var rectify: Bool

    public init(png: Bool = true, svg: Bool = true, json: Bool = true, rectify: Bool = false) {
        self.png = png
        self.svg = svg
        self.json = json
        self.rectify = rectify
    }

    /// One output file of an image.
    public enum File: Sendable, Hashable {
        /// The annotated image, `<name>.png`.
        case annotated
        /// The SVG overlay, `<name>.svg`.
        case overlay
        /// The observations, `<name>.json`.
        case json
        /// The n-th rectangle (from 1), perspective-corrected, `<name>.rect-<n>.png`.
        case rectified(Int)
    }

    /// The file name of `file` for the image named `outputName`.
    public func name(of file: File, for outputName: String) -> String {
        switch file {
        case .annotated: outputName + ".png"
        case .overlay: outputName + ".svg"
        case .json: outputName + ".json"
        case .rectified(let n): outputName + ".rect-\(n).png"
        }
    }

    /// Every file an image with `rectangles` rectangles gets, in the order they are written (the
    /// JSON last: it is what `--resume` trusts).
    public func files(rectangles: Int) -> [File] {
        var files: [File] = []
        if svg { files.append(.overlay) }
        if rectify && rectangles > 0 { files += (1 ... rectangles).map { .rectified($0) } }
        if png { files.append(.annotated) }
        if json { files.append(.json) }
        return files
    }
}
