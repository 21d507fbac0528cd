import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

@Suite("Text through Tesseract")
struct TextRequestTests {
    /// A language whose Tesseract data is not installed is a warning naming the package, in the JSON and on
    /// the terminal; the languages that are installed still read the page (issue 68).
    @Test func aLanguageThatIsNotInstalledIsAWarningNamingItsPackage() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let missing = "xyz"  // no such traineddata anywhere
        let run = try CommandLineTests().run([
            Fixture.path("text/page.png"), "--text", "--languages", "eng+\(missing)", "-o", out.path, "--no-png",
            "--no-svg",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("tesseract-ocr-\(missing)"), "\(run.stderr)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("page.json")))
                as? [String: Any])
        let warnings = try #require(json["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("install tesseract-ocr-\(missing)") }, "\(warnings)")
        #expect(String(describing: json["text"]).contains("The quick brown fox"))
        #expect(TextLanguages("en-US+zh-Hans").codes == ["eng", "chi_sim"])
        #expect(TextLanguages("auto").isAutomatic && !TextLanguages("auto").englishOnly)
        #expect(TextLanguages("eng").englishOnly && !TextLanguages("eng+deu").networkReads)
        #expect(TextLanguages("auto").language(of: "Total 5.80") == "en")
        #expect(TextLanguages("auto").language(of: "单价 10.0") == "zh-Hans")
        #expect(TextLanguages("auto").language(of: "10.0 / 5.8") == nil)
    }

    @Test func readsThePageLineByLine() throws {
        let analysis = try Fixture.analyze("text/page.png", RequestSet([TextRequest()]))
        let lines = try #require(analysis.text)
        #expect(
            lines.map(\.string) == [
                "The quick brown fox jumps over the lazy dog.",
                "Pack my box with five dozen liquor jugs.",
                "Invoice 2026-0042 total 1234.56 EUR",
            ])
        // The whole text holds every line, in order (blocks may be separated by blank lines).
        #expect(normalizedWords(analysis.fullText ?? "") == normalizedWords(lines.map(\.string).joined(separator: " ")))
        for line in lines {
            #expect(line.confidence > 0.8 && line.confidence <= 1)
            #expect(line.words.map(\.string).joined(separator: " ") == line.string)
            for word in line.words {
                // Every word sits inside its line box.
                let c = word.boundingBox.center
                #expect(c.x > line.boundingBox.x && c.x < line.boundingBox.maxX)
                #expect(c.y > line.boundingBox.y && c.y < line.boundingBox.maxY)
                #expect(word.characters == nil)
            }
        }
    }

    @Test func reportsCharacterBoxesOnRequest() throws {
        let analysis = try Fixture.analyze("text/page.png", RequestSet([TextRequest(characterBoxes: true)]))
        let first = try #require(analysis.text?.first?.words.first)
        let characters = try #require(first.characters)
        #expect(characters.map(\.string).joined() == first.string)
        // Characters run left to right inside the word.
        #expect(zip(characters, characters.dropFirst()).allSatisfy { $0.boundingBox.x < $1.boundingBox.x })
        #expect(
            characters.allSatisfy {
                $0.boundingBox.x >= first.boundingBox.x && $0.boundingBox.maxX <= first.boundingBox.maxX
            })
    }

    @Test func readsHostileTextVerbatim() throws {
        let analysis = try Fixture.analyze("text/hostile-text.png", RequestSet([TextRequest()]))
        #expect(analysis.fullText?.contains("<script>") == true)
    }

    @Test func readsTheRotatedReceiptOnlyAfterApplyingItsOrientation() throws {
        let analysis = try Fixture.analyze("samples/receipt-exif6.jpg", .all)
        #expect(analysis.orientation == 6)
        #expect(analysis.width == 360 && analysis.height == 600)
        let recall = wordRecall(
            expected: "CAFE LUNA Receipt 2026-0042 Cappuccino 3.40 Croissant 2.20 TOTAL EUR 9.50 Thank you!",
            recognised: analysis.fullText ?? "")
        #expect(recall >= 0.9)
        #expect(analysis.barcodes?.first?.payload == "https://example.com/r/2026-0042")
    }

    @Test func minimumConfidenceDropsWeakWords() throws {
        let all = try Fixture.analyze("samples/printed-page.png", RequestSet([TextRequest()]))
        let strict = try Fixture.analyze("samples/printed-page.png", RequestSet([TextRequest(minimumConfidence: 0.99)]))
        let allWords = all.text?.flatMap(\.words) ?? []
        let strictWords = strict.text?.flatMap(\.words) ?? []
        #expect(strictWords.allSatisfy { $0.confidence >= 0.99 })
        #expect(strictWords.count < allWords.count)
    }

    @Test func unknownLanguageIsAClearError() throws {
        let analysis = try Fixture.analyze("text/page.png", RequestSet([TextRequest(languages: "xxx")]))
        let error = try #require(analysis.requestErrors["text"])
        #expect(error.code == "engine-unavailable" && error.message.contains("tesseract-ocr-"))
        #expect(analysis.text == nil)
    }
}

@Suite("Pages turned in their pixels")
struct PageRotationTests {
    /// Writes `text/page.png` turned by an orientation's transform (our own decoder and encoder),
    /// so the file carries no EXIF tag and only the pixels are turned.
    func turnedPage(_ orientation: ImageOrientation) throws -> URL {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let turned = try UprightImage(decoding: bytes, orientation: orientation, maximumPixels: 10_000_000)
        let url = try Fixture.temporaryDirectory().appendingPathComponent("turned.png")
        try AtomicFileWriter.write(try turned.pixels.pngData(), to: url)
        return url
    }

    @Test(arguments: [ImageOrientation.down, .right, .left])
    func readsAPageTurnedInItsPixelsAndKeepsItsCoordinates(_ orientation: ImageOrientation) throws {
        let url = try turnedPage(orientation)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = ImageSource(path: url.path, outputName: "turned")
        let analysis = try ImageRequestHandler(source: source).perform(
            RequestSet([TextRequest()]), engines: WorkerEngines()
        ).analysis
        let recall = wordRecall(
            expected: "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs.",
            recognised: analysis.fullText ?? "")
        #expect(recall >= 0.9)
        // Boxes are in the coordinates of the file as stored: inside it, and the first line
        // (top of the page) is at the bottom when the page is upside down.
        let first = try #require(analysis.text?.first)
        #expect(first.boundingBox.x >= 0 && first.boundingBox.maxX <= Double(analysis.width) + 1)
        #expect(first.boundingBox.y >= 0 && first.boundingBox.maxY <= Double(analysis.height) + 1)
        if orientation == .down { #expect(first.boundingBox.y > Double(analysis.height) / 2) }
    }

    @Test func leavesTheFirstReadingWhenDetectionIsOff() throws {
        let url = try turnedPage(.down)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = ImageSource(path: url.path, outputName: "turned")
        let analysis = try ImageRequestHandler(source: source)
            .perform(RequestSet([TextRequest(detectsPageRotation: false)]), engines: WorkerEngines()).analysis
        #expect(
            wordRecall(expected: "The quick brown fox jumps over the lazy dog.", recognised: analysis.fullText ?? "")
                < 0.5)
    }
}

/// The text gate on real 12 MP phone photos (Debian's forensics-samples-files, scripts/fetch-test-images):
/// PP-OCRv4's detector decides whether Tesseract runs, and where.
@Suite("Text gate on large photos")
struct TextGateTests {
    static let phone = Fixture.root.deletingLastPathComponent().appendingPathComponent(".models/photos/phone")
    let gated = TextRequest(textDetector: TextRequest.ppocrDetector)

    func photo(_ name: String) throws -> UprightImage {
        let path = Self.phone.appendingPathComponent(name).path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        let source = try #require(InputCollector.collect([path]).first)
        return try ImageRequestHandler(source: source).perform(RequestSet(), engines: WorkerEngines()).image
    }

    /// The page fixture's lines pasted into the photo at `scale` (1: capitals 20 px tall).
    func photoWithPage(scale: Double, x: Int, y: Int) throws -> UprightImage {
        let image = try photo("pic2/IMG_20200608_111614.jpg")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let (page, _) = try OpenCVMat.decode(bytes)
        let pasted = try page.bgr().resized(
            width: Int(Double(page.width) * scale), height: Int(Double(page.height) * scale))
        try image.pixels.paste(pasted, x: x, y: y)
        return image
    }

    @Test(arguments: [1.0, 1.5, 2.0])
    func aSmallLineOfTextInALargePhotoIsStillRead(scale: Double) throws {
        let image = try photoWithPage(scale: scale, x: 2400, y: 2100)
        let page = try gated.perform(on: image, engines: WorkerEngines())
        let recall = wordRecall(expected: "Invoice 2026-0042 total 1234.56 EUR", recognised: page.fullText)
        #expect(recall >= 0.8, "\(page.fullText)")
        // The words are where the page was pasted, in the photo's pixels.
        for line in page.lines {
            #expect(line.boundingBox.x >= 2400 && line.boundingBox.y >= 2100, "\(line.string) at \(line.boundingBox)")
        }
    }

    /// Each photo's shape gets the canvas of at most 672×512 pixels that shows it largest, and one
    /// worker's network reads them all as a fresh one does.
    @Test func eachPhotoShapeIsSeenAsLargeAsTheDetectorsInputAllows() throws {
        let shapes = [(4000, 3000), (3000, 4000), (4352, 2448), (4272, 2848), (2560, 3840)]
        let inputs = shapes.map { TextDetectorModel.input(forWidth: $0.0, height: $0.1) }
        #expect(
            inputs.map { [$0.width, $0.height] } == [[672, 512], [512, 672], [768, 448], [704, 480], [480, 704]])
        #expect(inputs.allSatisfy { $0.width * $0.height <= 672 * 512 && $0.width % 32 == 0 && $0.height % 32 == 0 })
        let landscape = try photoWithPage(scale: 1.5, x: 1000, y: 1000)
        let portrait = UprightImage(pixels: try landscape.pixels.oriented(.right), orientation: .up)
        let shared = try WorkerEngines().textRegionDetector(TextRequest.ppocrDetector)
        for image in [landscape, portrait, landscape] {
            let regions = try shared.regions(in: image.pixels)
            #expect(!regions.isEmpty)
            #expect(
                regions == (try WorkerEngines().textRegionDetector(TextRequest.ppocrDetector).regions(in: image.pixels))
            )
        }
    }

    /// 18-px capitals in a 16:9 photo (4352×2448): its 768×448 canvas shows them 14% larger than a
    /// 672×512 letterbox did (with a black band under the photo), where none of the three lines was
    /// found; all three are read.
    @Test func smallPrintInAWidePhotoIsRead() throws {
        let path = Self.phone.deletingLastPathComponent().appendingPathComponent(
            "lomiri/Bridge_by_Sander_Klootwijk.jpg"
        ).path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        let source = try #require(InputCollector.collect([path]).first)
        let image = try ImageRequestHandler(source: source).perform(RequestSet(), engines: WorkerEngines()).image
        #expect((image.width, image.height) == (4352, 2448))
        let page = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        ).0
        try image.pixels.paste(try page.bgr().resized(width: 900, height: 198), x: 100, y: 300)
        let lines = try gated.perform(on: image, engines: WorkerEngines()).lines.map(\.string)
        #expect(
            lines == [
                "The quick brown fox jumps over the lazy dog.", "Pack my box with five dozen liquor jugs.",
                "Invoice 2026-0042 total 1234.56 EUR",
            ], "\(lines)")
    }

    /// Small print (20-px capitals) elsewhere in the photo: the detector, at a sixth of the photo's size,
    /// finds only fragments of its lines. Before its map was closed and the area read grown around
    /// them, nothing was read in the first of these places and only parts of lines in the others
    /// ("ick brown fox", "ce 2026-0042"). (At 20 px this is the detector's limit: pasted at 2800,200
    /// the page gives it nothing to find; at 24 px, every place tried was read.)
    @Test(arguments: zip([100, 1000, 200, 1500], [500, 1000, 2600, 1400]))
    func smallPrintIsReadWhereverItIsInThePhoto(x: Int, y: Int) throws {
        let image = try photoWithPage(scale: 1, x: x, y: y)
        let page = try gated.perform(on: image, engines: WorkerEngines())
        for expected in ["Pack my box with five dozen liquor jugs.", "Invoice 2026-0042 total 1234.56 EUR"] {
            let line = try #require(
                page.lines.first { wordRecall(expected: expected, recognised: $0.string) >= 0.5 }, "\(page.fullText)")
            #expect(wordRecall(expected: expected, recognised: line.string) == 1, "\(line.string)")
            // The line is where the page was pasted (1000x220), in the photo's pixels.
            let box = line.boundingBox
            #expect(
                box.x >= Double(x) && box.maxX <= Double(x + 1000) && box.y >= Double(y) && box.maxY <= Double(y + 220),
                "\(box)")
        }
        // No line away from the page: the photo around it, read too, is dropped as unvouched, from the
        // lines and from the whole text alike.
        #expect(page.fullText.split(separator: "\n").map(String.init) == page.lines.map(\.string), "\(page.fullText)")
        for line in page.lines {
            let box = line.boundingBox
            #expect(
                box.maxX > Double(x) && box.x < Double(x + 1000) && box.maxY > Double(y) && box.y < Double(y + 220),
                "\(line.string) at \(box)")
        }
    }

    /// Two pages at opposite corners of the photo are two parts, each read on its own: both are read,
    /// nothing between them is, and Tesseract reads far less of the photo than their enclosing box.
    @Test func labelsFarApartAreReadAsPartsOfTheirOwn() throws {
        let image = try photoWithPage(scale: 1.5, x: 100, y: 100)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let (page0, _) = try OpenCVMat.decode(bytes)
        try image.pixels.paste(try page0.bgr().resized(width: 1500, height: 330), x: 2400, y: 2600)
        let regions = try WorkerEngines().textRegionDetector(TextRequest.ppocrDetector)
            .regions(in: image.pixels)
        let areas = TextRequest.TextArea.areas(enclosing: regions, width: image.width, height: image.height)
        #expect(areas.count == 2)
        #expect(areas.reduce(0) { $0 + $1.width * $1.height } < image.width * image.height / 5)
        let page = try gated.perform(on: image, engines: WorkerEngines())
        #expect(page.lines.filter { $0.string == "Invoice 2026-0042 total 1234.56 EUR" }.count == 2, "\(page.fullText)")
        #expect(page.lines.allSatisfy { $0.boundingBox.y < 100 + 330 || $0.boundingBox.y >= 2600 }, "\(page.fullText)")
    }

    /// A white page of 30-px capitals on a dark, busy background (a dragonfly's wings): cut out with the
    /// wide margins of small print (2x its lines' height up and down, 6x to the sides), Tesseract's layout
    /// analysis read nothing on it; lines the detector sees whole are cropped by their height only.
    @Test func aLabelOnABusyDarkBackgroundIsReadCroppedClose() throws {
        let path = Self.phone.deletingLastPathComponent().appendingPathComponent("lomiri/Dragonfly_by_Bolly.jpg").path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        let source = try #require(InputCollector.collect([path]).first)
        let image = try ImageRequestHandler(source: source).perform(RequestSet(), engines: WorkerEngines()).image
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let (page0, _) = try OpenCVMat.decode(bytes)
        try image.pixels.paste(try page0.bgr().resized(width: 1500, height: 330), x: 2220, y: 1230)
        let page = try gated.perform(on: image, engines: WorkerEngines())
        #expect(
            page.lines.map(\.string) == [
                "The quick brown fox jumps over the lazy dog.", "Pack my box with five dozen liquor jugs.",
                "Invoice 2026-0042 total 1234.56 EUR",
            ], "\(page.fullText)")
    }

    /// A portrait photo (the phone photo turned upright, 3000x4000) is read by the detector at 512x672.
    /// With 20-px capitals it finds part of the line (the square 640x640 input of analyze 0.3 found
    /// none of it); from 25 px the whole page.
    @Test(arguments: [1.25, 1.5])
    func aSmallLineOfTextInAPortraitPhotoIsStillRead(scale: Double) throws {
        let landscape = try photo("pic2/IMG_20200608_111614.jpg")
        let image = UprightImage(pixels: try landscape.pixels.oriented(.right), orientation: .up)
        #expect(image.width == 3000 && image.height == 4000)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let page0 = try OpenCVMat.decode(bytes).0
        try image.pixels.paste(
            try page0.bgr().resized(width: Int(Double(page0.width) * scale), height: Int(Double(page0.height) * scale)),
            x: 600, y: 3000)
        let page = try gated.perform(on: image, engines: WorkerEngines())
        let recall = wordRecall(expected: "Invoice 2026-0042 total 1234.56 EUR", recognised: page.fullText)
        #expect(recall >= 0.8, "\(page.fullText)")
        for line in page.lines {
            #expect(line.boundingBox.x >= 600 && line.boundingBox.y >= 3000, "\(line.string) at \(line.boundingBox)")
        }
    }

    @Test func aPhotoWithoutTextGivesNoRegionAndNoText() throws {
        for name in ["pic2/IMG_20200608_111614.jpg", "pic2/IMG_20200124_231153.jpg"] {
            let image = try photo(name)
            #expect(
                try WorkerEngines().textRegionDetector(TextRequest.ppocrDetector)
                    .regions(in: image.pixels).isEmpty, "\(name)")
            let page = try gated.perform(on: image, engines: WorkerEngines())
            #expect(page.lines.isEmpty && page.fullText.isEmpty)
        }
    }

    @Test func theGateReadsALargePageAsTheWholeImageReadingDoes() throws {
        // A document photographed large, on a blue desk: the gate finds text and Tesseract reads it.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let (page, _) = try OpenCVMat.decode(bytes)
        let desk = try OpenCVMat.blank(width: 4800, height: 1056, color: (r: 200, g: 220, b: 255))
        try desk.paste(try page.bgr().resized(width: 4400, height: 968), x: 200, y: 44)
        let image = UprightImage(pixels: desk, orientation: .up)
        #expect(image.hasColour)
        let whole = try TextRequest().perform(on: image, engines: WorkerEngines())
        let gatedPage = try gated.perform(on: image, engines: WorkerEngines())
        // Read from the part the text is in, not the whole image: the same lines and words, boxes
        // within a pixel or two.
        #expect(whole.lines.count == 3)
        #expect(gatedPage.lines.map(\.string) == whole.lines.map(\.string))
        for (a, b) in zip(gatedPage.lines, whole.lines) {
            #expect(abs(a.boundingBox.x - b.boundingBox.x) <= 2 && abs(a.boundingBox.maxX - b.boundingBox.maxX) <= 2)
            #expect(abs(a.boundingBox.y - b.boundingBox.y) <= 2 && abs(a.boundingBox.maxY - b.boundingBox.maxY) <= 2)
        }
    }

    @Test func aGrayPageSavedAsRGBHasNoColourAndIsReadWhole() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))
        let (page, _) = try OpenCVMat.decode(bytes)
        let rgbPage = UprightImage(pixels: try page.bgr().resized(width: 4800, height: 1056), orientation: .up)
        #expect(rgbPage.pixels.channels == 3 && !rgbPage.hasColour)
        #expect(try photo("pic2/IMG_20200608_111614.jpg").hasColour)
        // Not gated: the same reading as Tesseract's whole-page one, byte for byte.
        #expect(
            try gated.perform(on: rgbPage, engines: WorkerEngines())
                == TextRequest().perform(on: rgbPage, engines: WorkerEngines()))
    }
}

/// `--text-gate`: which detector a text request gets, decided when a run performs it.
@Suite("Text gate setting")
struct TextGateSettingTests {
    func planned(_ request: TextRequest, models: ModelLocator) throws -> TextRequest? {
        try RequestPlan(configured: RequestSet([request]), asked: [.text]).resolve(models: models).requests.requests
            .first as? TextRequest
    }

    @Test func autoUsesTheDetectorWhereItsFilesAreAndReadsWholeWhereTheyAreNot() throws {
        let auto = TextRequest(
            textDetector: TextGate.auto.detector.model, detectorIsOptional: TextGate.auto.detector.isOptional)
        // Where the files are (scripts/fetch-models, which scripts/test runs): the detector.
        #expect(try planned(auto, models: .standard)?.textDetector == TextRequest.ppocrDetector)
        // Where they are not, or one has other contents: text still runs, every image read whole.
        #expect(
            try planned(auto, models: ModelLocator(directories: ["/nonexistent"])).map { $0.textDetector == nil }
                == true)
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = TextRequest.ppocrDetector.identity
        try FileManager.default.copyItem(
            atPath: try ModelLocator.standard.path(of: model), toPath: folder.appendingPathComponent(model.name).path)
        // The network without ONNX Runtime's library it runs on: read whole.
        #expect(
            try planned(auto, models: ModelLocator(directories: [folder.path])).map { $0.textDetector == nil } == true)
        let library = ONNXRuntime.library
        try FileManager.default.copyItem(
            atPath: try ModelLocator.standard.path(of: library),
            toPath: folder.appendingPathComponent(library.name).path)
        #expect(
            try planned(auto, models: ModelLocator(directories: [folder.path]))?.textDetector
                == TextRequest.ppocrDetector)
        try Data("not a network".utf8).write(to: folder.appendingPathComponent(model.name))
        #expect(
            try planned(auto, models: ModelLocator(directories: [folder.path])).map { $0.textDetector == nil } == true)

        // --text-gate on: the files must be there; off: no detector.
        let on = TextRequest(
            textDetector: TextGate.on.detector.model, detectorIsOptional: TextGate.on.detector.isOptional)
        #expect(throws: AnalysisError.self) { _ = try planned(on, models: ModelLocator(directories: [folder.path])) }
        #expect(TextGate.off.detector.model == nil)

        // The setting is not part of the request's encoding (the options hash --resume compares): only
        // the detector it resolved to is.
        let encoded = String(
            decoding: try JSONEncoder().encode(try #require(try planned(auto, models: .standard))), as: UTF8.self)
        #expect(!encoded.contains("Optional") && encoded.contains("ppocr-det"))
    }
}

@Suite("Large print")
struct LargePrintTests {
    static let sentences = "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs."

    static func page() throws -> OpenCVMat {
        try OpenCVMat.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("text/page.png"))))).0
    }

    static func read(_ mat: OpenCVMat) throws -> RecognizedPage {
        try TextRequest().perform(on: UprightImage(pixels: mat, orientation: .up), engines: WorkerEngines())
    }

    /// The fixture page enlarged 3× (glyphs about 60 px tall, 3000×660) is read at half its size, with
    /// the same words, its boxes in the enlarged page's pixels (3× those of the page itself); the page
    /// as it is and a 1.3 MP sheet of it at its own size are read as they are.
    @Test func aPageOfLargePrintIsReadShrunkWithItsBoxesInTheImagesPixels() throws {
        let page = try Self.page()
        let large = try page.resized(width: page.width * 3, height: page.height * 3)
        let scale = try #require(try GlyphScale.scale(for: try large.gray()))
        #expect(scale >= GlyphScale.smallestScale && scale <= 0.6, "\(scale)")  // glyphs of about 50 px read at 26
        #expect(try GlyphScale.scale(for: try page.gray()) == nil)
        let sheet = try OpenCVMat.blank(width: page.width * 2, height: page.height * 3, color: (r: 255, g: 255, b: 255))
        for (x, y) in [
            (0, 0), (page.width, 0), (0, page.height), (page.width, page.height), (0, 2 * page.height),
            (page.width, 2 * page.height),
        ] {
            try sheet.paste(page, x: x, y: y)
        }
        #expect(try GlyphScale.scale(for: try sheet.gray()) == nil)

        let small = try Self.read(page), big = try Self.read(large)
        #expect(wordRecall(expected: Self.sentences, recognised: big.fullText) >= 0.9, "\(big.fullText)")
        #expect(
            wordRecall(expected: Self.sentences, recognised: big.fullText)
                >= wordRecall(expected: Self.sentences, recognised: small.fullText))
        #expect(big.lines.count == small.lines.count)
        for (a, b) in zip(small.lines, big.lines) {
            #expect(
                abs(b.boundingBox.x - 3 * a.boundingBox.x) <= 12 && abs(b.boundingBox.y - 3 * a.boundingBox.y) <= 12,
                "\(a.boundingBox) \(b.boundingBox)")
            #expect(
                abs(b.boundingBox.maxX - 3 * a.boundingBox.maxX) <= 12
                    && abs(b.boundingBox.maxY - 3 * a.boundingBox.maxY) <= 12, "\(a.boundingBox) \(b.boundingBox)")
        }
    }
}
