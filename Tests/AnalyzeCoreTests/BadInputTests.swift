import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

@Suite("Bad input never crashes and never stops the batch")
struct BadInputTests {
    @Test(arguments: [
        ("bad/empty.jpg", AnalysisError.Code.emptyFile),
        ("bad/truncated.jpg", .undecodable),
        ("bad/not-an-image.png", .undecodable),
        ("bad/corrupt.png", .undecodable),
        ("bad/huge.png", .tooLarge),
        ("bad/does-not-exist.jpg", .missingFile),
    ])
    func failsWithAClearError(file: String, code: AnalysisError.Code) throws {
        let error = try #require(throws: AnalysisError.self) {
            _ = try Fixture.analyze(file, .all)
        }
        #expect(error.code == code)
        #expect(error.file == Fixture.path(file))
        #expect(!error.message.isEmpty)
    }

    /// Images of unusual shapes get every request answered, nothing found being an answer: an icon
    /// (the horizon failed on it: its working copy is larger than the image), strips 360 times longer
    /// than wide (the horizon failed), a 100,000×40 strip (the rectangles' working copy was 800×0, and
    /// zxing-cpp refuses sides over 65,535), a one-pixel line. And a code in a 70,000-px strip is read
    /// where it is.
    @Test func everyRequestAnswersOnImagesOfExtremeShapes() throws {
        let coffee = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: DebianPhoto.folder.appendingPathComponent("coffee.png")))
        ).0.bgr()
        let engines = WorkerEngines()
        var requests = RequestSet.all.requests
        requests.append(TextRequest(textDetector: TextRequest.ppocrDetector))
        for (width, height) in [(33, 33), (40_000, 110), (110, 40_000), (100_000, 40), (5000, 1)] {
            let image = UprightImage(pixels: try coffee.resized(width: width, height: height), orientation: .up)
            for request in requests {
                #expect(throws: Never.self, "\(type(of: request).kind) on \(width)x\(height)") {
                    _ = try request.performErased(on: image, engines: engines)
                }
            }
        }
        let strip = UprightImage(
            pixels: try OpenCVMat.blank(width: 70_000, height: 240, color: (r: 255, g: 255, b: 255)), orientation: .up)
        let code = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/code128.png"))))
        ).0.bgr()
        try strip.pixels.paste(code, x: 60_000, y: 24)
        let found = try BarcodeRequest().perform(on: strip, engines: engines)
        #expect(found.map(\.payload) == ["ANALYZE-128"])
        let code128 = try #require(found.first)
        #expect(code128.engines.contains("zxing"), "\(code128.engines)")  // read on a copy shrunk to 65,535 px
        #expect(code128.boundingBox.x > 59_900 && code128.boundingBox.maxX < 60_800, "\(code128.boundingBox)")
    }

    @Test func refusesAHugeHeaderBeforeDecoding() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("bad/huge.png"))))
        #expect(ImageHeader(parsing: bytes) == ImageHeader(width: 100_000, height: 100_000))
        let error = try #require(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 1_000_000)
        }
        #expect(error.message.contains("--max-pixels"))
    }

    @Test func aSmallPixelLimitRefusesOrdinaryImages() throws {
        let source = ImageSource(path: Fixture.path("barcodes/qr-hello.png"), outputName: "x")
        let error = try #require(throws: AnalysisError.self) {
            _ = try ImageRequestHandler(source: source, maximumPixels: 1000).perform(.all, engines: WorkerEngines())
        }
        #expect(error.code == .tooLarge)
    }

    @Test func theBatchGoesOnAndFailedImagesLeaveNoFiles() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let sources = InputCollector.collect([Fixture.path("bad"), Fixture.path("barcodes/qr-hello.png")])
        let outcomes = try BatchRunner(
            sources: sources, requests: RequestSet([BarcodeRequest()]),
            output: OutputOptions(directory: out), jobs: 2
        ).run()
        #expect(outcomes.count == 6)
        #expect(outcomes.filter { $0.error != nil }.count == 5)
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == ["qr-hello.json", "qr-hello.png", "qr-hello.svg"])
    }

    /// A JPEG counts as truncated when its last scan (FF DA) has no end-of-image marker (FF D9) after
    /// it: every cut of a real photo is, the whole file is not, and an FF D9 before the last scan
    /// does not count.
    @Test func aJPEGIsTruncatedExactlyWhenItsLastScanHasNoEnd() throws {
        let photo = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        #expect(!ImageHeader.isTruncatedJPEG(photo))
        for fraction in [0.05, 0.3, 0.6, 0.9, 0.999] {
            #expect(
                ImageHeader.isTruncatedJPEG(Array(photo.prefix(Int(Double(photo.count) * fraction)))),
                "cut at \(fraction)")
        }
        #expect(ImageHeader.isTruncatedJPEG(Array(photo.dropLast(2))))
        // An end marker before a second scan that has none.
        #expect(ImageHeader.isTruncatedJPEG(photo + [0xFF, 0xDA, 0x00, 0x01]))
        #expect(!ImageHeader.isTruncatedJPEG(photo + [0xFF, 0xDA, 0x00, 0x01, 0xFF, 0xD9]))
        // No scan at all; not a JPEG at all.
        #expect(ImageHeader.isTruncatedJPEG([0xFF, 0xD8, 0xFF, 0xD9]))
        #expect(!ImageHeader.isTruncatedJPEG([0x89, 0x50, 0x4E, 0x47]))
        #expect(ImageHeader.isTruncatedJPEG([0xFF, 0xD8]))
    }
}
