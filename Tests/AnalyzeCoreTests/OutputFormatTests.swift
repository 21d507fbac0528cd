import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The formats people already consume: zbarimg/tesseract-style lines (`--print`), hOCR
/// (`--hocr`), Vision's normalized coordinates (`--normalized`); and a terminal that stays calm.
@Suite("Output formats")
struct OutputFormatTests {
    let command = CommandLineTests()

    @Test func printWritesBarcodesAndTextInInputOrder() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try command.run([
            Fixture.path("samples"), "--barcodes", "--text", "--print", "--jobs", "2", "-o", out.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let stdout = result.stdout
        // zbarimg's shape, one symbol per line; the gift card comes first (input order, whatever finished first).
        #expect(stdout.hasPrefix("qr:https://example.com/redeem?card=603491205578\ncode128:603491205578\n"))
        #expect(stdout.contains("\nean13:5901234123457\n") || stdout.contains("\u{0C}ean13:5901234123457\n"))
        // tesseract's page separator after each image's text: four images, four pages.
        #expect(stdout.filter { $0 == "\u{0C}" }.count == 4)
        let order = [
            "GIFT CARD", "Quarterly Maintenance Notice", "ORGANIC OAT DRINK", "https://example.com/r/2026-0042",
        ]
        let positions = order.compactMap { stdout.range(of: $0)?.lowerBound }
        #expect(positions.count == 4 && positions == positions.sorted())
    }

    @Test func printAndJSONLinesCannotShareStdout() throws {
        let result = try command.run([
            Fixture.path("samples"), "--print", "--jsonl", "-o", "/tmp/never-written-\(UUID().uuidString)",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--print and --jsonl"))
    }

    @Test func hocrIsWellFormedEscapedAndHasEveryWordWithItsBox() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try command.run([
            Fixture.path("samples/product-label.png"), Fixture.path("text/hostile-text.png"), "--text", "--hocr",
            "--no-png", "--no-svg", "-o", out.path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let label = try Data(contentsOf: out.appendingPathComponent("product-label.hocr"))
        let parser = XMLParser(data: label)
        #expect(parser.parse(), "not well-formed: \(String(describing: parser.parserError))")
        let text = String(decoding: label, as: UTF8.self)
        let analysis = try JSONDecoder().decode(
            ImageAnalysis.self, from: Data(contentsOf: out.appendingPathComponent("product-label.json")))
        let words = (analysis.text ?? []).flatMap(\.words)
        #expect(words.count > 10)
        #expect(text.components(separatedBy: "class=\"ocrx_word\"").count - 1 == words.count)
        #expect(text.contains("x_wconf") && text.contains(">ORGANIC</span>"))
        let hostile = try String(contentsOf: out.appendingPathComponent("hostile-text.hocr"), encoding: .utf8)
        #expect(XMLParser(data: Data(hostile.utf8)).parse())
        #expect(!hostile.contains("<script>") && !hostile.contains("<b>"))
        #expect(hostile.contains("&lt;script&gt;") || hostile.contains("&lt;b&gt;"))
    }

    @Test func normalizedCoordinatesAreVisionsAndMatchThePixels() throws {
        let pixels = try Fixture.temporaryDirectory(), normalized = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: pixels); try? FileManager.default.removeItem(at: normalized) }
        let input = Fixture.path("samples/product-label.png")
        #expect(try command.run([input, "--barcodes", "--rects", "-q", "-o", pixels.path]).status == 0)
        #expect(
            try command.run([input, "--barcodes", "--rects", "--normalized", "-q", "-o", normalized.path]).status == 0)
        func object(_ folder: URL) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: folder.appendingPathComponent("product-label.json"))) as? [String: Any])
        }
        let p = try object(pixels), n = try object(normalized)
        #expect(p["coordinates"] == nil)
        #expect(n["coordinates"] as? String == "normalized")
        let width = try #require(p["width"] as? Double), height = try #require(p["height"] as? Double)
        let pb = try #require(((p["barcodes"] as? [[String: Any]])?.first?["boundingBox"]) as? [String: Double])
        let nb = try #require(((n["barcodes"] as? [[String: Any]])?.first?["boundingBox"]) as? [String: Double])
        #expect(abs((nb["x"] ?? -1) - (pb["x"] ?? 0) / width) < 1e-5)
        #expect(abs((nb["width"] ?? -1) - (pb["width"] ?? 0) / width) < 1e-5)
        #expect(abs((nb["height"] ?? -1) - (pb["height"] ?? 0) / height) < 1e-5)
        // Origin bottom-left: a box's y is its bottom edge, measured up.
        #expect(abs((nb["y"] ?? -1) - (1 - ((pb["y"] ?? 0) + (pb["height"] ?? 0)) / height)) < 1e-5)
        let pc = try #require((p["rectangles"] as? [[String: Any]])?.first?["topLeft"] as? [String: Double])
        let nc = try #require((n["rectangles"] as? [[String: Any]])?.first?["topLeft"] as? [String: Double])
        #expect(abs((nc["y"] ?? -1) - (1 - (pc["y"] ?? 0) / height)) < 1e-5)
        // Everything else is the same: the same options otherwise, a different hash.
        #expect(p["optionsHash"] as? String != n["optionsHash"] as? String)
    }

    @Test func theProgressBarFitsANarrowTerminalAndLeavesTotals() throws {
        // A real terminal, 50 columns wide, through script(1).
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let inner =
            "stty cols 50; '\(CommandLineTests.binary.path)' '\(Fixture.path("barcodes"))' '\(Fixture.path("symbologies"))' --barcodes --no-png --no-svg -o '\(out.path)'"
        process.arguments = ["-q", "-e", "-c", inner, "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = readToEnd(pipe.fileHandleForReading)
        process.waitUntilExit()
        let screen = String(decoding: data, as: UTF8.self)
        let redraws = screen.components(separatedBy: "\r").filter { $0.contains("img/s") }
        #expect(redraws.count >= 2, "no progress bar drawn: \(screen.prefix(300))")
        for bar in redraws {
            let visible =
                bar.replacingOccurrences(of: "\u{1B}[K", with: "").split(separator: "\n").first.map(String.init) ?? ""
            #expect(visible.count <= 49, "\(visible)")
        }
        #expect(screen.contains("analyze: found "))
        #expect(screen.contains("barcodes"))
    }
}
