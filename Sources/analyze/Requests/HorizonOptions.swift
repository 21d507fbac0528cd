import AnalyzeCore
import ArgumentParser

/// `--horizon`.
struct HorizonOptions: RequestOptions {
    @Flag(name: .customLong("horizon"), help: "Find the horizon (Vision's VNDetectHorizonRequest): its angle in degrees (positive when it rises to the right), where it crosses the image, and the transform that levels the image; null when the image has no discernible horizon.")
    var horizon = false

    var isAsked: Bool { horizon }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? { HorizonRequest() }
}
