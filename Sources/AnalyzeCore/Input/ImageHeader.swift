#if canImport(Glibc)
import Glibc
#endif
/// The pixel dimensions an image file's header claims, read without decoding it, so that an
/// image claiming billions of pixels is refused before any allocation.
///
/// Knows PNG, JPEG, GIF, BMP, WebP and TIFF; returns nil for anything else (the decoder then
/// applies OpenCV's own limit of 2^30 pixels).
struct ImageHeader: Equatable {
    let width: Int
    let height: Int

    var pixelCount: Int { width.multipliedReportingOverflow(by: height).overflow ? Int.max : width * height }

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// True for a JPEG whose last scan (SOS marker) is not followed by an end-of-image marker:
    /// a truncated file, which libjpeg would otherwise "decode" with the missing part grey.
    /// One forward pass that jumps from one 0xFF byte to the next with `memchr` (in entropy-coded
    /// data about one byte in 256 is 0xFF), remembering the last FF DA and whether an FF D9 came
    /// after it: scanned byte by byte, backwards and then forwards, a 4 MB photo cost about 3 ms.
    static func isTruncatedJPEG(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return false }
        return bytes.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            let count = buffer.count
            var lastScan = -1, endAfterLastScan = false
            var start = 2
            // Each candidate FF needs a byte after it: search [start, count - 1).
            while start < count - 1, let hit = memchr(base + start, 0xFF, count - 1 - start) {
                let i = base.distance(to: UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)))
                switch base[i + 1] {
                case 0xDA: lastScan = i; endAfterLastScan = false
                case 0xD9: endAfterLastScan = true
                default: break
                }
                start = i + 1
            }
            return lastScan < 0 || !endAfterLastScan
        }
    }

    init?(parsing b: [UInt8]) {
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]), b.count >= 24, Array(b[12 ..< 16]) == Array("IHDR".utf8) { // PNG
            self.init(width: Int(b.readUInt32BE(at: 16)), height: Int(b.readUInt32BE(at: 20)))
        } else if b.starts(with: [0xFF, 0xD8]) {                                // JPEG SOFn
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { return nil }
                let marker = b[i + 1]
                if marker == 0xFF { i += 1; continue }
                if marker == 0xD8 || (0xD0 ... 0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
                let length = Int(b.readUInt16BE(at: i + 2))
                if (0xC0 ... 0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    self.init(width: Int(b.readUInt16BE(at: i + 7)), height: Int(b.readUInt16BE(at: i + 5)))
                    return
                }
                guard length >= 2 else { return nil }
                i += 2 + length
            }
            return nil
        } else if b.starts(with: [0x47, 0x49, 0x46, 0x38]), b.count >= 10 {      // GIF
            self.init(width: Int(b.readUInt16LE(at: 6)), height: Int(b.readUInt16LE(at: 8)))
        } else if b.starts(with: [0x42, 0x4D]), b.count >= 26 {                 // BMP
            let h = Int32(bitPattern: b.readUInt32LE(at: 22))
            self.init(width: Int(Int32(bitPattern: b.readUInt32LE(at: 18)).magnitude), height: Int(h.magnitude))
        } else if b.count >= 30, b.starts(with: [0x52, 0x49, 0x46, 0x46]), Array(b[8 ..< 12]) == [0x57, 0x45, 0x42, 0x50] {
            let chunk = String(decoding: b[12 ..< 16], as: UTF8.self)
            switch chunk {
            case "VP8X":
                let w = Int(b[24]) | Int(b[25]) << 8 | Int(b[26]) << 16
                let h = Int(b[27]) | Int(b[28]) << 8 | Int(b[29]) << 16
                self.init(width: w + 1, height: h + 1)
            case "VP8 ":
                self.init(width: Int(b.readUInt16LE(at: 26) & 0x3FFF), height: Int(b.readUInt16LE(at: 28) & 0x3FFF))
            case "VP8L":
                let bits = b.readUInt32LE(at: 21)
                self.init(width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
            default: return nil
            }
        } else if let order = Self.tiffByteOrder(b) {
            let offset = Self.tiffIFDOffset(b, order)
            guard offset < b.count else { return nil }
            let ifd = Array(b[offset ..< min(b.count, offset + Self.tiffDirectoryBytes)])
            guard let size = Self.tiffSize(ifd: ifd, littleEndian: order) else { return nil }
            self.init(width: size.width, height: size.height)
        } else {
            return nil
        }
    }

    /// The header of the file at `path` from its first `headBytes` bytes, and for a TIFF whose first
    /// directory lies past them (written after the image data, as many scanners and fax tools do),
    /// from that directory read where it is. nil when the file cannot be read or its format is unknown.
    static func reading(_ path: String, headBytes: Int = 65_536) -> ImageHeader? {
        guard let head = RegularFile.head(path, count: headBytes) else { return nil }
        if let header = ImageHeader(parsing: head) { return header }
        guard let order = tiffByteOrder(head) else { return nil }
        let offset = tiffIFDOffset(head, order)
        guard offset >= head.count, let ifd = RegularFile.bytes(path, at: offset, count: tiffDirectoryBytes),
              let size = tiffSize(ifd: ifd, littleEndian: order) else { return nil }
        return ImageHeader(width: size.width, height: size.height)
    }

    /// At most this many entries of a TIFF directory are looked at.
    static let maximumTIFFEntries = 512
    /// The bytes of a directory of that many entries.
    static let tiffDirectoryBytes = 2 + maximumTIFFEntries * 12

    /// true for a little-endian TIFF (`II*\0`), false for a big-endian one (`MM\0*`), nil otherwise.
    private static func tiffByteOrder(_ b: [UInt8]) -> Bool? {
        if b.starts(with: [0x49, 0x49, 0x2A, 0x00]) { return true }
        if b.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return false }
        return nil
    }

    /// Where a TIFF's first directory starts.
    private static func tiffIFDOffset(_ b: [UInt8], _ littleEndian: Bool) -> Int {
        Int(littleEndian ? b.readUInt32LE(at: 4) : b.readUInt32BE(at: 4))
    }

    /// Width and height (tags 256 and 257) from a TIFF directory's bytes, `ifd` starting at its entry count.
    private static func tiffSize(ifd: [UInt8], littleEndian: Bool) -> (width: Int, height: Int)? {
        let u16 = { (o: Int) in Int(littleEndian ? ifd.readUInt16LE(at: o) : ifd.readUInt16BE(at: o)) }
        let u32 = { (o: Int) in Int(littleEndian ? ifd.readUInt32LE(at: o) : ifd.readUInt32BE(at: o)) }
        let entries = u16(0)
        var width = 0, height = 0
        for n in 0 ..< min(entries, maximumTIFFEntries) {
            let e = 2 + n * 12
            guard e + 12 <= ifd.count else { break }
            let tag = u16(e), type = u16(e + 2)
            let value = type == 3 ? u16(e + 8) : u32(e + 8)
            if tag == 256 { width = value }
            if tag == 257 { height = value }
        }
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }
}
