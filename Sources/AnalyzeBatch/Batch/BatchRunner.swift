import AnalyzeCore
import AnalyzeOutput
import Dispatch
import Foundation
import Synchronization

/// Analyses many images in parallel on Dispatch queues, with bounded memory.
///
/// `jobs` worker blocks run on a concurrent queue; each takes the next image from a shared
/// cursor, performs every request on it with its own engines (one Tesseract, one ZBar scanner…
/// per worker, created once), renders and writes its outputs, then takes the next. At most
/// `jobs` images are decoded at any moment, whatever the size of the folder. A failed image is
/// reported through `onOutcome` and the batch goes on.
public struct BatchRunner: Sendable {
    public var sources: [ImageSource]
    public var requests: RequestSet
    public var output: OutputOptions?
    public var jobs: Int
    public var maximumPixels: Int
    /// A PDF's pages are rendered at this many dots per inch (`--pdf-dpi`).
    public var pdfResolution = PDFRenderer.defaultResolution
    /// Seconds each poppler program may take for one page of a PDF (`--pdf-page-timeout`).
    public var pdfPageTimeout = PDFRenderer.defaultPageTimeout
    /// Input files larger than this are refused before they are read.
    public var maximumFileBytes = RegularFile.defaultMaximumBytes
    /// Where the workers' engines find model files.
    public var models: ModelLocator = .standard
    /// `--require`/`--forbid` checks applied to every analysed image.
    public var checks: [ObservationCheck] = []
    /// Reuse an image's outputs when its JSON records the same input bytes (SHA-256) and options.
    public var resume = false
    /// Keep every image's observations in the returned outcomes (tests); the command drops them
    /// after reporting, so memory does not grow with the folder.
    public var retainsObservations = true
    /// When set and cancelled, workers take no new image; the run returns the outcomes so far.
    public var cancellation: CancellationFlag?
    /// Which frames of a sequence are analysed (`--every`, `--fps`, `--duration`, `--max-frames`).
    public var sampling = FrameSampling()
    /// `--track`: follow detections across the frames of sequences.
    public var tracking: TrackRequest?
    /// Called for every analysed frame of a sequence, on the worker's thread, in frame order
    /// (`--jsonl` prints a line per frame).
    public var onFrame: (@Sendable (ImageSource, FrameAnalysis) -> Void)?
    /// Called after every analysed frame of a sequence, on the worker's thread: how far it has come
    /// (a progress display for long videos).
    public var onSequenceProgress: (@Sendable (ImageSource, SequenceProgress) -> Void)?

    public init(
        sources: [ImageSource], requests: RequestSet, output: OutputOptions?, jobs: Int,
        maximumPixels: Int = ImageRequestHandler.defaultMaximumPixels
    ) {
        self.sources = sources
        self.requests = requests
        self.output = output
        self.jobs = max(1, jobs)
        self.maximumPixels = maximumPixels
    }

    /// A hash of everything that shapes an image's outputs: the requests and their parameters,
    /// and which files are written. Recorded in each JSON; `--resume` compares it.
    public var optionsHash: String {
        struct Shape: Encodable {
            let requests: RequestSet
            let png, svg: Bool
            /// Only when not the defaults, so hashes recorded before these options existed still match.
            let annotatedFormat: String?
            let annotatedMaximumSide: Int?
            let coordinates: String?
            /// Only when set, so image-only hashes stay what they were.
            let sampling: FrameSampling?
            let tracking: TrackRequest?
            /// Only when not the default 300.
            let pdfResolution: Int?
            /// Each side output under its name: when asked for, or always if ``SideOutput/hashedWhenOff``.
            let sideOutputs: [String: Bool]

            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: AnalysisCodingKey.self)
                try c.encode(requests, forKey: AnalysisCodingKey("requests"))
                try c.encode(png, forKey: AnalysisCodingKey("png"))
                try c.encode(svg, forKey: AnalysisCodingKey("svg"))
                try c.encodeIfPresent(annotatedFormat, forKey: AnalysisCodingKey("annotatedFormat"))
                try c.encodeIfPresent(annotatedMaximumSide, forKey: AnalysisCodingKey("annotatedMaximumSide"))
                try c.encodeIfPresent(coordinates, forKey: AnalysisCodingKey("coordinates"))
                try c.encodeIfPresent(sampling, forKey: AnalysisCodingKey("sampling"))
                try c.encodeIfPresent(tracking, forKey: AnalysisCodingKey("tracking"))
                try c.encodeIfPresent(pdfResolution, forKey: AnalysisCodingKey("pdfResolution"))
                for (name, asked) in sideOutputs { try c.encode(asked, forKey: AnalysisCodingKey(name)) }
            }
        }
        let layout = output?.layout
        var sideOutputs: [String: Bool] = [:]
        for side in RequestRegistry.sideOutputs where side.hashedWhenOff || layout?.asks(for: side.name) == true {
            sideOutputs[side.name] = layout?.asks(for: side.name) == true
        }
        let shape = Shape(
            requests: requests, png: output?.writePNG ?? false, svg: output?.writeSVG ?? false,
            annotatedFormat: layout.flatMap { $0.annotatedFormat == .auto ? nil : $0.annotatedFormat.rawValue },
            annotatedMaximumSide: layout?.annotatedMaximumSide,
            coordinates: layout.flatMap { $0.coordinates == .pixels ? nil : $0.coordinates.rawValue },
            sampling: sampling == FrameSampling() ? nil : sampling, tracking: tracking,
            pdfResolution: pdfResolution == PDFRenderer.defaultResolution ? nil : pdfResolution,
            sideOutputs: sideOutputs)
        let bytes = (try? JSONRenderer.encode(shape, pretty: false)) ?? []
        return String(ContentHash.sha256Hex(bytes).prefix(16))
    }

    /// Runs the batch. `onOutcome` is called on one serial queue, once per image, as each finishes.
    /// Returns every outcome in input order.
    public func run(onOutcome: @escaping @Sendable (ImageOutcome) -> Void = { _ in }) throws(AnalysisError)
        -> [ImageOutcome]
    {
        if let output {
            do {
                try FileManager.default.createDirectory(at: output.directory, withIntermediateDirectories: true)
            } catch {
                throw AnalysisError(
                    .outputFailed, "cannot create the output folder: \(error.localizedDescription)",
                    file: output.directory.path)
            }
            // What a killed run (SIGKILL) left half-written here goes; `--resume` redoes its inputs.
            AtomicFileWriter.removeStale(in: output.directory)
        }
        // OpenCV's own pool would multiply with our workers: one thread per worker.
        OpenCVRuntime.setThreads(1)
        // Each request's once-a-process work, beside the reading and decoding of the first images. The
        // run waits for it before it returns, so that the process never exits while a library is still
        // building its tables (a run whose inputs all failed at once).
        let preparing = DispatchGroup()
        for request in requests.requests {
            let type = Swift.type(of: request)
            DispatchQueue.global(qos: .userInitiated).async(group: preparing) { type.prepareProcess() }
        }
        defer { preparing.wait() }

        let state = BatchState(order: Self.largestFirst(sources), cancellation: cancellation)
        let reporting = DispatchQueue(label: "analyze.batch.reporting")
        let workers = DispatchQueue(label: "analyze.batch.workers", qos: .userInitiated, attributes: .concurrent)
        let group = DispatchGroup()
        let workerCount = min(jobs, max(1, sources.count))
        let optionsHash = self.optionsHash
        let pageFingerprints = PageFingerprints()
        // Workers that would sit idle (fewer inputs than jobs) lend their cores to the sequences:
        // one video at --jobs 2 analyses two frames at once.
        let lanes = max(1, jobs / workerCount)
        // A worker with no image left performs requests of the images still in progress; when the
        // images are fewer than the jobs (and none is a sequence, whose frames use those cores),
        // the other jobs are such workers from the start: one photo's requests run side by side.
        let idleWorkers = IdleWorkers(imageWorkers: workerCount)
        // (No more of them than an image has requests to hand over.)
        let helpersOnly =
            sources.contains { $0.kind.isSequence } ? 0 : min(jobs - workerCount, requests.requests.count - 1)
        for _ in 0..<workerCount {
            workers.async(group: group) {
                let engines = WorkerEngines(models: models)
                while let index = state.next() {
                    let outcome =
                        sources[index].kind.isSequence
                        ? processSequence(index: index, engines: engines, optionsHash: optionsHash, lanes: lanes)
                        : process(
                            index: index, engines: engines, optionsHash: optionsHash, idleWorkers: idleWorkers,
                            pageFingerprints: pageFingerprints)
                    state.store(retainsObservations ? outcome : outcome.withoutObservations())
                    reporting.async { onOutcome(outcome) }
                    // Hand freed image buffers back to the system between images, so the peak
                    // does not creep up with fragmentation over a long run.
                    ProcessMemory.releaseFreePages()
                }
                idleWorkers.serve(engines: engines, tookImages: true)
            }
        }
        for _ in 0..<max(0, helpersOnly) {
            workers.async(group: group) {
                idleWorkers.serve(engines: WorkerEngines(models: models), tookImages: false)
            }
        }
        group.wait()
        reporting.sync {}
        return state.outcomes()
    }

    /// Input indices, largest image first: the longest jobs start first, so the workers finish
    /// together instead of one worker ending the run alone on the biggest page (LPT scheduling).
    /// Size is the pixel count the header claims (the first 64 KiB of each file, and a TIFF's first
    /// directory where it lies past them), else the file size. Only the processing order changes; outcomes keep their input order.
    static func largestFirst(_ sources: [ImageSource]) -> [Int] {
        let sizes = sources.map { source -> Int in
            if let header = ImageHeader.reading(source.path) { return header.pixelCount }
            return ((try? FileManager.default.attributesOfItem(atPath: source.path)[.size]) as? NSNumber)?.intValue ?? 0
        }
        return sources.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
    }

    /// Analyses, checks, renders and writes one image; never throws: errors become the outcome.
    /// `pageFingerprints`: where the pages of one file share its fingerprint.
    func process(
        index: Int, engines: WorkerEngines, optionsHash: String, idleWorkers: IdleWorkers? = nil,
        pageFingerprints: PageFingerprints? = nil
    ) -> ImageOutcome {
        let source = sources[index]
        var timings = StageTimings()
        do {
            let identity = source.page != nil && pageFingerprints != nil ? RegularFile.identity(source.path) : nil
            let bytes: [UInt8], fingerprint: InputFingerprint
            if let known = pageFingerprints?.known(path: source.path, identity: identity),
                let head = RegularFile.head(source.path, count: 1024), PDFRenderer.isPDF(head)
            {
                // Another page of a PDF already hashed, unchanged: poppler reads the parts of the file
                // the page needs itself, so the file is not read whole again (a 240 MB book, each page).
                (bytes, fingerprint) = (head, known)
            } else {
                bytes = try timings.measure("read") { () throws(AnalysisError) in
                    try source.readBytes(maximumBytes: maximumFileBytes)
                }
                fingerprint = timings.measure("fingerprint") {
                    pageFingerprints.map { $0.fingerprint(of: bytes, path: source.path, identityBefore: identity) }
                        ?? InputFingerprint(of: bytes)
                }
            }
            if resume, let output,
                let previous = upToDate(source, fingerprint: fingerprint, optionsHash: optionsHash, in: output)
            {
                return ImageOutcome(
                    source: source, index: index, result: .success(previous),
                    checkFailures: checks.compactMap { $0.failure(for: previous) },
                    resumed: true, timings: timings)
            }
            let handler = ImageRequestHandler(
                source: source, maximumPixels: maximumPixels, pdfResolution: pdfResolution,
                pdfPageTimeout: pdfPageTimeout)
            // Handed over, not copied: a page of a TIFF is made the file's first in place.
            let result = try handler.perform(requests, engines: engines, bytes: consume bytes, idleWorkers: idleWorkers)
            timings.add(result.timings)
            var analysis = result.analysis
            analysis.input = fingerprint
            analysis.optionsHash = optionsHash
            if let output {
                try write(analysis, image: result.image, for: source, to: output, timings: &timings)
            }
            return ImageOutcome(
                source: source, index: index, result: .success(analysis),
                checkFailures: checks.compactMap { $0.failure(for: analysis) },
                timings: timings)
        } catch {
            var error = error
            if error.file == nil { error.file = source.path }
            return ImageOutcome(source: source, index: index, result: .failure(error), timings: timings)
        }
    }

    /// The analysis recorded by an earlier run, when its JSON names the same input bytes and
    /// options and every other output it should have written exists.
    func upToDate(_ source: ImageSource, fingerprint: InputFingerprint, optionsHash: String, in output: OutputOptions)
        -> ImageAnalysis?
    {
        guard let data = FileManager.default.contents(atPath: output.url(of: .json, for: source).path),
            let previous = try? JSONDecoder().decode(ImageAnalysis.self, from: data),
            previous.input == fingerprint, previous.optionsHash == optionsHash
        else { return nil }
        let expected = output.layout.files(for: previous, input: source.path, sideOutputs: RequestRegistry.sideOutputs)
            .map { output.url(of: $0, for: source).path }
        return expected.allSatisfy { FileManager.default.fileExists(atPath: $0) } ? previous : nil
    }

    /// Renders every output in memory first, then writes each atomically, the JSON last (it is
    /// what `--resume` trusts): a failure leaves no partial file. The annotated image is drawn on
    /// the image's own pixels, so it is rendered after the rectified crops, which need them clean.
    func write(
        _ analysis: ImageAnalysis, image: UprightImage, for source: ImageSource, to output: OutputOptions,
        timings: inout StageTimings
    ) throws(AnalysisError) {
        var files: [(URL, [UInt8])] = []
        let sideOutputs = RequestRegistry.sideOutputs
        for file in output.layout.files(for: analysis, input: source.path, sideOutputs: sideOutputs) {
            let bytes: [UInt8]
            switch file {
            case .overlay:
                let href = Self.relativePath(from: output.directory, to: URL(fileURLWithPath: source.path))
                bytes = timings.measure("render.svg") { Array(SVGRenderer.svg(for: analysis, imageHref: href).utf8) }
            case .side(let name, let index, _):
                guard let side = sideOutputs.first(where: { $0.name == name }) else { continue }
                bytes = try timings.measure(side.stage) { () throws(AnalysisError) in
                    try side.render(index, of: analysis, image: image, input: source.path, layout: output.layout)
                }
            case .annotated:
                let format = output.layout.annotatedFormat(forInput: source.path)
                bytes = try timings.measure("render.\(format.rawValue)") { () throws(AnalysisError) in
                    try AnnotatedImageRenderer.encode(
                        image, analysis: analysis, format: format, maximumSide: output.layout.annotatedMaximumSide,
                        drawingOnTheImage: true)
                }
            case .video, .contactSheet:
                continue  // a sequence's (SequenceOutputWriter)
            case .json:
                bytes = try timings.measure("render.json") { () throws(AnalysisError) in
                    try JSONRenderer.encode(analysis, coordinates: output.layout.coordinates)
                }
            }
            files.append((output.url(of: file, for: source), bytes))
        }
        try timings.measure("write") { () throws(AnalysisError) in
            for (url, bytes) in files { try AtomicFileWriter.write(bytes, to: url) }
        }
    }

    /// The path of `folder` relative to `report`, through `..` where they part (both resolved).
    package static func relativeFolder(from report: URL, to folder: URL) -> String {
        let a = report.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let b = folder.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < min(a.count, b.count), a[common] == b[common] { common += 1 }
        return (Array(repeating: "..", count: a.count - common) + b[common...]).joined(separator: "/")
    }

    /// The path of `file` relative to `directory` (for the SVG's image reference).
    package static func relativePath(from directory: URL, to file: URL) -> String {
        // Percent-encoded from the file's real bytes (FilePathBytes), so a name that is not UTF-8 links right.
        relativeFolder(from: directory, to: file).split(separator: "/").map { component in
            FilePathBytes.raw(String(component)).map { byte -> String in
                let c = Character(Unicode.Scalar(byte))
                return byte < 0x80 && (c.isLetter || c.isNumber || "-._~!$&'()*+,;=:@".contains(c))
                    ? String(c) : String(format: "%%%02X", byte)
            }.joined()
        }.joined(separator: "/")
    }
}

/// The shared cursor and result slots of a batch, guarded by a mutex.
private final class BatchState: Sendable {
    private struct Slots {
        var cursor = 0
        var outcomes: [ImageOutcome?]
    }

    private let order: [Int]
    private let cancellation: CancellationFlag?
    private let slots: Mutex<Slots>

    /// `order`: the input indices in the order they are handed out.
    init(order: [Int], cancellation: CancellationFlag?) {
        self.order = order
        self.cancellation = cancellation
        slots = Mutex(Slots(outcomes: Array(repeating: nil, count: order.count)))
    }

    func next() -> Int? {
        if cancellation?.isCancelled == true { return nil }
        return slots.withLock { state -> Int? in
            guard state.cursor < order.count else { return nil }
            defer { state.cursor += 1 }
            return order[state.cursor]
        }
    }

    func store(_ outcome: ImageOutcome) { slots.withLock { $0.outcomes[outcome.index] = outcome } }

    func outcomes() -> [ImageOutcome] { slots.withLock { $0.outcomes.compactMap { $0 } } }
}
