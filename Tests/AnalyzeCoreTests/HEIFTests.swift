import CHeif
import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// HEIF/HEIC photos (what iPhones save) through libheif, with the container's orientation.
@Suite("HEIF photos")
struct HEIFTests {
    /// Encodes `mat` (BGR) as HEIC with libheif, with `orientation` written as irot/imir boxes, with
    /// 8-bit samples or (`bitDepth` 10) 10-bit ones, each 8-bit value v stored as v·1023/255.
    /// `nclx` (range and matrix) is written into the HEVC stream's VUI only: libheif's encoder leaves the
    /// container's nclx box out (its macOS workaround), as iPhones do.
    static func heic(
        _ mat: OpenCVMat, orientation: heif_orientation, bitDepth: Int = 8,
        compression: heif_compression_format = heif_compression_HEVC,
        nclx: (matrix: heif_matrix_coefficients, fullRange: Bool)? = nil
    ) throws -> [UInt8] {
        let w = mat.width, h = mat.height
        var image: OpaquePointer?
        let chroma = bitDepth == 8 ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RRGGBB_LE
        #expect(heif_image_create(Int32(w), Int32(h), heif_colorspace_RGB, chroma, &image).code == heif_error_Ok)
        let created = try #require(image)
        defer { heif_image_release(created) }
        #expect(
            heif_image_add_plane(created, heif_channel_interleaved, Int32(w), Int32(h), Int32(bitDepth)).code
                == heif_error_Ok)
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(created, heif_channel_interleaved, &stride))
        mat.withPixels { pixels, rowBytes in
            let channels = mat.channels
            for y in 0..<h {
                for x in 0..<w {
                    let source = pixels + y * rowBytes + x * channels
                    let rgb = [source[channels == 3 ? 2 : 0], source[channels == 3 ? 1 : 0], source[0]]
                    for c in 0..<3 {
                        if bitDepth == 8 {
                            plane[y * Int(stride) + x * 3 + c] = rgb[c]
                        } else {
                            let value = (Int(rgb[c]) * 1023 + 127) / 255
                            plane[y * Int(stride) + x * 6 + c * 2] = UInt8(value & 0xff)
                            plane[y * Int(stride) + x * 6 + c * 2 + 1] = UInt8(value >> 8)
                        }
                    }
                }
            }
        }
        if let nclx {
            // libheif 1.15 encodes with the image's own description (its x265 plugin sets range and matrix from it).
            let profile = try #require(heif_nclx_color_profile_alloc())
            defer { heif_nclx_color_profile_free(profile) }
            profile.pointee.matrix_coefficients = nclx.matrix
            profile.pointee.full_range_flag = nclx.fullRange ? 1 : 0
            #expect(heif_image_set_nclx_color_profile(created, profile).code == heif_error_Ok)
        }
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        #expect(heif_context_get_encoder_for_format(context, compression, &encoder).code == heif_error_Ok)
        let hevc = try #require(encoder, "libheif has no encoder for that format (libheif1's x265 and aom plugins)")
        defer { heif_encoder_release(hevc) }
        heif_encoder_set_lossy_quality(hevc, 92)
        let options = try #require(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = orientation
        #expect(heif_context_encode_image(context, created, hevc, options, nil).code == heif_error_Ok)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-\(UUID().uuidString).heic")
            .path
        defer { unlink(path) }
        #expect(heif_context_write_to_file(context, path).code == heif_error_Ok)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func upright() throws -> OpenCVMat {
        try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("orientation/upright.png"))))
        ).0
    }

    /// Stored sideways (as a phone's sensor saw it) with the container saying "rotate 90° clockwise":
    /// analysed upright, once — the QR code at the top-left, "UPRIGHT" at the top.
    @Test func aSidewaysHEICIsAnalysedUprightOnce() throws {
        let (sideways, _) = try Self.upright().rotated(byDegrees: 90, fill: 255)  // counter-clockwise
        let bytes = try Self.heic(sideways, orientation: heif_orientation_rotate_90_cw)
        let source = ImageSource(path: "photo.heic", outputName: "photo")
        let analysis = try ImageRequestHandler(source: source).perform(
            RequestSet([BarcodeRequest(), TextRequest()]), engines: WorkerEngines(), bytes: bytes
        ).analysis
        #expect(analysis.width == 480 && analysis.height == 320)
        #expect(analysis.orientation == 1 && analysis.warnings.isEmpty)
        let code = try #require(analysis.barcodes?.first)
        #expect(code.payload == "TOP-LEFT" && code.boundingBox.center.x < 240)
        let line = try #require(analysis.text?.first { $0.string.contains("UPRIGHT") })
        #expect(line.boundingBox.center.y < 110)
    }

    @Test func heicFilesAreFoundInFoldersAndAnalysedFromTheCommandLine() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let label = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/product-label.png"))))
        ).0
        try Data(try Self.heic(label, orientation: heif_orientation_normal)).write(
            to: folder.appendingPathComponent("IMG_0001.HEIC"))
        let result = try CommandLineTests().run([
            folder.path, "--barcodes", "-o", folder.appendingPathComponent("out").path,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("IMG_0001.HEIC: 640x400") && result.stderr.contains("5901234123457"))
    }

    /// An AVIF photo (AV1 in the same container; what Android and web tools save) is found in a folder
    /// and analysed like a HEIC one, its annotated copy a JPEG.
    @Test func avifFilesAreAnalysedLikeHEICOnes() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let label = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/product-label.png"))))
        ).0
        let avif = try Self.heic(label, orientation: heif_orientation_normal, compression: heif_compression_AV1)
        #expect(HEIFDecoder.isHEIF(avif) && String(decoding: avif[8..<12], as: UTF8.self) == "avif")
        try Data(avif).write(to: folder.appendingPathComponent("PXL_0001.avif"))
        let out = folder.appendingPathComponent("out")
        let result = try CommandLineTests().run([folder.path, "--barcodes", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains("PXL_0001.avif: 640x400") && result.stderr.contains("5901234123457"),
            "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("PXL_0001.jpg").path))
    }

    @Test func aHEICClaimingTooManyPixelsIsRefusedBeforeDecoding() throws {
        let bytes = try Self.heic(try Self.upright(), orientation: heif_orientation_normal)
        let error = try #require(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 1000)
        }
        #expect(error.code == .tooLarge && error.message.contains("480x320"))
        // A damaged HEIF is a clear error, not a crash: one line, whatever libheif's message ends with
        // (its "Extent in iloc box references data outside of file bounds …" ends in a newline).
        for damaged in [Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(bytes.count - 200))] {
            let error = try #require(throws: AnalysisError.self) {
                _ = try UprightImage(decoding: damaged, orientation: .up, maximumPixels: 10_000_000)
            }
            #expect(
                error.code == .undecodable && error.message.hasPrefix("HEIF: ") && !error.message.contains("\n"),
                "\(error.message)")
        }
        #expect(AnalysisError(.undecodable, "bad box 'a\u{7}b'\r\n  next line\n").message == "bad box 'a b' next line")
    }

    /// An 8-bit HEIC is decoded as three 4:4:4 planes interleaved by analyze, a 10-bit one through
    /// libheif's interleaved 8-bit RGB: both give exactly the pixels libheif's interleaved RGB gives.
    /// analyze decodes the HEVC stream with FFmpeg's libavcodec (CHeif's plugin, which also converts an
    /// 8-bit picture to RGB itself), the reference below with libheif's own libde265 and conversion: the
    /// same pixels, byte for byte.
    @Test(arguments: [8, 10])
    func heicPixelsAreLibheifsOwnRGB(bitDepth: Int) throws {
        let photo = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("fruits.jpg"))))
        ).0
        let bytes = try Self.heic(photo, orientation: heif_orientation_normal, bitDepth: bitDepth)
        #expect(aheif_ffmpeg_load_error() == nil, "libavcodec59 (scripts/setup installs libavcodec-dev)")
        let (pictures, converted) = (aheif_ffmpeg_pictures_decoded(), aheif_ffmpeg_pictures_converted())
        try Self.expectLibheifsPixels(bytes, width: photo.width, height: photo.height)
        #expect(aheif_ffmpeg_pictures_decoded() > pictures, "decoded by the FFmpeg plugin")
        if bitDepth == 8 { #expect(aheif_ffmpeg_pictures_converted() > converted, "converted to RGB by the plugin") }
    }

    /// The plugin's conversion to RGB is libheif's for every matrix it takes, limited range or full:
    /// BT.709 and BT.601 limited (a camera's video levels), unspecified (libheif's default coefficients).
    @Test(arguments: [
        (heif_matrix_coefficients_ITU_R_BT_709_5, false), (heif_matrix_coefficients_ITU_R_BT_601_6, false),
        (heif_matrix_coefficients_ITU_R_BT_601_6, true), (heif_matrix_coefficients_unspecified, false),
    ])
    func thePluginsRGBIsLibheifsForEachColourDescription(matrix: heif_matrix_coefficients, fullRange: Bool) throws {
        // An odd width: the last pixels of a row go through the scalar tail, not the vector loop.
        let photo = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("fruits.jpg"))))
        ).0
            .cropped(x: 0, y: 0, width: 437, height: 300)
        let bytes = try Self.heic(photo, orientation: heif_orientation_normal, nclx: (matrix, fullRange))
        let converted = aheif_ffmpeg_pictures_converted()
        try Self.expectLibheifsPixels(bytes, width: photo.width, height: photo.height)
        #expect(aheif_ffmpeg_pictures_converted() > converted, "converted to RGB by the plugin")
    }

    /// A HEIC with an alpha image is converted by libheif (its alpha picture is luma, which the plugin's
    /// RGB would not be): the same pixels as libheif's own decoding.
    @Test func aHEICWithAlphaIsConvertedByLibheif() throws {
        let photo = try OpenCVMat.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: try OpenCVSample.path("fruits.jpg"))))
        ).0
        let bytes = try Self.heicWithAlpha(photo)
        #expect(HEIFPrimaryItem.type(in: bytes) == "hvc1")
        try Self.expectLibheifsPixels(bytes, width: photo.width, height: photo.height)
    }

    /// The primary item's type is read from untrusted bytes: every prefix and thousands of damaged
    /// copies of a file give a type or nil, never a trap.
    /// A HEIF whose primary item is a grid with `width`×`height` output declared in its item data
    /// (32-bit sizes in an idat box, or 16-bit ones at a file offset), and no ispe at all: what a
    /// patched iPhone grid looks like to the size check (an iPhone photo is a grid of 512-px tiles).
    static func gridHEIF(width: Int, height: Int, wide: Bool) -> [UInt8] {
        func be(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count + 8, 4) + Array(type.utf8) + body }
        let ftyp = box("ftyp", Array("heic".utf8) + be(0, 4) + Array("mif1heic".utf8))
        let gridData: [UInt8] = [0, wide ? 1 : 0, 1, 1] + be(width, wide ? 4 : 2) + be(height, wide ? 4 : 2)
        let pitm = box("pitm", [0, 0, 0, 0] + be(1, 2))
        let infe = box("infe", [2, 0, 0, 0] + be(1, 2) + be(0, 2) + Array("grid".utf8) + [0])
        let iinf = box("iinf", [0, 0, 0, 0] + be(1, 2) + infe)
        func meta(offset: Int) -> [UInt8] {
            // iloc version 1: 4-byte offsets and lengths; construction method 1 (idat) or 0 (file).
            let iloc = box(
                "iloc",
                [1, 0, 0, 0, 0x44, 0x00] + be(1, 2) + be(1, 2) + be(wide ? 1 : 0, 2) + be(0, 2) + be(1, 2)
                    + be(offset, 4) + be(gridData.count, 4))
            return box("meta", [0, 0, 0, 0] + pitm + iinf + iloc + (wide ? box("idat", gridData) : []))
        }
        if wide { return ftyp + meta(offset: 0) }
        let dataOffset = ftyp.count + meta(offset: 0).count + 8
        return ftyp + meta(offset: dataOffset) + box("mdat", gridData)
    }

    @Test func aGridIsCheckedAtTheSizeItsOwnDataDeclares() throws {
        for wide in [true, false] {
            let huge = Self.gridHEIF(width: 32000, height: wide ? 32000 : 30000, wide: wide)
            #expect(
                HEIFPrimaryItem.derivedCanvasSizes(in: huge).map { "\($0.type) \($0.width)x\($0.height)" } == [
                    "grid 32000x\(wide ? 32000 : 30000)"
                ])
            let error = try #require(throws: AnalysisError.self) {
                _ = try UprightImage(decoding: huge, orientation: .up, maximumPixels: 20_000_000)
            }
            #expect(error.code == .tooLarge && error.message.contains("grid image is 32000x"), "\(error.message)")
        }
        // 32-bit sizes whose product passes Int's range (found by scripts/fuzz): refused, not a trap.
        let overflowing = Self.gridHEIF(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF, wide: true)
        #expect(HEIFPrimaryItem.derivedCanvasSizes(in: overflowing).first?.pixels == Int.max)
        #expect(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: overflowing, orientation: .up, maximumPixels: 20_000_000)
        }
        // An ordinary HEIC has no derived item; damaged boxes give nothing rather than a crash.
        let plain = try Self.heic(try Self.upright(), orientation: heif_orientation_normal)
        #expect(HEIFPrimaryItem.derivedCanvasSizes(in: plain).isEmpty)
        let grid = Self.gridHEIF(width: 4032, height: 3024, wide: false)
        for length in 0..<grid.count { _ = HEIFPrimaryItem.derivedCanvasSizes(in: Array(grid.prefix(length))) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var damaged = grid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            _ = HEIFPrimaryItem.derivedCanvasSizes(in: damaged)
        }
    }

    /// An `iloc` box of 65,535 items of 65,535 extents each, all of zero bytes (offset, length and index
    /// sizes 0): read in one step per item, and an item whose data would be the container's own bytes (at
    /// offset 0, in `ftyp`) is not read as a grid's size. The file is refused as undecodable, not as a
    /// 26228x31088 grid (issue 63, item 5).
    @Test func anILOCOfZeroSizeExtentsIsReadInOneStepPerItem() throws {
        func be(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be(body.count + 8, 4) + Array(type.utf8) + body }
        let ftyp = box("ftyp", Array("heic".utf8) + be(0, 4) + Array("mif1heic".utf8))
        let hdlr = box("hdlr", [UInt8](repeating: 0, count: 8) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let pitm = box("pitm", [0, 0, 0, 0] + be(1, 2))
        let infe = box("infe", [2, 0, 0, 0] + be(1, 2) + be(0, 2) + Array("grid".utf8) + [0])
        let iinf = box("iinf", [0, 0, 0, 0] + be(1, 2) + infe)
        var items: [UInt8] = []
        for i in 0..<65_535 { items += be(i == 65_534 ? 1 : i + 2, 2) + be(0, 2) + be(0, 2) + be(65_535, 2) }
        let iloc = box("iloc", [1, 0, 0, 0, 0, 0] + be(65_535, 2) + items)
        let file = ftyp + box("meta", [0, 0, 0, 0] + hdlr + pitm + iinf + iloc)
        #expect(HEIFPrimaryItem.derivedCanvasSizes(in: file).isEmpty)
        let error = try #require(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: file, orientation: .up, maximumPixels: 200_000_000)
        }
        #expect(error.code == .undecodable, "\(error.code): \(error.message)")
    }

    @Test func thePrimaryItemTypeIsReadSafely() throws {
        let bytes = try Self.heic(try Self.upright(), orientation: heif_orientation_normal)
        #expect(HEIFPrimaryItem.type(in: bytes) == "hvc1")
        var generator = SystemRandomNumberGenerator()
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
            _ = HEIFPrimaryItem.type(in: Array(bytes.prefix(length)))
        }
        let header = min(bytes.count, 600)  // the boxes before the coded data
        for _ in 0..<3000 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                damaged[Int.random(in: 0..<header, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            _ = HEIFPrimaryItem.type(in: damaged)
        }
        #expect(HEIFPrimaryItem.type(in: Array("not a HEIF file at all".utf8)) == nil)
    }

    /// `bytes` decoded by analyze and by libheif alone (libde265, libheif's own conversion, interleaved
    /// RGB) give the same pixels.
    static func expectLibheifsPixels(_ bytes: [UInt8], width: Int, height: Int) throws {
        let decoded = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 10_000_000).pixels
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        let read = bytes.withUnsafeBytes {
            heif_context_read_from_memory_without_copy(context, $0.baseAddress, $0.count, nil)
        }
        #expect(read.code == heif_error_Ok)
        var handle: OpaquePointer?
        #expect(heif_context_get_primary_image_handle(context, &handle).code == heif_error_Ok)
        let primary = try #require(handle)
        defer { heif_image_handle_release(primary) }
        var image: OpaquePointer?
        #expect(
            heif_decode_image(primary, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil).code
                == heif_error_Ok)
        let reference = try #require(image)
        defer { heif_image_release(reference) }
        var stride: Int32 = 0
        let rgb = try #require(heif_image_get_plane_readonly(reference, heif_channel_interleaved, &stride))
        #expect(decoded.width == width && decoded.height == height && decoded.channels == 3)
        var differing = 0
        decoded.withPixels { bgr, rowBytes in
            for y in 0..<decoded.height {
                for x in 0..<decoded.width {
                    for c in 0..<3 where bgr[y * rowBytes + x * 3 + c] != rgb[y * Int(stride) + x * 3 + 2 - c] {
                        differing += 1
                    }
                }
            }
        }
        #expect(differing == 0)
    }

    /// `mat` (BGR) encoded as HEIC with an alpha image (a gradient), through libheif's encoder.
    static func heicWithAlpha(_ mat: OpenCVMat) throws -> [UInt8] {
        let w = mat.width, h = mat.height
        var image: OpaquePointer?
        #expect(
            heif_image_create(Int32(w), Int32(h), heif_colorspace_RGB, heif_chroma_interleaved_RGBA, &image).code
                == heif_error_Ok)
        let created = try #require(image)
        defer { heif_image_release(created) }
        #expect(heif_image_add_plane(created, heif_channel_interleaved, Int32(w), Int32(h), 8).code == heif_error_Ok)
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(created, heif_channel_interleaved, &stride))
        mat.withPixels { pixels, rowBytes in
            for y in 0..<h {
                for x in 0..<w {
                    let source = pixels + y * rowBytes + x * 3
                    let target = y * Int(stride) + x * 4
                    (plane[target], plane[target + 1], plane[target + 2]) = (source[2], source[1], source[0])
                    plane[target + 3] = UInt8(255 - (x * 200 / max(1, w - 1)))
                }
            }
        }
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        #expect(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code == heif_error_Ok)
        let hevc = try #require(encoder)
        defer { heif_encoder_release(hevc) }
        heif_encoder_set_lossy_quality(hevc, 92)
        #expect(heif_context_encode_image(context, created, hevc, nil, nil).code == heif_error_Ok)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-\(UUID().uuidString).heic")
            .path
        defer { unlink(path) }
        #expect(heif_context_write_to_file(context, path).code == heif_error_Ok)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
