import AnalyzeCore
import Foundation

/// The one value that decides the output files of an image: which exist and their names. Used by
/// the writer, by `--resume` (which checks they are all there) and by the report (which links
/// only what exists).
public struct OutputLayout: Sendable, Hashable, Codable {
    public var png: Bool
    public var svg: Bool
    public var json: Bool
    /// The annotated image's format (`--annotated-format`).
    public var annotatedFormat: AnnotatedFormat = .auto
    /// The annotated image is scaled down to this longer side (`--annotated-max-side`); nil: full size.
    public var annotatedMaximumSide: Int?
    /// Every side output the run knows (``SideOutput``), by name, and whether it is asked for:
    /// `["rectify": true, "hocr": false, "level": false]`. The batch layer fills it from the kinds'
    /// registry; a name absent here is not written.
    public var sideOutputs: [String: Bool] = [:]
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

    public init(
        png: Bool = true, svg: Bool = true, json: Bool = true, sideOutputs: [String: Bool] = [:],
        annotatedFormat: AnnotatedFormat = .auto, annotatedMaximumSide: Int? = nil
    ) {
        self.png = png
        self.svg = svg
        self.json = json
        self.sideOutputs = sideOutputs
        self.annotatedFormat = annotatedFormat
        self.annotatedMaximumSide = annotatedMaximumSide
    }

    /// Whether the side output `name` is asked for.
    public func asks(for name: String) -> Bool { sideOutputs[name] == true }

    /// The fixed keys; every other key of the summary's `outputs` object is a side output's name.
    private static let fixedKeys: Set<String> = [
        "png", "svg", "json", "annotatedFormat", "annotatedMaximumSide", "coordinates",
    ]

    /// Each side output is a key of its own (`"rectify": false`), as the summary has always had them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnalysisCodingKey.self)
        try c.encode(png, forKey: AnalysisCodingKey("png"))
        try c.encode(svg, forKey: AnalysisCodingKey("svg"))
        try c.encode(json, forKey: AnalysisCodingKey("json"))
        try c.encode(annotatedFormat, forKey: AnalysisCodingKey("annotatedFormat"))
        try c.encodeIfPresent(annotatedMaximumSide, forKey: AnalysisCodingKey("annotatedMaximumSide"))
        try c.encode(coordinates, forKey: AnalysisCodingKey("coordinates"))
        for (name, asked) in sideOutputs where !Self.fixedKeys.contains(name) {
            try c.encode(asked, forKey: AnalysisCodingKey(name))
        }
    }

    /// Summaries written before `hocr` and `coordinates` existed still read.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: AnalysisCodingKey.self)
        self.init(
            png: try c.decode(Bool.self, forKey: AnalysisCodingKey("png")),
            svg: try c.decode(Bool.self, forKey: AnalysisCodingKey("svg")),
            json: try c.decode(Bool.self, forKey: AnalysisCodingKey("json")),
            annotatedFormat: try c.decodeIfPresent(AnnotatedFormat.self, forKey: AnalysisCodingKey("annotatedFormat"))
                ?? .auto,
            annotatedMaximumSide: try c.decodeIfPresent(Int.self, forKey: AnalysisCodingKey("annotatedMaximumSide")))
        coordinates = try c.decodeIfPresent(CoordinateSpace.self, forKey: AnalysisCodingKey("coordinates")) ?? .pixels
        for key in c.allKeys where !Self.fixedKeys.contains(key.stringValue) {
            if let asked = try? c.decode(Bool.self, forKey: key) { sideOutputs[key.stringValue] = asked }
        }
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
        /// The `index`-th file (from 0) of a kind's side output (``SideOutput``), `<name>.<suffix>`:
        /// `card.rect-1.png`, `letter.hocr`, `sea.level.jpg`.
        case side(output: String, index: Int, suffix: String)
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
        case .side(_, _, let suffix): outputName + "." + suffix
        case .video: outputName + ".mp4"
        case .contactSheet: outputName + ".contact.png"
        }
    }

    /// Every file `analysis`, read from `input`, gets, in the order they are written: the overlay, the
    /// side outputs asked for among `sideOutputs` (rendered before the annotated image is drawn on the
    /// image's pixels), the annotated image, the JSON last (it is what `--resume` trusts).
    public func files(for analysis: ImageAnalysis, input: String, sideOutputs known: [SideOutput]) -> [File] {
        var files: [File] = []
        if svg { files.append(.overlay) }
        for output in known where asks(for: output.name) {
            files += output.files(for: analysis, input: input, layout: self).enumerated().map {
                .side(output: output.name, index: $0.offset, suffix: $0.element)
            }
        }
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
