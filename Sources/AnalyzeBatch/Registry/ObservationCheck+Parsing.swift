import AnalyzeCore
import AnalyzeOutput

extension ObservationCheck {
    /// Parses a `--require`/`--forbid` argument: `KIND` or `KIND=LABEL`, where KIND is a
    /// registered kind's name or alias (`faces`, `rects`, `object`, `label`…).
    public init(_ rule: Rule, argument: String) throws(AnalysisError) {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        guard let kind = RequestRegistry.kind(named: name) else {
            throw AnalysisError(
                .usage, "unknown kind '\(name)'; use \(RequestRegistry.kindNames), optionally with =LABEL")
        }
        var label: String?
        if parts.count == 2 {
            let text = parts[1].trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw AnalysisError(.usage, "'\(argument)' names no label after '='") }
            label = text
        }
        self.init(rule, kind, label: label)
    }
}
