import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput

/// How counts read on the terminal: `1 face`, `2 faces`, `135 labels`, `2 images and 1 video`. One
/// wording for the per-input lines and the run's totals, so the two can be compared.
public enum CountWording {
    /// `1 face`, `2 faces`.
    public static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)" + (n == 1 ? "" : "s") }

    /// A kind's count in words: `3 rectangles`, `15 text lines (49 words)`, `135 labels`, in the nouns
    /// the kind's request declares (``ImageRequest/countNoun``); `extra` holds the result's extra counts.
    public static func phrase(kind: String, count n: Int, extra: [String: Int] = [:]) -> String {
        guard let entry = RequestRegistry.entry(for: ObservationKind(kind)) else {
            return count(n, kind.hasSuffix("s") ? String(kind.dropLast()) : kind)  // a sequence's `tracks`
        }
        let extras = entry.extraCountNouns.keys.sorted().compactMap { key in
            extra[key].map { count($0, entry.extraCountNouns[key] ?? key) }
        }
        return count(n, entry.countNoun) + extras.map { " (" + $0 + ")" }.joined()
    }

    /// The run's totals line: `found 2 barcodes, 11 labels, 6 text lines (22 words)`; nil when nothing was looked for.
    /// `totals` holds each kind's count under its name and the kinds' extra counts under theirs (`words`).
    public static func totals(_ totals: [String: Int]) -> String? {
        let extraKeys = Set(RequestRegistry.entries.flatMap(\.extraCountNouns.keys))
        let kinds = totals.keys.filter { !extraKeys.contains($0) }.sorted()
        guard !kinds.isEmpty else { return nil }
        return "found " + kinds.map { phrase(kind: $0, count: totals[$0] ?? 0, extra: totals) }.joined(separator: ", ")
    }

    /// The inputs by what they are: `3 images`, `2 images and 1 video`, `1 stream`; PDF pages count as images.
    public static func inputs(_ sources: [ImageSource]) -> String {
        var counts: [(String, Int)] = []
        for (noun, kind) in [
            ("image", ImageSource.Kind.image), ("video", .video), ("frame folder", .frames), ("stream", .stream),
        ] {
            let n = sources.filter { $0.kind == kind }.count
            if n > 0 { counts.append((noun, n)) }
        }
        guard !counts.isEmpty else { return "0 images" }
        let words = counts.map { count($0.1, $0.0) }
        return words.count == 1 ? words[0] : words.dropLast().joined(separator: ", ") + " and " + (words.last ?? "")
    }
}
