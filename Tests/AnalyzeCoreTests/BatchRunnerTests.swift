import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

@Suite("Batch runner")
struct BatchRunnerTests {
    @Test func jsonIsByteIdenticalWhateverTheNumberOfJobs() throws {
        let inputs = [Fixture.path("samples"), Fixture.path("orientation"), Fixture.path("barcodes")]
        var outputs: [[String: Data]] = []
        for jobs in [1, 3] {
            let out = try Fixture.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: out) }
            _ = try BatchRunner(
                sources: InputCollector.collect(inputs), requests: .all,
                output: OutputOptions(directory: out, writePNG: false, writeSVG: false), jobs: jobs
            ).run()
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: out.path) {
                files[name] = try Data(contentsOf: out.appendingPathComponent(name))
            }
            outputs.append(files)
        }
        #expect(outputs[0].count > 20)
        #expect(outputs[0] == outputs[1])
    }

    /// ``BatchInputs``: what the command refuses, a library caller gets refused too, before anything
    /// is written; and a run's summary counts its outcomes.
    @Test func inputsAreCheckedBeforeAnythingIsWrittenAndTheSummaryCountsTheOutcomes() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            atPath: Fixture.path("samples/product-label.png"), toPath: folder.appendingPathComponent("a.png").path)
        try Data("not an image".utf8).write(to: folder.appendingPathComponent("b.jpg"))
        let refusal = { (arguments: [String], output: String) -> String? in
            do {
                _ = try BatchInputs.resolve(arguments, output: output)
                return nil
            } catch let refusal as BatchInputs.Refusal {
                return refusal.description
            } catch { return "\(error)" }
        }
        #expect(refusal([folder.path], folder.path)?.contains("the output folder is the input folder") == true)
        #expect(
            refusal([folder.appendingPathComponent("a.png").path], folder.path)?.contains("holds input images") == true)
        #expect(refusal([folder.appendingPathComponent("typo.png").path], "out")?.contains("no such file") == true)
        let out = folder.appendingPathComponent("out")
        let sources = try BatchInputs.resolve([folder.path], output: out.path)
        #expect(sources.map { ($0.path as NSString).lastPathComponent } == ["a.png", "b.jpg"])
        // The output folder is never searched: a second run does not analyse the first one's images.
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data().write(to: out.appendingPathComponent("a.png"))
        #expect(try BatchInputs.resolve([folder.path], output: out.path).count == 2)
        // Shards split the files between them, each file in exactly one.
        let halves = try [0, 1].map { k in
            try BatchInputs.resolve([folder.path], output: out.path, shard: try #require(Shard("\(k)/2"))).map(\.path)
        }
        #expect(Set(halves[0] + halves[1]).count == 2 && halves[0].count + halves[1].count == 2)
        let runner = BatchRunner(
            sources: sources, requests: RequestSet([BarcodeRequest()]),
            output: OutputOptions(directory: out, writePNG: false, writeSVG: false), jobs: 2)
        let summary = runner.summary(of: try runner.run(), wallSeconds: 1.23456)
        #expect(summary.images.total == 2 && summary.images.failed == 1 && summary.images.analysed == 1)
        #expect(summary.failures.count == 1 && summary.failures.allSatisfy { $0.file.hasSuffix("b.jpg") })
        #expect(summary.wallSeconds == 1.235 && summary.jobs == 2 && summary.shard == nil)
    }

    /// The test process uses glibc's malloc, so ``ProcessMemory`` hands free pages back between images
    /// here; the executable, which links tcmalloc, never calls `malloc_trim` (CommandLineTests checks the
    /// executable's side).
    @Test func glibcsMallocIsRecognised() {
        #if os(Linux)
            #expect(ProcessMemory.mallocIsGlibcs)
        #endif
    }

    /// A big-endian TIFF of `width`×`height` whose only directory comes after `dataBytes` bytes of
    /// image data (where libtiff and many scanners put it): offset 8 + `dataBytes`.
    static func tiffWithTrailingDirectory(width: UInt16, height: UInt32, dataBytes: Int) -> [UInt8] {
        func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        func entry(_ tag: UInt16, short value: UInt16) -> [UInt8] {
            be16(tag) + be16(3) + be32(1) + be16(value) + [0, 0]
        }
        func entry(_ tag: UInt16, long value: UInt32) -> [UInt8] { be16(tag) + be16(4) + be32(1) + be32(value) }
        let entries = [
            entry(256, short: width), entry(257, long: height), entry(258, short: 8), entry(259, short: 1),
            entry(262, short: 1), entry(273, long: 8), entry(277, short: 1), entry(278, long: height),
            entry(279, long: UInt32(dataBytes)),
        ]
        return [0x4D, 0x4D, 0x00, 0x2A] + be32(UInt32(8 + dataBytes)) + [UInt8](repeating: 0x80, count: dataBytes)
            + be16(UInt16(entries.count)) + entries.flatMap { $0 } + be32(0)
    }

    @Test func aTIFFWhoseDirectoryFollowsItsDataIsOrderedByItsPixels() throws {
        // The scanner's page (3000×2000, directory after 70,000 bytes of data) is the largest image
        // and starts first, though its file is smaller than the photo's and its header is past the
        // first 64 KiB; before, it was ordered by its file size and could start last.
        let dir = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("page.tif")
        try Data(Self.tiffWithTrailingDirectory(width: 3000, height: 2000, dataBytes: 70_000)).write(to: page)
        #expect(ImageHeader.reading(page.path) == ImageHeader(width: 3000, height: 2000))
        #expect(ImageHeader(parsing: RegularFile.head(page.path, count: 65_536) ?? []) == nil)
        try FileManager.default.copyItem(
            atPath: Fixture.path("samples/gift-card.jpg"), toPath: dir.appendingPathComponent("card.jpg").path)
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/qr-hello.png"), toPath: dir.appendingPathComponent("qr.png").path)
        let sources = InputCollector.collect([dir.path])
        let order = BatchRunner.largestFirst(sources).map { URL(fileURLWithPath: sources[$0].path).lastPathComponent }
        #expect(order.first == "page.tif", "\(order)")
        // Its directory within the head, the same header; a directory offset past the end, none.
        #expect(
            ImageHeader(parsing: Self.tiffWithTrailingDirectory(width: 640, height: 480, dataBytes: 100))
                == ImageHeader(width: 640, height: 480))
        var cut = Self.tiffWithTrailingDirectory(width: 640, height: 480, dataBytes: 100)
        cut.removeLast(40)
        #expect(ImageHeader(parsing: cut) == ImageHeader(width: 640, height: 480))
        #expect(ImageHeader(parsing: [0x4D, 0x4D, 0x00, 0x2A, 0x7F, 0xFF, 0xFF, 0xFF]) == nil)
    }

    @Test func anIdleWorkerPerformsSomeOfAnImagesRequestsWithTheSameResults() throws {
        // Every request on the product label, once by one worker alone and once with an idle worker
        // taking requests too: the same JSON, and the idle worker performed some of them (it created
        // engines of its own).
        let requests = RequestSet.all
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/product-label.png"))))
        let image = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 1 << 30)
        func analysed(idleWorkers: IdleWorkers?) -> ImageAnalysis {
            var analysis = ImageAnalysis(
                file: "product-label.png", orientation: 1, width: image.width, height: image.height)
            var timings = StageTimings()
            ImageRequestHandler.perform(
                requests, on: image, engines: WorkerEngines(), into: &analysis, timings: &timings,
                idleWorkers: idleWorkers)
            #expect(Set(timings.seconds.keys) == Set(requests.kinds.map(\.rawValue)))
            return analysis
        }
        let alone = analysed(idleWorkers: nil)

        let idle = IdleWorkers(imageWorkers: 1)
        let helperEngines = DisjointShare(WorkerEngines())
        let helper = DispatchGroup()
        DispatchQueue.global().async(group: helper) { idle.serve(engines: helperEngines.value, tookImages: false) }
        for _ in 0..<1000 where idle.available == 0 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(idle.available == 1)
        let shared = analysed(idleWorkers: idle)
        // The image worker has no image left: the helper ends.
        idle.serve(engines: WorkerEngines(), tookImages: true)
        #expect(helper.wait(timeout: .now() + 60) == .success)
        #expect(helperEngines.value.count > 0)
        #expect(try JSONRenderer.encode(shared, pretty: true) == JSONRenderer.encode(alone, pretty: true))
        #expect((alone.barcodes?.count ?? 0) > 0 && (alone.text?.count ?? 0) > 0)
    }

    @Test func inputsWithTheSameStemDoNotOverwriteEachOther() throws {
        let a = try Fixture.temporaryDirectory(), b = try Fixture.temporaryDirectory(),
            out = try Fixture.temporaryDirectory()
        defer { for d in [a, b, out] { try? FileManager.default.removeItem(at: d) } }
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/qr-hello.png"), toPath: a.appendingPathComponent("x.png").path)
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/code128.png"), toPath: b.appendingPathComponent("x.png").path)
        let sources = InputCollector.collect([a.path, b.path])
        #expect(Set(sources.map(\.outputName)).count == 2)
        let outcomes = try BatchRunner(
            sources: sources, requests: RequestSet([BarcodeRequest()]),
            output: OutputOptions(directory: out), jobs: 2
        ).run()
        let payloads = Set(outcomes.compactMap { $0.analysis?.barcodes?.first?.payload })
        #expect(payloads == ["Hello, analyze!", "ANALYZE-128"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".json") }.count == 2)
    }

    @Test func collectsImagesFromFoldersInSortedOrder() {
        let sources = InputCollector.collect([Fixture.path("orientation")])
        #expect(sources.map(\.outputName) == (1...8).map { "orient-\($0)" } + ["orient-invalid", "upright"])
    }

    @Test func outcomesComeBackInInputOrderWithTimings() throws {
        let sources = InputCollector.collect([Fixture.path("barcodes")])
        let outcomes = try BatchRunner(sources: sources, requests: RequestSet([BarcodeRequest()]), output: nil, jobs: 2)
            .run()
        #expect(outcomes.map(\.source) == sources)
        #expect(outcomes.allSatisfy { ($0.timings.seconds["decode"] ?? 0) > 0 })
    }
}
