import Foundation
import Testing

/// The README's cluster recipes, run rather than described.
@Suite("Clusters")
struct ClusterTests {
    static let scripts = Fixture.root.deletingLastPathComponent().appendingPathComponent("Tests/Support")

    /// A single-node Slurm (munged, slurmctld, slurmd, started by `Tests/Support/slurm-test` as root) runs the
    /// README's job array script unchanged over a folder of 37 inputs (5 of them broken): the merged report
    /// has every input exactly once and the summary a single run writes; an array task killed by
    /// `scontrol requeue` after its first output finishes its shard through `--resume`.
    @Test func theReadmeSlurmArrayMergesToASingleRunsSummaryAndSurvivesARequeue() throws {
        let input = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: input) }
        for folder in ["barcodes", "samples", "rects", "text", "orientation", "bad"] {
            try FileManager.default.copyItem(
                atPath: Fixture.path(folder), toPath: input.appendingPathComponent(folder).path)
        }
        let result = try runProgram(
            "/bin/bash",
            [
                Self.scripts.appendingPathComponent("slurm-test").path,
                CommandLineTests.binary.path, input.path,
            ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("merged: the same summary as a single run"))
        #expect(result.output.contains("analysed the rest"))
        #expect(result.output.contains("slurm-test: passed"))
    }

    /// The README's Kubernetes Indexed Job is a valid `batch/v1` Job (strict: no unknown field), checked
    /// offline against the API's JSON schemas by PyPI's kubernetes-validate.
    @Test func theReadmeKubernetesJobIsValid() throws {
        let result = try runProgram(
            "/bin/bash", [Self.scripts.appendingPathComponent("kubernetes-validate").path, "--readme"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("passed for resource job/analyze-photos"))
    }
}
