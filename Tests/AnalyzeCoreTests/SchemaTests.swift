import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Every JSON the tool writes validates against `schemas/` (Tests/Support/validate-json, Debian's
/// python3-jsonschema, installed by scripts/test).
@Suite("JSON schemas")
struct SchemaTests {
    static let repository = Fixture.root.deletingLastPathComponent()

    func validate(_ paths: [String]) throws -> (status: Int32, output: String) {
        try runScript("validate-json", paths)
    }

    @Test func everyJSONOfARealRunValidates() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let cli = CommandLineTests()
        var inputs = [Fixture.path("samples"), Fixture.path("bad"), Fixture.path("barcodes/qr-binary.png")]
        let messi = OpenCVSample.folder.appendingPathComponent("messi5.jpg").path
        if FileManager.default.fileExists(atPath: messi) { inputs.append(messi) }
        let all = try cli.run(
            inputs + ["--landmarks", "--characters", "-o", out.appendingPathComponent("all").path, "--jsonl"])
        #expect(all.status == 1)  // the bad files fail
        try Data(all.stdout.utf8).write(to: out.appendingPathComponent("all.jsonl"))
        let partial = try cli.run([
            Fixture.path("samples/product-label.png"), "--barcodes", "--text", "--languages", "xxx",
            "--shard", "0/1", "-o", out.appendingPathComponent("partial").path,
        ])
        #expect(partial.status == 1)
        let result = try validate([
            out.appendingPathComponent("all").path, out.appendingPathComponent("partial").path,
            out.appendingPathComponent("all.jsonl").path,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("all valid"))
    }

    @Test func aSequenceJSONAndItsFrameLinesValidate() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let videos = [try OpenCVSample.path("tree.avi"), try OpenCVSample.path("Megamind.avi")]
        let run = try CommandLineTests().run(
            videos + [
                "--faces", "--rects", "--horizon", "--track", "--max-frames", "25", "--jsonl",
                "-o", out.appendingPathComponent("videos").path,
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 50)
        try Data(run.stdout.utf8).write(to: out.appendingPathComponent("frames.jsonl"))
        let result = try validate([
            out.appendingPathComponent("videos").path, out.appendingPathComponent("frames.jsonl").path,
        ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("53 document(s), all valid"))
    }

    @Test func aJSONThatBreaksTheContractIsCaught() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        var analysis = try Fixture.analyze("barcodes/qr-hello.png", RequestSet([BarcodeRequest()]))
        analysis.warnings = []
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(try JSONRenderer.encode(analysis))) as? [String: Any])
        object["width"] = nil
        try JSONSerialization.data(withJSONObject: object).write(to: out.appendingPathComponent("broken.json"))
        let result = try validate([out.path])
        #expect(result.status == 1 && result.output.contains("width"))
    }
}
