import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import AnalyzeReport
import Foundation

/// Reports each finished image: a line on stderr (or, on a terminal, a progress bar with
/// done/total, images per second and ETA, failures still printed as lines), and on stdout with
/// `--jsonl` its JSON or with `--print` its barcodes and text. Called on the batch runner's serial
/// reporting queue only.
///
/// The bar is one line that fits the terminal's width (redrawn with `\r`, cleared before any other
/// line is printed), and is not drawn when stdout goes to the same terminal with `--jsonl` or
/// `--print` (the two would interleave). At the end the bar is replaced by the totals per kind.
final class ProgressReporter: @unchecked Sendable {
    /// What goes to stdout.
    enum StandardOutput { case jsonl, plain }

    // Invariant: only touched from the batch runner's serial reporting queue, then from the
    // main thread after the run has finished (`finish`).
    private let total: Int
    private let quiet: Bool
    private let stdout: StandardOutput?
    private let drawsBar: Bool
    private let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
    private var done = 0
    private let start = Date()
    private var stdoutFailed = false
    /// `--print` output waiting for the images before it (printed in input order).
    private var pending: [Int: String] = [:]
    private var nextToPrint = 0

    init(total: Int, quiet: Bool, stdout: StandardOutput?) {
        self.total = total
        self.quiet = quiet
        self.stdout = stdout
        let stderrIsTerminal = isatty(STDERR_FILENO) == 1
        drawsBar = stderrIsTerminal && !quiet && !(stdout != nil && Self.sameTerminal(STDOUT_FILENO, STDERR_FILENO))
    }

    /// Whether two descriptors are the same terminal device.
    static func sameTerminal(_ a: Int32, _ b: Int32) -> Bool {
        guard isatty(a) == 1, isatty(b) == 1 else { return false }
        var sa = stat(), sb = stat()
        guard fstat(a, &sa) == 0, fstat(b, &sb) == 0 else { return true }
        return sa.st_rdev == sb.st_rdev
    }

    /// Guards the terminal and the state below: sequences report progress from their workers' threads.
    private let lock = NSLock()
    /// The sequence that last reported progress (shown after the bar until it finishes), and when
    /// the bar was last drawn for it (redrawn at most 5 times a second).
    private var current: (path: String, name: String, progress: SequenceProgress)?
    private var lastDrawn = Date.distantPast

    /// A sequence's progress (called on its worker's thread): shown after the bar as its frames,
    /// frames per second and time left, so a long video is not a bar that stands still.
    func sequenceProgress(_ source: ImageSource, _ progress: SequenceProgress) {
        guard drawsBar else { return }
        lock.withLock {
            current = (source.displayPath, (source.displayPath as NSString).lastPathComponent, progress)
            let now = Date()
            guard now.timeIntervalSince(lastDrawn) >= 0.2 else { return }
            lastDrawn = now
            drawBar()
        }
    }

    func report(_ outcome: ImageOutcome) {
        lock.withLock { reportLocked(outcome) }
    }

    private func reportLocked(_ outcome: ImageOutcome) {
        done += 1
        if current?.path == outcome.source.displayPath { current = nil }
        switch stdout {
        case .jsonl: emitJSON(outcome)
        case .plain: emitPlain(outcome)
        case nil: break
        }
        let line = outcome.line(quiet: quiet)
        if drawsBar {
            if let line, outcome.isFailure { Terminal.printError(line) }
            drawBar()
        } else if let line {
            Terminal.printError(line)
        }
    }

    /// Clears the bar and flushes `--print` output held back by an image that never finished.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        Terminal.clearBar()
        for index in pending.keys.sorted() { writeOut(pending[index] ?? "") }
        pending = [:]
    }

    private func emitPlain(_ outcome: ImageOutcome) {
        pending[outcome.index] =
            outcome.sequence.map(PlainTextRenderer.text(for:)) ?? outcome.analysis.map(PlainTextRenderer.text(for:))
            ?? ""
        while let text = pending.removeValue(forKey: nextToPrint) {
            writeOut(text)
            nextToPrint += 1
        }
    }

    private func writeOut(_ text: String) {
        guard !text.isEmpty, !stdoutFailed else { return }
        let shown = stdoutIsTerminal ? PlainTextRenderer.terminalSafe(text) : text
        // A closed pipe (`| head`) ends stdout output quietly; the run goes on.
        if !Terminal.write(Array(shown.utf8), to: STDOUT_FILENO) { stdoutFailed = true }
    }

    private func emitJSON(_ outcome: ImageOutcome) {
        let bytes: [UInt8]?
        switch outcome.result {
        case .success where outcome.sequence != nil: return  // its frames were printed as they were analysed
        case .success(let analysis): bytes = try? JSONRenderer.encode(analysis, pretty: false)
        case .failure(let error):
            struct Failed: Encodable {
                struct Reason: Encodable { let code: String; let message: String }
                let file: String
                let page: Int?
                let pages: Int?
                let error: Reason
            }
            let page = outcome.source.page
            bytes = try? JSONRenderer.encode(
                Failed(
                    file: outcome.source.displayPath, page: page?.number, pages: page?.count,
                    error: .init(code: error.code.rawValue, message: error.message)), pretty: false)
        }
        guard var bytes, !stdoutFailed else { return }
        bytes.append(0x0A)
        if !Terminal.write(bytes, to: STDOUT_FILENO) { stdoutFailed = true }
    }

    private func drawBar() {
        let elapsed = max(0.001, Date().timeIntervalSince(start))
        let rate = Double(done) / elapsed
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let columns = Terminal.columns()
        var line = Self.bar(done: done, total: total, rate: rate, eta: eta, columns: columns)
        if let current {
            let sequence = "  " + current.progress.line(name: current.name)
            line += String(sequence.prefix(max(0, columns - 1 - line.count)))
        }
        Terminal.drawBar(line)
    }

    /// The bar's text for a terminal `columns` wide: never longer than `columns - 1` (a full line
    /// would wrap on some terminals), the bar itself shrinking first, then the rate and ETA.
    static func bar(done: Int, total: Int, rate: Double, eta: Double, columns: Int) -> String {
        let counts = "\(done)/\(total)"
        let details = String(format: "  %.1f img/s  ETA %@", rate, clock(eta))
        let room = columns - 1
        let fixed = counts.count + details.count + 3  // "[", "] "
        let width = min(30, room - fixed)
        if width >= 5 {
            let filled = total > 0 ? width * done / total : width
            return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
                + counts + details
        }
        let short = counts + details
        return String((short.count <= room ? short : counts).prefix(max(0, room)))
    }

    static func clock(_ seconds: Double) -> String { SequenceProgress.clock(seconds) }
}
