import Foundation
import Testing

/// The docs' generated parts come from the binary under test: `scripts/update-docs --check` makes them again
/// and fails when a page says something else.
@Suite("Generated docs")
struct GeneratedDocsTests {
    static let script = Fixture.root.deletingLastPathComponent().appendingPathComponent("scripts/update-docs")

    func check(_ part: String) throws -> (status: Int32, output: String) {
        try runProgram(
            "/usr/bin/python3", [Self.script.path, "--check", part],
            environment: ["ANALYZE_BINARY": CommandLineTests.binary.path])
    }

    /// docs/flags.md is what `analyze --help` and `analyze help SUBCOMMAND` say, as `scripts/update-docs` writes it.
    @Test func theFlagsReferenceIsTheHelpText() throws {
        let result = try check("flags")
        #expect(result.status == 0, "\(result.output)")
    }

    /// The example blocks of the README and docs/ (a run's stderr, its JSON, a real photo's objects and
    /// labels) are what a real run prints and writes.
    @Test func theDocsExamplesMatchRealRuns() throws {
        let result = try check("examples")
        #expect(result.status == 0, "\(result.output)")
    }
}
