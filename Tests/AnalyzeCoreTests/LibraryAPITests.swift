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

    /// Pixels another library decoded (a camera frame) are analysed as the image they show, in every layout.
    @Test func decodedPixelsAreAnalysedAsTheImageIs() throws {
        let portrait = DebianPhoto.folder.appendingPathComponent("astronaut.png")
        try #require(
            FileManager.default.fileExists(atPath: portrait.path), "run scripts/fetch-test-images (scripts/test does)")
        let fromFile = try ImageRequestHandler(url: portrait).perform(FaceRequest())
        // The same pixels as RGBA with padded rows, and as BGR, made here from the PNG's RGB.
        let rgb = try PixelBufferFixture.rgb(of: portrait)
        var rgba = [UInt8](repeating: 0, count: (rgb.width * 4 + 16) * rgb.height)
        var bgr = [UInt8](repeating: 0, count: rgb.width * 3 * rgb.height)
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let at = (y * rgb.width + x) * 3
                let padded = y * (rgb.width * 4 + 16) + x * 4
                rgba[padded] = rgb.bytes[at]
                rgba[padded + 1] = rgb.bytes[at + 1]
                rgba[padded + 2] = rgb.bytes[at + 2]
                rgba[padded + 3] = 255
                bgr[at] = rgb.bytes[at + 2]
                bgr[at + 1] = rgb.bytes[at + 1]
                bgr[at + 2] = rgb.bytes[at]
            }
        }
        let buffers = [
            try PixelBuffer(
                bytes: rgba, width: rgb.width, height: rgb.height, format: .rgba8, bytesPerRow: rgb.width * 4 + 16),
            try PixelBuffer(bytes: bgr, width: rgb.width, height: rgb.height, format: .bgr8),
        ]
        for buffer in buffers {
            let faces = try ImageRequestHandler(pixels: buffer).perform(FaceRequest())
            #expect(faces == fromFile)
        }
        // More pixels than allowed are refused before anything is copied or analysed.
        do {
            _ = try ImageRequestHandler(pixels: buffers[1], maximumPixels: rgb.width * rgb.height - 1).perform(
                FaceRequest())
            Issue.record("pixels over the limit were analysed")
        } catch {
            #expect(error.code == .tooLarge, "\(error)")
        }
        // Sizes that do not fit the bytes are refused, not read past the end.
        #expect(throws: AnalysisError.self) {
            try PixelBuffer(bytes: bgr, width: rgb.width, height: rgb.height + 1, format: .bgr8)
        }
        #expect(throws: AnalysisError.self) {
            try PixelBuffer(bytes: bgr, width: rgb.width, height: rgb.height, format: .bgr8, bytesPerRow: 2)
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

/// An image file's pixels as packed RGB, through Debian's python3-opencv (this test imports only
/// AnalyzeCore's public API, which decodes nothing without analysing).
enum PixelBufferFixture {
    static func rgb(of url: URL) throws -> (bytes: [UInt8], width: Int, height: Int) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("rgb-\(UUID().uuidString).raw")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import cv2,sys; i=cv2.cvtColor(cv2.imread(sys.argv[1], cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB); "
                + "open(sys.argv[2],'wb').write(i.tobytes()); print(i.shape[1], i.shape[0])",
            url.path, out.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let printed = String(decoding: readToEnd(pipe.fileHandleForReading), as: UTF8.self)
        process.waitUntilExit()
        let size = printed.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, size.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return ([UInt8](try Data(contentsOf: out)), size[0], size[1])
    }
}
