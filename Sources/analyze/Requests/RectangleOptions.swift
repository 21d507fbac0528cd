import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `--rects` and Vision's rectangle parameters.
struct RectangleOptions: RequestOptions {
    @Flag(
        name: .customLong("rects"),
        help:
            "Detect projected rectangles (documents, receipts, cards, screens, signs at an angle): four corners and a confidence."
    )
    var rects = false

    @Option(
        name: .customLong("min-aspect-ratio"),
        help: ArgumentHelp(
            "With --rects, smallest shorter/longer side ratio (Vision's minimumAspectRatio).", valueName: "r"))
    var minAspectRatio: Double = 0.5

    @Option(
        name: .customLong("max-aspect-ratio"),
        help: ArgumentHelp(
            "With --rects, largest shorter/longer side ratio (Vision's maximumAspectRatio).", valueName: "r"))
    var maxAspectRatio: Double = 1.0

    @Option(
        name: .customLong("quadrature-tolerance"),
        help: ArgumentHelp(
            "With --rects, degrees a corner may depart from 90 (Vision's quadratureTolerance).", valueName: "deg"))
    var quadratureTolerance: Double = 30

    @Option(
        name: .customLong("min-size"),
        help: ArgumentHelp(
            "With --rects, shorter side as a fraction of the image's smaller side (Vision's minimumSize).",
            valueName: "f"))
    var minSize: Double = 0.2

    @Option(
        name: .customLong("min-confidence"),
        help: ArgumentHelp(
            "With --rects, drop rectangles below this confidence, 0-1 (Vision's minimumConfidence).", valueName: "c"))
    var minConfidence: Double = 0

    @Option(
        name: .customLong("max-rects"),
        help: ArgumentHelp(
            "With --rects, report at most this many rectangles per image, best first (Vision's maximumObservations).",
            valueName: "n"))
    var maxRects: Int = RectangleRequest.defaultMaximumObservations

    var isAsked: Bool { rects }

    func validate() throws {
        for (name, value) in [
            ("--min-aspect-ratio", minAspectRatio), ("--max-aspect-ratio", maxAspectRatio), ("--min-size", minSize),
            ("--min-confidence", minConfidence),
        ] {
            try requireUnitInterval(value, name)
        }
        if minAspectRatio > maxAspectRatio {
            throw ValidationError("--min-aspect-ratio is larger than --max-aspect-ratio")
        }
        if !(0...45).contains(quadratureTolerance) {
            throw ValidationError("--quadrature-tolerance must be between 0 and 45 degrees")
        }
        if maxRects < 1 { throw ValidationError("--max-rects must be at least 1") }
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        RectangleRequest(
            minimumAspectRatio: minAspectRatio, maximumAspectRatio: maxAspectRatio,
            quadratureTolerance: quadratureTolerance,
            minimumSize: minSize, minimumConfidence: minConfidence, maximumObservations: maxRects)
    }
}
