import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `--classify` and how many labels to report.
struct ClassificationOptions: RequestOptions {
    @Flag(
        name: .customLong("classify"),
        help:
            "Classify the whole image (EfficientNet-Lite0, 1000 ImageNet classes; needs scripts/fetch-models): the top labels with confidences."
    )
    var classify = false

    @Option(
        name: .customLong("max-labels"),
        help: ArgumentHelp("With --classify, report at most this many labels, best first.", valueName: "n"))
    var maxLabels: Int = 5

    @Option(
        name: .customLong("min-label-confidence"),
        help: ArgumentHelp(
            "With --classify, leave out labels below this probability, 0-1 (the best label is always kept).",
            valueName: "c"))
    var minLabelConfidence: Double = ClassificationRequest.defaultMinimumConfidence

    var isAsked: Bool { classify }

    func validate() throws {
        try requireUnitInterval(minLabelConfidence, "--min-label-confidence")
        if !(1...100).contains(maxLabels) { throw ValidationError("--max-labels must be between 1 and 100") }
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        ClassificationRequest(maximumLabels: maxLabels, minimumConfidence: minLabelConfidence)
    }
}
