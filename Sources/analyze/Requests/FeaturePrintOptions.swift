import AnalyzeCore
import ArgumentParser

/// `--featureprint`.
struct FeaturePrintOptions: RequestOptions {
    @Flag(
        name: .customLong("featureprint"),
        help:
            "Compute each image's feature print (Vision's VNGenerateImageFeaturePrintRequest): 1280 floats from the classifier network's last layer before its classes, unit length, as base64 in the JSON. Near-duplicate photos have close prints (`analyze similar` lists them). Not part of every request. Needs scripts/fetch-models."
    )
    var featurePrint = false

    var isAsked: Bool { featurePrint }

    func request(models: inout ModelLocator) throws -> (any ImageRequest)? {
        FeaturePrintRequest()
    }
}
