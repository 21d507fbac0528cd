import CHeif
import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// A mutation fuzzer over real JPEG (with EXIF), PNG, TIFF (one page, and the second of two), WebP, PGM,
/// GIF, HEIC (and a grid's boxes) and PDF seeds (a PDF's mutants through poppler's own processes), and over
/// video files (MJPEG and MPEG-4 AVIs, an MP4 and an MPEG-TS made by ffmpeg): every mutant goes through the
/// header parser, the EXIF reader and the whole handler (decode, orientation, rectangles, barcodes)
/// and must give a result or a clear error, in bounded time; a crash ends the test process.
///
/// The suite runs `ANALYZE_FUZZ_COUNT` mutants (default 400, a few seconds) from seed
/// `ANALYZE_FUZZ_SEED` (default fixed, so a failure replays); `scripts/fuzz COUNT [SEED]` runs longer.
@Suite("Mutation fuzzing")
struct MutationFuzzTests {
    static var count: Int { Int(ProcessInfo.processInfo.environment["ANALYZE_FUZZ_COUNT"] ?? "") ?? 400 }
    static var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["ANALYZE_FUZZ_SEED"] ?? "") ?? 0x5EED_F00D }

    /// Seeds: a JPEG with an EXIF orientation, PNGs with text and codes, a hand-built TIFF, a WebP
    /// encoded by OpenCV (libwebp) from a QR code.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let files = [
            "orientation/orient-6.jpg", "orientation/orient-invalid.jpg", "samples/receipt-exif6.jpg",
            "barcodes/qr-hello.png",
            "barcodes/ean13.png", "rects/quad-1.png",
        ]
        let qr = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("barcodes/qr-hello.png"))))
        ).0
        let page = MultiPageTIFFTests.Page(width: 16, height: 8, pixels: (0..<128).map { UInt8(($0 * 5) & 0xFF) })
        let pdf = PDFDocumentTests.pdf([
            try PDFDocumentTests.jpegPage("orientation/orient-1.jpg", width: 480, height: 320)
        ])
        return try files.map { ($0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path($0))))) }
            + [
                ("tiff", tiff()), ("webp", try qr.webpData(quality: 80)),
                ("tiff-pages", MultiPageTIFFTests.tiff([page, page])),
                ("pgm", Array("P5\n# scan\n16 8\n255\n".utf8) + page.pixels), ("pdf", pdf),
                (
                    "gif",
                    ScanFormatTests.gif(
                        screen: (10, 12), frame: (1, 1, 8, 8),
                        palette: [[0, 0, 0], [255, 255, 255], [200, 30, 30], [30, 30, 200]],
                        indices: (0..<64).map { UInt8(($0 / 3) % 4) }, transparent: 3, interlaced: true)
                ),
                (
                    "heic",
                    try HEIFTests.heic(
                        try HEIFTests.upright().resized(width: 96, height: 64),
                        orientation: heif_orientation_rotate_90_cw)
                ),
                ("heic-grid", HEIFTests.gridHEIF(width: 4032, height: 3024, wide: false)),
            ]
    }

    /// A mutant of the two-page TIFF is also read as its second page, as the runner reads such a file.
    static func page(of seed: String) -> ImageSource.Page? {
        seed == "tiff-pages" ? ImageSource.Page(number: 2, count: 2) : nil
    }

    /// A 16×16 8-bit gray, uncompressed, little-endian TIFF with an orientation tag.
    static func tiff() -> [UInt8] {
        let width: UInt32 = 16, height: UInt32 = 16
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let entries: [(UInt16, UInt16, UInt32, UInt32)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
            (273, 4, 1, 8 + 2 + 9 * 12 + 4), (274, 3, 1, 6), (277, 3, 1, 1), (279, 4, 1, width * height),
        ]
        var out: [UInt8] = [0x49, 0x49, 42, 0] + u32(8) + u16(UInt16(entries.count))
        for (tag, type, count, value) in entries {
            out += u16(tag) + u16(type) + u32(count) + (type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value))
        }
        out += u32(0)
        out += (0..<Int(width * height)).map { UInt8(($0 * 7) & 0xFF) }
        return out
    }

    /// One mutation of `bytes`: bit flips, interesting values, inserted, deleted or duplicated ranges, a cut.
    static func mutate(_ bytes: [UInt8], using g: inout UntrustedBytesTests.Generator) -> [UInt8] {
        var b = bytes
        guard !b.isEmpty else { return [0xFF] }
        for _ in 0..<Int.random(in: 1...4, using: &g) {
            let at = Int.random(in: 0..<max(1, b.count), using: &g)
            switch Int.random(in: 0..<6, using: &g) {
            case 0: b[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &g)
            case 1: b[at] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE].randomElement(using: &g) ?? 0
            case 2:
                b.insert(
                    contentsOf: (0..<Int.random(in: 1...16, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g)
                    }, at: at)
            case 3: b.removeSubrange(at..<min(b.count, at + Int.random(in: 1...64, using: &g)))
            case 4:
                let end = min(b.count, at + Int.random(in: 1...256, using: &g))
                b.insert(contentsOf: Array(b[at..<end]), at: Int.random(in: 0...b.count, using: &g))
            default: b = Array(b.prefix(at))
            }
            if b.isEmpty { b = [0xFF] }
        }
        return b
    }

    @Test func mutantsOfRealImagesGiveAResultOrAClearErrorInBoundedTime() throws {
        let seeds = try Self.seeds()
        var g = UntrustedBytesTests.Generator(state: Self.seed)
        let requests = RequestSet([RectangleRequest(), BarcodeRequest()])
        let engines = WorkerEngines()
        var decoded = 0, refused = 0, slowest = 0.0
        for n in 0..<Self.count {
            let seed = seeds[n % seeds.count]
            let bytes = Self.mutate(seed.bytes, using: &g)
            _ = ImageHeader(parsing: bytes)
            _ = ExifOrientationReader.orientationTag(in: bytes)
            let start = Date()
            do {
                let source = ImageSource(path: "mutant-\(n)", outputName: "m", page: Self.page(of: seed.name))
                let result = try ImageRequestHandler(source: source, maximumPixels: 4_000_000)
                    .perform(requests, engines: engines, bytes: bytes)
                #expect(result.analysis.width > 0 && result.analysis.height > 0)
                _ = try JSONRenderer.encode(result.analysis)
                _ = SVGRenderer.svg(for: result.analysis, imageHref: nil)
                decoded += 1
            } catch {
                #expect(!error.message.isEmpty, "mutant \(n) of \(seed.name)")
                refused += 1
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        #expect(slowest < 10, "a mutant took \(slowest) s")
        print(
            "mutation fuzzing: \(Self.count) mutants (seed \(Self.seed)), \(decoded) decoded, \(refused) refused, slowest \(String(format: "%.3f", slowest)) s"
        )
    }

    /// Video seeds: a second of vtest.avi as MJPEG and MPEG-4 in AVI, H.264-free MPEG-4 in MP4 and in
    /// MPEG-TS (ffmpeg's own encoders, at 160×120).
    static func videoSeeds(in folder: URL) throws -> [(name: String, bytes: [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        for (name, codec) in [
            ("mjpeg.avi", "mjpeg"), ("mpeg4.avi", "mpeg4"), ("mpeg4.mp4", "mpeg4"), ("mpeg4.ts", "mpeg4"),
        ] {
            let file = folder.appendingPathComponent(name)
            try SequenceTests.ffmpeg([
                "-i", try OpenCVSample.path("vtest.avi"), "-t", "1", "-vf", "scale=160:120", "-c:v", codec, "-q:v", "5",
                file.path,
            ])
            seeds.append((name, [UInt8](try Data(contentsOf: file))))
        }
        return seeds
    }

    /// Mutants of video files (a tenth of `ANALYZE_FUZZ_COUNT`): each is opened as a local video and up
    /// to 8 frames are read and analysed; it gives frames or a clear error, in bounded time.
    @Test func mutantsOfVideosGiveFramesOrAClearErrorInBoundedTime() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seeds = try Self.videoSeeds(in: folder)
        var g = UntrustedBytesTests.Generator(state: Self.seed ^ 0x71DE0)
        let count = max(seeds.count, Self.count / 10)
        var read = 0, refused = 0, frames = 0, slowest = 0.0
        let requests = RequestSet([RectangleRequest()])
        let engines = WorkerEngines()
        for n in 0..<count {
            let seed = seeds[n % seeds.count]
            let file = folder.appendingPathComponent("mutant-\(n % 4)." + (seed.name as NSString).pathExtension)
            try Data(Self.mutate(seed.bytes, using: &g)).write(to: file)
            let start = Date()
            do {
                let source = try VideoFrameSource(path: file.path, maximumPixels: 1_000_000)
                var selector = FrameSelector(FrameSampling(maximumFrames: 8))
                while let frame = source.next(&selector) {
                    var analysis = ImageAnalysis(
                        file: "", orientation: 1, width: frame.image.width, height: frame.image.height)
                    var timings = StageTimings()
                    ImageRequestHandler.perform(
                        requests, on: frame.image, engines: engines, into: &analysis, timings: &timings)
                    #expect(
                        frame.image.width > 0 && frame.image.height > 0
                            && frame.image.width * frame.image.height <= 1_000_000)
                    frames += 1
                }
                _ = source.takeWarnings()
                if let error = source.readError { #expect(!error.isEmpty) }
                read += 1
            } catch {
                #expect(!error.message.isEmpty, "video mutant \(n) of \(seed.name)")
                refused += 1
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
        }
        #expect(slowest < 30, "a video mutant took \(slowest) s")
        print(
            "mutation fuzzing (videos): \(count) mutants (seed \(Self.seed)), \(read) opened (\(frames) frames analysed), \(refused) refused, slowest \(String(format: "%.3f", slowest)) s"
        )
    }
}
