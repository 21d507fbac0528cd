import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

@Suite("EXIF orientation")
struct OrientationTests {
    /// Every stored variant shows the same upright 480×320 image: "UPRIGHT" at the top, the QR
    /// code at the top-left. Checked through both engines, so a wrong transform cannot pass.
    @Test(arguments: 1...8)
    func appliesOrientationBeforeAnyRequest(_ tag: Int) throws {
        let analysis = try Fixture.analyze("orientation/orient-\(tag).jpg", .all)
        #expect(analysis.orientation == tag)
        #expect(analysis.width == 480 && analysis.height == 320)
        #expect(analysis.warnings.isEmpty)
        let code = try #require(analysis.barcodes?.first)
        #expect(code.payload == "TOP-LEFT")
        #expect(code.boundingBox.center.x < 240 && code.boundingBox.center.y > 100)
        let line = try #require(analysis.text?.first { $0.string.contains("UPRIGHT") })
        #expect(line.boundingBox.center.y < 110)
    }

    @Test func treatsAnInvalidTagAsUprightWithAWarning() throws {
        let analysis = try Fixture.analyze("orientation/orient-invalid.jpg", RequestSet([BarcodeRequest()]))
        #expect(analysis.orientation == 1)
        #expect(analysis.width == 480 && analysis.height == 320)
        #expect(analysis.warnings.count == 1)
        #expect(analysis.barcodes?.first?.payload == "TOP-LEFT")
    }

    @Test func readsTheTagWithLibexif() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("orientation/orient-6.jpg"))))
        #expect(ExifOrientationReader.orientationTag(in: bytes) == .valid(.right))
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png"))))
        #expect(ExifOrientationReader.orientationTag(in: png) == .absent)
    }

    @Test func survivesGarbageThatLooksLikeExif() {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x20] + Array("Exif\0\0MM\0*".utf8)
        bytes += [UInt8](repeating: 0xFF, count: 40)
        #expect(ExifOrientationReader.orientationTag(in: bytes) != .valid(.right))
        #expect(ExifOrientationReader.orientationTag(in: []) == .absent)
    }
}
