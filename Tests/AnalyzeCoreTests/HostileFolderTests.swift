import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput
@testable import AnalyzeReport

/// Folders and streams as a hostile or unlucky user has them: the run never touches the inputs,
/// never hangs on special files, never reads without bound, and survives a closed or full stdout/stderr.
@Suite("Hostile folders and streams")
struct HostileFolderTests {
    let cli = CommandLineTests()

    /// Runs the command with the given streams and waits for it; past `killAfter` seconds it is
    /// terminated (its `terminationReason` is then `.uncaughtSignal`).
    func run(_ arguments: [String], stdout: FileHandle, stderr: FileHandle, killAfter seconds: TimeInterval? = nil)
        throws -> Process
    {
        let process = Process()
        process.executableURL = CommandLineTests.binary
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = stderr
        let started = Date()
        try process.run()
        if let seconds {
            while process.isRunning && Date().timeIntervalSince(started) < seconds { usleep(20_000) }
            if process.isRunning { process.terminate() }
        }
        process.waitUntilExit()
        return process
    }

    func folderWithAnImage() throws -> (folder: URL, image: URL) {
        let folder = try Fixture.temporaryDirectory()
        let image = folder.appendingPathComponent("cat.png")
        try FileManager.default.copyItem(atPath: Fixture.path("barcodes/qr-hello.png"), toPath: image.path)
        return (folder, image)
    }

    @Test func anOutputFolderHoldingInputsIsRefusedAndTheInputsStayAsTheyWere() throws {
        let (folder, image) = try folderWithAnImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try Data(contentsOf: image)
        let result = try cli.run([folder.path, "--barcodes", "-o", folder.path])
        #expect(result.status == 2 && result.stderr.contains("outputs never go where inputs are read from"))
        #expect(try Data(contentsOf: image) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cat.png"])
    }

    @Test func aRunNeverAnalysesItsOwnOutputs() throws {
        let (folder, _) = try folderWithAnImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out").path
        for _ in 0..<2 {
            let result = try cli.run([folder.path, "--barcodes", "-o", out, "--jsonl"])
            #expect(result.status == 0)
            #expect(result.stdout.split(separator: "\n").count == 1, "only cat.png is an input")
        }
    }

    /// The guard against a hang is the command's own time, not a time limit on the test: in a fresh-clone
    /// CI run the 1-minute limit fired on this test, which takes 0.2 s alone, most likely while it waited
    /// for a thread (under `swift test`'s parallel run on two cores, the tests that wait for long runs of
    /// the command hold the threads; not proven).
    @Test func specialFilesAreRefusedWithoutHanging() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("zero.jpg").path, withDestinationPath: "/dev/zero")
        // A 3 GB sparse file with a JPEG signature: refused by its size, before a byte is read.
        let sparse = folder.appendingPathComponent("sparse.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: sparse)
        let handle = try FileHandle(forWritingTo: sparse)
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        // The command's output goes to files (nothing waits on a pipe) and it gets 60 s: it takes a
        // fraction of a second unless it opens the FIFO or reads the device.
        let logs = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: logs) }
        let stderrFile = logs.appendingPathComponent("stderr.txt")
        #expect(FileManager.default.createFile(atPath: stderrFile.path, contents: nil))
        let stderrHandle = try FileHandle(forWritingTo: stderrFile)
        let process = try run(
            [folder.path, "--barcodes", "-o", folder.appendingPathComponent("out").path],
            stdout: FileHandle.nullDevice, stderr: stderrHandle, killAfter: 60)
        try stderrHandle.close()
        #expect(process.terminationReason == .exit, "the command was still running after 60 s")
        let result = (
            status: process.terminationStatus, stderr: String(decoding: try Data(contentsOf: stderrFile), as: UTF8.self)
        )
        #expect(result.status == 1)
        #expect(result.stderr.contains("pipe.jpg: is a FIFO"))
        #expect(result.stderr.contains("zero.jpg: is a device"))
        #expect(result.stderr.contains("sparse.jpg: the file is 3221225472 bytes, over the limit"))
    }

    @Test func aClosedStdoutEndsTheJSONLinesQuietlyAndTheRunCompletes() throws {
        let (folder, _) = try folderWithAnImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()  // like `| head -c 0`
        let process = try run(
            [folder.path, Fixture.path("samples"), "--barcodes", "--jsonl", "-o", out.path],
            stdout: pipe.fileHandleForWriting, stderr: FileHandle.nullDevice)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.json").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.html").path))
    }

    @Test func aFullStderrDoesNotCrashTheRun() throws {
        let (folder, _) = try folderWithAnImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let process = try run(
            [folder.path, "--barcodes", "-o", out.path],
            stdout: FileHandle.nullDevice, stderr: try #require(FileHandle(forWritingAtPath: "/dev/full")))
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.json").path))
    }

    /// Only an image whose size was read from its header reaches a decoder.
    @Test func aDamagedHeaderOrAnotherFormatNeverReachesTheDecoder() throws {
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        let sof = try #require(
            (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
        // A frame header cut short (its marker and length, then the end of the file): no size, no decoder.
        let error = try #require(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: Array(jpeg.prefix(sof + 4)), orientation: .up, maximumPixels: 1_000)
        }
        #expect(error.code == .undecodable && error.message.contains("not decoded"))
        // A stray byte before it is skipped as libjpeg skips it (ImageHeaderTests): the size is read, and checked.
        jpeg.insert(0x00, at: sof)
        #expect(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: jpeg, orientation: .up, maximumPixels: 1_000)
        }
        let pfm = Array("PF\n100000 100000\n-1.0\n".utf8) + [UInt8](repeating: 0, count: 64)
        #expect(throws: AnalysisError.self) {
            _ = try UprightImage(
                decoding: pfm, orientation: .up, maximumPixels: ImageRequestHandler.defaultMaximumPixels)
        }
    }

    /// A name holding an escape sequence, a newline and a right-to-left override is shown escaped on
    /// stderr (no terminal rewritten, no line a CI log takes for its own) and kept exactly in the JSON.
    @Test func aHostileFileNameReachesStderrEscaped() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        let name = "a\u{1B}[2J\n::warning::x\u{202E}gnp.png"
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/qr-hello.png"), toPath: inputs.appendingPathComponent(name).path)
        let out = folder.appendingPathComponent("out")
        let result = try cli.run([inputs.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            !result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{202E}")
                && !result.stderr.contains("\n::warning"), "\(result.stderr)")
        #expect(
            result.stderr.contains("a\\x1b[2J\\x0a::warning::x\\u202egnp.png: 264x264, 1 barcode(s)"),
            "\(result.stderr)")
        let json = try FileManager.default.contentsOfDirectory(atPath: out.path).filter {
            $0.hasSuffix(".json") && $0 != "summary.json"
        }
        let object =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: out.appendingPathComponent(try #require(json.first)))) as? [String: Any]
        #expect((object?["file"] as? String)?.hasSuffix("/" + name) == true)
    }

    @Test func aNameNearTheFileSystemLimitIsAnalysed() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name = String(repeating: "猫", count: 83) + ".png"  // 249 + 4 bytes
        try FileManager.default.copyItem(
            atPath: Fixture.path("barcodes/qr-hello.png"), toPath: folder.appendingPathComponent(name).path)
        let out = folder.appendingPathComponent("out")
        let result = try cli.run([folder.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(written.contains { $0.hasSuffix(".json") && $0 != "summary.json" })
        #expect(written.allSatisfy { $0.utf8.count <= 255 })
    }
}

@Suite("Output names")
struct OutputNameTests {
    @Test func everyInputGetsItsOwnOutputNameWhateverTheNames() throws {
        let hashed = "x-" + InputCollector.stableHash("a/x.png")
        let paths = [
            "a/x.png", "b/x.jpg", "c/\(hashed).png", "summary.jpg", "Index.png", "card.jpg", "card.rect-1.png",
            "summary.shard-0-of-2.png", "d/X.png",
        ]
        let names = InputCollector.name(paths).map(\.outputName)
        #expect(Set(names.map { $0.lowercased() }).count == paths.count, "\(names)")
        #expect(
            !names.contains {
                ["summary", "index"].contains($0.lowercased()) || $0.lowercased().hasPrefix("summary.shard-")
            })
        // With --rectify, card's first crop is card.rect-1.png: the input named so must not take it.
        let layout = OutputLayout(sideOutputs: ["rectify": true])
        let rectangle = RectangleObservation(
            topLeft: PixelPoint(x: 1, y: 1), topRight: PixelPoint(x: 9, y: 1), bottomRight: PixelPoint(x: 9, y: 9),
            bottomLeft: PixelPoint(x: 1, y: 9), confidence: 1)
        var files = Set<String>()
        for (path, name) in zip(paths, names) {
            var analysis = ImageAnalysis(file: path, orientation: 1, width: 10, height: 10)
            analysis.set([rectangle, rectangle], for: .rectangles)
            let all = layout.files(for: analysis, input: path, sideOutputs: RequestRegistry.sideOutputs)
            #expect(all.count == 5)
            for file in all {
                #expect(files.insert(layout.name(of: file, for: name, input: path).lowercased()).inserted)
            }
        }
        // Plain names stay plain.
        #expect(InputCollector.name(["p/cat.jpg", "q/dog.png"]).map(\.outputName) == ["cat", "dog"])
        // The same names whatever the order.
        let reversed = InputCollector.name(paths.reversed()).reduce(into: [String: String]()) {
            $0[$1.path] = $1.outputName
        }
        #expect(InputCollector.name(paths).allSatisfy { reversed[$0.path] == $0.outputName })
    }
}

@Suite("One request's failure")
struct RequestFailureTests {
    @Test func aFailingRequestKeepsTheOthersResultsAndIsReported() throws {
        let source = ImageSource(path: Fixture.path("samples/product-label.png"), outputName: "x")
        let requests = RequestSet([BarcodeRequest(), TextRequest(languages: "no-such-language")])
        let outcomes = try BatchRunner(sources: [source], requests: requests, output: nil, jobs: 1).run()
        let outcome = try #require(outcomes.first)
        let analysis = try #require(outcome.analysis)
        #expect(analysis.barcodes?.map(\.payload) == ["5901234123457"])
        #expect(analysis.text == nil && analysis.requestErrors["text"]?.code == "engine-unavailable")
        #expect(outcome.isFailure && outcome.digest.status == .partial)
        #expect(
            outcome.line(quiet: false)?.contains("text failed") == true
                && outcome.line(quiet: false)?.contains("kept: 1 barcode(s)") == true)
        // The JSON says so, and reads back (for --resume).
        let json = try JSONRenderer.encode(analysis)
        #expect(String(decoding: json, as: UTF8.self).contains("\"errors\""))
        #expect(try JSONDecoder().decode(ImageAnalysis.self, from: Data(json)) == analysis)
    }

    /// Tesseract refuses a side over 32767 px: such a page is read scaled, and keeps its barcode.
    @Test func aPage33000PixelsTallKeepsItsBarcodeAndItsText() throws {
        let label = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/product-label.png"))))
        ).0
        let tall = try label.resized(width: 640, height: 33_000).pngData()
        let source = ImageSource(path: "tall.png", outputName: "tall")
        let analysis = try ImageRequestHandler(source: source).perform(
            RequestSet([BarcodeRequest(), TextRequest()]), engines: WorkerEngines(), bytes: tall
        ).analysis
        #expect(analysis.requestErrors.isEmpty)
        #expect(analysis.barcodes?.first?.payload == "5901234123457")
        #expect(analysis.text != nil)
        // Boxes are in the pixels of the 33,000 px image.
        #expect((analysis.barcodes?.first?.boundingBox.maxY ?? 0) > 10_000)
    }
}

@Suite("File names that are not UTF-8")
struct RawFileNameTests {
    @Test func anyBytesSurviveTheRoundTrip() {
        var g = UntrustedBytesTests.Generator(state: 7)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<40, using: &g)).map { _ in UInt8.random(in: 1...255, using: &g) }
            #expect(FilePathBytes.raw(FilePathBytes.string(fromRaw: bytes)) == bytes)
        }
        #expect(FilePathBytes.string(fromRaw: Array("café".utf8)) == "café")
    }

    @Test func aLatin1NameIsFoundReadAndNamedSafely() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".png".utf8)  // "café.png" in ISO-8859-1
        let path = FilePathBytes.string(fromRaw: Array(folder.path.utf8) + [0x2F] + name)
        let source = try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png")))
        let fd = FilePathBytes.withCString(path) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        #expect(fd >= 0)
        _ = source.withUnsafeBytes { write(fd, $0.baseAddress, source.count) }
        close(fd)
        let cli = CommandLineTests()
        // Found in a folder...
        let out = folder.appendingPathComponent("out")
        let scan = try cli.run([folder.path, "--barcodes", "-o", out.path, "--jsonl"])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("Hello, analyze!"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("caf_.json").path))
        // ...and named in a --files-from list, byte for byte.
        let list = folder.appendingPathComponent("list.txt")
        try Data(FilePathBytes.raw(path) + [0x0A]).write(to: list)
        let listed = try cli.run([
            "--files-from", list.path, "--barcodes", "-o", folder.appendingPathComponent("out2").path,
        ])
        #expect(listed.status == 0, "\(listed.stderr)")
        // The SVG links to the real bytes, percent-encoded.
        let svg = try String(contentsOf: out.appendingPathComponent("caf_.svg"), encoding: .utf8)
        #expect(svg.contains("caf%E9.png"))
    }
}
