import AnalyzeCore
import AnalyzeOutput
import Foundation

/// A CI check on every image: `--require KIND` (fail when nothing of that kind is found),
/// `--forbid KIND` (fail when anything of that kind is found), and with a label,
/// `--require label=cat` / `--forbid object=person` (only observations with that label count).
public struct ObservationCheck: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Rule: String, Sendable, Hashable, Codable {
        case require, forbid
    }

    public let rule: Rule
    public let kind: ObservationKind
    /// Only observations with this label count (see ``ObservationCheck/label(_:matches:)``).
    public let label: String?

    public init(_ rule: Rule, _ kind: ObservationKind, label: String? = nil) {
        self.rule = rule
        self.kind = kind
        self.label = label
    }

    public var description: String { "--\(rule.rawValue) \(kind.rawValue)" + (label.map { "=\($0)" } ?? "") }

    /// Why the image fails this check, or nil when it passes.
    public func failure(for analysis: ImageAnalysis) -> String? {
        let summary = analysis[kind]?.summary
        let count: Int
        let what: String
        if let label {
            count = (summary?.labels ?? []).filter { Self.label($0, matches: label) }.count
            what = "\(kind.rawValue) labelled \(label)"
        } else {
            count = summary?.count ?? 0
            what = kind.rawValue
        }
        return failure(count: count, what: what)
    }

    /// Why an input with `count` matching observations fails this check (a sequence: over all its
    /// analysed frames), or nil when it passes.
    public func failure(count: Int) -> String? {
        failure(count: count, what: label.map { "\(kind.rawValue) labelled \($0)" } ?? kind.rawValue)
    }

    private func failure(count: Int, what: String) -> String? {
        switch rule {
        case .require where count == 0: return "\(description): no \(what) found"
        case .forbid where count > 0: return "\(description): \(count) \(what) found"
        default: return nil
        }
    }

    /// Whether a recognised label answers a query: the same text in any case, or one of its
    /// whole words (`cat` matches `Egyptian cat`, `ball` matches `sports ball`); Darknet's spellings
    /// of COCO's classes (``ClassNameSpelling``) match COCO's (`sofa` matches `couch`).
    public static func label(_ label: String, matches query: String) -> Bool {
        let l = ClassNameSpelling.coco(label).lowercased()
        let q = ClassNameSpelling.coco(query.lowercased().trimmingCharacters(in: .whitespaces)).lowercased()
        guard !q.isEmpty else { return false }
        if l == q { return true }
        return l.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0 == q }
    }
}
