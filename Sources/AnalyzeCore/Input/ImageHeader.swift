#if canImport(Glibc)
    import Glibc
#endif
/// The pixel dimensions an image file's header claims, read without decoding it, so that an
/// image claiming billions of pixels is refused before any allocation.
///
/// Knows PNG, JPEG, GIF, BMP (Windows and OS/2), WebP, TIFF (classic and BigTIFF), Netpbm (PBM, PGM,
/// PPM, PAM), JPEG 2000 (JP2 and codestream) and Sun raster; returns nil for anything else, which is then
/// not decoded.
package struct ImageHeader: Equatable {
    let width: Int
    let height: Int

    package var pixelCount: Int { width.multipliedReportingOverflow(by: height).overflow ? Int.max : width * height }

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

    /// The image formats this parser knows, told by their first bytes (whether the header that
    /// follows is whole is for ``init(parsing:)`` to find).
    enum Format: Equatable {
        case png, jpeg, gif, bmp, webp, netpbm, jp2, jpeg2000Codestream, sunRaster
        case tiff(TIFFKind)

        init?(_ b: [UInt8]) {
            if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
                self = .png
            } else if b.starts(with: [0xFF, 0xD8]) {
                self = .jpeg
            } else if b.starts(with: Array("GIF8".utf8)) {
                self = .gif
            } else if b.starts(with: Array("BM".utf8)) {
                self = .bmp
            } else if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
                self = .webp
            }
            // "P1"–"P7" then whitespace or a comment: PBM, PGM, PPM (plain and raw), PAM.
            else if b.count >= 3, b[0] == 0x50, (0x31...0x37).contains(b[1]),
                [0x20, 0x09, 0x0A, 0x0D, 0x23].contains(b[2])
            {
                self = .netpbm
            } else if b.starts(with: [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
                self = .jp2
            } else if b.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
                self = .jpeg2000Codestream
            }  // SOC, SIZ
            else if b.starts(with: [0x59, 0xA6, 0x6A, 0x95]) {
                self = .sunRaster
            } else if let kind = TIFFKind(b) {
                self = .tiff(kind)
            } else {
                return nil
            }
        }
    }

    init?(parsing b: [UInt8]) {
        guard let format = Format(b) else { return nil }
        switch format {
        case .png:
            guard b.count >= 24, Array(b[12..<16]) == Array("IHDR".utf8) else { return nil }
            self.init(width: Int(b.readUInt32BE(at: 16)), height: Int(b.readUInt32BE(at: 20)))
        case .jpeg:  // SOFn
            // Markers are found as libjpeg finds them (jdmarker.c, next_marker): bytes other than
            // 0xFF before a marker are skipped ("Corrupt JPEG data: N extraneous bytes before
            // marker", which it decodes past), fill 0xFF bytes too, and FF 00 is not a marker. So
            // the SOF read here is the one the decoder will use, and its size is checked first.
            var i = 2
            while i + 9 < b.count {
                guard b[i] == 0xFF else { i += 1; continue }
                var m = i + 1
                while m < b.count, b[m] == 0xFF { m += 1 }
                guard m + 8 < b.count else { return nil }
                let marker = b[m]
                i = m + 1
                if marker == 0x00 || marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { continue }
                if marker == 0xD9 { return nil }  // end of image before any frame
                let length = Int(b.readUInt16BE(at: m + 1))
                if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
                    self.init(width: Int(b.readUInt16BE(at: m + 6)), height: Int(b.readUInt16BE(at: m + 4)))
                    return
                }
                guard length >= 2 else { return nil }
                i = m + 1 + length
            }
            return nil
        case .gif:
            guard b.count >= 10 else { return nil }
            self.init(width: Int(b.readUInt16LE(at: 6)), height: Int(b.readUInt16LE(at: 8)))
        case .bmp:
            guard b.count >= 26 else { return nil }
            if b.readUInt32LE(at: 14) == 12 {
                // OS/2 1.x (BITMAPCOREHEADER): 16-bit width and height.
                self.init(width: Int(b.readUInt16LE(at: 18)), height: Int(b.readUInt16LE(at: 20)))
                return
            }
            let h = Int32(bitPattern: b.readUInt32LE(at: 22))
            self.init(width: Int(Int32(bitPattern: b.readUInt32LE(at: 18)).magnitude), height: Int(h.magnitude))
        case .webp:
            guard b.count >= 30 else { return nil }
            switch String(decoding: b[12..<16], as: UTF8.self) {
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
        case .netpbm:
            guard let size = Self.netpbmSize(b) else { return nil }
            self.init(width: size.width, height: size.height)
        case .jp2:
            guard let size = Self.jp2Size(b) else { return nil }
            self.init(width: size.width, height: size.height)
        case .jpeg2000Codestream:
            guard b.count >= 24 else { return nil }
            let (x, y, x0, y0) = (
                b.readUInt32BE(at: 8), b.readUInt32BE(at: 12), b.readUInt32BE(at: 16), b.readUInt32BE(at: 20)
            )
            guard x > x0, y > y0 else { return nil }
            self.init(width: Int(x - x0), height: Int(y - y0))
        case .sunRaster:
            guard b.count >= 12 else { return nil }
            self.init(width: Int(b.readUInt32BE(at: 4)), height: Int(b.readUInt32BE(at: 8)))
        case .tiff(let kind):
            let offset = kind.firstDirectoryOffset(b)
            guard offset < b.count else { return nil }
            let ifd = Array(b[offset..<min(b.count, offset + kind.directoryBytes)])
            guard let size = kind.size(ifd: ifd) else { return nil }
            self.init(width: size.width, height: size.height)
        }
    }

    /// Width and height of a Netpbm file (what `scanimage` writes): `P1`–`P6`, the magic then width and
    /// height as decimal numbers between whitespace and `#` comments; `P7` (PAM), `WIDTH` and `HEIGHT`
    /// lines before `ENDHDR`. Read from the first 4 KiB of a file ``Format`` found to be Netpbm.
    static func netpbmSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
        let head = Array(b.prefix(4096))
        if head[1] == 0x37 {
            var width: Int?, height: Int?
            for line in head.split(separator: 0x0A).dropFirst() {
                let words = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace)
                if words.first == "ENDHDR" { break }
                if words.count == 2, let value = Int(words[1]), (0..<1 << 31).contains(value) {  // never negative
                    if words[0] == "WIDTH" { width = value } else if words[0] == "HEIGHT" { height = value }
                }
            }
            guard let width, let height else { return nil }
            return (width, height)
        }
        var numbers: [Int] = [], i = 2
        while numbers.count < 2, i < head.count {
            let c = head[i]
            if c == 0x23 {  // a comment, to the end of its line
                while i < head.count, head[i] != 0x0A, head[i] != 0x0D { i += 1 }
            } else if [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(c) {
                i += 1
            } else if (0x30...0x39).contains(c) {
                var value = 0, digits = 0
                while i < head.count, (0x30...0x39).contains(head[i]) {
                    digits += 1
                    guard digits <= 9 else { return nil }
                    value = value * 10 + Int(head[i] - 0x30)
                    i += 1
                }
                numbers.append(value)
            } else {
                return nil
            }
        }
        return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }

    /// Width and height of a JP2 file: its `ihdr` box (height, then width) inside the `jp2h` header box.
    static func jp2Size(_ b: [UInt8]) -> (width: Int, height: Int)? {
        /// The boxes from `start` to `end`: (type, where its content starts, where it ends).
        func boxes(_ start: Int, _ end: Int) -> [(type: String, from: Int, to: Int)] {
            var found: [(String, Int, Int)] = [], at = start
            while at + 8 <= end, found.count < 64 {
                var length = Int(b.readUInt32BE(at: at)), header = 8
                if length == 1 {
                    guard at + 16 <= end, b.readUInt32BE(at: at + 8) == 0 else { break }
                    length = Int(b.readUInt32BE(at: at + 12))
                    header = 16
                } else if length == 0 {
                    length = end - at
                }
                guard length >= header else { break }
                found.append((String(decoding: b[at + 4..<at + 8], as: UTF8.self), at + header, min(end, at + length)))
                at += length
            }
            return found
        }
        guard let header = boxes(0, b.count).first(where: { $0.type == "jp2h" }),
            let ihdr = boxes(header.from, header.to).first(where: { $0.type == "ihdr" }), ihdr.to - ihdr.from >= 8
        else { return nil }
        return (Int(b.readUInt32BE(at: ihdr.from + 4)), Int(b.readUInt32BE(at: ihdr.from)))
    }

    /// The header of the file at `path` from its first `headBytes` bytes, and for a TIFF whose first
    /// directory lies past them (written after the image data, as many scanners and fax tools do),
    /// from that directory read where it is. nil when the file cannot be read or its format is unknown.
    package static func reading(_ path: String, headBytes: Int = 65_536) -> ImageHeader? {
        guard let head = RegularFile.head(path, count: headBytes) else { return nil }
        if let header = ImageHeader(parsing: head) { return header }
        guard let kind = TIFFKind(head) else { return nil }
        let offset = kind.firstDirectoryOffset(head)
        guard offset >= head.count, let ifd = RegularFile.bytes(path, at: offset, count: kind.directoryBytes),
            let size = kind.size(ifd: ifd)
        else { return nil }
        return ImageHeader(width: size.width, height: size.height)
    }

    /// The directories of the pages of the TIFF at `path`, read where they lie (a fax or scanner file of
    /// hundreds of pages is not read whole); empty when it is not a TIFF or cannot be read.
    static func tiffPageDirectories(_ path: String, limit: Int) -> [Int] {
        RegularFile.withReader(path) { read -> [Int] in
            guard let head = read(0, 16), let kind = TIFFKind(head) else { return [] }
            return kind.pageDirectories(limit: limit, read: read)
        } ?? []
    }

    /// At most this many entries of a TIFF directory are looked at.
    static let maximumTIFFEntries = 512

    /// A TIFF's byte order and layout: classic TIFF (`II*\0` / `MM\0*`: 32-bit offsets, 12-byte
    /// directory entries) or BigTIFF (`II+\0` / `MM\0+`, offset size 8: 64-bit offsets, 20-byte
    /// entries), which libtiff and OpenCV read and large scans and microscopy images use.
    struct TIFFKind: Equatable {
        let littleEndian: Bool
        let big: Bool

        init?(_ b: [UInt8]) {
            if b.starts(with: [0x49, 0x49, 0x2A, 0x00]) {
                (littleEndian, big) = (true, false)
            } else if b.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
                (littleEndian, big) = (false, false)
            } else if b.starts(with: [0x49, 0x49, 0x2B, 0x00, 0x08, 0x00, 0x00, 0x00]) {
                (littleEndian, big) = (true, true)
            } else if b.starts(with: [0x4D, 0x4D, 0x00, 0x2B, 0x00, 0x08, 0x00, 0x00]) {
                (littleEndian, big) = (false, true)
            } else {
                return nil
            }
        }

        private func u16(_ b: [UInt8], _ o: Int) -> Int {
            Int(littleEndian ? b.readUInt16LE(at: o) : b.readUInt16BE(at: o))
        }
        private func u32(_ b: [UInt8], _ o: Int) -> Int {
            Int(littleEndian ? b.readUInt32LE(at: o) : b.readUInt32BE(at: o))
        }
        /// A 64-bit value, or Int.max when it does not fit an Int (no file is that long).
        private func u64(_ b: [UInt8], _ o: Int) -> Int {
            let (low, high) = littleEndian ? (u32(b, o), u32(b, o + 4)) : (u32(b, o + 4), u32(b, o))
            return high >= 1 << 31 ? Int.max : high << 32 | low
        }

        /// Where the first directory starts.
        func firstDirectoryOffset(_ b: [UInt8]) -> Int { big ? u64(b, 8) : u32(b, 4) }

        /// The bytes of a directory of ``ImageHeader/maximumTIFFEntries`` entries.
        var directoryBytes: Int { big ? 8 + maximumTIFFEntries * 20 : 2 + maximumTIFFEntries * 12 }

        /// Bytes of a directory's link to the next one.
        private var linkBytes: Int { big ? 8 : 4 }

        /// The tags and values of the directory at `offset` in `b` (at most ``ImageHeader/maximumTIFFEntries``
        /// entries, those inside `b`), and how many entries it declares; nil when its entry count is not
        /// in `b`. A value is read as its type says: SHORT (3), LONG (4) or, in a BigTIFF, LONG8 (16),
        /// left-justified in its field (a BYTE, 1, as its first byte).
        private func directory(_ b: [UInt8], at offset: Int) -> (entries: [(tag: Int, value: Int)], declared: Int)? {
            let (first, entrySize) = big ? (8, 20) : (2, 12)
            // (An offset read from the file may be anything, Int.max included: compared without adding to it.)
            guard offset >= 0, offset <= b.count - first else { return nil }
            let count = big ? u64(b, offset) : u16(b, offset)
            var entries: [(tag: Int, value: Int)] = []
            for n in 0..<min(count, maximumTIFFEntries) {
                let e = offset + first + n * entrySize
                guard e + entrySize <= b.count else { break }
                let type = u16(b, e + 2), valueAt = e + (big ? 12 : 8)
                let value =
                    type == 1
                    ? Int(b[valueAt])
                    : type == 3 ? u16(b, valueAt) : type == 16 && big ? u64(b, valueAt) : u32(b, valueAt)
                entries.append((u16(b, e), value))
            }
            return (entries, count)
        }

        /// Width and height (tags 256 and 257) from a directory's bytes, `ifd` starting at its entry count.
        func size(ifd: [UInt8]) -> (width: Int, height: Int)? {
            guard let entries = directory(ifd, at: 0)?.entries else { return nil }
            let width = entries.last { $0.tag == 256 }?.value ?? 0, height = entries.last { $0.tag == 257 }?.value ?? 0
            guard width > 0, height > 0 else { return nil }
            return (width, height)
        }

        /// Where the pages of the file lie: the offsets of the directories it chains, following each
        /// one's link to the next, except reduced-resolution copies of a page (overviews, thumbnails:
        /// bit 0 of NewSubfileType, tag 254). `read(offset, count)` gives at most `count` bytes of the
        /// file from `offset` (fewer at its end; nil past it). At most `limit` directories are visited;
        /// a link that points back to a directory already seen, or outside the file, ends the chain.
        func pageDirectories(limit: Int = 10_000, read: (Int, Int) -> [UInt8]?) -> [Int] {
            guard let header = read(0, 16), header.count >= (big ? 16 : 8) else { return [] }
            var offset = firstDirectoryOffset(header), seen = Set<Int>(), pages: [Int] = []
            while seen.count < limit, offset > 0, offset < Int.max / 2, seen.insert(offset).inserted,
                let bytes = read(offset, directoryBytes), let (entries, declared) = directory(bytes, at: 0)
            {
                if entries.last(where: { $0.tag == 254 }).map({ $0.value & 1 == 1 }) != true { pages.append(offset) }
                // (A BigTIFF's 64-bit entry count can be anything: checked before it is multiplied.)
                guard declared < 1 << 40 else { break }
                let linkAt = offset + (big ? 8 + declared * 20 : 2 + declared * 12)
                guard let link = read(linkAt, linkBytes), link.count == linkBytes else { break }
                offset = big ? u64(link, 0) : u32(link, 0)
            }
            return pages
        }

        /// The value of `tag` in the first directory of the whole file `b`; nil when it has none. The
        /// orientation (274) of a TIFF is read here, not by libexif, which reads only directories in the
        /// first 64 KiB (a scanner's directory written after the pixels was not seen) and no BigTIFF.
        func firstDirectoryValue(_ b: [UInt8], tag: Int) -> Int? {
            directory(b, at: firstDirectoryOffset(b))?.entries.last { $0.tag == tag }?.value
        }

        /// ``pageDirectories(limit:read:)`` of the whole file `b`.
        func pageDirectories(_ b: [UInt8], limit: Int = 10_000) -> [Int] {
            pageDirectories(limit: limit) { offset, count in
                offset >= 0 && offset < b.count ? Array(b[offset..<min(b.count, offset + count)]) : nil
            }
        }

        /// How many pages the whole file `b` holds (``pageDirectories(_:limit:)``).
        func pageCount(_ b: [UInt8], limit: Int = 10_000) -> Int { pageDirectories(b, limit: limit).count }

        /// Makes the directory at `offset` the first of the file `b`: libtiff and OpenCV then read that
        /// page as they read a file's first page (its size, orientation, compression, colour), and its
        /// header is checked like any other's. Only the header's first-directory offset changes.
        func makeFirstDirectory(_ offset: Int, in b: inout [UInt8]) {
            let at = big ? 8 : 4
            guard b.count >= at + linkBytes else { return }
            for i in 0..<linkBytes {
                let shift = 8 * (littleEndian ? i : linkBytes - 1 - i)
                b[at + i] = UInt8(truncatingIfNeeded: offset >> shift)
            }
        }
    }
}
