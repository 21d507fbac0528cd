import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

@Suite("Classification through EfficientNet-Lite0")
struct ClassificationRequestTests {
    func labels(_ analysis: ImageAnalysis) throws -> [String] {
        try #require(analysis.classification).map(\.identifier)
    }

    @Test func namesWhatThePhotographsShow() throws {
        #expect(
            try labels(OpenCVSample.analyze("squirrel_cls.jpg", RequestSet([ClassificationRequest()]))).contains(
                "fox squirrel"))
        #expect(
            try labels(OpenCVSample.analyze("fruits.jpg", RequestSet([ClassificationRequest()]))).contains {
                ["orange", "lemon", "Granny Smith", "banana"].contains($0)
            })
        #expect(try labels(OpenCVSample.analyze("baboon.jpg", RequestSet([ClassificationRequest()]))).first == "baboon")
        let cat = try labels(DebianPhoto.analyze("chelsea.png", RequestSet([ClassificationRequest()])))
        #expect(cat.contains { ObservationCheck.label($0, matches: "cat") || $0 == "tabby" })
        #expect(
            try labels(DebianPhoto.analyze("coffee.png", RequestSet([ClassificationRequest()]))).contains {
                ["espresso", "cup", "coffee mug"].contains($0)
            })
    }

    /// A photo 8x larger is classified from its halvings (the centre crop taken in the copy at least
    /// four times the network's input): the same best label, with about the same probability.
    @Test func aLargePhotoIsClassifiedFromItsHalvings() throws {
        let small = try #require(
            try OpenCVSample.analyze("squirrel_cls.jpg", RequestSet([ClassificationRequest()])).classification)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("squirrel_cls.jpg"))))
        let (pixels, _) = try OpenCVMat.decode(bytes)
        let large = UprightImage(
            pixels: try pixels.resized(width: pixels.width * 8, height: pixels.height * 8), orientation: .up)
        let engines = WorkerEngines()
        let source = try engines.network(.efficientNetLite0).source(in: large)
        #expect(source.width < large.width && min(source.width, source.height) >= 4 * 224)
        let ranked = try ClassificationRequest().perform(on: large, engines: engines).labels
        #expect(ranked.first?.identifier == small.first?.identifier)
        #expect(abs((ranked.first?.confidence ?? 0) - (small.first?.confidence ?? 0)) < 0.1)
    }

    @Test func reportsFiveRankedProbabilities() throws {
        let ranked = try #require(
            try OpenCVSample.analyze("squirrel_cls.jpg", RequestSet([ClassificationRequest(minimumConfidence: 0)]))
                .classification)
        #expect(ranked.count == 5)
        // By default, labels under 1% are left out (no `weasel 0%` on a card); the best always stays.
        let shown = try #require(
            try OpenCVSample.analyze("squirrel_cls.jpg", RequestSet([ClassificationRequest()])).classification)
        #expect(!shown.isEmpty && shown.allSatisfy { $0.confidence >= 0.01 } && shown.first == ranked.first)
        #expect(zip(ranked, ranked.dropFirst()).allSatisfy { $0.confidence >= $1.confidence })
        #expect(ranked.reduce(0) { $0 + $1.confidence } <= 1.001)
        #expect((ranked.first?.confidence ?? 0) > 0.5)
    }

    @Test func requireLabelCatPassesOnlyTheCat() throws {
        let check = try ObservationCheck(.require, argument: "label=cat")
        #expect(check.kind == .classification)
        #expect(
            check.failure(for: try DebianPhoto.analyze("chelsea.png", RequestSet([ClassificationRequest()]))) == nil)
        #expect(
            check.failure(for: try OpenCVSample.analyze("squirrel_cls.jpg", RequestSet([ClassificationRequest()])))
                != nil)
    }

    @Test func labelsAreDrawnAndEscapedInTheSVG() throws {
        let analysis = try DebianPhoto.analyze("chelsea.png", RequestSet([ClassificationRequest(), ObjectRequest()]))
        let svg = SVGRenderer.svg(for: analysis, imageHref: nil)
        #expect(svg.contains("<g id=\"classification\""))
        #expect(svg.contains("<g id=\"objects\""))
        #expect(svg.contains("tiger cat") || svg.contains("tabby") || svg.contains("Egyptian cat"))
        // Through the JSON and back, for --resume.
        let decoded = try JSONDecoder().decode(ImageAnalysis.self, from: Data(try JSONRenderer.encode(analysis)))
        #expect(decoded == analysis)
    }
}

@Suite("Labels in the run report")
struct LabelReportTests {
    @Test func theReportListsLabelsToFilterByAndLinksOnlyWrittenFiles() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let sources = [
            ImageSource(path: try OpenCVSample.path("squirrel_cls.jpg"), outputName: "squirrel"),
            ImageSource(path: try OpenCVSample.path("messi5.jpg"), outputName: "messi"),
        ]
        let requests = RequestSet([ObjectRequest(), ClassificationRequest()])
        let output = OutputOptions(directory: out, writePNG: false)
        let outcomes = try BatchRunner(sources: sources, requests: requests, output: output, jobs: 2).run()
        let summary = RunSummary(
            requests: requests, checks: [], outputs: output.layout, entries: outcomes.map(\.digest),
            timings: StageTimings())
        try RunReport.write(summary, to: out, shard: nil)
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("<option value=\"fox squirrel\">fox squirrel</option>"))
        #expect(html.contains("<option value=\"sports ball\">sports ball</option>"))
        #expect(html.contains("data-labels=\"soccer ball|") && html.contains("|sports ball|person"))
        // --no-png: no thumbnail and no link to a PNG that was never written.
        #expect(!html.contains("squirrel.png") && html.contains("squirrel.svg") && html.contains("squirrel.json"))
        #expect(summary.totals["objects"] ?? 0 >= 2 && (2...10).contains(summary.totals["classification"] ?? 0))
    }
}
