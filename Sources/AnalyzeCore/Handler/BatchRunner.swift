import Dispatch
import Foundation

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

    public init(sources: [ImageSource], requests: RequestSet, output: OutputOptions?, jobs: Int,
                maximumPixels: Int = ImageRequestHandler.defaultMaximumPixels) {
        self.sources = sources
        self.requests = requests
        self.output = output
        self.jobs = max(1, jobs)
        self.maximumPixels = maximumPixels
    }

    /// Runs the batch. `onOutcome` is called on one serial queue, once per image, as each finishes.
    /// Returns every outcome in input order.
    public func run(onOutcome: @escaping @Sendable (ImageOutcome) -> Void = { _ in }) throws(AnalysisError) -> [ImageOutcome] {
        if let output {
            do {
                try FileManager.default.createDirectory(at: output.directory, withIntermediateDirectories: true)
            } catch {
                throw AnalysisError(.outputFailed, "cannot create the output folder: \(error.localizedDescription)", file: output.directory.path)
            }
        }
        // OpenCV's own pool would multiply with our workers: one thread per worker.
        OpenCVRuntime.setThreads(1)

        let state = BatchState(count: sources.count)
        let reporting = DispatchQueue(label: "analyze.batch.reporting")
        let workers = DispatchQueue(label: "analyze.batch.workers", qos: .userInitiated, attributes: .concurrent)
        let group = DispatchGroup()
        let workerCount = min(jobs, max(1, sources.count))
        for _ in 0 ..< workerCount {
            workers.async(group: group) {
                let engines = WorkerEngines()
                while let index = state.next() {
                    let outcome = process(index: index, engines: engines)
                    state.store(outcome)
                    reporting.async { onOutcome(outcome) }
                }
            }
        }
        group.wait()
        reporting.sync {}
        return state.outcomes()
    }

    /// Analyses, renders and writes one image; never throws: errors become the outcome.
    func process(index: Int, engines: WorkerEngines) -> ImageOutcome {
        let source = sources[index]
        let handler = ImageRequestHandler(source: source, maximumPixels: maximumPixels)
        do {
            let result = try handler.perform(requests, engines: engines)
            var timings = result.timings
            if let output {
                try timings.measure("render+write") { () throws(AnalysisError) in
                    try write(result, for: source, to: output)
                }
            }
            return ImageOutcome(source: source, index: index, result: .success(result.analysis), timings: timings)
        } catch {
            var error = error
            if error.file == nil { error.file = source.path }
            return ImageOutcome(source: source, index: index, result: .failure(error), timings: StageTimings())
        }
    }

    /// Renders every output in memory first, then writes each atomically: a failure leaves no file.
    func write(_ result: ImageRequestHandler.Result, for source: ImageSource, to output: OutputOptions) throws(AnalysisError) {
        let base = output.directory.appendingPathComponent(source.outputName)
        var files: [(URL, [UInt8])] = []
        if output.writeJSON {
            files.append((base.appendingPathExtension("json"), try JSONRenderer.encode(result.analysis)))
        }
        if output.writeSVG {
            let href = Self.relativePath(from: output.directory, to: URL(fileURLWithPath: source.path))
            files.append((base.appendingPathExtension("svg"), Array(SVGRenderer.svg(for: result.analysis, imageHref: href).utf8)))
        }
        if output.writePNG {
            files.append((base.appendingPathExtension("png"), try AnnotatedImageRenderer.png(of: result.image, analysis: result.analysis)))
        }
        if output.rectify {
            for (n, rect) in (result.analysis.rectangles ?? []).enumerated() {
                let size = rect.rectifiedSize
                let crop = try result.image.color.warped(quad: rect.corners, width: size.width, height: size.height)
                files.append((output.directory.appendingPathComponent("\(source.outputName).rect-\(n + 1).png"), try crop.pngData()))
            }
        }
        for (url, bytes) in files { try AtomicFileWriter.write(bytes, to: url) }
    }

    /// The path of `file` relative to `directory` (for the SVG's image reference).
    static func relativePath(from directory: URL, to file: URL) -> String {
        let from = directory.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let to = file.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < min(from.count, to.count), from[common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        let path = (ups + to[common...]).joined(separator: "/")
        return path.split(separator: "/").map { component in
            component.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? String(component)
        }.joined(separator: "/")
    }
}

/// The shared cursor and result slots of a batch, guarded by a lock.
private final class BatchState: @unchecked Sendable {
    // Invariant: `cursor` and `slots` are only read or written while `lock` is held.
    private let lock = NSLock()
    private var cursor = 0
    private var slots: [ImageOutcome?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func next() -> Int? {
        lock.withLock {
            guard cursor < slots.count else { return nil }
            defer { cursor += 1 }
            return cursor
        }
    }

    func store(_ outcome: ImageOutcome) { lock.withLock { slots[outcome.index] = outcome } }

    func outcomes() -> [ImageOutcome] { lock.withLock { slots.compactMap { $0 } } }
}
