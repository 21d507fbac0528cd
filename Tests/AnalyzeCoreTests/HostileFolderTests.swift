import Foundation
import Testing
@testable import AnalyzeCore

/// Folders and streams as a hostile or unlucky user has them: the run never touches the inputs,
/// never hangs on special files, never reads without bound, and survives a closed or full stdout/stderr.
@Suite("Hostile folders and streams")
struct HostileFolderTests {
    let cli = CommandLineTests()

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
        for _ in 0 ..< 2 {
            let result = try cli.run([folder.path, "--barcodes", "-o", out, "--jsonl"])
            #expect(result.status == 0)
            #expect(result.stdout.split(separator: "\n").count == 1, "only cat.png is an input")
        }
    }

    @Test(.timeLimit(.minutes(1))) func specialFilesAreRefusedWithoutHanging() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(mkfifo(folder.appendingPathComponent("pipe.jpg").path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("zero.jpg").path, withDestinationPath: "/dev/zero")
        // A 3 GB sparse file with a JPEG signature: refused by its size, before a byte is read.
        let sparse = folder.appendingPathComponent("sparse.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: sparse)
        let handle = try FileHandle(forWritingTo: sparse)
        try handle.truncate(atOffset: 3 << 30)
        try handle.close()
        let result = try cli.run([folder.path, "--barcodes", "-o", folder.appendingPathComponent("out").path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("pipe.jpg: is a FIFO"))
        #expect(result.stderr.contains("zero.jpg: is a device"))
        #expect(result.stderr.contains("sparse.jpg: the file is 3221225472 bytes, over the limit"))
    }

    @Test func aClosedStdoutEndsTheJSONLinesQuietlyAndTheRunCompletes() throws {
        let (folder, _) = try folderWithAnImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = CommandLineTests.binary
        process.arguments = [folder.path, Fixture.path("samples"), "--barcodes", "--jsonl", "-o", out.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try pipe.fileHandleForReading.close()   // like `| head -c 0`
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.json").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.html").path))
    }

    @Test func aFullStderrDoesNotCrashTheRun() throws {
        let (folder, _) = try folderWithAnImage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = CommandLineTests.binary
        process.arguments = [folder.path, "--barcodes", "-o", out.path]
        process.standardError = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.json").path))
    }
}
