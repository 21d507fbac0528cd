import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

/// Loads index.html in headless Chromium (Debian `chromium`, installed by scripts/test) and
/// checks the DOM after the page's script ran.
@Suite("The report in a real browser")
struct BrowserReportTests {
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test func theReportShowsCardsAndHostilePayloadsAsTextAndRunsNoInjectedScript() throws {
        let browser = try #require(Self.chromium, "install Debian's chromium (scripts/test does)")
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let inputs = [Fixture.path("barcodes"), Fixture.path("text/hostile-text.png"), Fixture.path("bad/empty.jpg")]
        let requests = RequestSet([BarcodeRequest(), TextRequest()])
        let sources = InputCollector.collect(inputs)
        let outcomes = try BatchRunner(
            sources: sources, requests: requests, output: OutputOptions(directory: out), jobs: 2
        ).run()
        try RunReport.write(
            RunSummary(requests: requests, checks: [], entries: outcomes.map(\.digest), timings: StageTimings()),
            to: out, shard: nil)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--virtual-time-budget=3000",
            "--user-data-dir=\(out.path)/.chromium", "--dump-dom",
            out.appendingPathComponent("index.html").absoluteString,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let dom = String(decoding: readToEnd(pipe.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()

        // Our own script ran (it marks the body) and counted the cards.
        #expect(dom.contains("data-ready=\"yes\""))
        // A card per analysed image; the empty file is listed once, under "Failed", without a card.
        let analysed = sources.count - 1
        #expect(dom.contains("\(analysed) of \(analysed) shown"))
        #expect(dom.components(separatedBy: "<article class=\"card").count - 1 == analysed)
        #expect(dom.components(separatedBy: "the file is empty").count - 1 == 1)
        // The hostile payload is text in the DOM, not elements: no injected <img>, no second script.
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(!dom.contains("<img src=\"x\""))
        #expect(dom.components(separatedBy: "<script").count == 2)
        #expect(dom.contains("&lt;script&gt;x&lt;/script&gt;"))
        // The failed image is listed with its reason.
        #expect(dom.contains("the file is empty"))
    }

    /// Typing and clicking in a real browser, at a phone's width, including the detail view and its layers (Tests/Support/report-browser-check
    /// drives Chromium over the DevTools protocol with real key and mouse events).
    @Test func aPersonCanSearchFilterAndOpenTheRunDetailsAt400Pixels() throws {
        _ = try #require(Self.chromium, "install Debian's chromium (scripts/test does)")
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try CommandLineTests().run([
            Fixture.path("samples"), Fixture.path("barcodes"), Fixture.path("bad/empty.jpg"),
            "--barcodes", "--text", "-q", "-o", out.path,
        ])
        #expect(run.status == 1)  // the empty file
        // "page 1 of 1" is the printed page's last line: beyond the card's five-line preview.
        // The gift card's detail view: its photo under the SVG overlay, the barcodes layer alone, all again.
        let result = try runScript(
            "report-browser-check",
            [
                out.path, "--width", "400", "--search", "page 1 of 1", "--expect", "1",
                "--detail", "gift-card.jpg", "--layer", "barcodes",
            ])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.components(separatedBy: "PASS ").count - 1 == 15, "\(result.output)")
    }

}
