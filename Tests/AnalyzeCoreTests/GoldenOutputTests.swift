import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// The JSON (and SVG) of the existing kinds stays byte-identical through changes of the request
/// design: the outputs recorded in `Golden/` (see its README) are made again and compared.
@Suite("Golden outputs")
struct GoldenOutputTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let repository = Fixture.root.deletingLastPathComponent()

    /// Runs the command from the repository root (so `file` holds the recorded relative paths).
    func analyze(_ arguments: [String], into out: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = CommandLineTests.binary
        process.arguments = arguments + ["-o", out.path, "--jobs", "2", "--quiet"]
        process.currentDirectoryURL = Self.repository
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func compare(_ name: String, with out: URL, ignoring ignored: String? = nil) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.golden.appendingPathComponent(name).path)
            .sorted()
        #expect(files.count > 1)
        for file in files {
            var expected = try String(
                contentsOf: Self.golden.appendingPathComponent(name).appendingPathComponent(file), encoding: .utf8)
            var actual = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
            if let ignored {
                expected = expected.split(separator: "\n", omittingEmptySubsequences: false).filter {
                    !$0.contains(ignored)
                }.joined(separator: "\n")
                actual = actual.split(separator: "\n", omittingEmptySubsequences: false).filter {
                    !$0.contains(ignored)
                }.joined(separator: "\n")
            }
            #expect(actual == expected, "\(name)/\(file) differs from the recorded output")
        }
    }

    @Test func rectanglesBarcodesAndTextAreByteIdentical() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let status = try analyze(
            [
                "Fixtures/samples", "Fixtures/barcodes", "Fixtures/rects", "Fixtures/orientation", "Fixtures/text",
                "--rects", "--barcodes", "--text", "--no-png", "--no-svg",
            ], into: out)
        #expect(status == 0)
        try compare("still", with: out)
    }

    @Test func charactersAndTheSVGOverlayAreByteIdentical() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let status = try analyze(
            [
                "Fixtures/samples/gift-card.jpg", "Fixtures/samples/product-label.png", "--characters", "--text",
                "--rects", "--max-rects", "2", "--symbologies", "ean13,qr", "--barcodes",
            ], into: out)
        #expect(status == 0)
        // The SVG's image reference is relative to the output folder, which differs.
        try compare("characters", with: out, ignoring: "<image href=")
    }

    @Test func facesAndLandmarksAreByteIdentical() throws {
        let photos = Self.repository.appendingPathComponent(".models/test-images")
        try #require(
            FileManager.default.fileExists(atPath: photos.appendingPathComponent("astronaut.png").path),
            "run scripts/fetch-test-images")
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let status = try analyze(
            [
                "Fixtures/samples", ".models/test-images/astronaut.png", ".models/test-images/camera.png",
                ".models/test-images/chelsea.png", ".models/test-images/coffee.png", "--faces", "--landmarks",
                "--no-png", "--no-svg",
            ], into: out)
        #expect(status == 0)
        try compare("faces", with: out)
    }
}
