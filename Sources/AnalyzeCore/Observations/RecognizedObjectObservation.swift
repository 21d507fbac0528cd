/// An object found by a detector model, like `VNRecognizedObjectObservation`: a box and ranked
/// labels. Coordinates are pixels of the upright image, origin top-left.
public struct RecognizedObjectObservation: ListedObservation {
    public static let noun = "object"

    public let boundingBox: BoundingBox
    /// The score of the best label, 0–1 (objectness × class probability for YOLO).
    public let confidence: Double
    /// The best labels, most confident first (at most five).
    public let labels: [ClassificationObservation]

    public init(boundingBox: BoundingBox, confidence: Double, labels: [ClassificationObservation]) {
        self.boundingBox = boundingBox
        self.confidence = confidence.roundedConfidence
        self.labels = labels
    }

    /// The best label's identifier.
    public var identifier: String { labels.first?.identifier ?? "" }

    /// Counts the objects; each object's best label counts for `--forbid object=person`.
    public static func summary(of objects: [RecognizedObjectObservation]) -> ResultSummary {
        let named = objects.prefix(4).map { MarkupEscaping.label($0.identifier, limit: 24) }
        var summary = ResultSummary(
            count: objects.count,
            phrase: "\(objects.count) object(s)"
                + (named.isEmpty ? "" : " (" + named.joined(separator: ", ") + (objects.count > 4 ? ", …" : "") + ")"))
        summary.labels = objects.map(\.identifier)
        // The report's card: one line per class (`object: person ×3, best 87%`), in order of first appearance.
        var order: [String] = [], best: [String: (count: Int, confidence: Double)] = [:]
        for object in objects {
            if best[object.identifier] == nil { order.append(object.identifier) }
            let seen = best[object.identifier] ?? (0, 0)
            best[object.identifier] = (seen.count + 1, max(seen.confidence, object.confidence))
        }
        summary.highlights = order.prefix(10).map { name in
            let (count, confidence) = best[name] ?? (1, 0)
            let percent = Int((confidence * 100).rounded())
            return count > 1 ? "object: \(name) ×\(count), best \(percent)%" : "object: \(name) \(percent)%"
        }
        return summary
    }
}
