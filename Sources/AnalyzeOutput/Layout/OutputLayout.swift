import Foundation
import AnalyzeCore

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
    /// Recognised text is also written as hOCR, `<name>.hocr` (`--hocr`), for images with text results.
    public var hocr: Bool = false
    /// Images with a horizon are also written levelled, `<name>.level.jpg|png` (`--level`).
    public var level: Bool = false
    /// The JSON's coordinates (`--normalized`): pixels of the upright image, origin top-left (the
    /// default), or Vision's normalized coordinates (0–1, origin bottom-left).
    public var coordinates: CoordinateSpace = .pixels

    /// How coordinates are written in the JSON.
    public enum CoordinateSpace: String, Sendable, Hashable, Codable, CaseIterable {
        /// Pixels of the upright image, origin top-left, y down.
        case pixels
        /// Vision's convention: fractions of the upright image's width and height, origin
        /// bottom-left, y up; a box's `y` is its bottom edge.
        case normalized
    }

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

    private enum CodingKeys: String, CodingKey {
        case png, svg, json, rectify, annotatedFormat, annotatedMaximumSide, hocr, level, coordinates
    }

    /// Summaries written before `hocr` and `coordinates` existed still read.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(png: try c.decode(Bool.self, forKey: .png), svg: try c.decode(Bool.self, forKey: .svg), json: try c.decode(Bool.self, forKey: .json),
                  rectify: try c.decode(Bool.self, forKey: .rectify),
                  annotatedFormat: try c.decodeIfPresent(AnnotatedFormat.self, forKey: .annotatedFormat) ?? .auto,
                  annotatedMaximumSide: try c.decodeIfPresent(Int.self, forKey: .annotatedMaximumSide))
        hocr = try c.decodeIfPresent(Bool.self, forKey: .hocr) ?? false
        level = try c.decodeIfPresent(Bool.self, forKey: .level) ?? false
        coordinates = try c.decodeIfPresent(CoordinateSpace.self, forKey: .coordinates) ?? .pixels
    }

    /// Input extensions that are photographs: their annotated copy is a JPEG under `auto`.
    static let photoExtensions: Set<String> = ["jpg", "jpeg", "jpe", "heic", "heif", "hif", "avif"]

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
        /// The recognised text as hOCR, `<name>.hocr`.
        case hocr
        /// The image turned so that its horizon is level and zoomed to fill its frame (a
        /// straighten tool's crop), `<name>.level.jpg` or `.png` (the annotated image's format rule).
        case levelled
        /// A sequence's annotated video (its analysed frames with their observations and tracks), `<name>.mp4`.
        case video
        /// A sequence's contact sheet: up to 12 annotated key frames, `<name>.contact.png`.
        case contactSheet
    }

    /// The file name of `file` for the image named `outputName`, read from `input`.
    public func name(of file: File, for outputName: String, input: String) -> String {
        switch file {
        case .annotated: outputName + (annotatedFormat(forInput: input) == .jpeg ? ".jpg" : ".png")
        case .overlay: outputName + ".svg"
        case .json: outputName + ".json"
        case .rectified(let n): outputName + ".rect-\(n).png"
        case .hocr: outputName + ".hocr"
        case .levelled: outputName + (annotatedFormat(forInput: input) == .jpeg ? ".level.jpg" : ".level.png")
        case .video: outputName + ".mp4"
        case .contactSheet: outputName + ".contact.png"
        }
    }

    /// Every file an image with `rectangles` rectangles (text results when `hasText`, a horizon when `hasHorizon`) gets,
    /// in the order they are written (the JSON last: it is what `--resume` trusts).
    public func files(rectangles: Int, hasText: Bool = false, hasHorizon: Bool = false) -> [File] {
        var files: [File] = []
        if svg { files.append(.overlay) }
        if hocr && hasText { files.append(.hocr) }
        if level && hasHorizon { files.append(.levelled) }
        if rectify && rectangles > 0 { files += (1 ... rectangles).map { .rectified($0) } }
        if png { files.append(.annotated) }
        if json { files.append(.json) }
        return files
    }

    /// Every file a sequence gets: the annotated video and contact sheet stand for the annotated image.
    public func sequenceFiles(hasFrames: Bool = true) -> [File] {
        var files: [File] = []
        if png { files += hasFrames ? [.video, .contactSheet] : [.contactSheet] }
        if json { files.append(.json) }
        return files
    }
}
