import Foundation
import Testing

/// The README's examples are real runs: `scripts/readme-examples --check` reruns them with the
/// binary under test and fails when the README says something else.
@Suite("README examples")
struct ReadmeExamplesTests {
    @Test func theREADMEsExamplesMatchRealRuns() throws {
        let result = try runScript(
            "readme-examples", ["--check"], environment: ["ANALYZE_BINARY": CommandLineTests.binary.path])
        #expect(result.status == 0, "\(result.output)")
    }
}
