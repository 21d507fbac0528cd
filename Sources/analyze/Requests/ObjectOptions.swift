import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `--objects`, its threshold, overlap, input size and tiles.
struct ObjectOptions: RequestOptions {
    @Flag(
        name: .customLong("objects"),
        help:
            "Find objects with a detector network (YOLO11n, 80 COCO classes: person, car, dog, cup...; needs scripts/fetch-models): box, confidence, top-5 labels."
    )
    var objects = false

    @Option(
        name: .customLong("min-object-confidence"),
        help: ArgumentHelp(
            "With --objects, drop objects whose best label scores below this, 0-1 (chosen for F1: see docs/benchmarks.md).",
            valueName: "c"))
    var minObjectConfidence: Double = ObjectRequest.defaultMinimumConfidence

    @Option(
        name: .customLong("object-overlap"),
        help: ArgumentHelp(
            "With --objects, boxes of one class that overlap more than this (intersection over union, 0-1) are one object, the most confident kept (see docs/benchmarks.md).",
            valueName: "iou"))
    var objectOverlap: Double = ObjectRequest.defaultMaximumOverlap

    @Option(
        name: .customLong("object-input"),
        help: ArgumentHelp(
            "With --objects, the detector sees the image scaled to about N x N pixels of area in its own proportions (a portrait photo gets a tall input of the same cost), N a multiple of 32 from 320 to 1280: larger finds smaller objects and costs about (N/800)^2 the time. Several sizes (N,M,...) run the detector at each and fuse their boxes; one size is one pass (default 800,640, chosen for mAP and F1 on the development set: see docs/benchmarks.md).",
            valueName: "N[,M...]"))
    var objectInput = ObjectInputSizes(sizes: [ObjectRequest.defaultInputSize] + ObjectRequest.defaultFusedInputSizes)

    @Option(
        name: .customLong("object-tiles"),
        help: ArgumentHelp(
            "With --objects, also cut a photo that the detector's view shrinks to less than half (a 12 MP photo, not a 640-px one) into N x N overlapping tiles, each seen at --object-input's first size, and add the small objects they find: far people, birds, cars in a wide scene. 1 (the default) is the whole view only; 2 found 78% instead of 56% of the objects of scenes shrunk into 12 MP mosaics, and kept natural 12 MP photos' F1, for about 3.3 times the detector's time (0.27 -> 0.9 s a 12 MP photo; see docs/benchmarks.md).",
            valueName: "N"))
    var objectTiles: Int = 1

    var isAsked: Bool { objects }

    func validate() throws {
        try requireUnitInterval(minObjectConfidence, "--min-object-confidence")
        try requireUnitInterval(objectOverlap, "--object-overlap")
        if objectInput.sizes.contains(where: { !(320...1280).contains($0) || $0 % 32 != 0 }) {
            throw ValidationError("--object-input takes multiples of 32 from 320 to 1280")
        }
        if !(1...4).contains(objectTiles) {
            throw ValidationError("--object-tiles takes 1 (no tiles) to 4")
        }
    }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        var model = NetworkModel.yolo11n
        let primary = objectInput.sizes.first ?? ObjectRequest.defaultInputSize
        model.inputWidth = primary
        model.inputHeight = primary
        return ObjectRequest(
            model: model, minimumConfidence: minObjectConfidence, maximumOverlap: objectOverlap,
            fusedInputSizes: Array(objectInput.sizes.dropFirst()), tiles: objectTiles > 1 ? objectTiles : nil)
    }
}

/// `--object-input`'s sizes: one or more, comma-separated, the first the detector's own.
struct ObjectInputSizes: ExpressibleByArgument {
    var sizes: [Int]

    init(sizes: [Int]) { self.sizes = sizes }

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        let sizes = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, sizes.count == parts.count, Set(sizes).count == sizes.count else { return nil }
        self.sizes = sizes
    }

    var defaultValueDescription: String { sizes.map(String.init).joined(separator: ",") }
}
