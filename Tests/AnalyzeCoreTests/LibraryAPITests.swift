import AnalyzeCore
import Foundation
import Testing

/// The API a Swift program uses (a plain `import AnalyzeCore`: public names only), like Vision's
/// `ImageRequestHandler(url).perform(request)`.
@Suite("Library API")
struct LibraryAPITests {
    let card = URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))

    @Test func oneRequestGivesItsTypedResult() throws {
        let codes: [BarcodeObservation] = try ImageRequestHandler(url: card).perform(BarcodeRequest())
        #expect(Set(codes.map(\.payload)) == ["https://example.com/redeem?card=603491205578", "603491205578"])
    }

    @Test func twoRequestsShareOneDecoding() throws {
        let (codes, page) = try ImageRequestHandler(url: card).perform(BarcodeRequest(), TextRequest(gate: .auto))
        #expect(codes.count == 2)
        #expect(page.lines.first?.string == "GIFT CARD")
    }

    @Test func theAsyncVariantRunsOffTheCallersTask() async throws {
        let portrait = DebianPhoto.folder.appendingPathComponent("astronaut.png")
        try #require(
            FileManager.default.fileExists(atPath: portrait.path), "run scripts/fetch-test-images (scripts/test does)")
        let faces = try await ImageRequestHandler(url: portrait).perform(FaceRequest())
        #expect(faces.count == 1)
    }

    /// Bytes in memory (an upload) give what the file gives; nothing is read from disk, not even a file
    /// that happens to have the handler's name.
    @Test func bytesInMemoryAreAnalysedAsTheFileIs() throws {
        let bytes = try Data(contentsOf: card)
        let codes = try ImageRequestHandler(data: bytes, name: "upload-1").perform(BarcodeRequest())
        #expect(Set(codes.map(\.payload)) == ["https://example.com/redeem?card=603491205578", "603491205578"])
        // A typeset PDF's first page, its own words; named as a real file, which must not be what poppler reads.
        let pdf = Data(
            PDFDocumentTests.pdf([PDFDocumentTests.textPage("BT /F1 24 Tf 72 700 Td (Invoice 2026-11) Tj ET")]))
        let page = try ImageRequestHandler(data: pdf, name: card.path).perform(TextRequest())
        #expect(page.lines.map(\.string) == ["Invoice 2026-11"])
        #expect(throws: AnalysisError.self) {
            try ImageRequestHandler(data: Data("not an image".utf8)).perform(BarcodeRequest())
        }
        do {
            _ = try ImageRequestHandler(data: Data(bytes.prefix(200)), name: "cut.jpg").perform(BarcodeRequest())
            Issue.record("a truncated JPEG was decoded")
        } catch {
            #expect(error.file == "cut.jpg", "\(error)")
        }
    }

    @Test func aMissingFileIsAnAnalysisError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/analyze/photo.jpg")
        #expect(throws: AnalysisError.self) { try ImageRequestHandler(url: missing).perform(BarcodeRequest()) }
        do {
            _ = try ImageRequestHandler(url: missing).perform(BarcodeRequest())
        } catch {
            #expect(error.code == .missingFile, "\(error)")
        }
    }

    /// Calls from many tasks at once each get engines of their own (``SharedEngines``) and the same answer.
    @Test func concurrentCallsGetTheSameAnswer() async throws {
        let handler = ImageRequestHandler(url: card)
        let payloads = try await withThrowingTaskGroup(of: Set<String>.self) { group in
            for _ in 0..<4 { group.addTask { Set(try await handler.perform(BarcodeRequest()).map(\.payload)) } }
            return try await group.reduce(into: [Set<String>]()) { $0.append($1) }
        }
        #expect(
            payloads == Array(repeating: ["https://example.com/redeem?card=603491205578", "603491205578"], count: 4))
    }
}
