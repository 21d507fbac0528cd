import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser
import Foundation

/// Where the outputs go and which are written.
struct OutputOptionGroup: ParsableArguments {
    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp("Folder for the per-image outputs and the report (created if missing).", valueName: "dir"))
    var output: String = "analyze-output"

    @Flag(name: .customLong("no-png"), help: "Do not write the annotated images (PNG or JPEG).")
    var noPNG = false

    @Flag(name: .customLong("no-svg"), help: "Do not write the SVG overlays.")
    var noSVG = false

    @Flag(name: .customLong("no-json"), help: "Do not write the per-image JSON files.")
    var noJSON = false

    @Option(
        name: .customLong("annotated-format"),
        help: ArgumentHelp(
            "The annotated image's format: auto (JPEG for JPEG, HEIC and AVIF photos, PNG for the rest), png or jpg.",
            valueName: "format"))
    var annotatedFormat: OutputLayout.AnnotatedFormat = .auto

    @Option(
        name: .customLong("annotated-max-side"),
        help: ArgumentHelp(
            "Scale the annotated image down to this longer side in pixels (default: full size). Coordinates in the JSON and SVG stay those of the full image.",
            valueName: "px"))
    var annotatedMaxSide: Int?

    @Flag(
        name: .customLong("normalized"),
        help:
            "Write coordinates in the JSON as Vision does: fractions (0-1) of the upright image's width and height, origin bottom-left, a box's y its bottom edge. The JSON then has \"coordinates\": \"normalized\". Default: pixels, origin top-left."
    )
    var normalized = false

    /// `--hocr`, `--level`, `--rectify`…: one flag per side output a kind declares (``SideOutputFlag``).
    @Flag var sideOutputs: [SideOutputFlag] = []

    var options: OutputOptions {
        let asked = Set(sideOutputs.map(\.name))
        var options = OutputOptions(
            directory: URL(fileURLWithPath: output), writePNG: !noPNG, writeSVG: !noSVG, writeJSON: !noJSON,
            sideOutputs: asked)
        options.layout.annotatedFormat = annotatedFormat
        options.layout.annotatedMaximumSide = annotatedMaxSide
        options.layout.coordinates = normalized ? .normalized : .pixels
        return options
    }

    func validate() throws {
        if let annotatedMaxSide, annotatedMaxSide < 16 {
            throw ValidationError("--annotated-max-side must be at least 16")
        }
    }
}

/// A flag that asks for one side output by its name, with its help: the command's flags for side
/// outputs are the registry's (``RequestRegistry/sideOutputs``), so a kind that declares one needs no
/// line here.
struct SideOutputFlag: EnumerableFlag, Hashable {
    let name: String

    static var allCases: [SideOutputFlag] {
        RequestRegistry.sideOutputs.map { SideOutputFlag(name: $0.name) }.sorted { $0.name < $1.name }
    }

    static func name(for value: SideOutputFlag) -> NameSpecification { .customLong(value.name) }

    static func help(for value: SideOutputFlag) -> ArgumentHelp? {
        RequestRegistry.sideOutputs.first { $0.name == value.name }.map { ArgumentHelp($0.help) }
    }
}

/// How the run is carried out and reported.
struct RunOptionGroup: ParsableArguments {
    @Option(
        name: [.short, .customLong("jobs")],
        help: ArgumentHelp(
            "Images analysed in parallel (default: the number of cores). Also bounds the images held in memory. Workers with no image left perform requests of the images still in progress (one photo's requests run side by side); the output is the same at every value.",
            valueName: "n"))
    var jobs: Int?

    @Option(
        name: .customLong("max-pixels"),
        help: ArgumentHelp(
            "Refuse images whose header claims more pixels than this, before decoding them.", valueName: "n"))
    var maxPixels: Int = ImageRequestHandler.defaultMaximumPixels

    @Option(
        name: .customLong("max-file-bytes"),
        help: ArgumentHelp(
            "Refuse input files larger than this many bytes (1073741824: 1 GiB), before reading them.", valueName: "n"))
    var maxFileBytes: Int = RegularFile.defaultMaximumBytes

    @Option(
        name: .customLong("pdf-dpi"),
        help: ArgumentHelp(
            "Render the pages of PDF documents at this resolution (poppler's pdftoppm; 300 is what Tesseract expects of a page). A page that would exceed --max-pixels is refused.",
            valueName: "dpi"))
    var pdfDPI: Int = PDFRenderer.defaultResolution

    @Option(
        name: .customLong("pdf-page-timeout"),
        help: ArgumentHelp(
            "Seconds poppler may take to read or render one page of a PDF; a page that takes longer fails alone (its error says so) and the batch goes on.",
            valueName: "seconds"))
    var pdfPageTimeout: Double = PDFRenderer.defaultPageTimeout

    @Option(
        name: .customLong("pages"),
        help: ArgumentHelp(
            "Analyse only these pages of multi-page TIFFs and PDFs: page numbers from 1 and ranges, e.g. 1 (cover pages), 1-3,7 or 10- (from page 10 on). Other inputs are analysed whole; outputs keep the pages' own numbers.",
            valueName: "list"))
    var pages: PageSelection?

    @Flag(
        name: [.short, .customLong("quiet")],
        help: "Print only failures and the final summary on stderr (no per-image lines, no progress bar).")
    var quiet = false

    @Flag(
        name: .customLong("jsonl"),
        help:
            "Print one JSON object per image on stdout as each finishes (the content of its JSON file, on one line; failed images as {\"file\",\"error\"})."
    )
    var jsonl = false

    @Flag(
        name: .customLong("print"),
        help:
            "Print what zbarimg and tesseract print on stdout, image by image in input order: each barcode as symbology:payload on its own line, then the recognised text followed by a form feed; for a video, each distinct barcode once. On a terminal, control characters (but newline, tab and form feed) and bidirectional controls in payloads and text are shown as escapes (\\x1b, \\u202e)."
    )
    var print = false

    @Option(
        name: .customLong("files-from"),
        help: ArgumentHelp(
            "Read more input paths from FILE, one per line ('-' for stdin), e.g. `find ... | analyze --files-from -`.",
            valueName: "file"))
    var filesFrom: String?

    @Flag(
        name: .customLong("resume"),
        help:
            "Skip images and videos whose outputs in the output folder are up to date (same input bytes by SHA-256, same options and models): continues an interrupted run. Live streams are always analysed."
    )
    var resume = false

    @Option(
        name: .customLong("shard"),
        help: ArgumentHelp(
            "Analyse only slice K of N (0 <= K < N) of the inputs, chosen by a stable hash of each path; writes summary.shard-K-of-N.json. Merge with `analyze report`.",
            valueName: "K/N"))
    var shard: Shard?

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be positive") }
        if maxFileBytes < 1 { throw ValidationError("--max-file-bytes must be positive") }
        if !(18...2400).contains(pdfDPI) { throw ValidationError("--pdf-dpi must be between 18 and 2400") }
        if !(pdfPageTimeout >= 1 && pdfPageTimeout <= 3600) {
            throw ValidationError("--pdf-page-timeout must be between 1 and 3600 seconds")
        }
        if print && jsonl { throw ValidationError("--print and --jsonl both write to stdout: choose one") }
    }
}

/// CI checks on every image.
struct CheckOptionGroup: ParsableArguments {
    @Option(
        name: .customLong("require"),
        help: ArgumentHelp(
            "Fail an image that has nothing of KIND (\(RequestRegistry.kindNames)), or with KIND=LABEL nothing with that label (label=cat, object=person). Repeatable; enables that request.",
            valueName: "kind[=label]"))
    var require: [CheckTarget] = []

    @Option(
        name: .customLong("forbid"),
        help: ArgumentHelp(
            "Fail an image that has anything of KIND, or with KIND=LABEL anything with that label (--forbid object=person: a privacy check). Repeatable; enables that request.",
            valueName: "kind[=label]"))
    var forbid: [CheckTarget] = []

    @Option(
        name: .customLong("junit"),
        help: ArgumentHelp(
            "Also write JUnit XML to FILE: one test case per image; unreadable images are errors, failed checks failures.",
            valueName: "file"))
    var junit: String?

    var checks: [ObservationCheck] {
        require.map { ObservationCheck(.require, $0.kind, label: $0.label) }
            + forbid.map { ObservationCheck(.forbid, $0.kind, label: $0.label) }
    }
}
