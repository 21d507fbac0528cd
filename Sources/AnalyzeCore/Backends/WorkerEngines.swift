/// The engines one worker thread owns: created on first use, reused for every image the worker
/// processes, freed when the worker ends. Never shared between threads.
///
/// Generic on purpose: each backend adds its own typed accessor in an extension next to it
/// (`barcodeScanner(for:)` beside ``ZBarScanner``), so a new engine touches no existing file.
public final class WorkerEngines {
    /// Where the engines find model files.
    public let models: ModelLocator
    private var engines: [Key: AnyObject] = [:]

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let configuration: AnyHashable
    }

    public init(models: ModelLocator = .standard) {
        self.models = models
    }

    /// How many engines the worker has created.
    var count: Int { engines.count }

    /// The worker's engine of type `E` for `configuration`, created by `create` the first time.
    func engine<E: AnyObject>(
        _ type: E.Type = E.self, for configuration: some Hashable,
        create: () throws(AnalysisError) -> E
    ) throws(AnalysisError) -> E {
        let key = Key(type: ObjectIdentifier(type), configuration: AnyHashable(configuration))
        if let existing = engines[key] as? E { return existing }
        let engine = try create()
        engines[key] = engine
        return engine
    }
}
