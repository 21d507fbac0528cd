import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

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
            for y in 0..<mat.height {
                for x in 0..<mat.width {
                    let at = y * stride + channels * x
                    out += gray ? [base[at]] : [base[at + 2], base[at + 1], base[at]]  // BGR to RGB
                }
            }
            return out
        }
        return (mat.width, mat.height, pixels)
    }

    static func be32(_ v: Int) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    @Test func netpbmJPEG2000AndSunRasterFilesAreFoundAndRead() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scans = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
        let gray = try Self.label(gray: true), rgb = try Self.label(gray: false)
        func write(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: scans.appendingPathComponent(name))
        }
        // scanimage's PGM, with a comment in its header as GIMP and netpbm tools write.
        try write("page.pgm", Array("P5\n# CREATOR: scanimage\n\(gray.width) \(gray.height)\n255\n".utf8) + gray.pixels)
        try write("page.ppm", Array("P6 \(rgb.width) \(rgb.height) 255\n".utf8) + rgb.pixels)
        try write(
            "page.pam",
            Array("P7\nWIDTH \(rgb.width)\nHEIGHT \(rgb.height)\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n".utf8)
                + rgb.pixels)
        // Sun raster, 24-bit standard: BGR rows (1920 bytes, already even).
        var bgr: [UInt8] = []
        for i in stride(from: 0, to: rgb.pixels.count, by: 3) {
            bgr += [rgb.pixels[i + 2], rgb.pixels[i + 1], rgb.pixels[i]]
        }
        try write(
            "page.ras",
            [0x59, 0xA6, 0x6A, 0x95] + Self.be32(rgb.width) + Self.be32(rgb.height) + Self.be32(24)
                + Self.be32(bgr.count)
                + Self.be32(1) + Self.be32(0) + Self.be32(0) + bgr)
        // JPEG 2000, as a JP2 file and as a bare codestream, by OpenJPEG's own encoder.
        let ppm = folder.appendingPathComponent("label.ppm").path
        // opj_compress wants a line each.
        try Data(Array("P6\n\(rgb.width) \(rgb.height)\n255\n".utf8) + rgb.pixels).write(to: URL(fileURLWithPath: ppm))
        for name in ["page.jp2", "page.j2k"] {
            let run = try runProgram(
                "/usr/bin/opj_compress", ["-i", ppm, "-o", scans.appendingPathComponent(name).path])
            #expect(run.status == 0, "opj_compress (libopenjp2-tools, installed by scripts/test): \(run.output)")
        }
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([scans.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        for name in ["page.pgm", "page.ppm", "page.pam", "page.ras", "page.jp2", "page.j2k"] {
            #expect(
                result.stderr.contains("ok   \(scans.path)/\(name): 640x400, 1 barcode(s) (ean13 \"5901234123457\")"),
                "\(name): \(result.stderr)")
        }
        // A gray scan stays one channel.
        let pgm = [UInt8](try Data(contentsOf: scans.appendingPathComponent("page.pgm")))
        #expect(try UprightImage(decoding: pgm, orientation: .up, maximumPixels: 1_000_000).pixels.channels == 1)
    }

    /// GIF, which OpenCV 4.6 cannot decode, is read with giflib at its first frame.
    @Test func aGIFIsReadAtItsFirstFrame() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let scans = folder.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: scans, withIntermediateDirectories: true)
        // ffmpeg (installed by scripts/test for the live-stream test) writes a palette GIF of the label, and
        // an animated one: three frames of the label shrunk on white.
        let label = Fixture.path("samples/product-label.png")
        let still = try runProgram(
            "/usr/bin/ffmpeg",
            ["-loglevel", "error", "-y", "-i", label, scans.appendingPathComponent("label.gif").path])
        #expect(still.status == 0, "\(still.output)")
        let animated = try runProgram(
            "/usr/bin/ffmpeg",
            [
                "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=320x200:d=0.3:r=10",
                "-i", label, "-filter_complex", "[1:v]scale=320:200[l];[0:v][l]overlay",
                scans.appendingPathComponent("moving.gif").path,
            ])
        #expect(animated.status == 0, "\(animated.output)")
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([scans.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("ok   \(scans.path)/label.gif: 640x400, 1 barcode(s) (ean13 \"5901234123457\")"),
            "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "ok   \(scans.path)/moving.gif: 320x200, 1 barcode(s) (ean13 \"5901234123457\"); warning: GIF: only the first of its 3 frames is analysed"
            ),
            "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("label.png").path))
        // A GIF that claims more pixels than the limit is refused before it is decoded.
        let bomb = Array("GIF89a".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        #expect {
            _ = try UprightImage(decoding: bomb, orientation: .up, maximumPixels: 1_000_000)
        } throws: { ($0 as? AnalysisError)?.code == .tooLarge }
    }

    /// A GIF of `width` × `height` colour indices (row by row) with `palette` (RGB), made by hand: a frame
    /// at (`left`, `top`) on the screen, `transparent` its transparent index, rows stored interlaced on request.
    static func gif(
        screen: (Int, Int), frame: (left: Int, top: Int, width: Int, height: Int), palette: [[UInt8]], indices: [UInt8],
        transparent: UInt8? = nil, interlaced: Bool = false, localTables: [[[UInt8]]] = []
    ) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func table(_ colours: [[UInt8]]) -> [UInt8] {
            (0..<4).flatMap { $0 < colours.count ? colours[$0] : [0, 0, 0] }
        }
        // A global table of 4 colours; none when `palette` is empty.
        var out = Array("GIF89a".utf8) + le16(screen.0) + le16(screen.1) + [palette.isEmpty ? 0x71 : 0xF1, 0, 0]
        if !palette.isEmpty { out += table(palette) }
        if let transparent { out += [0x21, 0xF9, 4, 0x01, 0, 0, transparent, 0] }
        // One frame per local table (each with its own), or one frame on the global table.
        let descriptor = [0x2C] + le16(frame.left) + le16(frame.top) + le16(frame.width) + le16(frame.height)
        guard localTables.isEmpty else {
            var frames = out
            // The image data of a one-frame file, without the trailer.
            let data = Array(
                gif(screen: screen, frame: frame, palette: [[0, 0, 0]], indices: indices, interlaced: interlaced)
                    .dropFirst(13 + 12 + descriptor.count + 1).dropLast())
            for local in localTables { frames += descriptor + [(interlaced ? 0x40 : 0) | 0x81] + table(local) + data }
            return frames + [0x3B]
        }
        out += descriptor + [interlaced ? 0x40 : 0]
        var rows = Array(0..<frame.height)
        if interlaced {
            rows = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap {
                stride(from: $0.0, to: frame.height, by: $0.1).map { $0 }
            }
        }
        let pixels = rows.flatMap { indices[($0 * frame.width)..<(($0 + 1) * frame.width)] }
        // LZW with 2-bit colours and 3-bit codes that never grow: a clear code (4) before every two pixels.
        var codes: [Int] = []
        for (i, p) in pixels.enumerated() {
            if i % 2 == 0 { codes.append(4) }
            codes.append(Int(p))
        }
        codes.append(5)
        var data: [UInt8] = [], bits = 0, count = 0
        for code in codes {
            bits |= code << count
            count += 3
            while count >= 8 { data.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
        }
        if count > 0 { data.append(UInt8(bits & 0xFF)) }
        out.append(2)
        for chunk in stride(from: 0, to: data.count, by: 255) {
            let block = data[chunk..<min(data.count, chunk + 255)]
            out += [UInt8(block.count)] + block
        }
        return out + [0, 0x3B]
    }

    /// Transparency and the screen around the frame are white, as PNG's alpha is composited; interlaced
    /// rows land where they belong; a palette of grays gives one channel; a frame cut short is an error.
    @Test func aGIFsTransparencyIsWhiteAndItsRowsInPlace() throws {
        let palette: [[UInt8]] = [[0, 0, 0], [255, 0, 0], [0, 0, 255], [0, 255, 0]]
        let (w, h) = (9, 11)
        let indices = (0..<w * h).map { UInt8(($0 / w + $0 % w) % 4) }
        func bgr(_ bytes: [UInt8]) throws -> (channels: Int, pixels: [[UInt8]]) {
            let image = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 10_000)
            let mat = image.pixels
            let pixels = mat.withPixels { (base: UnsafePointer<UInt8>, stride: Int) -> [[UInt8]] in
                (0..<mat.height).flatMap { y in
                    (0..<mat.width).map { x in
                        Array(UnsafeBufferPointer(start: base + y * stride + x * mat.channels, count: mat.channels))
                    }
                }
            }
            return (mat.channels, pixels)
        }
        // On a 10 × 12 screen, from (1, 1): the first row and column are the screen, white.
        let plain = try bgr(
            Self.gif(screen: (10, 12), frame: (1, 1, w, h), palette: palette, indices: indices, transparent: 3))
        #expect(plain.channels == 3 && plain.pixels.count == 120)
        let expected: [[UInt8]] = (0..<120).map { at in
            let (x, y) = (at % 10, at / 10)
            guard x >= 1, y >= 1 else { return [255, 255, 255] }
            switch indices[(y - 1) * w + (x - 1)] {
            case 0: return [0, 0, 0]
            case 1: return [0, 0, 255]  // red, as BGR
            case 2: return [255, 0, 0]  // blue
            default: return [255, 255, 255]  // transparent
            }
        }
        #expect(plain.pixels == expected)
        let interlaced = try bgr(
            Self.gif(
                screen: (10, 12), frame: (1, 1, w, h), palette: palette, indices: indices, transparent: 3,
                interlaced: true))
        #expect(interlaced.pixels == expected)
        // Grays: one channel.
        let grays = try bgr(
            Self.gif(
                screen: (w, h), frame: (0, 0, w, h),
                palette: [[0, 0, 0], [90, 90, 90], [200, 200, 200], [255, 255, 255]],
                indices: indices))
        #expect(grays.channels == 1 && grays.pixels[1] == [90] && grays.pixels[w] == [90])
        // No colour table: the indices are gray levels (as Pillow reads it).
        let tableless = try bgr(Self.gif(screen: (w, h), frame: (0, 0, w, h), palette: [], indices: indices))
        #expect(tableless.channels == 1 && tableless.pixels.prefix(4) == [[0], [1], [2], [3]])
        // Frames with tables of their own: the first frame's colours, though reading on to count the
        // others makes giflib free the first one's table.
        let local = try bgr(
            Self.gif(
                screen: (w, h), frame: (0, 0, w, h), palette: [], indices: indices,
                localTables: [palette, [[0, 0, 255], [0, 0, 255], [0, 0, 255], [0, 0, 255]]]))
        #expect(
            local.channels == 3 && local.pixels.prefix(4) == [[0, 0, 0], [0, 0, 255], [255, 0, 0], [0, 255, 0]])
        // Cut right after the last pixel (no end code, no trailer): every row is there, and a warning says so.
        let whole = Self.gif(screen: (w, h), frame: (0, 0, w, h), palette: palette, indices: indices)
        let tail = try UprightImage(decoding: Array(whole.dropLast(2)), orientation: .up, maximumPixels: 10_000)
        #expect(
            tail.decodeWarnings.count == 1
                && tail.decodeWarnings.first?.contains("the first frame (the file is cut short); its rows are kept")
                    == true,
            "\(tail.decodeWarnings)")
        #expect(try bgr(Array(whole.dropLast(2))).pixels == bgr(whole).pixels)
        // A frame far larger than its screen is refused before it is decoded (its every row would be).
        let oversized = Self.gif(
            screen: (4, 4), frame: (0, 0, 1200, 1000), palette: palette,
            indices: [UInt8](repeating: 1, count: 1_200_000))
        #expect {
            _ = try UprightImage(decoding: oversized, orientation: .up, maximumPixels: 10_000)
        } throws: {
            ($0 as? AnalysisError)?.message.contains(
                "GIF: the first frame (1200x1000) is far larger than its screen (4x4)") == true
        }
        // Cut inside the frame's data: an error naming the row, not a picture half made up.
        #expect {
            _ = try UprightImage(
                decoding: Array(whole.prefix(whole.count - 20)), orientation: .up, maximumPixels: 10_000)
        } throws: { error in
            let error = error as? AnalysisError
            return error?.code == .undecodable && error?.message.contains("GIF:") == true
        }
    }

    @Test func theirHeadersAreReadBeforeAnythingIsDecoded() throws {
        #expect(
            ImageHeader(parsing: Array("P4\n# a comment\n#another\n  1728\t2200\n".utf8))
                == ImageHeader(width: 1728, height: 2200))
        #expect(
            ImageHeader(parsing: Array("P7\nWIDTH 12\nHEIGHT 7\nDEPTH 1\nMAXVAL 1\nENDHDR\n".utf8))
                == ImageHeader(width: 12, height: 7))
        #expect(ImageHeader(parsing: Array("P6\nhello\n".utf8)) == nil)
        // Found by scripts/fuzz --parsers: a PAM height of -2 was taken as it was.
        #expect(ImageHeader(parsing: Array("P7\nWIDTH 4\nHEIGHT -2\nENDHDR\n".utf8)) == nil)
        #expect(ImageHeader(parsing: Array("P6 12".utf8)) == nil)
        // JP2: signature box, file type box, then the header box holding ihdr (height, width).
        let ihdr = Self.be32(22) + Array("ihdr".utf8) + Self.be32(300) + Self.be32(500) + [0, 3, 7, 7, 0, 0]
        let jp2 =
            [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + Self.be32(20) + Array("ftypjp2 ".utf8)
            + Self.be32(0)
            + Array("jp2 ".utf8) + Self.be32(8 + ihdr.count) + Array("jp2h".utf8) + ihdr
        #expect(ImageHeader(parsing: jp2) == ImageHeader(width: 500, height: 300))
        // A codestream: SOC, SIZ with the image's extent minus its offset.
        let j2k: [UInt8] =
            [0xFF, 0x4F, 0xFF, 0x51, 0, 41, 0, 0] + Self.be32(1010) + Self.be32(770) + Self.be32(10) + Self.be32(20)
        #expect(ImageHeader(parsing: j2k) == ImageHeader(width: 1000, height: 750))
        // A PGM that claims 10 gigapixels is refused before decoding, as any other format.
        let bomb = Array("P5\n100000 100000\n255\n".utf8) + [UInt8](repeating: 0, count: 64)
        #expect {
            _ = try UprightImage(decoding: bomb, orientation: .up, maximumPixels: 200_000_000)
        } throws: { ($0 as? AnalysisError)?.code == .tooLarge }
    }
}
