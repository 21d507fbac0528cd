import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput

/// Renders a run as JUnit XML (one test case per image), the format GitLab, Jenkins and GitHub
/// test reporters read. An unreadable image is an `<error>`, a failed `--require`/`--forbid`
/// check a `<failure>`. All text is XML-escaped.
public enum JUnitRenderer {
    public static func xml(summary: RunSummary) -> String {
        let e: (String) -> String = { MarkupEscaping.escape($0) }
        let failures = summary.images.checkFailed, errors = summary.images.failed
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out +=
            "<testsuites name=\"analyze\" tests=\"\(summary.images.total)\" failures=\"\(failures)\" errors=\"\(errors)\">\n"
        out +=
            "  <testsuite name=\"analyze\" tests=\"\(summary.images.total)\" failures=\"\(failures)\" errors=\"\(errors)\" skipped=\"0\">\n"
        for entry in summary.entries {
            out += "    <testcase classname=\"analyze\" name=\"\(e(entry.label))\""
            switch entry.status {
            case .ok:
                out += "/>\n"
            case .failed, .partial:
                out +=
                    ">\n      <error type=\"\(e(entry.errorCode ?? "failed"))\" message=\"\(e(entry.errorMessage ?? "failed"))\"/>\n    </testcase>\n"
            case .checkFailed:
                let message = entry.checkFailures.joined(separator: "; ")
                out +=
                    ">\n      <failure type=\"check\" message=\"\(e(message))\">\(e(message))</failure>\n    </testcase>\n"
            }
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }
}
