import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

/// A multi-page TIFF (a scanned document, a fax) is analysed page by page, as `tesseract` reads every
/// page: each page an input of its own, with its own outputs, line and report entry.
@Suite("Multi-page TIFF")
struct MultiPageTIFFTests {
    /// One page of a hand-built TIFF: 8-bit gray pixels, row by row, with its EXIF orientation tag
    /// (1: none) and whether it is a reduced-resolution copy of the page before (NewSubfileType 1).
    struct Page {
        let width: Int
        let height: Int
        let pixels: [UInt8]
        var orientation = 1
        var reduced = false
    }

    /// The fixture at `relative` as a gray page; `turned` stores it upside down (with orientation 3,
    /// a viewer shows it upright).
    static func page(_ relative: String, turned: Bool = false) throws -> Page {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(relative))))
        let gray = try OpenCVMat.decode(bytes).0.gray()
        let (width, height) = (gray.width, gray.height)
        var pixels = gray.withPixels { base, stride in
            (0..<height).flatMap { y in (0..<width).map { base[y * stride + $0] } }
        }
        if turned { pixels.reverse() }
        return Page(width: width, height: height, pixels: pixels, orientation: turned ? 3 : 1)
    }

    /// A little-endian classic TIFF holding `pages` in one directory chain, uncompressed, one strip each.
    static func tiff(_ pages: [Page]) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
            le(tag, 2) + le(type, 2) + le(1, 4) + (type == 3 ? le(value, 2) + [0, 0] : le(value, 4))
        }
        let entryCount = 11, directoryBytes = 2 + entryCount * 12 + 4
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le(8, 4)
        for (index, page) in pages.enumerated() {
            let pixelsAt = out.count + directoryBytes
            let next = index + 1 < pages.count ? pixelsAt + page.pixels.count : 0
            let entries = [
                entry(254, 4, page.reduced ? 1 : 0), entry(256, 3, page.width), entry(257, 3, page.height),
                entry(258, 3, 8),
                entry(259, 3, 1), entry(262, 3, 1), entry(273, 4, pixelsAt), entry(274, 3, page.orientation),
                entry(277, 3, 1),
                entry(278, 3, page.height), entry(279, 4, page.pixels.count),
            ]
            out += le(entryCount, 2) + entries.flatMap { $0 } + le(next, 4) + page.pixels
        }
        return out
    }

    /// A scanned document of three pages, with a thumbnail of the first between pages 1 and 2: a
    /// product label (EAN-13 and text), a QR code, a page of text stored upside down (orientation 3).
    static func document() throws -> [UInt8] {
        let label = try page("samples/product-label.png")
        let thumbnail = Page(width: 8, height: 5, pixels: Array(repeating: 200, count: 40), reduced: true)
        return tiff([label, thumbnail, try page("barcodes/qr-hello.png"), try page("text/page.png", turned: true)])
    }

    @Test func everyPageOfAScannedDocumentIsAnalysedWithItsOwnOutputs() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try Data(try Self.document()).write(to: inputs.appendingPathComponent("letter.tif"))
        let out = folder.appendingPathComponent("out")
        let cli = CommandLineTests()
        let run = try cli.run([inputs.path, "--barcodes", "--text", "--hocr", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("ok ") }
        #expect(lines.count == 3, "\(run.stderr)")
        #expect(
            lines.contains { $0.contains("letter.tif (page 2 of 3)") && $0.contains("Hello, analyze!") },
            "\(run.stderr)")
        #expect(!run.stderr.contains("only the first"))

        func json(_ name: String) throws -> [String: Any] {
            let data = try Data(contentsOf: out.appendingPathComponent(name + ".json"))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        func payloads(_ object: [String: Any]) -> [String] {
            (object["barcodes"] as? [[String: Any]] ?? []).compactMap { $0["payload"] as? String }
        }
        let first = try json("letter.page-1"), second = try json("letter.page-2"), third = try json("letter.page-3")
        #expect(first["page"] as? Int == 1 && first["pages"] as? Int == 3)
        #expect(first["width"] as? Int == 640 && first["height"] as? Int == 400)
        #expect(payloads(first) == ["5901234123457"])
        #expect((first["fullText"] as? String ?? "").contains("ORGANIC OAT DRINK"))
        #expect(second["page"] as? Int == 2 && payloads(second) == ["Hello, analyze!"])
        #expect((second["fullText"] as? String ?? "").isEmpty)
        // The third page is read upright: its own orientation tag applied.
        #expect(third["page"] as? Int == 3 && third["orientation"] as? Int == 3 && payloads(third).isEmpty)
        #expect(third["width"] as? Int == 1000 && third["height"] as? Int == 220)
        #expect((third["fullText"] as? String ?? "").contains("quick brown fox"), "\(third["fullText"] ?? "")")
        for n in 1...3 {
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("letter.page-\(n).png").path))
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("letter.json").path))
        // hOCR numbers the page as tesseract numbers the pages of such a file.
        let hocr = try String(contentsOf: out.appendingPathComponent("letter.page-3.hocr"), encoding: .utf8)
        #expect(hocr.contains("id=\"page_3\"") && hocr.contains("ppageno 2") && hocr.contains("id=\"word_3_1_1\""))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("letter.page-4.json").path))

        // The summary lists the pages in order; the report names each.
        let summary = try JSONDecoder().decode(
            RunSummary.self, from: Data(contentsOf: out.appendingPathComponent("summary.json")))
        #expect(
            summary.entries.map(\.page) == [1, 2, 3]
                && summary.entries.map(\.outputName) == ["letter.page-1", "letter.page-2", "letter.page-3"])
        let report = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(report.contains("letter.tif (page 3 of 3)"))

        let schema = try runScript("validate-json", [out.path])
        #expect(schema.status == 0 && schema.output.contains("all valid"), "\(schema.output)")

        // Each page is resumed on its own; the same JSON whatever the jobs.
        let again = try cli.run([inputs.path, "--barcodes", "--text", "--hocr", "-o", out.path, "--resume"])
        #expect(
            again.status == 0
                && again.stderr.split(separator: "\n").filter { $0.hasSuffix("up to date (resumed)") }.count == 3,
            "\(again.stderr)")
        let oneJob = folder.appendingPathComponent("one")
        #expect(
            try cli.run([
                inputs.appendingPathComponent("letter.tif").path, "--barcodes", "--text", "--hocr", "--jobs", "1", "-o",
                oneJob.path,
            ]).status == 0)
        for n in 1...3 {
            let name = "letter.page-\(n).json"
            #expect(
                try Data(contentsOf: out.appendingPathComponent(name))
                    == Data(contentsOf: oneJob.appendingPathComponent(name)))
        }
    }

    /// A scanner writes its one directory after the pixels: past the 64 KiB libexif reads. The
    /// orientation is read from the directory wherever it lies (it was ignored).
    @Test func aTIFFsOrientationIsReadWhereverItsDirectoryLies() throws {
        let upright = try Self.page("text/page.png", turned: true)
        var file = Self.tiff([upright])
        // Move the directory (14 + 11 × 12 bytes after the 8-byte header) behind the pixels.
        let directory = Array(file[8..<8 + 138]), pixels = Array(file[146...])
        file = Array(file[0..<4]) + [0, 0, 0, 0] + pixels
        let at = file.count
        file.replaceSubrange(4..<8, with: (0..<4).map { UInt8(truncatingIfNeeded: at >> (8 * $0)) })
        // The strip offset (tag 273, the 7th entry) now points right after the header.
        var moved = directory
        moved.replaceSubrange(2 + 6 * 12 + 8..<2 + 6 * 12 + 12, with: [8, 0, 0, 0])
        file += moved
        #expect(at > 65_536)
        #expect(ExifOrientationReader.orientationTag(in: file) == .valid(.down))
        let image = try UprightImage(decoding: file, orientation: .down, maximumPixels: 10_000_000)
        #expect(image.width == 1000 && image.height == 220)
        let analysis = try ImageRequestHandler(source: ImageSource(path: "scan.tif", outputName: "scan"))
            .perform(RequestSet([TextRequest()]), engines: WorkerEngines(), bytes: file).analysis
        #expect(analysis.orientation == 3)
        #expect((analysis.result(.text, as: RecognizedPage.self)?.fullText ?? "").contains("quick brown fox"))
    }

    @Test func pagesAreNamedInPageOrderAndNeverTakeAnotherInputsName() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = Page(width: 8, height: 4, pixels: Array(repeating: 90, count: 32))
        try Data(Self.tiff(Array(repeating: page, count: 12))).write(to: folder.appendingPathComponent("fax.tiff"))
        try Data(Self.tiff([page, page])).write(to: folder.appendingPathComponent("scan.tif"))
        // A real file named like a page of scan.tif, and a single-page TIFF.
        try Data(Self.tiff([page])).write(to: folder.appendingPathComponent("scan.page-2.tif"))
        try Data(Self.tiff([page, Page(width: 4, height: 2, pixels: Array(repeating: 0, count: 8), reduced: true)]))
            .write(to: folder.appendingPathComponent("single.tif"))
        let sources = InputCollector.collect([folder.path])
        let names = sources.map(\.outputName)
        #expect(names.filter { $0.hasPrefix("fax.page-") } == (1...12).map { String(format: "fax.page-%02d", $0) })
        #expect(sources.filter { $0.path.hasSuffix("fax.tiff") }.map { $0.page?.number } == Array(1...12))
        #expect(names.contains("scan.page-1") && names.contains("scan.page-2") && names.contains("single"))
        #expect(names.contains { $0.hasPrefix("scan.page-2-") && $0.count == "scan.page-2-".count + 8 }, "\(names)")
        #expect(Set(names.map { $0.lowercased() }).count == names.count)
        #expect(sources.first { $0.outputName == "single" }?.page == nil)

        // --pages 2,10-: those pages of each multi-page file, under the same names; other inputs whole.
        let selected = InputCollector.collect([folder.path], pages: try #require(PageSelection("2,10-")))
        #expect(
            selected.filter { $0.path.hasSuffix("fax.tiff") }.map(\.outputName) == [
                "fax.page-02", "fax.page-10", "fax.page-11", "fax.page-12",
            ])
        #expect(selected.filter { $0.path.hasSuffix("/scan.tif") }.map(\.outputName) == ["scan.page-2"])
        #expect(
            selected.contains { $0.outputName == "single" }
                && selected.contains { $0.path.hasSuffix("scan.page-2.tif") })
    }

    /// A shard is chosen by file: all the pages of a file in one shard, every page in exactly one, an
    /// empty shard a run like any other; --pages that selects nothing is a usage error.
    @Test func shardsSplitAFolderByFileAndCountOnlyTheirOwnPages() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let page = Page(width: 8, height: 4, pixels: Array(repeating: 90, count: 32))
        try Data(Self.tiff(Array(repeating: page, count: 5))).write(to: inputs.appendingPathComponent("fax.tiff"))
        try Data(Self.tiff([page, page])).write(to: inputs.appendingPathComponent("scan.tif"))
        try Data(Self.tiff([page])).write(to: inputs.appendingPathComponent("single.tif"))
        var seen: [String: Int] = [:], shardOf: [String: Set<Int>] = [:]
        for k in 0..<4 {
            let out = folder.appendingPathComponent("out-\(k)")
            let run = try CommandLineTests().run([
                inputs.path, "--rects", "--shard", "\(k)/4", "--no-png", "--no-svg", "-o", out.path,
            ])
            #expect(run.status == 0, "\(run.stderr)")
            for name in try FileManager.default.contentsOfDirectory(atPath: out.path)
            where name.hasSuffix(".json") && !name.hasPrefix("summary") {
                seen[name, default: 0] += 1
                shardOf[String(name.prefix { $0 != "." }), default: []].insert(k)
            }
        }
        let expected = (1...5).map { "fax.page-\($0).json" } + ["scan.page-1.json", "scan.page-2.json", "single.json"]
        #expect(seen == Dictionary(uniqueKeysWithValues: expected.map { ($0, 1) }), "\(seen)")
        #expect(shardOf.values.allSatisfy { $0.count == 1 }, "\(shardOf)")
        let none = try CommandLineTests().run([
            inputs.appendingPathComponent("fax.tiff").path, "--rects", "--pages", "7-",
            "-o", folder.appendingPathComponent("out-none").path,
        ])
        #expect(none.status == 2 && none.stderr.contains("no pages selected by --pages"), "\(none.stderr)")
    }

    @Test func pageListsAreReadAsRangesFromOne() {
        #expect(PageSelection("1")?.ranges == [1...1])
        #expect(PageSelection("1-3, 7,10-")?.ranges == [1...3, 7...7, 10...Int.max])
        #expect(PageSelection("10-")?.contains(1_000_000) == true && PageSelection("10-")?.contains(9) == false)
        for bad in ["", "0", "3-1", "a", "1,,2", "-3", "1-2-3", "2-x"] { #expect(PageSelection(bad) == nil, "\(bad)") }
        #expect(PageSelection("1-3,7,10-")?.description == "1-3,7,10-")
    }

    @Test func aPageIsDecodedAsTheFirstPageOfItsFileWouldBe() throws {
        let pages = [
            Page(width: 6, height: 3, pixels: Array(0..<18)),
            Page(width: 4, height: 4, pixels: Array(repeating: 7, count: 16), reduced: true),
            Page(width: 5, height: 2, pixels: Array(100..<110)),
        ]
        let file = Self.tiff(pages)
        var warnings: [String] = []
        let second = try ImageRequestHandler.page(ImageSource.Page(number: 2, count: 2), of: file, warnings: &warnings)
        #expect(warnings.isEmpty && second.count == file.count)
        let image = try UprightImage(decoding: second, orientation: .up, maximumPixels: 1_000)
        #expect(image.width == 5 && image.height == 2)
        #expect(
            image.pixels.withPixels { base, stride in (0..<2).flatMap { y in (0..<5).map { base[y * stride + $0] } } }
                == Array(100..<110))
        // The file read whole (not expanded into pages): its first page, said in its warnings.
        #expect(try ImageRequestHandler.page(nil, of: file, warnings: &warnings) == file)
        #expect(warnings == ["TIFF: only the first of its 2 pages is analysed"])
        // A file that lost pages since it was listed: a clear error for that page.
        #expect(throws: AnalysisError.self) {
            var ignored: [String] = []
            _ = try ImageRequestHandler.page(ImageSource.Page(number: 3, count: 3), of: file, warnings: &ignored)
        }
    }

    /// The pages of one file share its fingerprint (hashed once); a file changed between two pages is hashed again.
    @Test func thePagesOfAFileShareItsFingerprintUntilItChanges() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("scan.tif").path
        let page = Page(width: 4, height: 2, pixels: Array(repeating: 9, count: 8))
        let first = Self.tiff([page, page])
        try Data(first).write(to: URL(fileURLWithPath: path))
        let cache = PageFingerprints()
        let identity = RegularFile.identity(path)
        #expect(identity != nil)
        #expect(cache.fingerprint(of: first, path: path, identityBefore: identity) == InputFingerprint(of: first))
        // Served from the cache: the same file, unchanged (the bytes given are not hashed again).
        #expect(
            cache.fingerprint(of: first.reversed(), path: path, identityBefore: RegularFile.identity(path))
                == InputFingerprint(of: first))
        var second = first
        second[second.count - 1] ^= 0xFF
        // Replaced as editors and scanners save (a new file renamed over it: a new inode, whatever the clock's grain).
        try Data(second).write(to: URL(fileURLWithPath: path), options: .atomic)
        let changed = RegularFile.identity(path)
        #expect(changed != identity)
        #expect(cache.fingerprint(of: second, path: path, identityBefore: changed) == InputFingerprint(of: second))
        // A file that changed while it was read: not taken from the cache nor stored.
        #expect(cache.fingerprint(of: first, path: path, identityBefore: identity) == InputFingerprint(of: first))
    }

    @Test func aFileOfThousandsOfPagesGivesAtMostTheLimit() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = Page(width: 2, height: 2, pixels: [1, 2, 3, 4])
        let count = InputCollector.maximumPages + 5
        let file = Self.tiff(Array(repeating: page, count: count))
        try Data(file).write(to: folder.appendingPathComponent("many.tif"))
        let sources = InputCollector.collect([folder.path])
        #expect(sources.count == InputCollector.maximumPages)
        #expect(
            sources.first?.outputName == "many.page-0001"
                && sources.last?.page == ImageSource.Page(number: InputCollector.maximumPages, count: count))
        // Its first page says so; the others do not.
        let first = try ImageRequestHandler(source: sources[0]).perform(
            RequestSet([RectangleRequest()]), engines: WorkerEngines(), bytes: file)
        #expect(
            first.analysis.warnings == [
                "only the first \(InputCollector.maximumPages) of its \(count) pages are analysed"
            ])
        let second = try ImageRequestHandler(source: sources[1]).perform(
            RequestSet([RectangleRequest()]), engines: WorkerEngines(), bytes: file)
        #expect(second.analysis.warnings.isEmpty && second.analysis.page?.number == 2)
    }
}
