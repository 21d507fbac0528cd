import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import ArgumentParser

/// `analyze models`: where each model is looked for and whether it is there.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "List the models the requests load, where they are looked for, and whether each is present.",
        discussion: "Exit status: 0 every model of the default requests is present; 1 some are missing."
    )

    func run() throws {
        let locator = ModelLocator.standard
        var missing = 0
        for entry in RequestRegistry.entries {
            for model in entry.makeDefault().models {
                if let path = try? locator.path(of: model) {
                    print("\(entry.kind): \(model.name) present: \(path)")
                } else {
                    missing += 1
                    print("\(entry.kind): \(model.name) MISSING (sha256 \(model.sha256))")
                }
            }
        }
        // Models a request uses when present (it runs without them, slower).
        let optional: [(use: String, model: ModelIdentity, without: String)] =
            [("text (--text-gate auto)", TextRequest.ppocrDetector.identity, "every large image is read whole")]
            + TextReaderModels.ppocrV4.identities.map { ("text (--text-gate auto)", $0, "Tesseract reads photos, signs and receipts too") }
            + NetworkModel.yolov4Tiny.files.map { ("objects, MIT-licensed alternative (--model yolov4-tiny.weights)", $0, "--objects has YOLO11n (AGPL-3.0) only") }
        for (use, model, without) in optional {
            if let path = try? locator.path(of: model) {
                print("\(use): \(model.name) present: \(path)")
            } else {
                print("\(use): \(model.name) missing, optional (sha256 \(model.sha256)): \(without)")
            }
        }
        print("searched, in order:")
        for folder in locator.directories { print("  \(folder)") }
        if missing > 0 {
            print("fetch them with scripts/fetch-models from a checkout, into one of these folders (ANALYZE_MODELS=DIR scripts/fetch-models)")
            throw ExitCode(1)
        }
    }
}
