import AnalyzeCore
import ArgumentParser
import Dispatch
import Foundation

/// `analyze`: Apple Vision-style detection for still images, in batch, on Linux.
@main
struct AnalyzeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Find rectangles, faces, barcodes and text in images, in batch; write annotated PNG, SVG and JSON per image.",
        discussion: """
        For every input image, writes into the output folder:
          <name>.png   the upright image with every observation drawn on it
          <name>.svg   a vector overlay of the observations (refers to the input)
          <name>.json  the observations as data (see the README's "JSON" section)
        plus index.html (a self-contained report page) and summary.json (totals, failures, timings) for the run, and prints one line per image on stderr (a progress bar instead when stderr is a terminal). <name> is the file's stem; when two inputs share a stem, each gets a suffix from a hash of its path.

        EXIF orientation is applied before any request runs; all coordinates are pixels of the upright image, origin top-left. With no request flag, every request runs.

        Exit status: 0 all images analysed; 1 some images failed or failed a --require/--forbid check (each named on stderr); 2 usage error (bad flag, no inputs, output folder not writable).

        Merge the outputs of sharded runs (--shard) into one report:
          analyze report DIR... [-o OUT]
        """,
        version: "0.1.0"
    )

    @Argument(help: ArgumentHelp("Image files and folders. Folders are searched recursively for JPEG, PNG, TIFF, BMP and WebP files.", valueName: "path"))
    var inputs: [String] = []

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Folder for the per-image outputs (created if missing).", valueName: "dir"))
    var output: String = "analyze-output"

    @Flag(name: .customLong("rects"), help: "Detect projected rectangles (documents, receipts, cards, screens, signs at an angle): four corners and a confidence.")
    var rects = false

    @Flag(name: .customLong("faces"), help: "Detect faces (CenterFace; needs scripts/fetch-models): box, confidence, five landmarks, roll and yaw.")
    var faces = false

    @Flag(name: .customLong("barcodes"), help: "Detect and decode barcodes (ZBar): QR, EAN/UPC, Code 128/39/93, I2/5, Codabar, DataBar, PDF417…; light-on-dark and rotated codes included.")
    var barcodes = false

    @Flag(name: .customLong("text"), help: "Recognise text (Tesseract): lines and words with boxes and confidences, and the whole text.")
    var text = false

    @Option(help: ArgumentHelp("Only decode these barcode symbologies, comma-separated: \(BarcodeSymbology.all.map(\.rawValue).joined(separator: ",")). Default: all.", valueName: "list"))
    var symbologies: String?

    @Flag(name: .customLong("characters"), help: "With --text, also report a box per character (Vision's characterBoxes).")
    var characters = false

    @Option(help: ArgumentHelp("Tesseract languages for --text, joined with '+', e.g. eng+deu (needs tesseract-ocr-<lang>).", valueName: "langs"))
    var languages: String = "eng"

    @Option(name: .customLong("min-text-confidence"), help: ArgumentHelp("With --text, drop words whose confidence (0-1) is below this.", valueName: "c"))
    var minTextConfidence: Double = 0

    @Option(name: .customLong("min-aspect-ratio"), help: ArgumentHelp("With --rects, smallest shorter/longer side ratio (Vision's minimumAspectRatio).", valueName: "r"))
    var minAspectRatio: Double = 0.5

    @Option(name: .customLong("max-aspect-ratio"), help: ArgumentHelp("With --rects, largest shorter/longer side ratio (Vision's maximumAspectRatio).", valueName: "r"))
    var maxAspectRatio: Double = 1.0

    @Option(name: .customLong("quadrature-tolerance"), help: ArgumentHelp("With --rects, degrees a corner may depart from 90 (Vision's quadratureTolerance).", valueName: "deg"))
    var quadratureTolerance: Double = 30

    @Option(name: .customLong("min-size"), help: ArgumentHelp("With --rects, shorter side as a fraction of the image's smaller side (Vision's minimumSize).", valueName: "f"))
    var minSize: Double = 0.2

    @Option(name: .customLong("min-confidence"), help: ArgumentHelp("With --rects, drop rectangles below this confidence, 0-1 (Vision's minimumConfidence).", valueName: "c"))
    var minConfidence: Double = 0

    @Option(name: .customLong("max-rects"), help: ArgumentHelp("With --rects, report at most this many rectangles per image, best first (Vision's maximumObservations).", valueName: "n"))
    var maxRects: Int = RectangleRequest.defaultMaximumObservations

    @Flag(name: .customLong("rectify"), help: "With --rects, also write each rectangle perspective-corrected as <name>.rect-<n>.png (a scanner app's crop).")
    var rectify = false

    @Option(name: .customLong("face-detector"), help: ArgumentHelp("With --faces: centerface (default; boxes + 5 landmarks) or haar (OpenCV cascade from opencv-data, no download, no landmarks, more false positives).", valueName: "name"))
    var faceDetector: String = FaceDetectorKind.centerface.rawValue

    @Option(name: .customLong("face-model"), help: ArgumentHelp("With --faces, the CenterFace ONNX file (default: $ANALYZE_MODELS, .models/ of the checkout, ~/.cache/analyze/models).", valueName: "file"))
    var faceModel: String?

    @Option(name: .customLong("min-face-confidence"), help: ArgumentHelp("With --faces, drop faces below this detector score, 0-1 (default: 0.6 for centerface, 0.5 for haar).", valueName: "c"))
    var minFaceConfidence: Double?

    @Flag(name: .customLong("landmarks"), help: "With --faces, add dlib's 68 landmarks grouped into Vision's regions (faceContour, leftEye, outerLips, medianLine, ...).")
    var landmarks = false

    @Option(name: [.short, .customLong("jobs")], help: ArgumentHelp("Images analysed in parallel (default: the number of cores). Also bounds the images held in memory.", valueName: "n"))
    var jobs: Int?

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("Refuse images whose header claims more pixels than this, before decoding them.", valueName: "n"))
    var maxPixels: Int = ImageRequestHandler.defaultMaximumPixels

    @Flag(name: .customLong("no-png"), help: "Do not write the annotated PNGs.")
    var noPNG = false

    @Flag(name: .customLong("no-svg"), help: "Do not write the SVG overlays.")
    var noSVG = false

    @Flag(name: .customLong("no-json"), help: "Do not write the per-image JSON files.")
    var noJSON = false

    @Flag(name: [.short, .customLong("quiet")], help: "Print only failures and the final summary on stderr (no per-image lines, no progress bar).")
    var quiet = false

    @Flag(name: .customLong("jsonl"), help: "Print one JSON object per image on stdout as each finishes (the content of its JSON file, on one line; failed images as {\"file\",\"error\"}).")
    var jsonl = false

    @Option(name: .customLong("require"), help: ArgumentHelp("Fail an image that has nothing of KIND (rectangles, faces, barcodes, text). Repeatable; enables that request.", valueName: "kind"))
    var require: [String] = []

    @Option(name: .customLong("forbid"), help: ArgumentHelp("Fail an image that has anything of KIND. Repeatable; enables that request.", valueName: "kind"))
    var forbid: [String] = []

    @Option(name: .customLong("junit"), help: ArgumentHelp("Also write JUnit XML to FILE: one test case per image; unreadable images are errors, failed checks failures.", valueName: "file"))
    var junit: String?

    @Option(name: .customLong("files-from"), help: ArgumentHelp("Read more input paths from FILE, one per line ('-' for stdin), e.g. `find ... | analyze --files-from -`.", valueName: "file"))
    var filesFrom: String?

    @Flag(name: .customLong("resume"), help: "Skip images whose outputs in the output folder are up to date (same input bytes by SHA-256, same options): continues an interrupted run.")
    var resume = false

    @Option(name: .customLong("shard"), help: ArgumentHelp("Analyse only slice K of N (0 <= K < N) of the inputs, chosen by a stable hash of each path; writes summary.shard-K-of-N.json. Merge with `analyze report`.", valueName: "K/N"))
    var shard: String?

    /// Parses and runs as usual; `analyze report` goes to ``ReportCommand``. Usage errors exit
    /// with 2 (ArgumentParser's default would be 64).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "report" {
            ReportCommand.main(Array(arguments.dropFirst()))
            return
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }

    mutating func validate() throws {
        if inputs.isEmpty && filesFrom == nil { throw ValidationError("give at least one image file or folder (or --files-from)") }
        if let shard, Shard(shard) == nil { throw ValidationError("--shard must be K/N with 0 <= K < N, e.g. 0/4") }
        _ = try parsedChecks()
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be positive") }
        if !(0 ... 1).contains(minTextConfidence) { throw ValidationError("--min-text-confidence must be between 0 and 1") }
        if characters && !text && (barcodes || rects || faces) { throw ValidationError("--characters needs --text") }
        for (name, value) in [("--min-aspect-ratio", minAspectRatio), ("--max-aspect-ratio", maxAspectRatio), ("--min-size", minSize),
                              ("--min-confidence", minConfidence), ("--min-face-confidence", minFaceConfidence ?? 0.5)] where !(0 ... 1).contains(value) {
            throw ValidationError("\(name) must be between 0 and 1")
        }
        if minAspectRatio > maxAspectRatio { throw ValidationError("--min-aspect-ratio is larger than --max-aspect-ratio") }
        if !(0 ... 45).contains(quadratureTolerance) { throw ValidationError("--quadrature-tolerance must be between 0 and 45 degrees") }
        if maxRects < 1 { throw ValidationError("--max-rects must be at least 1") }
        if FaceDetectorKind(rawValue: faceDetector) == nil { throw ValidationError("--face-detector must be centerface or haar") }
        _ = try parsedSymbologies()
    }

    func parsedSymbologies() throws -> [BarcodeSymbology] {
        guard let symbologies else { return BarcodeSymbology.all }
        var result: [BarcodeSymbology] = []
        for name in symbologies.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let symbology = BarcodeSymbology(name: name) else {
                throw ValidationError("unknown symbology '\(name)'; known: \(BarcodeSymbology.all.map(\.rawValue).joined(separator: ", "))")
            }
            if !result.contains(symbology) { result.append(symbology) }
        }
        if result.isEmpty { throw ValidationError("--symbologies lists no symbology") }
        return result
    }

    func parsedChecks() throws -> [ObservationCheck] {
        func kind(_ name: String) throws -> ObservationKind {
            let folded = name.lowercased()
            let aliases: [String: ObservationKind] = ["rects": .rectangles, "rectangle": .rectangles, "face": .faces, "barcode": .barcodes]
            guard let kind = ObservationKind(rawValue: folded) ?? aliases[folded] else {
                throw ValidationError("unknown kind '\(name)'; use rectangles, faces, barcodes or text")
            }
            return kind
        }
        return try require.map { ObservationCheck(.require, try kind($0)) } + forbid.map { ObservationCheck(.forbid, try kind($0)) }
    }

    func requestSet() throws -> RequestSet {
        let checked = Set(try parsedChecks().map(\.kind))
        let all = !barcodes && !text && !rects && !faces && checked.isEmpty
        let rects = self.rects || checked.contains(.rectangles), faces = self.faces || checked.contains(.faces)
        let barcodes = self.barcodes || checked.contains(.barcodes), text = self.text || checked.contains(.text)
        var set = RequestSet()
        if rects || all {
            set.rectangles = RectangleRequest(minimumAspectRatio: minAspectRatio, maximumAspectRatio: maxAspectRatio,
                                              quadratureTolerance: quadratureTolerance, minimumSize: minSize,
                                              minimumConfidence: minConfidence, maximumObservations: maxRects)
        }
        if faces || all {
            let request = FaceRequest(detector: FaceDetectorKind(rawValue: faceDetector) ?? .centerface, minimumConfidence: minFaceConfidence,
                                      landmarks: landmarks, models: ModelLocator(centerFacePath: faceModel))
            // A missing model is a usage error when faces were asked for, and a note when they were implied.
            if request.detector == .centerface {
                do {
                    _ = try request.models.centerFace()
                    set.faces = request
                } catch {
                    guard all else { throw ValidationError(error.message) }
                    Self.printError("analyze: faces skipped: \(error.message)")
                }
            } else {
                set.faces = request
            }
        }
        if barcodes || all { set.barcodes = BarcodeRequest(symbologies: try parsedSymbologies()) }
        if text || all { set.text = TextRequest(languages: languages, characterBoxes: characters, minimumConfidence: minTextConfidence) }
        return set
    }

    func run() throws {
        let cancellation = CancellationFlag()
        ProcessEnvironment.installInterruptHandler(cancelling: cancellation)
        var arguments = inputs
        if let filesFrom { arguments += try Self.readPathList(filesFrom) }
        var sources = InputCollector.collect(arguments)
        guard !sources.isEmpty else { throw ValidationError("no images found in \(arguments.prefix(5).joined(separator: ", "))") }
        let shard = self.shard.flatMap(Shard.init)
        if let shard { sources = sources.filter { shard.contains($0.path) } }
        let requests = try requestSet()
        let checks = try parsedChecks()
        let directory = URL(fileURLWithPath: output)
        var runner = BatchRunner(
            sources: sources,
            requests: requests,
            output: OutputOptions(directory: directory, writePNG: !noPNG, writeSVG: !noSVG, writeJSON: !noJSON, rectify: rectify),
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount,
            maximumPixels: maxPixels
        )
        runner.checks = checks
        runner.resume = resume
        runner.retainsObservations = false
        runner.cancellation = cancellation

        let progress = ProgressReporter(total: sources.count, quiet: quiet, jsonl: jsonl)
        let start = DispatchTime.now().uptimeNanoseconds
        let outcomes: [ImageOutcome]
        do {
            outcomes = try runner.run { progress.report($0) }
        } catch {
            Self.printError("analyze: \(error)")
            throw ExitCode(2)
        }
        progress.finish()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9

        var timings = StageTimings()
        for outcome in outcomes { timings.add(outcome.timings) }
        var summary = RunSummary(requests: requests, checks: checks, entries: outcomes.map(\.digest), timings: timings)
        summary.images.resumed = outcomes.filter(\.resumed).count
        summary.wallSeconds = (seconds * 1000).rounded() / 1000
        summary.jobs = runner.jobs
        summary.shard = shard?.description
        do {
            try RunReport.write(summary, to: directory, shard: shard)
            if let junit { try AtomicFileWriter.write(JUnitRenderer.xml(summary: summary), to: URL(fileURLWithPath: junit)) }
        } catch {
            Self.printError("analyze: \(error)")
            throw ExitCode(2)
        }
        if cancellation.isCancelled {
            Self.printError("analyze: interrupted after \(outcomes.count) of \(sources.count) image(s); the outputs written are complete (continue with --resume)")
            throw ExitCode(128 + (ProcessEnvironment.interruptingSignal ?? SIGINT))
        }
        let failed = summary.images.failed, checkFailed = summary.images.checkFailed
        let resumedNote = summary.images.resumed > 0 ? ", \(summary.images.resumed) up to date (resumed)" : ""
        Self.printError(String(format: "analyze: %d image(s), %d failed, %d failed a check%@, %.2f s; report: %@", outcomes.count, failed, checkFailed,
                               resumedNote, seconds, directory.appendingPathComponent(RunReport.names(shard: shard).index).path))
        if failed + checkFailed > 0 { throw ExitCode(1) }
    }

    /// Paths from a file (or stdin for `-`), one per line; blank lines are skipped.
    static func readPathList(_ path: String) throws -> [String] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read --files-from \(path)") }
            data = contents
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map(String.init).filter { !$0.isEmpty }
    }

    /// The stderr line for one image: what was found, or why it failed.
    static func describe(_ outcome: ImageOutcome, quiet: Bool) -> String? {
        switch outcome.result {
        case .failure(let error):
            return "FAIL \(outcome.source.path): \(error.message) [\(error.code)]"
        case .success(let analysis):
            if !outcome.checkFailures.isEmpty {
                return "FAIL \(outcome.source.path): " + outcome.checkFailures.joined(separator: "; ") + " [check]"
            }
            if quiet { return nil }
            if outcome.resumed { return "ok   \(outcome.source.path): up to date (resumed)" }
            var parts: [String] = []
            if let rects = analysis.rectangles { parts.append("\(rects.count) rectangle(s)") }
            if let faces = analysis.faces { parts.append("\(faces.count) face(s)") }
            if let codes = analysis.barcodes {
                let payloads = codes.prefix(3).map { "\($0.symbology) \"\(MarkupEscaping.label($0.payload, limit: 30))\"" }
                parts.append("\(codes.count) barcode(s)" + (payloads.isEmpty ? "" : " (" + payloads.joined(separator: ", ") + (codes.count > 3 ? ", …" : "") + ")"))
            }
            if let lines = analysis.text {
                parts.append("\(lines.count) text line(s), \(lines.reduce(0) { $0 + $1.words.count }) word(s)")
            }
            let orientation = analysis.orientation == 1 ? "" : " orientation \(analysis.orientation),"
            let warnings = analysis.warnings.map { "; warning: \($0)" }.joined()
            return "ok   \(outcome.source.path): \(analysis.width)x\(analysis.height),\(orientation) " + parts.joined(separator: ", ") + warnings
        }
    }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
