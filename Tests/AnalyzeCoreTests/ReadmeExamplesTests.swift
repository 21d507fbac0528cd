import Foundation
import Testing

/// The README's examples are real runs: `scripts/readme-examples --check` reruns them with the
/// binary under test and fails when the README says something else.
@Suite("README examples")
struct ReadmeExamplesTests {
    @Test func theREADMEsExamplesMatchRealRuns() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixture.root.deletingLastPathComponent().appendingPathComponent("scripts/readme-examples").path, "--check"]
        process.environment = ProcessInfo.processInfo.environment.merging(["ANALYZE_BINARY": CommandLineTests.binary.path]) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
