import AnalyzeCore
import Foundation
import Synchronization

/// `--jsonl` for sequences: one line per analysed frame on stdout, as each frame is analysed
/// (`{"file", "index", "time", "keyFrame", observations…, "tracked"}`). Called from the workers;
/// lines of two videos analysed at once interleave as whole lines.
final class FrameLinePrinter: Sendable {
    private let failed = Mutex(false)

    func print(_ source: ImageSource, _ frame: FrameAnalysis) {
        guard var bytes = try? JSONRenderer.encode(FrameLine(file: source.path, frame: frame), pretty: false) else { return }
        bytes.append(0x0A)
        failed.withLock { failed in
            // A closed pipe (`| head`) ends stdout output quietly; the run goes on.
            if !failed && !Terminal.write(bytes, to: STDOUT_FILENO) { failed = true }
        }
    }
}
