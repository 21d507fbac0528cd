import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Files are untrusted: headers, EXIF blocks and pixels built from random bytes must give an
/// error or a result, never a crash.
@Suite("Untrusted bytes")
struct UntrustedBytesTests {
    /// A small deterministic generator (xorshift), so a failure can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    static let signatures: [[UInt8]] = [
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8),
        [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x40] + Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8],
        [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0],
        Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBPVP8X".utf8),
        Array("GIF89a".utf8),
        [0x42, 0x4D],
    ]

    @Test(arguments: 0..<signatures.count)
    func randomBytesBehindARealSignatureNeverCrash(_ which: Int) throws {
        var generator = Generator(state: 0x9E37_79B9_7F4A_7C15 &+ UInt64(which))
        for _ in 0..<150 {
            let length = Int.random(in: 0..<600, using: &generator)
            let bytes = Self.signatures[which] + (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = ImageHeader(parsing: bytes)
            _ = ExifOrientationReader.orientationTag(in: bytes)
            _ = ImageHeader.isTruncatedJPEG(bytes)
            do {
                let image = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 4_000_000)
                #expect(image.width > 0 && image.height > 0)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func everyTruncationOfARealJPEGIsRefusedCleanly() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("orientation/orient-6.jpg"))))
        for cut in stride(from: 0, to: bytes.count - 2, by: max(1, bytes.count / 40)) {
            let prefix = Array(bytes.prefix(cut))
            #expect(throws: AnalysisError.self) {
                _ = try UprightImage(decoding: prefix, orientation: .up, maximumPixels: 4_000_000)
            }
            _ = ExifOrientationReader.orientationTag(in: prefix)
        }
    }
}
