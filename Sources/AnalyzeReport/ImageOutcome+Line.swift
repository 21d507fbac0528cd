import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput

extension ImageOutcome {
    /// The stderr line for this image: what was found, or why it failed; nil for a success when
    /// `quiet`. Payloads and labels are cut; the whole line, the file's name included, is made
    /// printable where it is printed (``MarkupEscaping/printable(_:keeping:)``).
    public func line(quiet: Bool) -> String? {
        switch result {
        case .failure(let error):
            return "FAIL \(source.label): \(error.message) [\(error.code)]"
        case .success(let analysis):
            if !analysis.requestErrors.isEmpty {
                let failed = analysis.requestErrors.sorted { $0.key < $1.key }.map {
                    "\($0.key) failed: \($0.value.message) [\($0.value.code)]"
                }
                let kept = analysis.results.map(\.result.summary.phrase)
                return "FAIL \(source.label): " + failed.joined(separator: "; ")
                    + (kept.isEmpty ? "" : "; kept: " + kept.joined(separator: ", "))
            }
            if !checkFailures.isEmpty {
                return "FAIL \(source.label): " + checkFailures.joined(separator: "; ") + " [check]"
            }
            if quiet { return nil }
            if resumed { return "ok   \(source.label): up to date (resumed)" }
            if let sequence { return Self.line(source: source, sequence: sequence, warnings: analysis.warnings) }
            let parts = analysis.results.map(\.result.summary.phrase)
            let orientation = analysis.orientation == 1 ? "" : " orientation \(analysis.orientation),"
            let warnings = Self.warningPhrases(analysis.warnings).map { "; warning: \($0)" }.joined()
            return "ok   \(source.label): \(analysis.width)x\(analysis.height),\(orientation) "
                + parts.joined(separator: ", ") + warnings
        }
    }

    /// `ok   clip.avi: video 768x576, 80 of 795 frames analysed, 12 tracks; 240 faces, …`.
    static func line(source: ImageSource, sequence outcome: SequenceOutcome, warnings: [String]) -> String {
        let s = outcome.sequence
        var text =
            "ok   \(source.displayPath): \(s.source.rawValue) \(s.width)x\(s.height), \(s.framesAnalysed) of \(s.framesRead) frame(s) analysed"
        // Reading stopped early (--max-frames, --duration): say how long the video is.
        if let declared = s.declaredFrames, declared > s.framesRead, s.interrupted != true, s.readError == nil {
            text += " (of \(declared) in the video)"
        }
        if s.framesDropped > 0 { text += ", \(s.framesDropped) dropped" }
        if s.interrupted == true {
            text += s.declaredFrames.map { " (interrupted: \($0) declared)" } ?? " (interrupted)"
        }
        if s.tracking != nil { text += ", \(outcome.tracks.count) track(s)" }
        let found = outcome.summaries.map {
            CountWording.phrase(kind: $0.kind.rawValue, count: $0.summary.count, extra: $0.summary.extraCounts)
        }
        if !found.isEmpty { text += "; in all: " + found.joined(separator: ", ") }
        return text + warningPhrases(warnings).map { "; warning: \($0)" }.joined()
    }

    /// Warnings as the terminal line shows them: those of one kind (``Swift/Array/groupedByKind()``) as
    /// the first of them with how many more there are, at most ``shownWarningKinds`` kinds, each cut to
    /// 160 characters. The JSON keeps every warning.
    static func warningPhrases(_ warnings: [String]) -> [String] {
        let kinds = warnings.groupedByKind()
        var phrases = kinds.prefix(shownWarningKinds).map {
            MarkupEscaping.label($0.line, limit: 160) + ($0.more > 0 ? " (and \($0.more) more like it)" : "")
        }
        if kinds.count > shownWarningKinds {
            let rest = kinds.dropFirst(shownWarningKinds).reduce(0) { $0 + 1 + $1.more }
            phrases.append("\(rest) more (in the JSON)")
        }
        return phrases
    }

    /// The kinds of warnings a terminal line names.
    static let shownWarningKinds = 3
}
