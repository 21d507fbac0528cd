/// A CI check on every image: `--require KIND` (fail when nothing of that kind is found) or
/// `--forbid KIND` (fail when anything of that kind is found).
public struct ObservationCheck: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Rule: String, Sendable, Hashable, Codable {
        case require, forbid
    }

    public let rule: Rule
    public let kind: ObservationKind

    public init(_ rule: Rule, _ kind: ObservationKind) {
        self.rule = rule
        self.kind = kind
    }

    public var description: String { "--\(rule.rawValue) \(kind.rawValue)" }

    /// Why the image fails this check, or nil when it passes.
    public func failure(for analysis: ImageAnalysis) -> String? {
        let count = analysis.count(of: kind) ?? 0
        switch rule {
        case .require where count == 0: return "\(description): no \(kind.rawValue) found"
        case .forbid where count > 0: return "\(description): \(count) \(kind.rawValue) found"
        default: return nil
        }
    }
}
