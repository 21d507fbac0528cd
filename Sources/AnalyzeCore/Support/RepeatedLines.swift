extension Array where Element == String {
    /// The lines in first-seen order, each once, a repeated one followed by how many times it came:
    /// a damaged JPEG's sixteen identical `Corrupt JPEG data: …` warnings read as one line ending in
    /// `(16 times)`.
    func collapsingRepeats() -> [String] {
        var order: [String] = [], counts: [String: Int] = [:]
        for line in self {
            if counts[line] == nil { order.append(line) }
            counts[line, default: 0] += 1
        }
        return order.map { line in
            let n = counts[line] ?? 1
            return n > 1 ? "\(line) (\(n) times)" : line
        }
    }
}
