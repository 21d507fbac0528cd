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
        // Models a request uses when present (it runs without them, slower or with less).
        for optional in RequestRegistry.entries.flatMap(\.optionalModels) {
            if let path = try? locator.path(of: optional.model) {
                print("\(optional.use): \(optional.model.name) present: \(path)")
            } else {
                print(
                    "\(optional.use): \(optional.model.name) missing, optional (sha256 \(optional.model.sha256)): \(optional.without)"
                )
            }
        }
        print("searched, in order:")
        for folder in locator.directories { print("  \(folder)") }
        if missing > 0 {
            print(
                "fetch them with scripts/fetch-models from a checkout, into one of these folders (ANALYZE_MODELS=DIR scripts/fetch-models)"
            )
            throw ExitCode(1)
        }
    }
}
