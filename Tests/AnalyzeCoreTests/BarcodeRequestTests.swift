import Foundation
import Testing
@testable import AnalyzeCore

@Suite("Barcodes")
struct BarcodeRequestTests {
    let request = RequestSet([BarcodeRequest()])

    @Test(arguments: [
        ("barcodes/qr-hello.png", BarcodeSymbology.qr, "Hello, analyze!"),
        ("barcodes/qr-rotated.png", .qr, "ROTATED-30"),
        ("barcodes/code128.png", .code128, "ANALYZE-128"),
        ("barcodes/ean13.png", .ean13, "9780201379624"),
    ])
    func decodesKnownPayload(file: String, symbology: BarcodeSymbology, payload: String) throws {
        let codes = try #require(try Fixture.analyze(file, request).barcodes)
        #expect(codes.count == 1)
        let code = try #require(codes.first)
        #expect(code.symbology == symbology)
        #expect(code.payload == payload)
        #expect(code.inverted == false)
        #expect(code.corners.count == 4)
    }

    @Test func decodesLightOnDarkQRCodeWithoutAnyFlag() throws {
        let codes = try #require(try Fixture.analyze("barcodes/qr-inverted.png", request).barcodes)
        let code = try #require(codes.first)
        #expect(codes.count == 1)
        #expect(code.payload == "INVERTED-42")
        #expect(code.inverted)
    }

    @Test func decodesCode128RotatedBy45Degrees() throws {
        let analysis = try Fixture.analyze("barcodes/code128-rotated.png", request)
        let code = try #require(analysis.barcodes?.first)
        #expect(code.payload == "ANALYZE-128")
        // Corners are mapped back into the image: the box is centred, not in the rotated copy's frame.
        #expect(abs(code.boundingBox.center.x - Double(analysis.width) / 2) < Double(analysis.width) * 0.15)
        #expect(abs(code.boundingBox.center.y - Double(analysis.height) / 2) < Double(analysis.height) * 0.15)
    }

    @Test func keepsBinaryPayloadBytesExactly() throws {
        let code = try #require(try Fixture.analyze("barcodes/qr-binary.png", request).barcodes?.first)
        #expect(code.payloadBytes == [0x41, 0x00, 0x42, 0xFF, 0xFE, 0x43])
        #expect(code.payloadBase64 == "QQBC//5D")
        #expect(code.payloadIsUTF8 == false)
    }

    @Test func keepsHostilePayloadVerbatimInTheObservation() throws {
        let code = try #require(try Fixture.analyze("barcodes/qr-hostile.png", request).barcodes?.first)
        #expect(code.payload == #"<script>alert(1)</script><img src=x onerror=alert(2)>&"'"#)
    }

    @Test func reportsNothingOnAnImageWithoutBarcodes() throws {
        let codes = try #require(try Fixture.analyze("barcodes/none.png", request).barcodes)
        #expect(codes.isEmpty)
    }

    @Test func restrictsToRequestedSymbologies() throws {
        let onlyQR = RequestSet([BarcodeRequest(symbologies: [.qr])])
        #expect(try Fixture.analyze("barcodes/code128.png", onlyQR).barcodes?.isEmpty == true)
        #expect(try Fixture.analyze("barcodes/qr-hello.png", onlyQR).barcodes?.count == 1)
    }

    @Test func findsQRAndBarcodeOnTheGiftCardSample() throws {
        let codes = try #require(try Fixture.analyze("samples/gift-card.jpg", request).barcodes)
        let found = Set(codes.map { "\($0.symbology):\($0.payload)" })
        #expect(found == ["qr:https://example.com/redeem?card=603491205578", "code128:603491205578"])
    }

    @Test func findsNothingInPhotographsWithoutBarcodes() throws {
        // A reading on a negative image is a bug: the skimage and opencv-doc photos have no codes.
        let photos = [OpenCVSample.folder.path, DebianPhoto.folder.path].filter { FileManager.default.fileExists(atPath: $0) }
        let sources = InputCollector.collect(photos).filter { $0.kind == .image }
        #expect(sources.count >= 5)
        for source in sources {
            let analysis = try ImageRequestHandler(source: source).perform(request, engines: WorkerEngines()).analysis
            #expect(analysis.barcodes?.isEmpty == true, "\(source.path): \(analysis.barcodes?.map(\.payload) ?? [])")
        }
    }
}
