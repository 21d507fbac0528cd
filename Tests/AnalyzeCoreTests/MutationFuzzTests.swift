import CHeif
import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// A mutation fuzzer over real JPEG (with EXIF), PNG, TIFF (one page, and the second of two), WebP, PGM,
/// GIF, HEIC (and a grid's boxes) and PDF seeds (a PDF's mutants through poppler's own processes), and over
/// video files (MJPEG and MPEG-4 AVIs, an MP4 and an MPEG-TS made by ffmpeg; HEIC and MP4 mutants half of them
/// structure-aware, through their boxes), and over ONNX models naming external data: every mutant goes through the
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

    /// The boxes of an ISO base media file (MP4, HEIC) and of the containers among them, as (start of
    /// header, end), found by walking sizes: what ``mutateBoxes(_:using:)`` picks from.
    static func boxes(in bytes: [UInt8], from: Int, to: Int, depth: Int = 0) -> [(start: Int, end: Int, type: String)] {
        let containers: Set<String> = [
            "moov", "trak", "mdia", "minf", "stbl", "dinf", "edts", "udta", "mvex", "moof", "traf", "meta", "iprp",
            "ipco", "iinf",
        ]
        var found: [(Int, Int, String)] = []
        var at = from
        while at + 8 <= to, depth < 8 {
            let size = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at + size <= to else { break }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            found.append((at, at + size, type))
            if containers.contains(type) {
                // meta and iinf are full boxes (and iinf counts its entries first).
                let skip = type == "meta" ? 4 : type == "iinf" ? 6 : 0
                found += boxes(in: bytes, from: at + 8 + skip, to: at + size, depth: depth + 1)
            }
            at += size
        }
        return found
    }

    /// A structure-aware mutation of an ISO base media file: a box (an `iloc`, `iinf`, `stsz`, `stco`,
    /// `stsc` or `stts` when there is one, they hold the counts and offsets) gets its size, a count or
    /// field width, or a word of its body set to an edge value, or is duplicated, dropped or cut.
    static func mutateBoxes(_ bytes: [UInt8], using g: inout UntrustedBytesTests.Generator) -> [UInt8] {
        let all = boxes(in: bytes, from: 0, to: bytes.count)
        guard !all.isEmpty else { return mutate(bytes, using: &g) }
        let tables: Set<String> = [
            "iloc", "iinf", "pitm", "idat", "stsz", "stco", "co64", "stsc", "stts", "stss", "ctts",
        ]
        let preferred = all.filter { tables.contains($0.type) }
        let box = (Bool.random(using: &g) && !preferred.isEmpty ? preferred : all).randomElement(using: &g) ?? all[0]
        var b = bytes
        let edges: [UInt32] = [0, 1, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, 65_535, 8]
        func put(_ value: UInt32, at: Int) {
            guard at + 4 <= b.count else { return }
            for i in 0..<4 { b[at + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
        }
        switch Int.random(in: 0..<7, using: &g) {
        case 0: put(edges.randomElement(using: &g) ?? 0, at: box.start)  // its size
        case 1:  // a word of its body (a version/flags, a count, an offset)
            let at = box.start + 8 + 4 * Int.random(in: 0..<max(1, (box.end - box.start - 8) / 4), using: &g)
            put(edges.randomElement(using: &g) ?? 0, at: at)
        case 2:  // iloc's field widths (offset, length, base offset, index sizes) or a byte of any body
            let at = box.start + 8 + (box.type == "iloc" ? 4 + Int.random(in: 0...1, using: &g) : 0)
            if at < b.count { b[at] = [0x00, 0x44, 0x88, 0xFF, 0x04, 0x40].randomElement(using: &g) ?? 0 }
        case 3: b.insert(contentsOf: Array(bytes[box.start..<box.end]), at: box.end)
        case 4: b.removeSubrange(box.start..<box.end)
        case 5: b = Array(b.prefix(Int.random(in: box.start...box.end, using: &g)))
        default: return mutate(bytes, using: &g)
        }
        return b.isEmpty ? [0] : b
    }

    @Test func mutantsOfRealImagesGiveAResultOrAClearErrorInBoundedTime() throws {
        let seeds = try Self.seeds()
        var g = UntrustedBytesTests.Generator(state: Self.seed)
        let requests = RequestSet([RectangleRequest(), BarcodeRequest()])
        let engines = WorkerEngines()
        var decoded = 0, refused = 0, slowest = 0.0
        for n in 0..<Self.count {
            let seed = seeds[n % seeds.count]
            // HEIC mutants are half structure-aware (their boxes, iloc above all).
            let bytes =
                seed.name.hasPrefix("heic") && Bool.random(using: &g)
                ? Self.mutateBoxes(seed.bytes, using: &g) : Self.mutate(seed.bytes, using: &g)
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
            // MP4 mutants are half structure-aware (its boxes: sample tables above all).
            let mutant =
                seed.name.hasSuffix(".mp4") && Bool.random(using: &g)
                ? Self.mutateBoxes(seed.bytes, using: &g) : Self.mutate(seed.bytes, using: &g)
            try Data(mutant).write(to: file)
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

    /// ONNX models whose tensors name external data, made by python3-onnx: each of a list of hostile and
    /// harmless locations (absolute, `..` in every spelling, through a symbolic link out, empty, a NUL, a
    /// backslash, a file or a folder beside the model) in an initializer, a `Constant`'s value, a sparse
    /// initializer and a subgraph's initializer; then byte mutants of those (a tenth of
    /// `ANALYZE_FUZZ_COUNT`). Every model is refused with a message, or every location it names is a regular
    /// file inside its folder, reached without a link; and ONNX Runtime loads what was let through without
    /// a crash.
    @Test func mutantsOfModelsNamingExternalDataReadNothingOutsideTheirFolder() throws {
        let root = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("model"), outside = root.appendingPathComponent("outside")
        for f in [folder, outside, folder.appendingPathComponent("sub")] {
            try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true)
        }
        for file in [
            outside.appendingPathComponent("secret.bin"), root.appendingPathComponent("secret.bin"),
            folder.appendingPathComponent("weights.bin"), folder.appendingPathComponent("sub/w.bin"),
        ] {
            try Data(repeating: 0x41, count: 4096).write(to: file)
        }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("link"), withDestinationURL: outside)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("alias.bin"),
            withDestinationURL: outside.appendingPathComponent("secret.bin"))
        let script = """
            import sys, os, numpy as np, onnx
            from onnx import helper, TensorProto, numpy_helper
            out = sys.argv[1]
            locations = ['weights.bin', 'sub/w.bin', './weights.bin', 'sub/./w.bin', '/etc/passwd', '../secret.bin',
                         'sub/../../secret.bin', 'link/secret.bin', 'alias.bin', '', 'sub', 'nosuch.bin', '..',
                         '..\\\\secret.bin', 'weights.bin\\x00/etc/passwd', '//etc/passwd', 'sub//../../outside/secret.bin']
            def external(name, location):
                t = numpy_helper.from_array(np.zeros((1, 6, 4), np.float32), name)
                t.ClearField('raw_data'); t.data_location = TensorProto.EXTERNAL
                for k, v in [('location', location), ('offset', '0'), ('length', '96')]:
                    e = t.external_data.add(); e.key = k; e.value = v
                return t
            n = 0
            for location in locations:
                for place in ['initializer', 'constant', 'sparse', 'subgraph']:
                    inits, nodes, sparse = [], [], []
                    if place == 'initializer':
                        inits.append(external('W', location))
                    elif place == 'constant':
                        nodes.append(helper.make_node('Constant', [], ['W'], value=external('c', location)))
                    elif place == 'sparse':
                        values = external('values', location)
                        values.dims[:] = [2]
                        indices = numpy_helper.from_array(np.array([0, 1], np.int64), 'indices')
                        sparse.append(helper.make_sparse_tensor(values, indices, [1, 6, 4]))
                    else:
                        body = helper.make_graph([helper.make_node('Identity', ['c_in'], ['c_out']),
                                                  helper.make_node('Identity', ['Wsub'], ['v_out'])], 'body',
                            [helper.make_tensor_value_info('i', TensorProto.INT64, []), helper.make_tensor_value_info('c_in', TensorProto.BOOL, [])],
                            [helper.make_tensor_value_info('c_out', TensorProto.BOOL, []), helper.make_tensor_value_info('v_out', TensorProto.FLOAT, [1, 6, 4])],
                            [external('Wsub', location)])
                        inits += [numpy_helper.from_array(np.array(1, np.int64), 'trips'), numpy_helper.from_array(np.array(True), 'cond')]
                        nodes.append(helper.make_node('Loop', ['trips', 'cond'], ['Wl', 'W'], body=body))
                    if place == 'subgraph':
                        nodes.append(helper.make_node('Identity', ['x'], ['y0']))
                    nodes.append(helper.make_node('Identity', ['W'], ['y']))
                    graph = helper.make_graph(nodes, 'm', [helper.make_tensor_value_info('x', TensorProto.FLOAT, [1, 3, 32, 32])],
                                              [helper.make_tensor_value_info('y', TensorProto.FLOAT, None)], inits, sparse_initializer=sparse)
                    m = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
                    m.ir_version = 7
                    open(os.path.join(out, f'{n:03d}.onnx'), 'wb').write(m.SerializeToString())
                    n += 1
            """
        let made = try runProgram("/usr/bin/python3", ["-c", script, root.path])
        try #require(made.status == 0, "python3-onnx (scripts/test installs it): \(made.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".onnx") }
        let seeds = try names.sorted().map { [UInt8](try Data(contentsOf: root.appendingPathComponent($0))) }
        try #require(seeds.count >= 60)
        let inside = folder.resolvingSymlinksInPath().path + "/"
        var g = UntrustedBytesTests.Generator(state: Self.seed ^ 0x0_4E4E)
        var refused = 0, accepted = 0, loaded = 0
        let count = seeds.count + max(40, Self.count / 10)
        for n in 0..<count {
            let bytes = n < seeds.count ? seeds[n] : Self.mutate(seeds[n % seeds.count], using: &g)
            let model = folder.appendingPathComponent("model.onnx")
            try Data(bytes).write(to: model)
            do {
                let locations = try ONNXExternalData.check(modelAt: model.path)
                accepted += 1
                for location in locations {
                    let path = folder.appendingPathComponent(location)
                    #expect(path.resolvingSymlinksInPath().path.hasPrefix(inside), "mutant \(n): \(location)")
                    #expect(path.resolvingSymlinksInPath().path == path.standardized.path, "mutant \(n): \(location)")
                }
                // What was let through loads (or fails to) in ONNX Runtime without a crash.
                var models = ModelLocator.standard
                if loaded < 60, let identity = try? models.add(file: model.path),
                    (try? ONNXSession(model: identity, models: models)) != nil
                {
                    loaded += 1
                }
                // A seed is accepted only when its location is one of the four harmless ones.
                if n < seeds.count { #expect(n / 4 < 4, "seed \(n) was accepted: \(locations)") }
            } catch {
                #expect(!error.message.isEmpty, "mutant \(n)")
                if n < seeds.count { #expect(n / 4 >= 4, "seed \(n) was refused: \(error.message)") }
                refused += 1
            }
        }
        print(
            "mutation fuzzing (models): \(count) models (seed \(Self.seed)), \(accepted) accepted (\(loaded) loaded by ONNX Runtime), \(refused) refused"
        )
        #expect(accepted > 0 && refused > 0)
    }
}
