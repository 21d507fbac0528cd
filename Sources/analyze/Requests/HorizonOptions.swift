import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `--horizon` and how sure a horizon must be.
struct HorizonOptions: RequestOptions {
    @Flag(
        name: .customLong("horizon"),
        help:
            "Find the horizon (Vision's VNDetectHorizonRequest): its angle in degrees (positive when it rises to the right), where it crosses the image, and the transform that levels the image; null when the image has no discernible horizon. Judges the scene with the classifier network (needs scripts/fetch-models)."
    )
    var horizon = false

    @Option(
        name: .customLong("min-horizon-confidence"),
        help: ArgumentHelp(
            "With --horizon, report a horizon only at this confidence or more, 0-1 (about the share of such lines that are the horizon: see docs/benchmarks.md); --level turns only images with a reported horizon.",
            valueName: "c"))
    var minHorizonConfidence: Double = HorizonRequest.defaultMinimumConfidence

    var isAsked: Bool { horizon }

    func validate() throws {
        try requireUnitInterval(minHorizonConfidence, "--min-horizon-confidence")
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        HorizonRequest(sceneModel: .efficientNetLite0, minimumConfidence: minHorizonConfidence)
    }
}
