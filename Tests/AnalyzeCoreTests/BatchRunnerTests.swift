import Foundation
import Testing
@testable import AnalyzeCore

@Suite("Batch runner")
struct BatchRunnerTests {
    @Test func jsonIsByteIdenticalWhateverTheNumberOfJobs() throws {
        let inputs = [Fixture.path("samples"), Fixture.path("orientation"), Fixture.path("barcodes")]
        var outputs: [[String: Data]] = []
        for jobs in [1, 3] {
            let out = try Fixture.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: out) }
            _ = try BatchRunner(sources: InputCollector.collect(inputs), requests: .all,
                                output: OutputOptions(directory: out, writePNG: false, writeSVG: false), jobs: jobs).run()
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
                files[name] = try Data(contentsOf: out.appendingPathComponent(name))
            }
            outputs.append(files)
        }
        #expect(outputs[0].count > 20)
        #expect(outputs[0] == outputs[1])
    }

    /// The test process uses glibc's malloc, so ``ProcessMemory`` hands free pages back between images
    /// here; the executable, which links tcmalloc, never calls `malloc_trim` (CommandLineTests checks the
    /// executable's side).
    @Test func glibcsMallocIsRecognised() {
        #if os(Linux)
        #expect(ProcessMemory.mallocIsGlibcs)
        #endif
    }

    @Test func inputsWithTheSameStemDoNotOverwriteEachOther() throws {
        let a = try Fixture.temporaryDirectory(), b = try Fixture.temporaryDirectory(), out = try Fixture.temporaryDirectory()
        defer { for d in [a, b, out] { try? FileManager.default.removeItem(at: d) } }
        try FileManager.default.copyItem(atPath: Fixture.path("barcodes/qr-hello.png"), toPath: a.appendingPathComponent("x.png").path)
        try FileManager.default.copyItem(atPath: Fixture.path("barcodes/code128.png"), toPath: b.appendingPathComponent("x.png").path)
        let sources = InputCollector.collect([a.path, b.path])
        #expect(Set(sources.map(\.outputName)).count == 2)
        let outcomes = try BatchRunner(sources: sources, requests: RequestSet([BarcodeRequest()]),
                                       output: OutputOptions(directory: out), jobs: 2).run()
        let payloads = Set(outcomes.compactMap { $0.analysis?.barcodes?.first?.payload })
        #expect(payloads == ["Hello, analyze!", "ANALYZE-128"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".json") }.count == 2)
    }

    @Test func collectsImagesFromFoldersInSortedOrder() {
        let sources = InputCollector.collect([Fixture.path("orientation")])
        #expect(sources.map(\.outputName) == (1 ... 8).map { "orient-\($0)" } + ["orient-invalid", "upright"])
    }

    @Test func outcomesComeBackInInputOrderWithTimings() throws {
        let sources = InputCollector.collect([Fixture.path("barcodes")])
        let outcomes = try BatchRunner(sources: sources, requests: RequestSet([BarcodeRequest()]), output: nil, jobs: 2).run()
        #expect(outcomes.map(\.source) == sources)
        #expect(outcomes.allSatisfy { ($0.timings.seconds["decode"] ?? 0) > 0 })
    }
}
