import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import Foundation
import Synchronization

/// `--jsonl` for sequences: one line per analysed frame on stdout, as each frame is analysed
/// (`{"file", "index", "time", "keyFrame", observations…, "tracked"}`). Called from the workers;
/// lines of two videos analysed at once interleave as whole lines.
final class FrameLinePrinter: Sendable {
    private let failed = Mutex(false)
    private let coordinates: OutputLayout.CoordinateSpace

    init(coordinates: OutputLayout.CoordinateSpace) { self.coordinates = coordinates }

    func print(_ source: ImageSource, _ frame: FrameAnalysis) {
        guard var bytes = try? FrameLine(file: source.displayPath, frame: frame, coordinates: coordinates).encoded()
        else { return }
        bytes.append(0x0A)
        failed.withLock { failed in
            // A closed pipe (`| head`) ends stdout output quietly; the run goes on.
            if !failed && !Terminal.write(bytes, to: STDOUT_FILENO) { failed = true }
        }
    }
}
