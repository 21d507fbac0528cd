import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// A PDF (a scanned document) is rendered page by page by poppler's pdftoppm, in a process of its own,
/// and each page is analysed as an image of its own.
@Suite("PDF documents")
struct PDFDocumentTests {
    /// One page: an image drawn over the whole page, `width` × `height` points, turned by `rotate`.
    struct Page {
        /// The image's dictionary entries after `/Width … /Height …` and its stream.
        let entries: String
        let stream: [UInt8]
        let pixelWidth: Int
        let pixelHeight: Int
        var width: Double
        var height: Double
        var rotate = 0
        /// Text drawn over the page in Helvetica (content operators such as `BT /F1 24 Tf 72 700 Td (Total) Tj ET`).
        var text = ""
        /// Whether the image is drawn (a typeset page draws none).
        var drawsImage = true
        /// Where the image is drawn, in points from the page's bottom left (nil: over the whole page).
        var imageRect: (x: Double, y: Double, width: Double, height: Double)? = nil
    }

    /// A typeset page of `width` × `height` points: only `text`, no image.
    static func textPage(_ text: String, width: Double = 612, height: Double = 792, rotate: Int = 0) -> Page {
        Page(
            entries: "/ColorSpace /DeviceGray /BitsPerComponent 8", stream: [255], pixelWidth: 1, pixelHeight: 1,
            width: width, height: height,
            rotate: rotate, text: text, drawsImage: false)
    }

    /// A JPEG fixture as a DCT-encoded page, one point per pixel.
    static func jpegPage(_ relative: String, width: Int, height: Int) throws -> Page {
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(relative))))
        return Page(
            entries: "/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", stream: jpeg, pixelWidth: width,
            pixelHeight: height, width: Double(width), height: Double(height))
    }

    /// A fixture's pixels as an uncompressed RGB page, one point per pixel.
    static func rawPage(_ relative: String) throws -> Page {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path(relative))))
        let bgr = try OpenCVMat.decode(bytes).0.bgr()
        let (w, h) = (bgr.width, bgr.height)
        let rgb = bgr.withPixels { (base: UnsafePointer<UInt8>, stride: Int) -> [UInt8] in
            var out: [UInt8] = []
            out.reserveCapacity(w * h * 3)
            for y in 0..<h {
                for x in 0..<w {
                    let at = y * stride + 3 * x
                    out += [base[at + 2], base[at + 1], base[at]]
                }
            }
            return out
        }
        return Page(
            entries: "/ColorSpace /DeviceRGB /BitsPerComponent 8", stream: rgb, pixelWidth: w, pixelHeight: h,
            width: Double(w), height: Double(h))
    }

    /// A PDF 1.4 file of `pages`, with its cross-reference table.
    static func pdf(_ pages: [Page]) -> [UInt8] {
        // 1: catalog, 2: page tree, 3: font
        var objects: [[UInt8]] = [[], [], Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".utf8)]
        var kids: [Int] = []
        for page in pages {
            objects.append(
                Array(
                    "<< /Type /XObject /Subtype /Image /Width \(page.pixelWidth) /Height \(page.pixelHeight) \(page.entries) /Length \(page.stream.count) >>\nstream\n"
                        .utf8)
                    + page.stream + Array("\nendstream".utf8))
            let image = objects.count
            let rect = page.imageRect ?? (0, 0, page.width, page.height)
            let content =
                (page.drawsImage ? "q \(rect.width) 0 0 \(rect.height) \(rect.x) \(rect.y) cm /Im0 Do Q " : "")
                + page.text
            objects.append(Array("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream".utf8))
            let contents = objects.count
            objects.append(
                Array(
                    ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(page.width) \(page.height)] /Rotate \(page.rotate) "
                        + "/Resources << /XObject << /Im0 \(image) 0 R >> /Font << /F1 3 0 R >> >> /Contents \(contents) 0 R >>")
                        .utf8))
            kids.append(objects.count)
        }
        objects[0] = Array("<< /Type /Catalog /Pages 2 0 R >>".utf8)
        objects[1] = Array(
            "<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>".utf8)
        var out = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n".utf8) + object + Array("\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets {
            out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8)
        }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }

    /// A form-XObject bomb: `depth` nested forms, each drawing the one below `fan` times (10^7 fills
    /// for depth 7: over a minute of pdftoppm), in a 3.5 KB file.
    static func xObjectBomb(depth: Int, fan: Int) -> [UInt8] {
        var objects: [String] = [
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /X \(5 + depth) 0 R >> >> /Contents 4 0 R >>",
            "<< /Length 5 >>\nstream\n/X Do\nendstream",
            "<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Length 14 >>\nstream\n0 0 10 10 re f\nendstream",
        ]
        for level in 1...depth {
            let body = (0..<fan).map { "q 1 0 0 1 \($0) \($0) cm /Y Do Q" }.joined(separator: " ")
            objects.append(
                "<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources << /XObject << /Y \(4 + level) 0 R >> >> /Length \(body.utf8.count) >>\nstream\n\(body)\nendstream"
            )
        }
        var out = Array("%PDF-1.4\n".utf8), offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets {
            out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8)
        }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }

    /// A page that would render for minutes fails alone at --pdf-page-timeout; the batch goes on.
    @Test func aPageThatRendersForeverIsCutShortByThePageTimeout() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bomb = folder.appendingPathComponent("bomb.pdf")
        try Data(Self.xObjectBomb(depth: 7, fan: 10)).write(to: bomb)
        let started = Date()
        let run = try CommandLineTests().run([
            bomb.path, Fixture.path("barcodes/qr-hello.png"), "--barcodes", "--pdf-page-timeout", "2",
            "-o", folder.appendingPathComponent("out").path,
        ])
        #expect(
            run.status == 1 && run.stderr.contains("bomb.pdf: PDF: pdftoppm did not finish within 2 s"), "\(run.stderr)"
        )
        #expect(run.stderr.contains("ok   ") && run.stderr.contains("qr-hello.png"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 40, "the page was not cut short")
        let invalid = try CommandLineTests().run([bomb.path, "--pdf-page-timeout", "0"])
        #expect(
            invalid.status == 2 && invalid.stderr.contains("--pdf-page-timeout must be between 1 and 3600"),
            "\(invalid.stderr)")
    }

    @Test func everyPageOfAPDFIsRenderedUprightAndAnalysed() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        var label = try Self.rawPage("samples/product-label.png")
        label.rotate = 90
        let document = Self.pdf([
            try Self.jpegPage("samples/gift-card.jpg", width: 900, height: 560), label,
            try Self.rawPage("barcodes/qr-hello.png"),
        ])
        try Data(document).write(to: inputs.appendingPathComponent("statement.pdf"))
        // A PDF cut in half and a text file named .pdf beside it: each fails alone.
        try Data(document.prefix(document.count / 2)).write(to: inputs.appendingPathComponent("cut.pdf"))
        try Data("not a PDF".utf8).write(to: inputs.appendingPathComponent("notes.pdf"))
        try Data(Self.pdf([])).write(to: inputs.appendingPathComponent("empty.pdf"))
        let out = folder.appendingPathComponent("out")
        // At 72 dpi a point is a pixel: each page comes back at its image's own size.
        let run = try CommandLineTests().run([inputs.path, "--barcodes", "--pdf-dpi", "72", "-o", out.path])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("FAIL \(inputs.path)/notes.pdf: "), "\(run.stderr)")
        #expect(run.stderr.contains("FAIL \(inputs.path)/cut.pdf: PDF: "), "\(run.stderr)")
        #expect(run.stderr.contains("FAIL \(inputs.path)/empty.pdf: PDF: poppler found no page in it"), "\(run.stderr)")
        #expect(run.stderr.contains("statement.pdf (page 2 of 3)"), "\(run.stderr)")

        func json(_ name: String) throws -> [String: Any] {
            let data = try Data(contentsOf: out.appendingPathComponent(name + ".json"))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        func payloads(_ object: [String: Any]) -> Set<String> {
            Set((object["barcodes"] as? [[String: Any]] ?? []).compactMap { $0["payload"] as? String })
        }
        let card = try json("statement.page-1"), turned = try json("statement.page-2"),
            qr = try json("statement.page-3")
        #expect(
            card["width"] as? Int == 900 && card["height"] as? Int == 560 && card["page"] as? Int == 1
                && card["pages"] as? Int == 3)
        #expect(payloads(card) == ["https://example.com/redeem?card=603491205578", "603491205578"])
        // /Rotate 90: the label is drawn turned a quarter clockwise, as a viewer shows it.
        #expect(turned["width"] as? Int == 400 && turned["height"] as? Int == 640 && turned["orientation"] as? Int == 1)
        #expect(payloads(turned) == ["5901234123457"])
        #expect(qr["width"] as? Int == 264 && payloads(qr) == ["Hello, analyze!"])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("statement.page-2.png").path))
        let schema = try runScript("validate-json", [out.path])
        #expect(schema.status == 0 && schema.output.contains("all valid"), "\(schema.output)")
    }

    @Test func aPageIsRenderedAtThreeHundredDPIUnlessToldAndNeverOverTheLimit() throws {
        let document = Self.pdf([try Self.rawPage("barcodes/qr-hello.png")])
        #expect(PDFRenderer.isPDF(document) && !PDFRenderer.isPDF(Array("%PDF".utf8)))
        // Junk before the header is allowed, as readers allow it; an image quoting "%PDF-" in its metadata stays an image.
        #expect(PDFRenderer.isPDF(Array("junk\r\n".utf8) + document))
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        #expect(
            !PDFRenderer.isPDF(
                Array(jpeg.prefix(2)) + [0xFF, 0xFE, 0, 12] + Array("%PDF-1.7 ".utf8) + Array(jpeg.dropFirst(2))))
        let info = try PDFRenderer.info(.bytes(document), page: 1)
        #expect(info == PDFRenderer.Info(pages: 1, size: PDFRenderer.PageSize(width: 264, height: 264)))
        let (pixels, warnings) = try PDFRenderer.render(
            .bytes(document), page: 1, resolution: PDFRenderer.defaultResolution, maximumPixels: 10_000_000)
        #expect(pixels.width == 1100 && pixels.height == 1100 && warnings.isEmpty)
        #expect {
            _ = try PDFRenderer.render(.bytes(document), page: 1, resolution: 300, maximumPixels: 1_000_000)
        } throws: { error in
            guard let error = error as? AnalysisError else { return false }
            return error.code == .tooLarge && error.message.contains("at 300 dpi 1100x1100")
        }
        // A page the file does not have: a clear error.
        #expect(throws: AnalysisError.self) {
            _ = try PDFRenderer.render(.bytes(document), page: 2, resolution: 72, maximumPixels: 1_000_000)
        }
        // A single-page PDF keeps its plain name.
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(document).write(to: folder.appendingPathComponent("receipt.pdf"))
        let sources = InputCollector.collect([folder.path])
        #expect(sources.map(\.outputName) == ["receipt"] && sources.first?.page == nil)
        // poppler handed the file (read where it needs, /proc/self/fd/0) draws the same pixels as from the bytes.
        let path = folder.appendingPathComponent("receipt.pdf").path
        let fromFile = try PDFRenderer.render(.file(path), page: 1, resolution: 150, maximumPixels: 10_000_000).0
        let fromBytes = try PDFRenderer.render(.bytes(document), page: 1, resolution: 150, maximumPixels: 10_000_000).0
        func rows(_ mat: OpenCVMat) -> [UInt8] {
            mat.withPixels { base, stride in
                (0..<mat.height).flatMap { y in
                    Array(UnsafeBufferPointer(start: base + y * stride, count: mat.width * 3))
                }
            }
        }
        #expect(fromFile.width == 550 && rows(fromFile) == rows(fromBytes))
        // The page's size, read with the page count while the inputs are listed, spares a pdfinfo at render time.
        let listed = PDFRenderer.pages(path: path, maximumPages: 1000)
        #expect(listed.count == 1 && sources.first?.pdfPageSize == listed.pdfSizes[1] && listed.pdfSizes[1] != nil)
        let fromListedSize = try PDFRenderer.render(
            .file(path), page: 1, size: listed.pdfSizes[1], resolution: 150, maximumPixels: 10_000_000
        ).0
        #expect(rows(fromListedSize) == rows(fromFile))
    }

    /// A typeset page's text is its own text layer (exact words, no OCR); a scanned page, even with a
    /// stamped line of text over it, is read by OCR; `--pdf-text` chooses otherwise.
    @Test func aTypesetPageGivesItsOwnTextAndAScanIsRead() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = "BT /F1 24 Tf 72 700 Td (Invoice 2026-11 <A&B>) Tj 0 -40 Td (Total: 42.50 EUR) Tj ET"
        var scan = try Self.rawPage("text/page.png")
        scan.text = "BT /F1 8 Tf 5 5 Td (Stamp 7) Tj ET"
        let document = Self.pdf([Self.textPage(lines), Self.textPage(lines, rotate: 90), scan])
        let input = folder.appendingPathComponent("mixed.pdf")
        try Data(document).write(to: input)

        func analyse(_ options: [String]) throws -> [[String: Any]] {
            let out = folder.appendingPathComponent("out-\(options.joined())")
            let run = try CommandLineTests().run([input.path, "--text", "--pdf-dpi", "144", "-o", out.path] + options)
            #expect(run.status == 0, "\(run.stderr)")
            if options.isEmpty {
                #expect(
                    run.stderr.contains(
                        "mixed.pdf (page 1 of 3): 1224x1584, 2 text line(s), 6 word(s) from the PDF's text layer"),
                    "\(run.stderr)")
            }
            let schema = try runScript("validate-json", [out.path])
            #expect(schema.status == 0 && schema.output.contains("all valid"), "\(schema.output)")
            return try (1...3).map { page in
                let data = try Data(contentsOf: out.appendingPathComponent("mixed.page-\(page).json"))
                return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
        }
        func lineStrings(_ page: [String: Any]) -> [String] {
            (page["text"] as? [[String: Any]] ?? []).compactMap { $0["string"] as? String }
        }
        func firstWordBox(_ page: [String: Any]) throws -> [Double] {
            let line = try #require((page["text"] as? [[String: Any]])?.first)
            let word = try #require((line["words"] as? [[String: Any]])?.first)
            #expect(word["string"] as? String == "Invoice" && word["confidence"] as? Double == 1)
            let box = try #require(word["boundingBox"] as? [String: Double])
            return [box["x"], box["y"], box["width"], box["height"]].compactMap { $0 }
        }
        func near(_ a: [Double], _ b: [Double]) -> Bool {
            a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 1.5 }
        }

        let auto = try analyse([])
        #expect(auto[0]["textSource"] as? String == "pdfTextLayer")
        #expect(lineStrings(auto[0]) == ["Invoice 2026-11 <A&B>", "Total: 42.50 EUR"])
        #expect(auto[0]["fullText"] as? String == "Invoice 2026-11 <A&B>\n\nTotal: 42.50 EUR")
        // 24-pt Helvetica at 144 dpi: "Invoice" from 72 pt in and 75 pt down, 76 pt wide and 22 pt high, in pixels.
        #expect(auto[0]["width"] as? Int == 1224 && auto[0]["height"] as? Int == 1584)
        let box = try firstWordBox(auto[0])
        #expect(near(box, [144, 149.5, 152.1, 44.4]), "\(box)")
        // /Rotate 90: the page is drawn turned a quarter clockwise, and so are the words' boxes.
        #expect(
            auto[1]["width"] as? Int == 1584 && auto[1]["height"] as? Int == 1224
                && auto[1]["textSource"] as? String == "pdfTextLayer")
        let turnedBox = try firstWordBox(auto[1])
        #expect(near(turnedBox, [1390.1, 144, 44.4, 152.1]), "\(turnedBox)")
        // The scan is read from its pixels: its lines, not only the stamp its layer holds.
        #expect(auto[2]["textSource"] == nil)
        #expect(
            (auto[2]["fullText"] as? String ?? "").contains("Pack my box with five dozen liquor jugs."),
            "\(String(describing: auto[2]["fullText"]))")

        let ocr = try analyse(["--pdf-text", "ocr"])
        #expect(
            ocr[0]["textSource"] == nil && (ocr[0]["fullText"] as? String ?? "").contains("Total: 42.50 EUR"),
            "\(String(describing: ocr[0]["fullText"]))")
        #expect(ocr[0]["optionsHash"] as? String != auto[0]["optionsHash"] as? String)

        let layer = try analyse(["--pdf-text", "layer"])
        #expect(layer[2]["textSource"] as? String == "pdfTextLayer" && layer[2]["fullText"] as? String == "Stamp 7")
        #expect(lineStrings(layer[0]) == lineStrings(auto[0]))

        // Character boxes are only OCR's: with --characters, auto reads the pixels.
        let characters = try analyse(["--characters"])
        #expect(characters[0]["textSource"] == nil)
    }

    /// A typeset page with a figure (an image over a tenth of the page, under half): the layer's lines
    /// exactly, then what Tesseract reads in the figure, and nothing of the layer's words read twice.
    @Test func aPageWithAFigureGivesItsLayerAndTheFiguresText() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var page = try Self.rawPage("text/page.png")  // 1000x220 px: two pangrams and an invoice line
        (page.width, page.height) = (612, 792)
        page.imageRect = (56, 300, 500, 110)  // 11% of the page, drawn at 2 px a point at 144 dpi
        page.text =
            "BT /F1 24 Tf 72 700 Td (Invoice 2026-11 <A&B>) Tj 0 -40 Td (Total: 42.50 EUR) Tj ET "
            + "BT /F1 12 Tf 72 200 Td (Figure 1: the page as scanned.) Tj ET"
        let input = folder.appendingPathComponent("figure.pdf")
        try Data(Self.pdf([page])).write(to: input)
        func analyse(_ options: [String]) throws -> (json: [String: Any], stderr: String) {
            let out = folder.appendingPathComponent("out-\(options.joined())")
            let run = try CommandLineTests().run([input.path, "--text", "--pdf-dpi", "144", "-o", out.path] + options)
            #expect(run.status == 0, "\(run.stderr)")
            let data = try Data(contentsOf: out.appendingPathComponent("figure.json"))
            return (try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]), run.stderr)
        }
        let (auto, stderr) = try analyse([])
        #expect(stderr.contains("from the PDF's text layer and OCR of its images"), "\(stderr)")
        #expect(auto["textSource"] as? String == "pdfTextLayerAndOCR")
        let lines = (auto["text"] as? [[String: Any]] ?? []).compactMap { $0["string"] as? String }
        let layerLines = ["Invoice 2026-11 <A&B>", "Total: 42.50 EUR", "Figure 1: the page as scanned."]
        #expect(Array(lines.prefix(3)) == layerLines, "\(lines)")
        let read = lines.dropFirst(3)
        #expect(read.contains("Pack my box with five dozen liquor jugs."), "\(lines)")
        #expect(read.contains { $0.contains("Invoice 2026-0042") }, "\(lines)")  // the figure's own invoice line
        #expect(
            !read.contains {
                $0.contains("2026-11") || $0.contains("42.50") || $0.contains("Figure") || $0.contains("scanned")
            }, "\(lines)")
        let fullText = auto["fullText"] as? String ?? ""
        #expect(
            fullText.hasPrefix("Invoice 2026-11 <A&B>")
                && fullText.contains("Pack my box with five dozen liquor jugs."), "\(fullText)")

        let (layer, _) = try analyse(["--pdf-text", "layer"])
        #expect(layer["textSource"] as? String == "pdfTextLayer")
        #expect((layer["text"] as? [[String: Any]] ?? []).compactMap { $0["string"] as? String } == layerLines)
        let schema = try runScript("validate-json", [folder.appendingPathComponent("out-").path])
        #expect(schema.status == 0 && schema.output.contains("all valid"), "\(schema.output)")
    }

    /// The layer's words are blanked on a copy of the page (so that Tesseract reads only the rest),
    /// a few pixels beyond their boxes, cut at the edges; the page itself and the rest stay as they were.
    @Test func theLayersWordsAreBlankedOnACopy() throws {
        let page = try OpenCVMat.blank(width: 200, height: 100, color: (0, 0, 0))
        let image = UprightImage(pixels: page, orientation: .up)
        let boxes = [
            BoundingBox(x: 10.4, y: 20.6, width: 30, height: 10), BoundingBox(x: 190, y: 95, width: 40, height: 40),
        ]
        let blanked = try TextRequest.blanking(boxes, in: image)
        let margin = TextRequest.blankingMargin
        func value(_ mat: OpenCVMat, _ x: Int, _ y: Int) -> UInt8 { mat.withPixels { $0[y * $1 + x * mat.channels] } }
        #expect(blanked.channels == 1 && blanked.width == 200 && blanked.height == 100)
        for (x, y) in [
            (10, 20), (10 - margin, 20 - margin), (41 + margin - 1, 31 + margin - 1), (199, 99),
            (190 - margin, 95 - margin),
        ] {
            #expect(value(blanked, x, y) == 255, "(\(x), \(y)) blanked")
        }
        for (x, y) in [(10 - margin - 1, 25), (41 + margin, 25), (25, 31 + margin), (100, 50), (189 - margin, 99)] {
            #expect(value(blanked, x, y) == 0, "(\(x), \(y)) kept")
        }
        #expect(value(page, 20, 25) == 0, "the page's own pixels are untouched")
    }

    /// pdftotext's XHTML is untrusted: escapes undone, boxes kept to the page, a layer of code points
    /// that mean nothing found unusable; pdfimages' table gives the share of the page its images cover.
    @Test func aTextLayerIsReadWithCare() {
        let xhtml = Array(
            """
            <doc><page width="100" height="50"><flow><block xMin="1" yMin="1" xMax="90" yMax="20">
            <line xMin="1" yMin="1" xMax="90" yMax="20">
            <word xMin="1" yMin="1" xMax="20" yMax="10">&lt;A&amp;B&gt;</word>
            <word xMin="90" yMin="1" xMax="130" yMax="10">edge&#x263A;</word>
            <word xMin="200" yMin="1" xMax="230" yMax="10">gone</word>
            <word xMin="5" yMin="5" xMax="nan" yMax="10">bad</word>
            <word xMin="1" yMin="1" xMax="20" yMax="10"> </word>
            </line></block></flow>
            <flow><block><line><word xMin="10" yMin="30" xMax="20" yMax="40">two</word></line></block></flow></page></doc>
            """.utf8)
        let layer = PDFTextLayer.parse(xhtml, pixelsPerPoint: 2, width: 200, height: 100)
        // Mangled output (bytes flipped, cut, tags and escapes spliced in) never traps, and every box stays on the page.
        var random = SplitMix64(seed: 13)
        let pieces = [
            "<", ">", "\"", "=", "&", "&#x", ";", "</word>", "<word xMin=\"", "<line>", "e308", "-1e9", "nan",
        ].map { Array($0.utf8) }
        for _ in 0..<3000 {
            var mangled = xhtml
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0..<mangled.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: mangled[at] = UInt8.random(in: 0...255, using: &random)
                case 1: mangled.insert(contentsOf: pieces[Int.random(in: 0..<pieces.count, using: &random)], at: at)
                default: mangled.removeSubrange(at..<min(mangled.count, at + Int.random(in: 1...40, using: &random)))
                }
                if mangled.isEmpty { break }
            }
            let read = PDFTextLayer.parse(mangled, pixelsPerPoint: 2, width: 200, height: 100)
            for word in read.lines.flatMap(\.words) {
                let box = word.boundingBox
                #expect(
                    box.x >= 0 && box.y >= 0 && box.maxX <= 200.01 && box.maxY <= 100.01 && box.width >= 0
                        && box.height >= 0 && !word.string.isEmpty)
            }
        }
        #expect(layer.lines.map(\.string) == ["<A&B> edge\u{263A}", "two"])
        #expect(layer.fullText == "<A&B> edge\u{263A}\n\ntwo")
        #expect(
            layer.lines.first?.words.map(\.boundingBox) == [
                BoundingBox(x: 2, y: 2, width: 38, height: 18), BoundingBox(x: 180, y: 2, width: 20, height: 18),
            ])
        #expect(layer.isUsable && layer.wordCount == 3)
        let junk = PDFTextLayer.parse(
            Array("<word xMin=\"1\" yMin=\"1\" xMax=\"9\" yMax=\"9\">\u{E001}\u{E002}\u{FFFD}a</word>".utf8),
            pixelsPerPoint: 1, width: 10, height: 10)
        #expect(junk.wordCount == 1 && !junk.isUsable)
        // A page of 612 x 792 pt: a 300-dpi scan over all of it, its soft mask, a logo.
        let listing = Array(
            """
            page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio
            --------------------------------------------------------------------------------------------
               1     0 image    2550  3300  rgb     3   8  jpeg   no         5  0   300   300  512K 2.0%
               1     1 smask    2550  3300  gray    1   8  image  no         6  0   300   300   10K 0.1%
            """.utf8)
        #expect(abs(PDFTextLayer.coverage(listing: listing, area: 612 * 792) - 1) < 1e-9)
        let logo = Array(
            "   1     0 image     150   150  rgb     3   8  jpeg   no         5  0   150   150  5K 2.0%\n".utf8)
        #expect(abs(PDFTextLayer.coverage(listing: logo, area: 612 * 792) - 72.0 * 72 / (612 * 792)) < 1e-9)
    }

    /// A helper that never ends, or writes without end, is stopped; the caller gets what it said.
    @Test func aHelperThatHangsOrFloodsIsStopped() throws {
        let hang = try Subprocess(executable: "/bin/sleep", arguments: ["30"], timeout: 0.5).run(input: [])
        #expect(hang.timedOut && hang.status == nil)
        let flood = try Subprocess(
            executable: "/bin/cat", arguments: ["/dev/zero"], timeout: 10, maximumOutput: 1 << 20
        ).run(input: [])
        #expect(flood.outputOverflowed && flood.status == nil)
        // Input it does not read does not block or kill the caller.
        let echo = try Subprocess(executable: "/bin/echo", arguments: ["done"]).run(
            input: [UInt8](repeating: 7, count: 4 << 20))
        #expect(echo.status == 0 && echo.output == Array("done\n".utf8))
        let copy = try Subprocess(executable: "/bin/cat", arguments: []).run(
            input: [UInt8](repeating: 9, count: 3 << 20))
        #expect(copy.status == 0 && copy.output.count == 3 << 20)
        // One that closes its outputs and goes on running is still waited for only until the deadline.
        let quiet = try Subprocess(executable: "/bin/sh", arguments: ["-c", "exec >&- 2>&-; sleep 30"], timeout: 0.5)
            .run(input: [])
        #expect(quiet.timedOut && quiet.status == nil)
        // A file handed over as its stdin.
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("in.bin").path
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let fromFile = try Subprocess(executable: "/bin/cat", arguments: []).run(readingFile: path)
        #expect(fromFile.status == 0 && fromFile.output == [1, 2, 3])
    }
}
