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

    /// The lines grouped by kind, in first-seen order: lines that differ only in their numbers (libjpeg's
    /// `Corrupt JPEG data: 36 extraneous bytes before marker 0xd4`, one for each marker) are one kind,
    /// shown as its first line and how many more there are.
    package func groupedByKind() -> [(line: String, more: Int)] {
        var kinds: [(key: String, line: String, more: Int)] = []
        for line in self {
            let key = line.replacing(/0x[0-9a-fA-F]+|[0-9]+/, with: "#")
            if let index = kinds.firstIndex(where: { $0.key == key }) {
                kinds[index].more += 1
            } else {
                kinds.append((key, line, 0))
            }
        }
        return kinds.map { ($0.line, $0.more) }
    }
}
