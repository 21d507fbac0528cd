/// A label and how sure the model is of it, like `VNClassificationObservation`: one entry of a
/// classified image's ranked labels, or of a recognised object's.
public struct ClassificationObservation: Sendable, Hashable, Codable {
    /// The class name as the model's label file spells it (`Egyptian cat`, `sports ball`).
    /// Untrusted when the labels come from a user's file: escape it wherever it is shown.
    public let identifier: String
    /// 0–1.
    public let confidence: Double

    public init(identifier: String, confidence: Double) {
        self.identifier = identifier
        self.confidence = confidence.roundedConfidence
    }

    /// The labels, ranked, with their percentages on the stderr line; all of them count for
    /// `--require label=…` and the report's filter.
    public static func summary(of labels: [ClassificationObservation]) -> ResultSummary {
        let named = labels.prefix(3).map {
            "\(MarkupEscaping.label($0.identifier, limit: 30)) \(Int(($0.confidence * 100).rounded()))%"
        }
        var summary = ResultSummary(
            count: labels.count,
            phrase: "\(labels.count) label(s)" + (named.isEmpty ? "" : " (" + named.joined(separator: ", ") + ")"))
        summary.labels = labels.map(\.identifier)
        // The report's card: the labels a person would read as there (5% or more), at most five.
        summary.highlights = labels.filter { $0.confidence >= ImageClassification.minimumShownConfidence }.prefix(5)
            .map { "label: \($0.identifier) \(Int(($0.confidence * 100).rounded()))%" }
        return summary
    }
}

extension ImageClassification {
    /// Labels under this confidence are left out of the caption and the report's cards.
    package static let minimumShownConfidence = 0.05
}
