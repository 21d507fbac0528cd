import AnalyzeCore

/// A file an image gets from one kind's result, beside its annotated image, overlay and JSON, when
/// the user asks for it by name: the rectangles' perspective-corrected crops (`rectify`), the text as
/// hOCR (`hocr`), the image levelled by its horizon (`level`).
///
/// A kind declares its side outputs in its own file under `SideOutputs/`, by conforming its request
/// to ``SideOutputProducing``; the registry collects them, and the command makes each a flag
/// `--<name>` with its ``help``. ``OutputLayout`` then names their files,
/// the batch runner renders and writes them, and `--resume` checks they are there, all from this value.
public struct SideOutput: Sendable {
    /// Its name: what asks for it (``OutputLayout/sideOutputs``) and its key in the run's options.
    public let name: String
    /// Whether the run's options hash records it when it is not asked for. Only `rectify`, which
    /// existed before the hash did; the others appear only when asked, so hashes recorded before
    /// they existed still match (`--resume`).
    public let hashedWhenOff: Bool
    /// What the command's `--<name>` flag says it writes.
    public let help: String
    /// The name suffixes (after `<name>.`) of the files an image gets: `["rect-1.png", "rect-2.png"]`;
    /// none when its result calls for none. The second argument is the annotated image's format,
    /// which a picture output follows.
    let files: @Sendable (_ analysis: ImageAnalysis, _ pictureFormat: OutputLayout.ImageFormat) -> [String]
    /// The bytes of the `index`-th of those files, rendered from the upright image before the
    /// annotated image is drawn on its pixels.
    let render:
        @Sendable (
            _ index: Int, _ analysis: ImageAnalysis, _ image: UprightImage,
            _ pictureFormat: OutputLayout.ImageFormat
        ) throws(AnalysisError) -> [UInt8]

    package init(
        name: String, hashedWhenOff: Bool = false, help: String,
        files: @escaping @Sendable (_ analysis: ImageAnalysis, _ pictureFormat: OutputLayout.ImageFormat) -> [String],
        render:
            @escaping @Sendable (
                _ index: Int, _ analysis: ImageAnalysis, _ image: UprightImage,
                _ pictureFormat: OutputLayout.ImageFormat
            ) throws(AnalysisError) -> [UInt8]
    ) {
        self.name = name
        self.hashedWhenOff = hashedWhenOff
        self.help = help
        self.files = files
        self.render = render
    }

    /// The stage its rendering is timed under: `render.rectify`.
    public var stage: String { "render." + name }

    /// The file names' suffixes for `analysis`, read from an input at `input` under `layout`.
    public func files(for analysis: ImageAnalysis, input: String, layout: OutputLayout) -> [String] {
        files(analysis, layout.annotatedFormat(forInput: input))
    }

    /// The bytes of the `index`-th file.
    public func render(
        _ index: Int, of analysis: ImageAnalysis, image: UprightImage, input: String, layout: OutputLayout
    ) throws(AnalysisError) -> [UInt8] {
        try render(index, analysis, image, layout.annotatedFormat(forInput: input))
    }
}

/// A request whose result can give its image side outputs (``SideOutput``).
public protocol SideOutputProducing {
    static var sideOutputs: [SideOutput] { get }
}
