import AnalyzeCore
import AnalyzeOutput

/// How counts read on the terminal: `1 face`, `2 faces`, `135 labels`, `2 images and 1 video`. One
/// wording for the per-input lines and the run's totals, so the two can be compared.
public enum CountWording {
    /// `1 face`, `2 faces`.
    public static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)" + (n == 1 ? "" : "s") }

    /// A kind's count in words: `3 rectangles`, `15 text lines (49 words)`, `135 labels`.
    public static func phrase(kind: String, count n: Int, words: Int? = nil) -> String {
        switch kind {
        case "text": return count(n, "text line") + (words.map { " (" + count($0, "word") + ")" } ?? "")
        case "classification": return count(n, "label")
        default: return count(n, kind.hasSuffix("s") ? String(kind.dropLast()) : kind)
        }
    }

    /// The run's totals line: `found 2 barcodes, 11 labels, 6 text lines (22 words)`; nil when nothing was looked for.
    public static func totals(_ totals: [String: Int]) -> String? {
        let kinds = totals.keys.filter { $0 != "words" }.sorted()
        guard !kinds.isEmpty else { return nil }
        return "found " + kinds.map { phrase(kind: $0, count: totals[$0] ?? 0, words: $0 == "text" ? totals["words"] : nil) }.joined(separator: ", ")
    }

    /// The inputs by what they are: `3 images`, `2 images and 1 video`, `1 stream`; PDF pages count as images.
    public static func inputs(_ sources: [ImageSource]) -> String {
        var counts: [(String, Int)] = []
        for (noun, kind) in [("image", ImageSource.Kind.image), ("video", .video), ("frame folder", .frames), ("stream", .stream)] {
            let n = sources.filter { $0.kind == kind }.count
            if n > 0 { counts.append((noun, n)) }
        }
        guard !counts.isEmpty else { return "0 images" }
        let words = counts.map { count($0.1, $0.0) }
        return words.count == 1 ? words[0] : words.dropLast().joined(separator: ", ") + " and " + (words.last ?? "")
    }
}
