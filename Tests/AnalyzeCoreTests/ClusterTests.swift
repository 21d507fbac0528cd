import Foundation
import Testing

/// The cluster recipes of docs/cluster.md, run rather than described.
@Suite("Clusters")
struct ClusterTests {
    static let scripts = Fixture.root.deletingLastPathComponent().appendingPathComponent("Tests/Support")

    /// A single-node Slurm (munged, slurmctld, slurmd, started by `Tests/Support/slurm-test` as root) runs the
    /// job array script of docs/cluster.md unchanged over a folder of 37 inputs (5 of them broken): the merged report
    /// has every input exactly once and the summary a single run writes; an array task killed by
    /// `scontrol requeue` after its first output finishes its shard through `--resume`.
    @Test func theSlurmRecipeMergesToASingleRunsSummaryAndSurvivesARequeue() throws {
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

    /// The Kubernetes Indexed Job of docs/cluster.md is a valid `batch/v1` Job (strict: no unknown field), checked
    /// offline against the API's JSON schemas by PyPI's kubernetes-validate.
    @Test func theKubernetesRecipeIsAValidJob() throws {
        let result = try runProgram(
            "/bin/bash", [Self.scripts.appendingPathComponent("kubernetes-validate").path, "--docs"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("passed for resource job/analyze-photos"))
    }
}
