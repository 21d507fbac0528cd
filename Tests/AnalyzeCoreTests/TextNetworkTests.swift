import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Text in photos, read by PP-OCRv4's networks on ONNX Runtime (issue 32), through the real engines:
/// real street photos and words cut out of photos from opencv-doc (scripts/fetch-test-images), and
/// photos made by Tests/Support/make-text-photos with the text they hold known by construction.
@Suite("Text in photos")
struct TextNetworkTests {
    /// The request as `analyze --text` makes it when the networks are fetched.
    static let request = TextRequest(textDetector: TextRequest.ppocrDetector, reader: .ppocrV4)

    static let scenetext = Fixture.root.deletingLastPathComponent().appendingPathComponent(".models/scenetext")

    static func analyze(_ path: String, _ request: TextRequest = Self.request) throws -> ImageAnalysis {
        try ImageRequestHandler(source: ImageSource(path: path, outputName: "x")).perform(
            RequestSet([request]), engines: WorkerEngines()
        ).analysis
    }

    /// The whole text, lower-cased, without spaces: the recognizer often joins words that stand close
    /// ("AT ALLTIMES"), which these tests do not hold against it.
    static func squeezed(_ text: String) -> String { text.lowercased().filter { !$0.isWhitespace } }

    /// The photos made by Tests/Support/make-text-photos, once per test process.
    static let madePhotos: Result<URL, any Error> = Result {
        let folder = try Fixture.temporaryDirectory()
        let background = Fixture.root.deletingLastPathComponent().appendingPathComponent(
            ".models/opencv-doc/fruits.jpg"
        ).path
        let made = try runProgram(
            "/usr/bin/python3",
            [
                Fixture.root.deletingLastPathComponent().appendingPathComponent("Tests/Support/make-text-photos").path,
                folder.path, background,
            ])
        guard made.status == 0 else {
            throw AnalysisError(.engineFailed, "Tests/Support/make-text-photos failed: \(made.output)")
        }
        return folder
    }

    static func madePhoto(_ name: String) throws -> (path: String, lines: [String]) {
        let folder = try madePhotos.get()
        let text = try String(
            contentsOf: folder.appendingPathComponent((name as NSString).deletingPathExtension + ".txt"),
            encoding: .utf8)
        return (folder.appendingPathComponent(name).path, text.split(separator: "\n").map(String.init))
    }

    @Test(arguments: [
        ("scenetext01.jpg", ["notice", "double", "parking", "prohibited"]),
        ("scenetext02.jpg", ["sportscentre", "conferencecentre", "carparks"]),
        ("scenetext03.jpg", ["copycentre"]),
        ("scenetext04.jpg", ["gm125"]),
        ("scenetext05.jpg", ["noparking"]),
        ("scenetext06.jpg", ["priory", "galleries", "theship"]),
    ])
    func readsTheSignsOfRealStreetPhotos(file: String, expected: [String]) throws {
        let analysis = try Self.analyze(Self.scenetext.appendingPathComponent(file).path)
        let lines = try #require(analysis.text)
        let text = Self.squeezed(lines.map(\.string).joined(separator: " "))
        for word in expected { #expect(text.contains(word), "\(file): '\(word)' not in '\(text)'") }
        #expect(
            lines.allSatisfy { $0.recognizer == "ppocr" && $0.corners?.count == 4 }, "read by the network, with corners"
        )
        // Every word's box lies inside the image and inside its line's box.
        for line in lines {
            for word in line.words {
                let b = word.boundingBox, l = line.boundingBox
                #expect(
                    b.x >= l.x - 1 && b.y >= l.y - 1 && b.x + b.width <= l.x + l.width + 1
                        && b.y + b.height <= l.y + l.height + 1)
                #expect(
                    b.x >= 0 && b.y >= 0 && b.x + b.width <= Double(analysis.width)
                        && b.y + b.height <= Double(analysis.height))
            }
        }
    }

    @Test(arguments: [
        ("scenetext_word01.jpg", "CHINA"), ("scenetext_word02.jpg", "HERE"), ("scenetext_word03.jpg", "riser"),
        ("scenetext_word04.jpg", "Produkt"),
    ])
    func readsWordsCutOutOfPhotos(file: String, word: String) throws {
        let analysis = try Self.analyze(Self.scenetext.appendingPathComponent(file).path)
        #expect(analysis.fullText?.trimmingCharacters(in: .whitespaces).lowercased() == word.lowercased())
    }

    @Test func readsAReceiptPhotographedAtAnAngleItemByItem() throws {
        let (path, lines) = try Self.madePhoto("receipt-angle.jpg")
        let analysis = try Self.analyze(path)
        let recall = wordRecall(expected: lines.joined(separator: " "), recognised: analysis.fullText ?? "")
        #expect(recall >= 0.85, "read \(recall) of the receipt's words: \(analysis.fullText ?? "")")
        // Every price, each on the line of its item.
        let read = try #require(analysis.text).map(\.string)
        for (item, price) in [("Espresso", "2.40"), ("Cappuccino", "3.10"), ("Croissant", "2.20"), ("TOTAL", "12.32")] {
            #expect(
                read.contains { $0.contains(item) && $0.contains(price) },
                "\(item) \(price) not read as one line: \(read)")
        }
    }

    @Test func readsADarkScreenshot() throws {
        let (path, lines) = try Self.madePhoto("screenshot-dark.png")
        let analysis = try Self.analyze(path)
        let recall = wordRecall(expected: lines.joined(separator: " "), recognised: analysis.fullText ?? "")
        #expect(recall >= 0.9, "read \(recall) of the screenshot's words: \(analysis.fullText ?? "")")
    }

    @Test func readsAChineseSign() throws {
        let (path, lines) = try Self.madePhoto("chinese-sign.jpg")
        var request = Self.request
        request.languages = "eng+chi_sim"
        let analysis = try Self.analyze(path, request)
        let read = Self.squeezed(analysis.fullText ?? "")
        #expect(read.contains(try #require(lines.first)), "read '\(read)'")
    }

    /// With the default languages (`auto`, as `analyze --text` reads), Chinese is read wherever it stands:
    /// a shop sign, a price tag mixing Chinese and numbers, a sign upside down, a banner written top to
    /// bottom; each line says it was read as zh-Hans (issue 68).
    @Test(arguments: [
        "chinese-sign.jpg", "price-tag.jpg", "chinese-upside-down.jpg", "chinese-vertical.jpg",
    ])
    func readsChineseWithTheDefaultLanguages(name: String) throws {
        let (path, lines) = try Self.madePhoto(name)
        #expect(Self.request.languages == TextLanguages.automatic)
        let analysis = try Self.analyze(path)
        let read = Self.squeezed(analysis.fullText ?? "")
        for line in lines { #expect(read.contains(Self.squeezed(line)), "\(line) not in '\(read)'") }
        let chinese = try #require(
            analysis.text?.first { $0.string.unicodeScalars.contains { $0.properties.isIdeographic } })
        #expect(chinese.language == "zh-Hans")
    }

    /// A photo saved with one channel is routed as its colour original is (by what it holds, not by its pixel
    /// format) and reads the same; a clean page of Chinese is read line by line by the network where Tesseract,
    /// reading English, is unsure; an EXIF-turned line of Chinese is read upright (issue 68).
    @Test(arguments: ["price-tag-gray.png", "chinese-page.png", "chinese-line-exif6.jpg"])
    func readsGrayPagesAndTurnedLinesInChinese(name: String) throws {
        let (path, lines) = try Self.madePhoto(name)
        let analysis = try Self.analyze(path)
        // Punctuation aside: Tesseract and the network space and shape it differently.
        func letters(_ s: String) -> String { Self.squeezed(s).filter { $0.isLetter || $0.isNumber } }
        let read = letters(analysis.fullText ?? "")
        for line in lines { #expect(read.contains(letters(line)), "\(line) not in '\(read)'") }
    }

    /// Text on a transparent background, black or white: the alpha is composited on a background it stands
    /// out from, so both read (white on white read nothing: issue 68).
    @Test(arguments: ["black-on-transparent.png", "white-on-transparent.png"])
    func readsTextOnATransparentBackground(name: String) throws {
        let (path, lines) = try Self.madePhoto(name)
        let analysis = try Self.analyze(path)
        #expect(Self.squeezed(analysis.fullText ?? "") == Self.squeezed(try #require(lines.first)))
    }

    /// A row of prices far apart is four lines, as the detector sees it, read by Tesseract (a clean strip)
    /// or by the network (on a photo); a receipt's item and price far apart stay one line (issue 68).
    @Test(arguments: ["price-row.png", "price-row-photo.jpg"])
    func aRowOfPricesIsOneLineAField(name: String) throws {
        let (path, lines) = try Self.madePhoto(name)
        let analysis = try Self.analyze(path)
        let read = (analysis.text ?? []).map(\.string)
        for line in lines { #expect(read.contains(line), "\(line) is not a line of \(read)") }
        #expect(TextRequest.startsAField(left: "Tea 2.50", right: "Cake 3.80"))
        #expect(!TextRequest.startsAField(left: "Espresso", right: "2.40"))
        #expect(!TextRequest.startsAField(left: "Table 7", right: "Server Anna"))
    }

    @Test func readsAnUpsideDownLabelWithBoxesWhereItIs() throws {
        let (path, lines) = try Self.madePhoto("label-upside-down.jpg")
        let analysis = try Self.analyze(path)
        let recall = wordRecall(expected: lines.joined(separator: " "), recognised: analysis.fullText ?? "")
        #expect(recall >= 0.85, "read \(recall): \(analysis.fullText ?? "")")
        // The label was drawn at x 500-~1000, y 400-~640 of the photo before it was turned: in the stored
        // pixels it is at 1600 - x, 1200 - y, and the line reads right to left there (corners as it reads).
        let honey = try #require(analysis.text?.first { $0.string.contains("HONEY") })
        let corners = try #require(honey.corners)
        #expect(
            honey.boundingBox.x > 500 && honey.boundingBox.x + honey.boundingBox.width < 1120, "\(honey.boundingBox)")
        #expect(
            honey.boundingBox.y > 1200 - 660 && honey.boundingBox.y + honey.boundingBox.height < 1200 - 380,
            "\(honey.boundingBox)")
        #expect(corners[0].x > corners[1].x, "the first corner is the top-left of the line as it reads: on the right")
    }

    @Test func readsAVerticalLabel() throws {
        let (path, lines) = try Self.madePhoto("vertical-label.jpg")
        let analysis = try Self.analyze(path)
        #expect(
            Self.squeezed(analysis.fullText ?? "").contains(Self.squeezed(try #require(lines.first))),
            "\(analysis.fullText ?? "")")
    }

    @Test(arguments: [
        "opencv-doc/fruits.jpg", "opencv-doc/squirrel_cls.jpg", "test-images/chelsea.png", "test-images/coffee.png",
    ])
    func aPhotoWithoutTextGivesNoText(file: String) throws {
        let analysis = try Self.analyze(
            Fixture.root.deletingLastPathComponent().appendingPathComponent(".models/" + file).path)
        #expect(analysis.text?.isEmpty == true, "\(file): \(analysis.text?.map(\.string) ?? [])")
    }

    @Test func aPageIsStillReadByTesseractWordForWord() throws {
        let withNetworks = try Self.analyze(Fixture.path("text/page.png"))
        let tesseractOnly = try Self.analyze(Fixture.path("text/page.png"), TextRequest())
        #expect(withNetworks.fullText == tesseractOnly.fullText)
        #expect(withNetworks.text?.allSatisfy { $0.recognizer == nil } == true)
    }

    @Test func minimumTextHeightDropsSmallLines() throws {
        // scenetext06: the shop's name on its front, and the same words smaller on a hanging sign.
        let path = Self.scenetext.appendingPathComponent("scenetext06.jpg").path
        let all = try #require(try Self.analyze(path).text)
        let heights = all.compactMap { $0.corners.map(TextRequest.across) }
        let (low, high) = (try #require(heights.min()), try #require(heights.max()))
        try #require(high > 1.3 * low, "lines of different heights: \(heights)")
        var request = Self.request
        request.minimumTextHeight = (low + high) / 2 / 480
        let tall = try #require(try Self.analyze(path, request).text)
        #expect(tall.count < all.count && !tall.isEmpty)
        #expect(tall.allSatisfy { ($0.corners.map(TextRequest.across) ?? 0) >= (low + high) / 2 })
    }

    @Test func customWordsCorrectANearMiss() throws {
        let correction = TextCorrection(customWords: ["Wivenhoe", "Capuccino"])
        #expect(correction.corrected("Wivenioe") == "Wivenhoe")
        #expect(correction.corrected("(Wivenioe),") == "(Wivenhoe),")
        #expect(correction.corrected("Park") == "Park", "short words are left as read")
        #expect(correction.corrected("Conference") == "Conference", "far from every custom word")
        // The receipt's "Cappuccino", one edit from the shop's own spelling.
        var request = Self.request
        request.correction = correction
        let (path, _) = try Self.madePhoto("receipt-angle.jpg")
        let analysis = try Self.analyze(path, request)
        #expect(analysis.fullText?.contains("Capuccino 3.10") == true, "\(analysis.fullText ?? "")")
    }

    @Test func theFastLevelSkipsTheDirectionClassifier() throws {
        var request = Self.request
        request.recognitionLevel = .fast
        let (path, _) = try Self.madePhoto("label-upside-down.jpg")
        let fast = try Self.analyze(path, request)
        #expect(!(fast.fullText ?? "").contains("HONEY"), "upside-down lines are not turned at the fast level")
        let sign = try Self.analyze(Self.scenetext.appendingPathComponent("scenetext01.jpg").path, request)
        #expect(Self.squeezed(sign.fullText ?? "").contains("prohibited"))
    }
}
