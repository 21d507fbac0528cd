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

    /// Where `file` of `source` goes.
    public func url(of file: OutputLayout.File, for source: ImageSource) -> URL {
        directory.appendingPathComponent(layout.name(of: file, for: source.outputName, input: source.path))
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
    /// The annotated image's format (`--annotated-format`).
    public var annotatedFormat: AnnotatedFormat = .auto
    /// The annotated image is scaled down to this longer side (`--annotated-max-side`); nil: full size.
    public var annotatedMaximumSide: Int?

    /// `--annotated-format`: `auto` writes JPEG for photos (JPEG and HEIF inputs) and PNG for
    /// everything else (scans, screenshots, drawings: sharp edges, often gray).
    public enum AnnotatedFormat: String, Sendable, Hashable, Codable, CaseIterable {
        case auto, png, jpg
    }

    /// An encoded image format.
    public enum ImageFormat: String, Sendable, Hashable {
        case png, jpeg
    }

    public init(png: Bool = true, svg: Bool = true, json: Bool = true, rectify: Bool = false,
                annotatedFormat: AnnotatedFormat = .auto, annotatedMaximumSide: Int? = nil) {
        self.png = png
        self.svg = svg
        self.json = json
        self.rectify = rectify
        self.annotatedFormat = annotatedFormat
        self.annotatedMaximumSide = annotatedMaximumSide
    }

    /// Input extensions that are photographs: their annotated copy is a JPEG under `auto`.
    static let photoExtensions: Set<String> = ["jpg", "jpeg", "jpe", "heic", "heif", "hif"]

    /// The annotated image's format for the input at `path`.
    public func annotatedFormat(forInput path: String) -> ImageFormat {
        switch annotatedFormat {
        case .png: .png
        case .jpg: .jpeg
        case .auto: Self.photoExtensions.contains((path as NSString).pathExtension.lowercased()) ? .jpeg : .png
        }
    }

    /// One output file of an image.
    public enum File: Sendable, Hashable {
        /// The annotated image, `<name>.png` or `<name>.jpg` (see ``annotatedFormat(forInput:)``).
        case annotated
        /// The SVG overlay, `<name>.svg`.
        case overlay
        /// The observations, `<name>.json`.
        case json
        /// The n-th rectangle (from 1), perspective-corrected, `<name>.rect-<n>.png`.
        case rectified(Int)
    }

    /// The file name of `file` for the image named `outputName`, read from `input`.
    public func name(of file: File, for outputName: String, input: String) -> String {
        switch file {
        case .annotated: outputName + (annotatedFormat(forInput: input) == .jpeg ? ".jpg" : ".png")
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
