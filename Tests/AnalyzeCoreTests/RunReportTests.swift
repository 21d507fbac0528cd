import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("Run report, CI checks, resume and shards")
struct RunReportTests {
    /// A card lists what is confidently there, by kind, without repeats: objects once per class with
    /// their count, labels of 5% or more (no `weasel 0%`), text lines read with 50% or more.
    @Test func cardsGroupObjectsAndKeepOnlyConfidentLabelsAndText() {
        func object(_ name: String, _ confidence: Double) -> RecognizedObjectObservation {
            RecognizedObjectObservation(
                boundingBox: BoundingBox(x: 0, y: 0, width: 10, height: 10), confidence: confidence,
                labels: [ClassificationObservation(identifier: name, confidence: confidence)])
        }
        let objects = RecognizedObjectObservation.summary(of: [
            object("person", 0.71), object("person", 0.87), object("dog", 0.4), object("person", 0.5),
        ])
        #expect(objects.highlights == ["object: person ×3, best 87%", "object: dog 40%"])
        let labels = ClassificationObservation.summary(of: [
            ClassificationObservation(identifier: "web site", confidence: 0.66),
            ClassificationObservation(identifier: "envelope", confidence: 0.06),
            ClassificationObservation(identifier: "weasel", confidence: 0.004),
        ])
        #expect(labels.highlights == ["label: web site 66%", "label: envelope 6%"])
        #expect(labels.labels == ["web site", "envelope", "weasel"])  // the filter and --require still see every label
        let box = BoundingBox(x: 0, y: 0, width: 10, height: 10)
        let page = RecognizedPage(
            lines: [
                TextObservation(string: "ye A. ate aye", confidence: 0.2, boundingBox: box, words: []),
                TextObservation(string: "CAFE LUNA", confidence: 0.9, boundingBox: box, words: []),
            ], fullText: "")
        #expect(page.summary.textPreview == ["CAFE LUNA"])
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256MatchesTheStandardVectors(input: String, digest: String) {
        #expect(ContentHash.sha256Hex(Array(input.utf8)) == digest)
        #expect(
            ContentHash.sha256Hex([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func requireAndForbidChecksFailTheRightImages() throws {
        let sources = InputCollector.collect([Fixture.path("barcodes/qr-hello.png"), Fixture.path("barcodes/none.png")])
        var runner = BatchRunner(sources: sources, requests: RequestSet([BarcodeRequest()]), output: nil, jobs: 2)
        runner.checks = [ObservationCheck(.require, .barcodes)]
        let required = try runner.run()
        #expect(required.map(\.checkFailures.isEmpty) == [true, false])
        runner.checks = [ObservationCheck(.forbid, .barcodes)]
        let forbidden = try runner.run()
        #expect(forbidden.map(\.checkFailures.isEmpty) == [false, true])
        #expect(forbidden.first?.digest.status == .checkFailed)
    }

    @Test func htmlEscapesHostilePayloadsAndOnlyRunsItsOwnScript() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let html = try report(
            for: [Fixture.path("barcodes"), Fixture.path("text/hostile-text.png"), Fixture.path("bad/empty.jpg")],
            in: out)
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img src=x"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(html.components(separatedBy: "<script>").count == 2)
        #expect(html.contains("script-src 'sha256-"))
        // Failed images are listed before the cards, with their reason.
        let failures = try #require(html.range(of: "id=\"failures\""))
        let cards = try #require(html.range(of: "id=\"cards\""))
        #expect(failures.lowerBound < cards.lowerBound)
        #expect(html.contains("the file is empty"))
    }

    @Test func junitIsWellFormedWithATestCasePerImage() throws {
        let sources = InputCollector.collect([
            Fixture.path("barcodes/qr-hostile.png"), Fixture.path("barcodes/none.png"), Fixture.path("bad/corrupt.png"),
        ])
        var runner = BatchRunner(sources: sources, requests: RequestSet([BarcodeRequest()]), output: nil, jobs: 1)
        runner.checks = [ObservationCheck(.require, .barcodes)]
        let outcomes = try runner.run()
        let summary = RunSummary(
            requests: runner.requests, checks: runner.checks, entries: outcomes.map(\.digest), timings: StageTimings())
        let xml = JUnitRenderer.xml(summary: summary)
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse())
        #expect(xml.components(separatedBy: "<testcase ").count == 4)
        #expect(xml.contains("<error type=\"undecodable\""))
        #expect(xml.contains("<failure type=\"check\""))
        #expect(xml.contains("tests=\"3\" failures=\"1\" errors=\"1\""))
    }

    @Test func resumeSkipsUpToDateImagesAndRedoesChangedOnes() throws {
        let input = try Fixture.temporaryDirectory(), out = try Fixture.temporaryDirectory()
        defer { for d in [input, out] { try? FileManager.default.removeItem(at: d) } }
        for name in ["qr-hello.png", "code128.png", "ean13.png"] {
            try FileManager.default.copyItem(
                atPath: Fixture.path("barcodes/\(name)"), toPath: input.appendingPathComponent(name).path)
        }
        var runner = BatchRunner(
            sources: InputCollector.collect([input.path]), requests: RequestSet([BarcodeRequest()]),
            output: OutputOptions(directory: out), jobs: 2)
        runner.resume = true
        #expect(try runner.run().filter { $0.resumed }.isEmpty)
        let first = try Data(contentsOf: out.appendingPathComponent("code128.json"))
        let again = try runner.run()
        #expect(again.allSatisfy { $0.resumed })
        #expect(
            again.compactMap { $0.analysis?.barcodes?.first?.payload }.sorted() == [
                "9780201379624", "ANALYZE-128", "Hello, analyze!",
            ])
        let unchanged = try Data(contentsOf: out.appendingPathComponent("code128.json"))
        #expect(unchanged == first)
        // A changed input and a missing output are analysed again; so is everything under new options.
        try FileManager.default.removeItem(at: input.appendingPathComponent("ean13.png"))
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/qr-inverted.png"), toPath: input.appendingPathComponent("ean13.png").path)
        try FileManager.default.removeItem(at: out.appendingPathComponent("qr-hello.svg"))
        let third = try runner.run()
        #expect(third.filter { !$0.resumed }.map(\.source.outputName).sorted() == ["ean13", "qr-hello"])
        runner.requests = RequestSet([BarcodeRequest(symbologies: [.qr])])
        #expect(try runner.run().filter { $0.resumed }.isEmpty)
    }

    @Test func shardsSplitTheInputsDisjointlyAndTheMergedReportEqualsASingleRun() throws {
        let inputs = [
            Fixture.path("barcodes"), Fixture.path("orientation"), Fixture.path("bad"), Fixture.path("samples"),
        ]
        let all = InputCollector.collect(inputs)
        let shards = (0..<3).compactMap { Shard("\($0)/3") }
        let slices = shards.map { shard in all.filter { shard.contains($0.path) } }
        #expect(slices.map(\.count).reduce(0, +) == all.count)
        #expect(Set(slices.flatMap { $0.map(\.path) }) == Set(all.map(\.path)))
        #expect(slices.allSatisfy { !$0.isEmpty })

        let single = try Fixture.temporaryDirectory(), sharded = try Fixture.temporaryDirectory()
        defer { for d in [single, sharded] { try? FileManager.default.removeItem(at: d) } }
        let requests = RequestSet([BarcodeRequest()])
        func run(_ sources: [ImageSource], into dir: URL, shard: Shard?) throws {
            let outcomes = try BatchRunner(
                sources: sources, requests: requests,
                output: OutputOptions(directory: dir, writePNG: false, writeSVG: false), jobs: 2
            ).run()
            var timings = StageTimings()
            outcomes.forEach { timings.add($0.timings) }
            try RunReport.write(
                RunSummary(requests: requests, checks: [], entries: outcomes.map(\.digest), timings: timings), to: dir,
                shard: shard)
        }
        try run(all, into: single, shard: nil)
        for (shard, slice) in zip(shards, slices) { try run(slice, into: sharded, shard: shard) }
        let merged = try RunReport.merge(directories: [sharded], into: sharded)

        let one = try JSONDecoder().decode(
            RunSummary.self, from: Data(contentsOf: single.appendingPathComponent("summary.json")))
        #expect(merged.entries == one.entries)
        #expect(merged.totals == one.totals && merged.images == one.images && merged.failures == one.failures)
        let shardedHTML = try String(contentsOf: sharded.appendingPathComponent("index.html"), encoding: .utf8)
        let singleHTML = try String(contentsOf: single.appendingPathComponent("index.html"), encoding: .utf8)
        // The run's own details (timings, wall time) differ; the cards do not.
        #expect(Self.withoutRunDetails(shardedHTML) == Self.withoutRunDetails(singleHTML))
        // Every per-image JSON is the same too.
        for source in all
        where FileManager.default.fileExists(atPath: single.appendingPathComponent(source.outputName + ".json").path) {
            let a = try Data(contentsOf: single.appendingPathComponent(source.outputName + ".json"))
            let b = try Data(contentsOf: sharded.appendingPathComponent(source.outputName + ".json"))
            #expect(a == b)
        }
    }

    @Test func shardSpecificationsAreValidated() {
        #expect(Shard("0/1") != nil && Shard("2/3") != nil)
        #expect(Shard("3/3") == nil && Shard("-1/3") == nil && Shard("1/0") == nil && Shard("x") == nil)
        // One limit for --shard and the merge.
        #expect(Shard("99999/100000") != nil && Shard("0/100001") == nil && Shard("0/1000000000") == nil)
    }

    /// Hostile shard summaries: a claim of 0/0 or a billion shards, shards of different counts, and a
    /// 3 GB sparse file are each an error naming the file, read no further than their size.
    @Test func hostileShardSummariesAreErrorsNamingTheFile() throws {
        let dir = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let requests = RequestSet([BarcodeRequest()])
        let outcomes = try BatchRunner(
            sources: InputCollector.collect([Fixture.path("barcodes/qr-hello.png")]), requests: requests,
            output: OutputOptions(directory: dir, writePNG: false, writeSVG: false), jobs: 1
        ).run()
        func write(_ shard: String, as name: String) throws {
            var summary = RunSummary(
                requests: requests, checks: [], entries: outcomes.map(\.digest), timings: StageTimings())
            summary.shard = shard
            try Data(JSONRenderer.encode(summary)).write(to: dir.appendingPathComponent(name))
        }
        for claim in ["0/0", "0/1000000000", "5/3"] {
            try write(claim, as: "summary.shard-0-of-2.json")
            let error = try #require(throws: AnalysisError.self) { try RunReport.merge(directories: [dir], into: dir) }
            #expect(
                error.message.contains(claim) && error.file?.hasSuffix("summary.shard-0-of-2.json") == true, "\(error)")
        }
        try write("0/2", as: "summary.shard-0-of-2.json")
        try write("1/3", as: "summary.shard-1-of-3.json")
        let mixed = try #require(throws: AnalysisError.self) { try RunReport.merge(directories: [dir], into: dir) }
        #expect(mixed.message.contains("not of the same batch"), "\(mixed)")
        try FileManager.default.removeItem(at: dir.appendingPathComponent("summary.shard-1-of-3.json"))
        let huge = dir.appendingPathComponent("summary.shard-1-of-2.json")
        FileManager.default.createFile(atPath: huge.path, contents: nil)
        let handle = try FileHandle(forWritingTo: huge)
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        let tooLarge = try #require(throws: AnalysisError.self) { try RunReport.merge(directories: [dir], into: dir) }
        #expect(tooLarge.code == .tooLarge && tooLarge.file == huge.path, "\(tooLarge)")
    }

    /// Runs barcodes + text over `inputs` into `out` and returns index.html.
    func report(for inputs: [String], in out: URL) throws -> String {
        let requests = RequestSet([BarcodeRequest(), TextRequest()])
        let outcomes = try BatchRunner(
            sources: InputCollector.collect(inputs), requests: requests, output: OutputOptions(directory: out), jobs: 2
        ).run()
        try RunReport.write(
            RunSummary(requests: requests, checks: [], entries: outcomes.map(\.digest), timings: StageTimings()),
            to: out, shard: nil)
        return try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
    }

    /// The report without its `<details id="run">` section (timings differ from run to run).
    static func withoutRunDetails(_ html: String) -> String {
        guard let start = html.range(of: "<details id=\"run\">"),
            let end = html.range(of: "</details>", range: start.upperBound..<html.endIndex)
        else { return html }
        return String(html[..<start.lowerBound] + html[end.upperBound...])
    }

    @Test func mergingAnIncompleteSetOfShardsNamesTheMissingOnes() throws {
        let dir = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let requests = RequestSet([BarcodeRequest()])
        let sources = InputCollector.collect([Fixture.path("barcodes")])
        for k in [0, 2] {
            let shard = try #require(Shard("\(k)/3"))
            let slice = sources.filter { shard.contains($0.path) }
            let outcomes = try BatchRunner(
                sources: slice, requests: requests,
                output: OutputOptions(directory: dir, writePNG: false, writeSVG: false), jobs: 1
            ).run()
            var summary = RunSummary(
                requests: requests, checks: [], entries: outcomes.map(\.digest), timings: StageTimings())
            summary.shard = shard.description
            try RunReport.write(summary, to: dir, shard: shard)
        }
        let merged = try RunReport.merge(directories: [dir], into: dir)
        #expect(merged.missingShards == ["1/3"])
        let html = try String(contentsOf: dir.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("Incomplete: shard(s) 1/3"))
        // Through the command: the report is written and the exit status says it is incomplete.
        let result = try CommandLineTests().run(["report", dir.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("shard(s) 1/3 missing"))
    }

    @Test func theReportSearchesAllTheTextAndEveryPayload() throws {
        let dir = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let requests = RequestSet([BarcodeRequest(), TextRequest()])
        let sources = InputCollector.collect([Fixture.path("samples/printed-page.png")])
        let outcomes = try BatchRunner(
            sources: sources, requests: requests,
            output: OutputOptions(directory: dir, writePNG: false, writeSVG: false), jobs: 1
        ).run()
        let digest = try #require(outcomes.first?.digest)
        // The page's last line is beyond the five-line preview, but searchable.
        #expect(!digest.textPreview.joined().contains("page 1 of 1"))
        #expect(digest.searchText?.contains("page 1 of 1") == true)
        try RunReport.write(
            RunSummary(requests: requests, checks: [], entries: [digest], timings: StageTimings()), to: dir, shard: nil)
        let html = try String(contentsOf: dir.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("data-search=\"") && html.contains("page 1 of 1"))
    }

}
