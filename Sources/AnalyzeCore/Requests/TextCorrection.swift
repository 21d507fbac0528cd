/// Vision's `customWords` for recognised text: a word read one or two characters away from a word the
/// user listed is taken as that word. PP-OCR's recognizer has no language model of its own, and
/// Tesseract's dictionary does not know the user's words (product names, codes), so this is the
/// correction both engines get; it is off with language correction (`--no-language-correction`).
public struct TextCorrection: Sendable, Hashable, Codable {
    /// The user's words, as given.
    public let customWords: [String]

    public init(customWords: [String]) {
        self.customWords = customWords
    }

    /// `word` as the custom word it is closest to, when that is close enough: at most one edit for
    /// words of 4–7 characters, two for longer ones, ignoring case and punctuation at the ends (kept
    /// around the replacement); shorter words are left as read (too many words are one edit apart).
    /// A tie between two custom words leaves the word as read.
    public func corrected(_ word: String) -> String {
        guard !customWords.isEmpty else { return word }
        let scalars = Array(word)
        guard let first = scalars.firstIndex(where: { $0.isLetter || $0.isNumber }),
            let last = scalars.lastIndex(where: { $0.isLetter || $0.isNumber })
        else { return word }
        let core = String(scalars[first...last])
        let lowered = core.lowercased()
        guard lowered.count >= 4 else { return word }
        let allowed = lowered.count >= 8 ? 2 : 1
        var best: String?
        var bestDistance = Int.max, tie = false
        for custom in customWords {
            let distance = Self.editDistance(lowered, custom.lowercased(), limit: allowed)
            guard distance <= allowed else { continue }
            if distance == 0 { return String(scalars[..<first]) + custom + String(scalars[(last + 1)...]) }
            if distance < bestDistance {
                (best, bestDistance, tie) = (custom, distance, false)
            } else if distance == bestDistance, let b = best, b.lowercased() != custom.lowercased() {
                tie = true
            }
        }
        guard let best, !tie else { return word }
        return String(scalars[..<first]) + best + String(scalars[(last + 1)...])
    }

    /// Levenshtein distance between `a` and `b` by characters, or `limit + 1` as soon as it must exceed `limit`.
    static func editDistance(_ a: String, _ b: String, limit: Int) -> Int {
        let x = Array(a), y = Array(b)
        if abs(x.count - y.count) > limit { return limit + 1 }
        var previous = Array(0...y.count)
        for i in 1...max(1, x.count) where !x.isEmpty {
            var current = [i] + [Int](repeating: 0, count: y.count)
            var rowMinimum = i
            for j in stride(from: 1, through: y.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            previous = current
        }
        return previous[y.count]
    }
}
