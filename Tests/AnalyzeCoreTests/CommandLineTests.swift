import CHeif
import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// End-to-end: runs the built `analyze` binary as a user or a script would.
@Suite("The analyze command")
struct CommandLineTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var binary: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("analyze")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return Fixture.root.deletingLastPathComponent().appendingPathComponent(".build/debug/analyze")
    }

    func run(_ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil) throws -> Run {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let (stdout, stderr) = readToEnd(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func writesPNGSVGAndJSONPerImageAndExitsZero() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([Fixture.path("samples"), "-o", out.path, "--jobs", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        // The annotated image of a JPEG photo is a JPEG, of a PNG scan a PNG (--annotated-format auto).
        let images = ["gift-card": "jpg", "printed-page": "png", "product-label": "png", "receipt-exif6": "jpg"]
        #expect(
            files
                == (images.flatMap { ["\($0.key).json", "\($0.key).\($0.value)", "\($0.key).svg"] } + [
                    "index.html", "summary.json",
                ]).sorted())
        // One line per image on stderr, plus the summary.
        #expect(result.stderr.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 4)
        #expect(result.stderr.contains("ean13 \"5901234123457\""))
    }

    @Test func reportsEachBadFileAndExitsOne() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([
            Fixture.path("bad"), Fixture.path("barcodes/qr-hello.png"), "/no/such/file.jpg",
            "--barcodes", "-o", out.path,
        ])
        #expect(result.status == 1)
        let failures = result.stderr.split(separator: "\n").filter { $0.hasPrefix("FAIL ") }
        #expect(failures.count == 6)
        #expect(failures.contains { $0.contains("huge.png") && $0.contains("--max-pixels") })
        #expect(failures.contains { $0.contains("/no/such/file.jpg") && $0.contains("no such file") })
        #expect(failures.contains { $0.contains("truncated.jpg") && $0.contains("truncated") })
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(files.sorted() == ["index.html", "qr-hello.json", "qr-hello.png", "qr-hello.svg", "summary.json"])
    }

    @Test(arguments: [
        ["--symbologies", "telepen", "x.png"], ["--jobs", "0", "x.png"], [], ["--no-such-flag", "x.png"],
    ])
    func usageErrorsExitTwo(_ arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 2)
        #expect(!result.stderr.isEmpty)
    }

    @Test func subcommandsBehaveAsUsersExpect() throws {
        let version = try run(["version"])
        #expect(version.status == 0 && !version.stdout.isEmpty)
        #expect(try run(["--version"]).stdout == version.stdout)
        let help = try run(["help"])
        #expect(help.status == 0 && help.stdout.contains("report"))
        #expect(try run(["help", "report"]).stdout.contains("Merge the outputs of sharded runs"))
        // Usage errors exit 2 in every subcommand, and a typo is not taken for an image.
        #expect(try run(["report"]).status == 2)
        #expect(try run(["report", "--no-such-flag", "x"]).status == 2)
        let typo = try run(["reprot"])
        #expect(typo.status == 2 && typo.stderr.contains("analyze report"))
        #expect(try run(["run", "--require", "no-such-kind", "x.png"]).status == 2)
    }

    @Test func annotatedImagesCanBeForcedToAFormatAndScaledDown() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([
            Fixture.path("samples/gift-card.jpg"), Fixture.path("samples/printed-page.png"), "--barcodes",
            "--annotated-format", "jpg", "--annotated-max-side", "200", "-o", out.path,
        ])
        #expect(result.status == 0)
        for name in ["gift-card.jpg", "printed-page.jpg"] {
            let bytes = [UInt8](try Data(contentsOf: out.appendingPathComponent(name)))
            #expect(bytes.starts(with: [0xFF, 0xD8, 0xFF]))
            let header = try #require(ImageHeader(parsing: bytes))
            #expect(max(header.width, header.height) == 200)
        }
        // The JSON keeps full-size coordinates, and the report links the files that exist.
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("printed-page.json")))
            as? [String: Any]
        #expect(json?["width"] as? Int == 820)
        let html = try String(contentsOf: out.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("href=\"printed-page.jpg\"") && !html.contains("href=\"printed-page.png\""))
        // --resume finds them: nothing is redone.
        let again = try run([
            Fixture.path("samples/gift-card.jpg"), Fixture.path("samples/printed-page.png"), "--barcodes",
            "--annotated-format", "jpg", "--annotated-max-side", "200", "-o", out.path, "--resume",
        ])
        #expect(
            again.stderr.split(separator: "\n").filter { $0.hasPrefix("ok ") && $0.contains("up to date (resumed)") }
                .count == 2)
    }

    /// A first hour's mistakes are usage errors that say what is wrong, with the right usage, and
    /// leave nothing behind: a typo for a folder, a camera that is not there, an unknown help topic,
    /// a report of a folder that does not exist.
    @Test func mistakesAreUsageErrorsThatLeaveNothingBehind() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let typo = try run(["photos"], in: folder)
        #expect(
            typo.status == 2 && typo.stderr.contains("no such file, folder or device: photos")
                && typo.stderr.contains("Usage: analyze "))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "a typo left outputs behind")
        let camera = try run(["/dev/video97", "-o", folder.appendingPathComponent("out").path])
        #expect(camera.status == 2 && camera.stderr.contains("no such file, folder or device: /dev/video97"))
        let help = try run(["help", "nosuch"])
        #expect(help.status == 2 && help.stderr.contains("no such subcommand 'nosuch'"))
        let report = try run(["report", "/nonexistent-folder"])
        #expect(
            report.status == 2 && report.stderr.contains("no such folder")
                && report.stderr.contains("Usage: analyze report"))
    }

    @Test func helpExplainsEveryFlag() throws {
        let result = try run(["--help"])
        #expect(result.status == 0)
        for flag in [
            "--rects", "--min-aspect-ratio", "--max-aspect-ratio", "--quadrature-tolerance", "--min-size",
            "--min-confidence",
            "--max-rects", "--rectify", "--faces", "--landmarks", "--face-detector", "--face-model",
            "--min-face-confidence",
            "--barcodes", "--text", "--symbologies", "--characters", "--languages", "--min-text-confidence", "--jobs",
            "--output",
            "--max-pixels", "--no-png", "--no-svg", "--no-json", "--quiet", "--jsonl", "--require", "--forbid",
            "--junit",
            "--files-from", "--resume", "--shard", "analyze report", "analyze models", "Exit status",
            "--objects", "--min-object-confidence", "--classify", "--max-labels", "--min-label-confidence", "--model",
            "--labels", "--model-config", "--model-input", "--model-preprocessing", "--model-min-confidence",
            "--max-file-bytes", "--annotated-format", "--annotated-max-side",
        ] {
            #expect(result.stdout.contains(flag), "help lacks \(flag)")
        }
    }

    /// `--help` and the flags reference (docs/flags.md) agree: every flag the parser knows, in `analyze`
    /// and its subcommands, is in a table row there, and every flag a row starts with is one the parser
    /// knows (a renamed or removed flag fails here). `scripts/update-docs flags` writes that page from the help.
    @Test func helpAndTheFlagsReferenceAgree() throws {
        func flags(_ text: Substring) -> Set<String> {
            Set(text.matches(of: /--[a-z][a-z0-9-]*/).map { String($0.output) })
        }
        var known = Set<String>()
        for command in [["--help"], ["help", "report"], ["help", "similar"], ["help", "models"]] {
            let help = try run(command).stdout
            for line in help.split(separator: "\n") {
                if let match = line.firstMatch(of: /^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)(?:\/(--[a-z][a-z0-9-]*))?/) {
                    known.insert(String(match.output.1))
                    if let negative = match.output.2 { known.insert(String(negative)) }
                }
            }
        }
        known.subtract(["--help", "--version"])
        #expect(known.count > 60)
        let page = Fixture.root.deletingLastPathComponent().appendingPathComponent("docs/flags.md")
        let reference = try String(contentsOf: page, encoding: .utf8)
        let rows = reference.split(separator: "\n").filter { $0.hasPrefix("| `-") }
        let described = rows.reduce(into: Set<String>()) { $0.formUnion(flags($1)) }
        let leading = rows.reduce(into: Set<String>()) { $0.formUnion(flags($1.split(separator: "|").first ?? "")) }
        #expect(
            known.subtracting(described).isEmpty,
            "flags missing from docs/flags.md: \(known.subtracting(described).sorted())")
        #expect(
            leading.subtracting(known).isEmpty,
            "docs/flags.md rows for flags the parser does not know: \(leading.subtracting(known).sorted())")
    }

    @Test func restrictsSymbologiesFromTheCommandLine() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try run([
            Fixture.path("samples/gift-card.jpg"), "--barcodes", "--symbologies", "qr", "-o", out.path, "--no-png",
            "--no-svg",
        ])
        #expect(result.status == 0)
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("gift-card.json")))
            as? [String: Any]
        let codes = try #require(json?["barcodes"] as? [[String: Any]])
        #expect(codes.map { $0["symbology"] as? String } == ["qr"])
        #expect(json?["text"] == nil)
    }

    /// What the dynamic loader did during one run of `arguments`: its `LD_DEBUG` log of `debug` (`files`:
    /// the libraries it loaded; `bindings`: the symbols it bound), written into `out` under `name`.
    func loaderLog(_ name: String, _ arguments: [String], debug: String = "files", logsIn out: URL) throws -> (
        status: Int32, log: String
    ) {
        let log = out.appendingPathComponent("ld-\(name)")
        let result = try run(arguments, environment: ["LD_DEBUG": debug, "LD_DEBUG_OUTPUT": log.path])
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("ld-\(name).") }
        let text = try files.map { try String(contentsOf: out.appendingPathComponent($0), encoding: .utf8) }.joined()
        return (result.status, text)
    }

    @Test func tesseractAndLibheifAreLoadedOnlyWhenNeeded() throws {
        // libtesseract brings some forty libraries (curl, NSS, GnuTLS, Kerberos…), libheif its codecs
        // (libde265, x265, aom, dav1d): they slowed every start.
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let tesseract = "libtesseract.so", curl = "libcurl", heif = "libheif.so", de265 = "libde265"
        let version = try loaderLog("version", ["--version"], logsIn: out)
        #expect(version.status == 0)
        #expect(version.log.contains("libopencv_core"), "LD_DEBUG had no effect")
        for library in [tesseract, curl, heif, de265] { #expect(!version.log.contains(library), "\(library)") }

        let page = Fixture.path("samples/printed-page.png")
        let rects = try loaderLog(
            "rects", [page, "--rects", "--barcodes", "-o", out.appendingPathComponent("rects").path], logsIn: out)
        #expect(rects.status == 0)
        #expect(!rects.log.contains(tesseract) && !rects.log.contains(heif))

        let photo = out.appendingPathComponent("IMG_0001.HEIC")
        try Data(try HEIFTests.heic(try HEIFTests.upright(), orientation: heif_orientation_normal)).write(to: photo)
        let heic = try loaderLog(
            "heic", [photo.path, "--rects", "-o", out.appendingPathComponent("heic").path], logsIn: out)
        #expect(heic.status == 0)
        #expect(heic.log.contains(heif) && !heic.log.contains(tesseract))

        let text = try loaderLog("text", [page, "--text", "-o", out.appendingPathComponent("text").path], logsIn: out)
        #expect(text.status == 0)
        #expect(text.log.contains(tesseract))
        let json = try String(contentsOf: out.appendingPathComponent("text/printed-page.json"), encoding: .utf8)
        #expect(json.contains("Quarterly Maintenance Notice"))
    }

    /// The executable links tcmalloc: glibc's `malloc_trim`, which ``ProcessMemory`` calls between images
    /// under glibc's malloc, must never run there (two workers' first calls raced in glibc's heap set-up
    /// and crashed once). The loader binds a function on its first call, so the binding log shows whether
    /// it was ever called.
    @Test func theExecutableNeverCallsGlibcsMallocTrim() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let run = try loaderLog(
            "trim",
            [
                Fixture.path("barcodes/qr-hello.png"), Fixture.path("barcodes/ean13.png"), Fixture.path("samples"),
                "--rects", "--jobs", "2", "-o", out.appendingPathComponent("trim").path,
            ], debug: "bindings", logsIn: out)
        #expect(run.status == 0)
        #expect(run.log.contains("normal symbol"), "LD_DEBUG had no effect")
        #expect(!run.log.contains("`malloc_trim'"))
    }

    /// OpenCV's image codecs (which load GDAL and some seventy libraries more: 80 ms at every start)
    /// are opened only for an image that needs them: not for `--version`, nor for JPEG and PNG photos
    /// with their annotated JPEG and PNG; a TIFF is still read. The dynamic loader says what it loads
    /// (`LD_DEBUG=files`, written to `LD_DEBUG_OUTPUT.<pid>`).
    @Test func imageCodecsAreLoadedOnlyForImagesThatNeedThem() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        func loaded(_ name: String, _ arguments: [String]) throws -> (status: Int32, log: String) {
            try loaderLog(name, arguments, logsIn: out)
        }
        let codecs = "libopencv_imgcodecs"
        let version = try loaded("version", ["--version"])
        #expect(version.status == 0)
        #expect(version.log.contains("libopencv_core"), "LD_DEBUG had no effect")
        #expect(!version.log.contains(codecs))

        let photos = try loaded(
            "photos",
            [
                Fixture.path("samples/gift-card.jpg"), Fixture.path("samples/product-label.png"), "--barcodes",
                "-o", out.appendingPathComponent("photos").path,
            ])
        #expect(photos.status == 0)
        #expect(!photos.log.contains(codecs))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("photos/gift-card.jpg").path))

        let tiff = out.appendingPathComponent("page.tif")
        try Data(MutationFuzzTests.tiff()).write(to: tiff)
        let scan = try loaded("scan", [tiff.path, "--rects", "-o", out.appendingPathComponent("scan").path])
        #expect(scan.status == 0)
        #expect(scan.log.contains(codecs))
    }
}

@Suite("The analyze command in CI")
struct CommandLineCITests {
    let cli = CommandLineTests()

    @Test func jsonlPrintsOneObjectPerImageAndRequireFailsTheRun() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try cli.run([
            Fixture.path("barcodes/qr-hello.png"), Fixture.path("barcodes/none.png"), Fixture.path("bad/empty.jpg"),
            "--jsonl", "--require", "barcodes", "-o", out.path, "--junit", out.appendingPathComponent("junit.xml").path,
        ])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        let objects = try lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.filter { $0["error"] != nil }.count == 1)
        let hello = try #require(objects.first { ($0["file"] as? String)?.hasSuffix("qr-hello.png") == true })
        // The line holds the same content as the image's JSON file.
        let file =
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("qr-hello.json")))
            as? NSDictionary
        #expect(NSDictionary(dictionary: hello) == file)
        #expect(result.stderr.contains("--require barcodes: no barcodes found"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.html").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.json").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("junit.xml").path))
    }

    @Test func filesFromStandardInput() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = CommandLineTests.binary
        process.arguments = ["--files-from", "-", "--barcodes", "-o", out.path, "--quiet"]
        let input = Pipe()
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(
            Data("\(Fixture.path("barcodes/qr-hello.png"))\n\n\(Fixture.path("barcodes/code128.png"))\n".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let jsons = try FileManager.default.contentsOfDirectory(atPath: out.path).filter {
            $0.hasSuffix(".json") && $0 != "summary.json"
        }
        #expect(jsons.sorted() == ["code128.json", "qr-hello.json"])
    }

    @Test func shardsOnTheCommandLineMergeIntoOneReport() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        for k in 0..<3 {
            let result = try cli.run([
                Fixture.path("barcodes"), "--barcodes", "--shard", "\(k)/3", "-o", out.path, "--no-png", "--no-svg",
                "--quiet",
            ])
            #expect(result.status == 0)
            #expect(
                FileManager.default.fileExists(atPath: out.appendingPathComponent("summary.shard-\(k)-of-3.json").path))
        }
        let merged = try cli.run(["report", out.path])
        #expect(merged.status == 0, "\(merged.stderr)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
                as? [String: Any])
        let images = try #require(summary["images"] as? [String: Any])
        #expect(images["total"] as? Int == InputCollector.collect([Fixture.path("barcodes")]).count)
        #expect(try cli.run(["report", "/nonexistent-folder"]).status == 2)
    }
}

@Suite("Interrupting the analyze command")
struct InterruptTests {
    @Test func ctrlCLeavesOnlyCompleteOutputsAndNoTemporaryFiles() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = CommandLineTests.binary
        // Enough work that the interrupt lands mid-run.
        let inputs = [
            Fixture.path("samples"), Fixture.path("orientation"), Fixture.path("rects"), Fixture.path("text"),
        ]
        process.arguments = inputs + ["--barcodes", "--text", "--rects", "-o", out.path, "--jobs", "2", "--quiet"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 0.8)
        process.interrupt()
        process.waitUntilExit()
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(!files.contains { $0.hasPrefix(".") || $0.hasSuffix(".tmp") })
        if process.terminationReason == .exit && process.terminationStatus == 130 {
            // Whatever was written is complete: every JSON parses.
            for name in files where name.hasSuffix(".json") {
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(name)))) != nil
                )
            }
        } else {
            // The run finished before the interrupt arrived; then it must have succeeded.
            #expect(process.terminationStatus == 0)
        }
    }
}
