import AnalyzeCore
import ArgumentParser

/// `--objects` and its threshold.
struct ObjectOptions: RequestOptions {
    @Flag(name: .customLong("objects"), help: "Find objects with a detector network (YOLOv4-tiny, 80 COCO classes: person, car, dog, cup...; needs scripts/fetch-models): box, confidence, top-5 labels.")
    var objects = false

    @Option(name: .customLong("min-object-confidence"), help: ArgumentHelp("With --objects, drop objects whose best label scores below this, 0-1 (chosen for F1: see docs/benchmarks.md).", valueName: "c"))
    var minObjectConfidence: Double = ObjectRequest.defaultMinimumConfidence

    var isAsked: Bool { objects }

    func validate() throws {
        try requireUnitInterval(minObjectConfidence, "--min-object-confidence")
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        ObjectRequest(model: .yolov4Tiny, minimumConfidence: minObjectConfidence)
    }
}
