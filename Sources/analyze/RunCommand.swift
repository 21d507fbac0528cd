import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import AnalyzeReport
import ArgumentParser
import Dispatch
import Foundation

/// `analyze [run] PATH…`: analyses images in batch and writes their outputs and a report.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract:
            "Find rectangles, faces, barcodes, text, objects and more in images and videos, in batch; write annotated images or video, SVG and JSON.",
        discussion: """
            For every input image, writes into the output folder:
              <name>.png   the upright image with every observation drawn on it
              <name>.svg   a vector overlay of the observations (refers to the input)
              <name>.json  the observations as data (docs/output.md describes every field)
            For every video, folder of frames (--sequence) or live stream (a udp://, rtsp://… URL or /dev/video*):
              <name>.json         every analysed frame's observations, then the tracks (--track)
              <name>.mp4          the analysed frames with their observations drawn
              <name>.contact.png  up to 12 annotated key frames
            plus index.html (a self-contained report page) and summary.json (totals, failures, timings) for the run, and prints one line per image on stderr (a progress bar instead when stderr is a terminal). <name> is the file's stem; when two inputs share a stem, each gets a suffix from a hash of its path. Each page of a multi-page TIFF or PDF (a scan, a fax) is an input of its own: <name>.page-1, <name>.page-2…

            EXIF orientation is applied before any request runs; all coordinates are pixels of the upright image, origin top-left. With no request flag, every request runs (a request whose model is missing is skipped with a note).

            Exit status: 0 all images analysed; 1 some images failed or failed a --require/--forbid check (each named on stderr); 2 usage error (bad flag, no inputs, output folder not writable, a requested model missing).

            Other subcommands:
              analyze report DIR...    merge sharded runs (--shard) into one report
              analyze similar PATH...  near-duplicate images, by their feature prints
              analyze models           where models are looked for, which are there
              analyze version          the version
              analyze help [SUB]       help on a subcommand
            """
    )

    @Argument(
        help: ArgumentHelp(
            "Image and video files, folders, and live streams (udp://, rtsp://… URLs, /dev/video*). Folders are searched recursively for JPEG, PNG, TIFF, BMP, WebP, HEIF/HEIC, AVIF, GIF, Netpbm (PGM, PPM…), JPEG 2000 and Sun raster images, PDF documents and MP4, MOV, AVI, MKV, WebM… videos.",
            valueName: "path"))
    var inputs: [String] = []

    @OptionGroup var requests: RequestOptionGroups
    @OptionGroup(title: "Outputs") var outputs: OutputOptionGroup
    @OptionGroup(title: "Videos and sequences") var sequenceOptions: SequenceOptionGroup
    @OptionGroup(title: "Checks") var checks: CheckOptionGroup
    @OptionGroup(title: "Run") var runOptions: RunOptionGroup

    func validate() throws {
        if inputs.isEmpty && runOptions.filesFrom == nil && sequenceOptions.sequences.isEmpty {
            throw ValidationError(
                "give at least one image or video file, folder or stream (or --files-from, --sequence)")
        }
        // `analyze reprot`: a mistyped subcommand, not a missing image.
        if let first = inputs.first, !FileManager.default.fileExists(atPath: first), !first.contains("/"),
            !first.contains("."),
            let near = Analyze.subcommandNames.first(where: { Self.editDistance($0, first) <= 2 })
        {
            throw ValidationError("no such file or subcommand '\(first)'; did you mean `analyze \(near)`?")
        }
    }

    /// Levenshtein distance, for suggesting a subcommand.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// The requests to perform, by the library's policy (``RequestPlan``), and the model locator
    /// that knows the explicit model files.
    func plannedRequests() throws -> (RequestSet, ModelLocator) {
        var models = ModelLocator.standard
        var configured = RequestSet()
        var asked: [ObservationKind] = []
        for group in requests.all {
            guard let request = try group.request(models: &models) else { continue }
            configured.insert(request)
            if group.isAsked { asked.append(request.kind) }
        }
        do {
            // --track-box alone follows its boxes: no detection runs unless one is asked for.
            let plan = RequestPlan(
                configured: configured, asked: asked, checks: checks.checks,
                everyWhenNoneAsked: sequenceOptions.trackBoxes.isEmpty)
            let (set, notes) = try plan.resolve(models: models)
            for note in notes { Terminal.printError("analyze: \(note)") }
            return (set, models)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let cancellation = CancellationFlag()
        ProcessEnvironment.installInterruptHandler(cancelling: cancellation)
        // File names that are not UTF-8 keep their bytes (see FilePathBytes).
        var arguments = FilePathBytes.restoringRawBytes(inputs)
        if let filesFrom = runOptions.filesFrom { arguments += try Self.readPathList(filesFrom) }
        let shard = runOptions.shard
        let sources: [ImageSource]
        do {
            sources = try BatchInputs.resolve(
                arguments, sequences: sequenceOptions.sequences, output: outputs.output, shard: shard,
                pages: runOptions.pages ?? .all)
        } catch {
            throw ValidationError(error.description)
        }
        let (requestSet, models) = try plannedRequests()
        let tracking = sequenceOptions.tracking
        if tracking != nil, tracking?.boxes.isEmpty == true,
            !requestSet.requests.contains(where: { TrackRequest.trackableKinds.contains($0.kind) })
        {
            throw ValidationError(
                "--track follows what --faces, --objects, --rects or --barcodes find (or a --track-box); none of them is requested"
            )
        }
        let checks = self.checks.checks
        let output = outputs.options
        var runner = BatchRunner(
            sources: sources, requests: requestSet, output: output,
            jobs: runOptions.jobs ?? ProcessInfo.processInfo.activeProcessorCount, maximumPixels: runOptions.maxPixels)
        runner.models = models
        runner.maximumFileBytes = runOptions.maxFileBytes
        runner.pdfResolution = runOptions.pdfDPI
        runner.pdfPageTimeout = runOptions.pdfPageTimeout
        runner.checks = checks
        runner.resume = runOptions.resume
        runner.retainsObservations = false
        runner.cancellation = cancellation
        runner.sampling = sequenceOptions.sampling
        runner.tracking = tracking
        if runOptions.jsonl { runner.onFrame = FrameLinePrinter(coordinates: output.layout.coordinates).print }

        let progress = ProgressReporter(
            total: sources.count, quiet: runOptions.quiet,
            stdout: runOptions.jsonl ? .jsonl : runOptions.print ? .plain : nil)
        runner.onSequenceProgress = { progress.sequenceProgress($0, $1) }
        let start = DispatchTime.now().uptimeNanoseconds
        let outcomes: [ImageOutcome]
        do {
            outcomes = try runner.run { progress.report($0) }
        } catch {
            Terminal.printError("analyze: \(error)")
            throw ExitCode(2)
        }
        progress.finish()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let summary = runner.summary(of: outcomes, wallSeconds: seconds, shard: shard)
        do {
            try RunReport.write(summary, to: output.directory, shard: shard)
            if let junit = self.checks.junit {
                try AtomicFileWriter.write(JUnitRenderer.xml(summary: summary), to: URL(fileURLWithPath: junit))
            }
        } catch {
            Terminal.printError("analyze: \(error)")
            throw ExitCode(2)
        }
        if cancellation.isCancelled {
            Terminal.printError(
                "analyze: interrupted after \(outcomes.count) of \(CountWording.inputs(sources)); the outputs written are complete (continue with --resume)"
            )
            throw ExitCode(128 + (ProcessEnvironment.interruptingSignal ?? SIGINT))
        }
        if !runOptions.quiet, let totals = CountWording.totals(summary.totals) {
            Terminal.printError("analyze: " + totals)
        }
        let failed = summary.images.failed, checkFailed = summary.images.checkFailed
        let resumedNote = summary.images.resumed > 0 ? ", \(summary.images.resumed) up to date (resumed)" : ""
        Terminal.printError(
            String(
                format: "analyze: %@, %d failed, %d failed a check%@, %.2f s; report: %@",
                CountWording.inputs(outcomes.map(\.source)), failed, checkFailed,
                resumedNote, seconds, output.directory.appendingPathComponent(RunReport.names(shard: shard).index).path)
        )
        if failed + checkFailed > 0 { throw ExitCode(1) }
    }

    /// Paths from a file (or stdin for `-`), one per line; blank lines are skipped.
    static func readPathList(_ path: String) throws -> [String] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw ValidationError("cannot read --files-from \(path)")
            }
            data = contents
        }
        return FilePathBytes.pathLines([UInt8](data))
    }
}
