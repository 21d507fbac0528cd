import Foundation
import Testing
@testable import AnalyzeCore

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
        let outcomes = try BatchRunner(sources: sources, requests: RequestSet([BarcodeRequest()]),
                                       output: OutputOptions(directory: out), jobs: 2).run()
        #expect(outcomes.count == 6)
        #expect(outcomes.filter { $0.error != nil }.count == 5)
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(written == ["qr-hello.json", "qr-hello.png", "qr-hello.svg"])
    }
}
