/// The type of a HEIF file's primary item (`hvc1`, `grid`, `iovl`, `iden`, `av01`…), read from the
/// top-level `meta` box's `pitm` and `iinf` boxes (ISO/IEC 14496-12 §8.11; libheif 1.15 has no call that
/// tells it). Untrusted bytes: every length is checked, and a box that does not fit ends the search (nil).
enum HEIFPrimaryItem {
    static func type(in bytes: [UInt8]) -> String? {
        guard let meta = boxes(in: bytes, from: 0, to: bytes.count).first(where: { $0.type == "meta" }) else {
            return nil
        }
        // meta is a full box: version and flags before its children.
        let children = boxes(in: bytes, from: meta.start + 4, to: meta.end)
        guard let pitm = children.first(where: { $0.type == "pitm" }), pitm.start + 4 <= pitm.end,
            let primary = bytes[pitm.start] == 0
                ? integer(bytes, at: pitm.start + 4, size: 2, end: pitm.end)
                : integer(bytes, at: pitm.start + 4, size: 4, end: pitm.end),
            let iinf = children.first(where: { $0.type == "iinf" }), iinf.start + 4 <= iinf.end
        else { return nil }
        let entries = iinf.start + 4 + (bytes[iinf.start] == 0 ? 2 : 4)
        guard entries <= iinf.end else { return nil }
        for infe in boxes(in: bytes, from: entries, to: iinf.end)
        where infe.type == "infe" && infe.start + 4 <= infe.end {
            // Versions 2 and 3 name an item type (0 and 1 describe files, not images).
            let version = bytes[infe.start]
            guard version == 2 || version == 3 else { continue }
            let idSize = version == 2 ? 2 : 4
            guard let id = integer(bytes, at: infe.start + 4, size: idSize, end: infe.end), id == primary else {
                continue
            }
            let typeStart = infe.start + 4 + idSize + 2
            guard typeStart + 4 <= infe.end else { return nil }
            return String(decoding: bytes[typeStart..<typeStart + 4], as: UTF8.self)
        }
        return nil
    }

    /// The output size every derived image item (`grid`, `iovl`) of the file declares in its own data
    /// (ISO/IEC 23008-12 §6.6.2.3): libheif decodes a grid or an overlay onto a canvas of that size,
    /// whatever its `ispe` property says (a grid patched to 32000×32000 behind an `ispe` of 2566×3313).
    /// Items whose data cannot be found or read are left out; the file then fails in libheif.
    static func derivedCanvasSizes(in bytes: [UInt8]) -> [(type: String, width: Int, height: Int, pixels: Int)] {
        guard let meta = boxes(in: bytes, from: 0, to: bytes.count).first(where: { $0.type == "meta" }) else {
            return []
        }
        let children = boxes(in: bytes, from: meta.start + 4, to: meta.end)
        guard let iinf = children.first(where: { $0.type == "iinf" }), iinf.start + 4 <= iinf.end,
            let iloc = children.first(where: { $0.type == "iloc" })
        else { return [] }
        let idat = children.first(where: { $0.type == "idat" })
        let entries = iinf.start + 4 + (bytes[iinf.start] == 0 ? 2 : 4)
        guard entries <= iinf.end else { return [] }
        var derived: [Int: String] = [:]
        for infe in boxes(in: bytes, from: entries, to: iinf.end)
        where infe.type == "infe" && infe.start + 4 <= infe.end {
            let version = bytes[infe.start]
            guard version == 2 || version == 3 else { continue }
            let idSize = version == 2 ? 2 : 4
            let typeStart = infe.start + 4 + idSize + 2
            guard let id = integer(bytes, at: infe.start + 4, size: idSize, end: infe.end), typeStart + 4 <= infe.end
            else { continue }
            let type = String(decoding: bytes[typeStart..<typeStart + 4], as: UTF8.self)
            if type == "grid" || type == "iovl" { derived[id] = type }
        }
        guard !derived.isEmpty else { return [] }
        var sizes: [(type: String, width: Int, height: Int, pixels: Int)] = []
        for (id, start) in itemStarts(bytes, iloc: iloc, idat: idat) {
            guard let type = derived[id] else { continue }
            // grid: version, flags, rows−1, columns−1; iovl: version, flags, four 16-bit fill values.
            // Then the output width and height, 32-bit when flags bit 0 is set, else 16-bit.
            guard start + 2 <= bytes.count else { continue }
            let wide = bytes[start + 1] & 1 == 1
            let at = start + (type == "grid" ? 4 : 10)
            let size = wide ? 4 : 2
            guard let width = integer(bytes, at: at, size: size, end: bytes.count),
                let height = integer(bytes, at: at + size, size: size, end: bytes.count)
            else { continue }
            // 32-bit sizes: their product can pass Int's range (found by scripts/fuzz).
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            sizes.append((type, width, height, overflow ? Int.max : pixels))
        }
        return sizes.sorted { ($0.pixels, $0.type) > ($1.pixels, $1.type) }
    }

    /// Where each item's data starts in `bytes`, from the `iloc` box: its first extent, in a top-level
    /// `mdat` box (construction method 0) or in the `idat` box (method 1). Items stored otherwise, or
    /// elsewhere, are left out. The work is one step per item, and items are bounded by the box's bytes.
    private static func itemStarts(_ bytes: [UInt8], iloc: Box, idat: Box?) -> [(id: Int, start: Int)] {
        let end = iloc.end
        guard iloc.start + 6 <= end else { return [] }
        let mediaData = boxes(in: bytes, from: 0, to: bytes.count).filter { $0.type == "mdat" }
        let version = bytes[iloc.start]
        guard version <= 2 else { return [] }
        let offsetSize = Int(bytes[iloc.start + 4] >> 4), lengthSize = Int(bytes[iloc.start + 4] & 15)
        let baseOffsetSize = Int(bytes[iloc.start + 5] >> 4),
            indexSize = version >= 1 ? Int(bytes[iloc.start + 5] & 15) : 0
        var at = iloc.start + 6
        guard let count = integer(bytes, at: at, size: version < 2 ? 2 : 4, end: end) else { return [] }
        at += version < 2 ? 2 : 4
        var starts: [(id: Int, start: Int)] = []
        for _ in 0..<min(count, 65536) {
            guard let id = integer(bytes, at: at, size: version < 2 ? 2 : 4, end: end) else { break }
            at += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 {
                guard let field = integer(bytes, at: at, size: 2, end: end) else { break }
                method = field & 15
                at += 2
            }
            at += 2  // data reference index
            guard let base = baseOffsetSize == 0 ? 0 : integer(bytes, at: at, size: baseOffsetSize, end: end) else {
                break
            }
            at += baseOffsetSize
            guard let extents = integer(bytes, at: at, size: 2, end: end) else { break }
            at += 2
            // Only the first extent's offset is wanted; the others are stepped over at once, so the work
            // is one step per item whatever the extent count (65,535 extents of zero bytes each, times
            // 65,535 items, is 4.3 billion steps when walked).
            guard extents > 0 else { continue }
            let extentSize = indexSize + offsetSize + lengthSize
            at += indexSize
            guard let first = offsetSize == 0 ? 0 : integer(bytes, at: at, size: offsetSize, end: end) else {
                return starts
            }
            at += offsetSize + lengthSize + (extents - 1) * extentSize
            guard at <= end else { return starts }
            let (sum, overflow) = base.addingReportingOverflow(first)
            guard !overflow else { continue }
            switch method {
            case 0:
                // In the file: inside a top-level `mdat` box, where item data lives (an offset into the
                // `ftyp` or `meta` box would read the container's own bytes as the item's).
                if mediaData.contains(where: { $0.start <= sum && sum < $0.end }) { starts.append((id, sum)) }
            case 1:
                if let idat {
                    let (inside, o) = idat.start.addingReportingOverflow(sum);
                    if !o, inside < idat.end { starts.append((id, inside)) }
                }
            default: continue
            }
        }
        return starts
    }

    private struct Box {
        let type: String
        /// Where its contents start and end (after its header).
        let start: Int, end: Int
    }

    /// The boxes laid end to end in `bytes[from..<to]`, up to the first that does not fit.
    private static func boxes(in bytes: [UInt8], from: Int, to: Int) -> [Box] {
        var found: [Box] = []
        var at = from
        while at + 8 <= to, let size32 = integer(bytes, at: at, size: 4, end: to) {
            var header = 8, size = size32
            if size32 == 1 {
                guard let large = integer(bytes, at: at + 8, size: 8, end: to) else { break }
                header = 16
                size = large
            } else if size32 == 0 {
                size = to - at  // to the end of its container
            }
            guard size >= header, size <= to - at else { break }
            found.append(
                Box(type: String(decoding: bytes[at + 4..<at + 8], as: UTF8.self), start: at + header, end: at + size))
            at += size
        }
        return found
    }

    /// A big-endian unsigned integer of `size` bytes at `at`, if it ends by `end` and fits in an Int.
    private static func integer(_ bytes: [UInt8], at: Int, size: Int, end: Int) -> Int? {
        guard at >= 0, size <= 8, at + size <= min(end, bytes.count) else { return nil }
        var value: UInt64 = 0
        for byte in bytes[at..<at + size] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
