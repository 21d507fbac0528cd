import Foundation
import Testing

/// End-to-end: runs the built `analyze` binary as a user or a script would.
@Suite("The analyze command")
struct CommandLineTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var binary: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("analyze")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return Fixture.root.deletingLastPathComponent().appendingPathComponent(".build/debug/analyze")
    }

    func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func writesPNGSVGAndJSONPerImageAndExitsZero() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([Fixture.path("samples"), "-o", out.path, "--jobs", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        let stems = ["gift-card", "printed-page", "product-label", "receipt-exif6"]
        #expect(files == stems.flatMap { ["\($0).json", "\($0).png", "\($0).svg"] })
        // One line per image on stderr, plus the summary.
        #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 4)
        #expect(result.stderr.contains("ean13 \"5901234123457\""))
    }

    @Test func reportsEachBadFileAndExitsOne() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([Fixture.path("bad"), Fixture.path("barcodes/qr-hello.png"), "/no/such/file.jpg",
                              "--barcodes", "-o", out.path])
        #expect(result.status == 1)
        let failures = result.stderr.split(separator: "\n").filter { $0.hasPrefix("FAIL ") }
        #expect(failures.count == 6)
        #expect(failures.contains { $0.contains("huge.png") && $0.contains("--max-pixels") })
        #expect(failures.contains { $0.contains("/no/such/file.jpg") && $0.contains("no such file") })
        #expect(failures.contains { $0.contains("truncated.jpg") && $0.contains("truncated") })
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(files.sorted() == ["qr-hello.json", "qr-hello.png", "qr-hello.svg"])
    }

    @Test(arguments: [["--symbologies", "aztec", "x.png"], ["--jobs", "0", "x.png"], [], ["--no-such-flag", "x.png"]])
    func usageErrorsExitTwo(_ arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(!result.stderr.isEmpty)
    }

    @Test func helpExplainsEveryFlag() throws {
        let result = try run(["--help"])
        #expect(result.status == 0)
        for flag in ["--barcodes", "--text", "--symbologies", "--characters", "--languages", "--jobs", "--output",
                     "--max-pixels", "--no-png", "--no-svg", "--no-json", "--quiet", "Exit status"] {
            #expect(result.stdout.contains(flag), "help lacks \(flag)")
        }
    }

    @Test func restrictsSymbologiesFromTheCommandLine() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([Fixture.path("samples/gift-card.jpg"), "--barcodes", "--symbologies", "qr", "-o", out.path, "--no-png", "--no-svg"])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("gift-card.json"))) as? [String: Any]
        let codes = try #require(json?["barcodes"] as? [[String: Any]])
        #expect(codes.map { $0["symbology"] as? String } == ["qr"])
        #expect(json?["text"] == nil)
    }
}
