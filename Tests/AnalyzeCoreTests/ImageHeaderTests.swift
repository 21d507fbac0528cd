import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Files that libjpeg, libtiff and OpenCV's BMP reader decode are read the same way by the header
/// parser (only an image whose size was read from its header reaches a decoder): found on Pillow's
/// test images, where these were refused before.
@Suite("Image headers")
struct ImageHeaderTests {
    /// Pixel value of the synthetic images below at (x, y), channel c.
    static func value(_ x: Int, _ y: Int, _ c: Int = 0) -> UInt8 { UInt8((x * 3 + y * 5 + c * 70) % 256) }

    /// Bytes other than 0xFF between a JPEG's segments ("Corrupt JPEG data: N extraneous bytes before
    /// marker"), which libjpeg skips: the frame libjpeg decodes is the one whose size is checked.
    @Test func junkBetweenJPEGSegmentsIsSkippedAsLibjpegSkipsIt() throws {
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixture.path("samples/gift-card.jpg"))))
        let original = try #require(ImageHeader(parsing: jpeg))
        let sof = try #require(
            (2..<jpeg.count - 1).first { jpeg[$0] == 0xFF && (jpeg[$0 + 1] == 0xC0 || jpeg[$0 + 1] == 0xC2) })
        jpeg.insert(0x00, at: sof)  // one stray byte before the frame
        let dqt = try #require((2..<sof).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDB })
        jpeg.insert(contentsOf: [0x12, 0x34, 0x00, 0x56, 0x78], at: dqt)  // five before the quantisation table
        jpeg.insert(contentsOf: [0xFF, 0xFF], at: dqt + 5)  // and fill bytes before its marker
        #expect(ImageHeader(parsing: jpeg) == original)
        let image = try UprightImage(decoding: jpeg, orientation: .up, maximumPixels: 10_000_000)
        #expect(image.width == original.width && image.height == original.height)
        #expect(
            image.decodeWarnings.contains { $0.contains("extraneous bytes before marker") }, "\(image.decodeWarnings)")
        // The pixel limit is checked against that frame's size.
        let error = try #require(throws: AnalysisError.self) {
            _ = try UprightImage(decoding: jpeg, orientation: .up, maximumPixels: 1000)
        }
        #expect(error.code == .tooLarge && error.message.contains("\(original.width)x\(original.height)"))
        // An end of image before any frame: no header.
        #expect(ImageHeader(parsing: [0xFF, 0xD8, 0xFF, 0xD9] + [UInt8](repeating: 0, count: 16)) == nil)
    }

    /// An OS/2 1.x bitmap (BITMAPCOREHEADER: 16-bit width and height), 8-bit with a 256-colour palette
    /// of 3-byte entries, bottom-up rows.
    static func os2BMP(width: Int, height: Int) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        let palette = (0..<256).flatMap { paletteEntry($0) }
        let rowBytes = (width + 3) / 4 * 4
        var pixels: [UInt8] = []
        for y in (0..<height).reversed() {
            let row = (0..<width).map { value($0, y) }
            pixels += row + [UInt8](repeating: 0, count: rowBytes - row.count)
        }
        let offset = 14 + 12 + palette.count
        return Array("BM".utf8) + le32(offset + pixels.count) + le32(0) + le32(offset)
            + le32(12) + le16(width) + le16(height) + le16(1) + le16(8) + palette + pixels
    }

    /// The palette's colour `index` as B, G, R.
    static func paletteEntry(_ index: Int) -> [UInt8] { [UInt8(index), UInt8(255 - index), UInt8(index * 7 % 256)] }

    /// A BigTIFF (64-bit offsets, 20-byte directory entries): 8-bit gray, one uncompressed strip,
    /// its directory after the pixels.
    static func bigTIFF(width: Int, height: Int, littleEndian: Bool) -> [UInt8] {
        func bytes(_ v: Int, _ n: Int) -> [UInt8] {
            let le = (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
            return littleEndian ? le : le.reversed()
        }
        func entry(_ tag: Int, type: Int, _ value: Int) -> [UInt8] {
            let size = type == 3 ? 2 : type == 4 ? 4 : 8
            return bytes(tag, 2) + bytes(type, 2) + bytes(1, 8) + bytes(value, size)
                + [UInt8](repeating: 0, count: 8 - size)
        }
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels.append(value(x, y)) } }
        let directory = 16 + pixels.count
        let entries = [
            entry(256, type: 3, width), entry(257, type: 16, height), entry(258, type: 3, 8), entry(259, type: 3, 1),
            entry(262, type: 3, 1), entry(273, type: 16, 16), entry(277, type: 3, 1), entry(278, type: 4, height),
            entry(279, type: 16, pixels.count),
        ]
        let magic: [UInt8] = littleEndian ? [0x49, 0x49, 0x2B, 0x00] : [0x4D, 0x4D, 0x00, 0x2B]
        return magic + bytes(8, 2) + bytes(0, 2) + bytes(directory, 8) + pixels
            + bytes(entries.count, 8) + entries.flatMap { $0 } + bytes(0, 8)
    }

    /// Every pixel of `mat` equals `expected(x, y, c)`.
    static func matches(_ mat: OpenCVMat, _ expected: (Int, Int, Int) -> UInt8) -> Bool {
        mat.withPixels { base, stride in
            (0..<mat.height).allSatisfy { y in
                (0..<mat.width).allSatisfy { x in
                    (0..<mat.channels).allSatisfy { c in base[y * stride + x * mat.channels + c] == expected(x, y, c) }
                }
            }
        }
    }

    @Test func anOS2BitmapIsReadWithItsSixteenBitSize() throws {
        let bmp = Self.os2BMP(width: 127, height: 64)
        #expect(ImageHeader(parsing: bmp) == ImageHeader(width: 127, height: 64))
        // OpenCV 4.6 decodes an OS/2 bitmap as gray (its BMP reader marks only Windows headers colour):
        // each pixel is its palette colour through OpenCV's BGR-to-gray weights.
        let image = try UprightImage(decoding: bmp, orientation: .up, maximumPixels: 10_000_000)
        #expect(image.width == 127 && image.height == 64 && image.pixels.channels == 1)
        #expect(
            Self.matches(image.pixels) { x, y, _ in
                let bgr = Self.paletteEntry(Int(Self.value(x, y))).map(Int.init)
                return UInt8((bgr[0] * 1868 + bgr[1] * 9617 + bgr[2] * 4899 + 8192) >> 14)
            })
    }

    @Test(arguments: [true, false])
    func aBigTIFFIsReadAsLibtiffReadsIt(littleEndian: Bool) throws {
        let tiff = Self.bigTIFF(width: 64, height: 40, littleEndian: littleEndian)
        #expect(ImageHeader(parsing: tiff) == ImageHeader(width: 64, height: 40))
        let image = try UprightImage(decoding: tiff, orientation: .up, maximumPixels: 10_000_000)
        #expect(image.width == 64 && image.height == 40)
        #expect(Self.matches(image.pixels) { x, y, _ in Self.value(x, y) })
        // Its directory past the bytes the runner reads first: read where it is.
        let file = try Fixture.temporaryDirectory().appendingPathComponent("scan.tif")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try Data(tiff).write(to: file)
        #expect(ImageHeader(parsing: Array(tiff.prefix(64))) == nil)
        #expect(ImageHeader.reading(file.path, headBytes: 64) == ImageHeader(width: 64, height: 40))
        // A directory offset past the end of the file: no header.
        var far = tiff
        far.replaceSubrange(8..<16, with: littleEndian ? [0, 0, 0, 0, 0, 0, 0, 0x7F] : [0x7F, 0, 0, 0, 0, 0, 0, 0])
        #expect(ImageHeader(parsing: far) == nil)
    }

    /// Found by scripts/fuzz --parsers: a BigTIFF whose first directory lies at an offset near 2^63 (read as
    /// Int.max), and one whose directory declares 0x8484…84 entries. Both trapped on an overflowing sum
    /// (the orientation reader's and the page walk's); both are now simply no directory.
    @Test func aBigTIFFsHugeOffsetsAndCountsAreNoDirectory() {
        let farOffset: [UInt8] =
            [0x49, 0x49, 0x2B, 0, 8, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0xDA, 0xDB] + [UInt8](repeating: 0, count: 64)
        var hugeCount: [UInt8] = [0x49, 0x49, 0x2B, 0, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]
        hugeCount += [UInt8](repeating: 0x84, count: 8) + [UInt8](repeating: 0, count: 64)
        for bytes in [farOffset, hugeCount] {
            #expect(ImageHeader(parsing: bytes) == nil)
            #expect(ExifOrientationReader.orientationTag(in: bytes) == .absent)
            #expect(ImageHeader.TIFFKind(bytes)?.pageDirectories(bytes).count ?? 0 <= 1)
        }
    }

    /// A classic TIFF of `kinds.count` directories chained one to the next, each an 8×4 gray page
    /// (NewSubfileType `kind`: 0 a page, 1 a reduced-resolution copy; a LONG, or in a big-endian file a
    /// SHORT, which sits in the first two bytes of its field); `loop` links the last back to the first.
    static func chainedTIFF(kinds: [Int], loop: Bool = false, bigEndian: Bool = false) -> [UInt8] {
        func le(_ v: Int, _ n: Int) -> [UInt8] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
            return bigEndian ? bytes.reversed() : bytes
        }
        let (w, h) = (8, 4), entryCount = 10, directoryBytes = 2 + entryCount * 12 + 4
        var out = (bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]) + le(8, 4)
        for (index, kind) in kinds.enumerated() {
            let start = out.count, pixels = start + directoryBytes
            let next = index + 1 < kinds.count ? pixels + w * h : (loop ? 8 : 0)
            func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
                le(tag, 2) + le(type, 2) + le(1, 4) + (type == 3 ? le(value, 2) + [0, 0] : le(value, 4))
            }
            let entries = [
                entry(254, bigEndian ? 3 : 4, kind), entry(256, 3, w), entry(257, 3, h), entry(258, 3, 8),
                entry(259, 3, 1),
                entry(262, 3, 1), entry(273, 4, pixels), entry(277, 3, 1), entry(278, 3, h), entry(279, 4, w * h),
            ]
            out += le(entryCount, 2) + entries.flatMap { $0 } + le(next, 4)
            out += (0..<w * h).map { UInt8(($0 * 7 + index * 40) % 256) }
        }
        return out
    }

    /// A multi-page TIFF (a scanned document) read whole is analysed at its first page, and its warnings
    /// say so; reduced-resolution copies of a page are not pages, and a chain that loops ends.
    @Test func aMultiPageTIFFReadWholeSaysThatOnlyItsFirstPageIsAnalysed() throws {
        let three = Self.chainedTIFF(kinds: [0, 1, 0, 0])
        #expect(ImageHeader.TIFFKind(three)?.pageCount(three) == 3)
        let image = try UprightImage(decoding: three, orientation: .up, maximumPixels: 10_000_000)
        #expect(image.width == 8 && image.height == 4)
        var warnings: [String] = []
        #expect(try ImageRequestHandler.page(nil, of: three, warnings: &warnings) == three)
        #expect(warnings == ["TIFF: only the first of its 3 pages is analysed"])
        let one = Self.chainedTIFF(kinds: [0, 1])
        warnings = []
        _ = try ImageRequestHandler.page(nil, of: one, warnings: &warnings)
        #expect(warnings.isEmpty)
        let bigEndian = Self.chainedTIFF(kinds: [0, 1, 0, 0], bigEndian: true)
        #expect(ImageHeader.TIFFKind(bigEndian)?.pageCount(bigEndian) == 3)
        #expect(try UprightImage(decoding: bigEndian, orientation: .up, maximumPixels: 10_000_000).width == 8)
        let looping = Self.chainedTIFF(kinds: [0, 0], loop: true)
        #expect(ImageHeader.TIFFKind(looping)?.pageCount(looping) == 2)
    }
}
