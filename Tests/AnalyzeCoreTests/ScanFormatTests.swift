import Foundation
import Testing
@testable import AnalyzeCore

/// The formats scanning and archiving tools write besides TIFF and PDF: Netpbm (what SANE's `scanimage`
/// writes by default), JPEG 2000 (archives, digital libraries) and Sun raster. OpenCV 4.6 decodes them;
/// analyze reads their size from the header first, as for every other format, and finds them in folders.
@Suite("Scan formats")
struct ScanFormatTests {
    /// The product label's pixels, row by row: gray, or RGB.
    static func label(gray: Bool) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/product-label.png"))))
        let decoded = try OpenCVMat.decode(bytes).0
        let mat = gray ? try decoded.gray() : try decoded.bgr()
        let channels = gray ? 1 : 3
        let pixels = mat.withPixels { (base: UnsafePointer<UInt8>, stride: Int) -> [UInt8] in
            var out: [UInt8] = []
            out.reserveCapacity(mat.width * mat.height * channels)
            for y in 0 ..< mat.height {
                for x in 0 ..< mat.width {
                    let at = y * stride + channels * x
                    out += gray ? [base[at]] : [base[at + 2], base[at + 1], base[at]]   // BGR to RGB
                }
            }
            return out
        }
        return (mat.width, mat.height, pixels)
    }

    static func be32(_ v: Int) -> [UInt8] { (0 ..< 4).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    @Test func netpbmJPEG2000AndSunRasterFilesAreFoundAndRead() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scans = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
        let gray = try Self.label(gray: true), rgb = try Self.label(gray: false)
        func write(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: scans.appendingPathComponent(name)) }
        // scanimage's PGM, with a comment in its header as GIMP and netpbm tools write.
        try write("page.pgm", Array("P5\n# CREATOR: scanimage\n\(gray.width) \(gray.height)\n255\n".utf8) + gray.pixels)
        try write("page.ppm", Array("P6 \(rgb.width) \(rgb.height) 255\n".utf8) + rgb.pixels)
        try write("page.pam", Array("P7\nWIDTH \(rgb.width)\nHEIGHT \(rgb.height)\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n".utf8) + rgb.pixels)
        // Sun raster, 24-bit standard: BGR rows (1920 bytes, already even).
        var bgr: [UInt8] = []
        for i in stride(from: 0, to: rgb.pixels.count, by: 3) { bgr += [rgb.pixels[i + 2], rgb.pixels[i + 1], rgb.pixels[i]] }
        try write("page.ras", [0x59, 0xA6, 0x6A, 0x95] + Self.be32(rgb.width) + Self.be32(rgb.height) + Self.be32(24) + Self.be32(bgr.count)
                  + Self.be32(1) + Self.be32(0) + Self.be32(0) + bgr)
        // JPEG 2000, as a JP2 file and as a bare codestream, by OpenJPEG's own encoder.
        let ppm = folder.appendingPathComponent("label.ppm").path
        try Data(Array("P6\n\(rgb.width) \(rgb.height)\n255\n".utf8) + rgb.pixels).write(to: URL(fileURLWithPath: ppm))   // opj_compress wants a line each
        for name in ["page.jp2", "page.j2k"] {
            let run = try runProgram("/usr/bin/opj_compress", ["-i", ppm, "-o", scans.appendingPathComponent(name).path])
            #expect(run.status == 0, "opj_compress (libopenjp2-tools, installed by scripts/test): \(run.output)")
        }
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([scans.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["page.pgm", "page.ppm", "page.pam", "page.ras", "page.jp2", "page.j2k"] {
            #expect(result.stderr.contains("ok   \(scans.path)/\(name): 640x400, 1 barcode(s) (ean13 \"5901234123457\")"), "\(name): \(result.stderr)")
        }
        // A gray scan stays one channel.
        let pgm = [UInt8](try Data(contentsOf: scans.appendingPathComponent("page.pgm")))
        #expect(try UprightImage(decoding: pgm, orientation: .up, maximumPixels: 1_000_000).pixels.channels == 1)
    }

    /// GIF, which OpenCV 4.6 cannot decode, is read by FFmpeg (the video library) at its first frame.
    @Test func aGIFIsReadByFFmpegAtItsFirstFrame() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scans = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
        // ffmpeg (installed by scripts/test for the live-stream test) writes a palette GIF of the label, and
        // an animated one: three frames of the label shrunk on white.
        let label = Fixture.path("samples/product-label.png")
        let still = try runProgram("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-i", label, scans.appendingPathComponent("label.gif").path])
        #expect(still.status == 0, "\(still.output)")
        let animated = try runProgram("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=320x200:d=0.3:r=10",
                                                          "-i", label, "-filter_complex", "[1:v]scale=320:200[l];[0:v][l]overlay",
                                                          scans.appendingPathComponent("moving.gif").path])
        #expect(animated.status == 0, "\(animated.output)")
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([scans.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("ok   \(scans.path)/label.gif: 640x400, 1 barcode(s) (ean13 \"5901234123457\")"), "\(result.stderr)")
        #expect(result.stderr.contains("ok   \(scans.path)/moving.gif: 320x200, 1 barcode(s) (ean13 \"5901234123457\"); warning: GIF: only the first of its 3 frames is analysed"),
                "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("label.png").path))
        // A GIF that claims more pixels than the limit is refused before FFmpeg opens it.
        let bomb = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        #expect {
            _ = try GIFReader.firstFrame(path: "/nonexistent.gif", bytes: bomb, maximumPixels: 1_000_000)
        } throws: { ($0 as? AnalysisError)?.code == .tooLarge }
    }

    @Test func theirHeadersAreReadBeforeAnythingIsDecoded() throws {
        #expect(ImageHeader(parsing: Array("P4\n# a comment\n#another\n  1728\t2200\n".utf8)) == ImageHeader(width: 1728, height: 2200))
        #expect(ImageHeader(parsing: Array("P7\nWIDTH 12\nHEIGHT 7\nDEPTH 1\nMAXVAL 1\nENDHDR\n".utf8)) == ImageHeader(width: 12, height: 7))
        #expect(ImageHeader(parsing: Array("P6\nhello\n".utf8)) == nil)
        // Found by scripts/fuzz-parsers: a PAM height of -2 was taken as it was.
        #expect(ImageHeader(parsing: Array("P7\nWIDTH 4\nHEIGHT -2\nENDHDR\n".utf8)) == nil)
        #expect(ImageHeader(parsing: Array("P6 12".utf8)) == nil)
        // JP2: signature box, file type box, then the header box holding ihdr (height, width).
        let ihdr = Self.be32(22) + Array("ihdr".utf8) + Self.be32(300) + Self.be32(500) + [0, 3, 7, 7, 0, 0]
        let jp2 = [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + Self.be32(20) + Array("ftypjp2 ".utf8) + Self.be32(0)
            + Array("jp2 ".utf8) + Self.be32(8 + ihdr.count) + Array("jp2h".utf8) + ihdr
        #expect(ImageHeader(parsing: jp2) == ImageHeader(width: 500, height: 300))
        // A codestream: SOC, SIZ with the image's extent minus its offset.
        let j2k: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51, 0, 41, 0, 0] + Self.be32(1010) + Self.be32(770) + Self.be32(10) + Self.be32(20)
        #expect(ImageHeader(parsing: j2k) == ImageHeader(width: 1000, height: 750))
        // A PGM that claims 10 gigapixels is refused before decoding, as any other format.
        let bomb = Array("P5\n100000 100000\n255\n".utf8) + [UInt8](repeating: 0, count: 64)
        #expect {
            _ = try UprightImage(decoding: bomb, orientation: .up, maximumPixels: 200_000_000)
        } throws: { ($0 as? AnalysisError)?.code == .tooLarge }
    }
}
