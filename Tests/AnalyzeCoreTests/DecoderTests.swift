import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// JPEG and PNG are decoded with libjpeg/libpng directly, set up as OpenCV 4.6 sets them up, so
/// that their warnings become the image's warnings instead of lines on stderr.
@Suite("Decoding")
struct DecoderTests {
    /// Every JPEG and PNG the tests have: the fixtures and the Debian photos, and the folders in
    /// `$ANALYZE_DECODER_CHECK` (colon-separated: to check other collections, e.g. ../shared).
    static func images() -> [String] {
        let extra =
            ProcessInfo.processInfo.environment["ANALYZE_DECODER_CHECK"].map {
                $0.split(separator: ":").map(String.init)
            } ?? []
        let folders =
            ["samples", "barcodes", "symbologies", "rects", "orientation", "text"].map(Fixture.path)
            + [DebianPhoto.folder.path, OpenCVSample.folder.path] + extra
        return InputCollector.collect(folders).map(\.path).filter { path in
            let lower = path.lowercased()
            return lower.hasSuffix(".png") || lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg")
        }
    }

    @Test func givesExactlyOpenCVsPixels() throws {
        let paths = Self.images()
        #expect(paths.count > 40)
        for path in paths {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let (direct, _) = try OpenCVMat.decode(bytes)
            // OpenCV's own libpng reader prints its warnings on stderr (the direct reader makes them the
            // image's warnings); an ICC profile does not change OpenCV's pixels, so the reference is
            // decoded without it and the test log stays free of "libpng warning: iCCP" lines.
            let reference = try OpenCVMat.decodeThroughOpenCV(Self.withoutICCProfile(bytes))
            #expect(
                direct.width == reference.width && direct.height == reference.height
                    && direct.channels == reference.channels, "\(path)")
            #expect(direct.packedPixels == reference.packedPixels, "\(path)")
        }
    }

    @Test func aPNGsChunkWarningIsTheImagesWarningNotALineOnStderr() throws {
        // A PNG with an iCCP chunk whose profile is the known-incorrect sRGB one: libpng warns.
        // Built by hand from a real fixture: its IHDR, then an iCCP chunk with a bad profile, then the rest.
        let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png"))))
        let badICC = Self.chunk("iCCP", Array("bad\0\0".utf8) + Self.zlibStored(Array(repeating: 0, count: 132)))
        let patched = Array(png[..<33]) + badICC + Array(png[33...])
        let (mat, warnings) = try OpenCVMat.decode(patched)
        #expect(mat.width == 264)
        #expect(warnings.contains { $0.hasPrefix("PNG: iCCP") }, "\(warnings)")
        let analysis = try ImageRequestHandler(
            source: ImageSource(path: Fixture.path("barcodes/qr-hello.png"), outputName: "x")
        )
        .perform(RequestSet([BarcodeRequest()]), engines: WorkerEngines(), bytes: patched).analysis
        #expect(analysis.warnings.contains { $0.hasPrefix("PNG: iCCP") })
        #expect(analysis.barcodes?.first?.payload == "Hello, analyze!")
    }

    @Test func theCommandPrintsNoLibraryNoise() throws {
        // The skimage photos carry an iCCP profile libpng warns about; a JPEG with garbage before
        // its end marker makes libjpeg warn; a broken PNG makes libpng fail. None of it reaches stderr.
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        let end = try #require((0..<jpeg.count - 1).last { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xD9 })
        jpeg.insert(contentsOf: [0x12, 0x34, 0x56], at: end)
        try Data(jpeg).write(to: folder.appendingPathComponent("corrupt.jpg"))
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png"))))
        png[45] ^= 0xFF
        try Data(png).write(to: folder.appendingPathComponent("broken.png"))
        let astronaut = DebianPhoto.folder.appendingPathComponent("astronaut.png").path
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([folder.path, astronaut, "--barcodes", "-o", out.path, "--jobs", "2"])
        #expect(result.status == 1)  // the broken PNG fails; the batch goes on
        for line in result.stderr.split(separator: "\n") {
            #expect(line.hasPrefix("ok ") || line.hasPrefix("FAIL ") || line.hasPrefix("analyze: "), "\(line)")
        }
        #expect(result.stderr.contains("broken.png: PNG: "))
        let corrupt = try String(contentsOf: out.appendingPathComponent("corrupt.json"), encoding: .utf8)
        #expect(corrupt.contains("JPEG: Corrupt JPEG data"))
        let photo = try String(contentsOf: out.appendingPathComponent("astronaut.json"), encoding: .utf8)
        #expect(photo.contains("PNG: iCCP: known incorrect sRGB profile"))
    }

    @Test func aCorruptJPEGsWarningIsTheImagesWarning() throws {
        // Garbage bytes before the end-of-image marker: libjpeg's "Corrupt JPEG data: N extraneous bytes".
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        let end = try #require((0..<jpeg.count - 1).last { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xD9 })
        jpeg.insert(contentsOf: [0x12, 0x34, 0x56], at: end)
        let (_, warnings) = try OpenCVMat.decode(jpeg)
        #expect(warnings.contains { $0.hasPrefix("JPEG: Corrupt JPEG data") }, "\(warnings)")
        // Sixteen identical warnings read as one line with their count.
        #expect(
            (Array(repeating: "JPEG: Corrupt JPEG data: premature end of data segment", count: 16) + ["other"])
                .collapsingRepeats()
                == ["JPEG: Corrupt JPEG data: premature end of data segment (16 times)", "other"])
    }

    /// A photo whose scan data is damaged in forty places: libjpeg warns once per marker, each warning
    /// with its own numbers. The terminal line names each kind once, with how many more there are, and
    /// stays short; the JSON keeps every warning (issue 63, item 9).
    @Test func aDamagedJPEGsWarningsAreOneShortLinePerKind() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("fruits.jpg"))))
        let scan = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        var generator = SplitMix64(seed: 7)
        for k in 0..<40 {
            let at = Int.random(in: scan + 200..<jpeg.count - 10, using: &generator)
            guard jpeg[at - 1] != 0xFF else { continue }
            let garbage = (0..<Int.random(in: 1...60, using: &generator)).map { _ in
                UInt8.random(in: 0...0xFE, using: &generator)
            }
            jpeg.insert(contentsOf: garbage + [0xFF, 0xD0 + UInt8(k % 8)], at: at)
        }
        try Data(jpeg).write(to: folder.appendingPathComponent("damaged.jpg"))
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([folder.path, "--rects", "-o", out.path])
        let line = try #require(result.stderr.split(separator: "\n").first { $0.contains("damaged.jpg") })
        #expect(line.count < 400, "\(line)")
        #expect(line.contains("more like it)"), "\(line)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("damaged.json")))
                as? [String: Any])
        let warnings = try #require(json["warnings"] as? [String])
        #expect(warnings.filter { $0.contains("extraneous bytes before marker") }.count > 16, "\(warnings.count)")
        #expect(
            ["a 1 at 0x1f", "a 22 at 0xd4", "b", "a 3 at 0x00"].groupedByKind().map { "\($0.line)+\($0.more)" } == [
                "a 1 at 0x1f+2", "b+0",
            ])
    }

    @Test func aBrokenPNGsErrorSaysWhatLibpngSaid() throws {
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png"))))
        png[45] ^= 0xFF  // inside the first IDAT: its CRC no longer matches
        #expect {
            _ = try OpenCVMat.decode(png)
        } throws: { error in
            (error as? AnalysisError)?.message.hasPrefix("PNG: ") == true
        }
    }

    @Test func decodesAJPEGAtAQuarterOfItsSize() throws {
        let jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        let (full, _) = try OpenCVMat.decode(jpeg)
        let (quarter, _) = try OpenCVMat.decode(jpeg, reduction: 4)
        #expect(quarter.width == (full.width + 3) / 4)
        #expect(quarter.height == (full.height + 3) / 4)
    }

    /// A progressive JPEG decodes to the pixels of the baseline one it was made from (jpegtran keeps the
    /// coefficients); one whose last scan is repeated past 500 scans is refused (each scan is a pass over
    /// every block: thousands make a small file minutes of CPU).
    @Test func aProgressiveJPEGIsReadAndAFloodOfScansIsNot() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let progressivePath = folder.appendingPathComponent("progressive.jpg").path
        let made = try runProgram(
            "/usr/bin/jpegtran", ["-progressive", "-outfile", progressivePath, Fixture.path("samples/gift-card.jpg")])
        #expect(made.status == 0, "\(made.output)")
        let baseline = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        let progressive = [UInt8](try Data(contentsOf: URL(fileURLWithPath: progressivePath)))
        let scans = (0..<progressive.count - 1).filter { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xDA }
        #expect(scans.count > 5)
        #expect(try OpenCVMat.decode(progressive).0.packedPixels == OpenCVMat.decode(baseline).0.packedPixels)
        // The last scan (up to the end-of-image marker) repeated: 600 scans in all.
        let last = try #require(scans.last)
        let repeated = Array(progressive[last..<progressive.count - 2])
        var flood = Array(progressive[..<(progressive.count - 2)])
        for _ in 0..<600 - scans.count { flood += repeated }
        flood += [0xFF, 0xD9]
        #expect {
            _ = try OpenCVMat.decode(flood)
        } throws: { ($0 as? AnalysisError)?.message.contains("more than 500 scans") == true }
    }

    /// `png` without its iCCP chunks (other bytes, and every other file, unchanged).
    static func withoutICCProfile(_ png: [UInt8]) -> [UInt8] {
        guard png.count > 8, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { return png }
        var out = Array(png[..<8]), at = 8
        while at + 12 <= png.count {
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = at + 12 + length
            guard length >= 0, end <= png.count else { break }
            if Array(png[at + 4..<at + 8]) != Array("iCCP".utf8) { out += png[at..<end] }
            at = end
        }
        return out + png[min(at, png.count)...]
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let length = UInt32(data.count)
        let crc = CRC32.of(typeBytes + data)
        return withUnsafeBytes(of: length.bigEndian, Array.init) + typeBytes + data
            + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }

    /// A zlib stream with one stored (uncompressed) block.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        let n = UInt16(data.count)
        var adlerA: UInt32 = 1, adlerB: UInt32 = 0
        for byte in data { adlerA = (adlerA + UInt32(byte)) % 65521; adlerB = (adlerB + adlerA) % 65521 }
        let adler = (adlerB << 16) | adlerA
        return [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8)] + data
            + withUnsafeBytes(of: adler.bigEndian, Array.init)
    }
}

enum CRC32 {
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
