import AnalyzeCore
import Foundation

/// Reports each finished image: a line on stderr (or, on a terminal, a progress bar with
/// done/total, images per second and ETA, failures still printed as lines), and with `--jsonl`
/// its JSON on stdout. Called on the batch runner's serial reporting queue only.
final class ProgressReporter: @unchecked Sendable {
    // Invariant: only touched from the batch runner's serial reporting queue, then from the
    // main thread after the run has finished (`finish`).
    private let total: Int
    private let quiet: Bool
    private let jsonl: Bool
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var done = 0
    private let start = Date()
    private var barShown = false
    private var stdoutFailed = false

    init(total: Int, quiet: Bool, jsonl: Bool) {
        self.total = total
        self.quiet = quiet
        self.jsonl = jsonl
    }

    func report(_ outcome: ImageOutcome) {
        done += 1
        if jsonl { emitJSON(outcome) }
        let line = outcome.line(quiet: quiet)
        if isTerminal && !quiet {
            if let line, outcome.isFailure {
                clearBar()
                Terminal.printError(line)
            }
            drawBar()
        } else if let line {
            Terminal.printError(line)
        }
    }

    func finish() {
        if barShown { clearBar() }
    }

    private func emitJSON(_ outcome: ImageOutcome) {
        let bytes: [UInt8]?
        switch outcome.result {
        case .success(let analysis): bytes = try? JSONRenderer.encode(analysis, pretty: false)
        case .failure(let error):
            struct Failed: Encodable {
                struct Reason: Encodable { let code: String; let message: String }
                let file: String
                let error: Reason
            }
            bytes = try? JSONRenderer.encode(Failed(file: outcome.source.path, error: .init(code: error.code.rawValue, message: error.message)), pretty: false)
        }
        guard var bytes, !stdoutFailed else { return }
        bytes.append(0x0A)
        // A closed pipe (`| head`) ends stdout output quietly; the run goes on.
        if !Terminal.write(bytes, to: STDOUT_FILENO) { stdoutFailed = true }
    }

    private func drawBar() {
        let elapsed = max(0.001, Date().timeIntervalSince(start))
        let rate = Double(done) / elapsed
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let text = String(format: "\r[%@] %d/%d  %.1f img/s  ETA %@ ", bar, done, total, rate, Self.clock(eta))
        Terminal.write(Array(text.utf8), to: STDERR_FILENO)
        barShown = true
    }

    private func clearBar() {
        Terminal.write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}
