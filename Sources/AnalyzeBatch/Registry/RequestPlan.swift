import AnalyzeCore
import AnalyzeOutput

/// Which requests a run performs: the policy behind the command's request flags.
///
/// - No request asked for and no check: every registered request runs (unless `everyWhenNoneAsked`
///   is false: `--track-box` alone follows its boxes and runs no detection).
/// - Otherwise the requests asked for, plus the request of every kind a `--require`/`--forbid`
///   check names.
/// - A request whose model is missing is an error when it was asked for (or checked), and is
///   skipped with a note when it was only implied by "every request".
public struct RequestPlan: Sendable {
    /// Every kind's request with the user's parameters; kinds absent here get their defaults.
    public var configured: RequestSet
    /// The kinds asked for explicitly.
    public var asked: [ObservationKind]
    /// The run's checks (their kinds are enabled).
    public var checks: [ObservationCheck]
    /// Whether asking for nothing means every request (the default) or none.
    public var everyWhenNoneAsked: Bool

    public init(
        configured: RequestSet, asked: [ObservationKind], checks: [ObservationCheck] = [],
        everyWhenNoneAsked: Bool = true
    ) {
        self.configured = configured
        self.asked = asked
        self.checks = checks
        self.everyWhenNoneAsked = everyWhenNoneAsked
    }

    /// The requests to perform and the notes to show (skipped requests), or an error for a
    /// request that was asked for but cannot run.
    public func resolve(models: ModelLocator) throws(AnalysisError) -> (requests: RequestSet, notes: [String]) {
        let explicit = Set(asked + checks.map(\.kind))
        var requests = RequestSet()
        var notes: [String] = []
        if explicit.isEmpty, !everyWhenNoneAsked { return (requests, notes) }
        for entry in RequestRegistry.entries
        where explicit.isEmpty ? entry.runsWhenNoneAsked : explicit.contains(entry.kind) {
            let request = (configured[entry.kind] ?? entry.makeDefault()).resolvingOptionalModels(with: models)
            do {
                for model in request.models { _ = try models.path(of: model) }
            } catch {
                guard explicit.isEmpty else {
                    throw AnalysisError(.engineUnavailable, "\(entry.kind) cannot run: \(error.message)")
                }
                notes.append("\(entry.kind) skipped: \(error.message)")
                continue
            }
            requests.insert(request)
        }
        return (requests, notes)
    }
}
