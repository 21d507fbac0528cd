/// The type of a HEIF file's primary item (`hvc1`, `grid`, `iovl`, `iden`, `av01`…), read from the
/// top-level `meta` box's `pitm` and `iinf` boxes (ISO/IEC 14496-12 §8.11; libheif 1.15 has no call that
/// tells it). Untrusted bytes: every length is checked, and a box that does not fit ends the search (nil).
enum HEIFPrimaryItem {
    static func type(in bytes: [UInt8]) -> String? {
        guard let meta = boxes(in: bytes, from: 0, to: bytes.count).first(where: { $0.type == "meta" }) else { return nil }
        // meta is a full box: version and flags before its children.
        let children = boxes(in: bytes, from: meta.start + 4, to: meta.end)
        guard let pitm = children.first(where: { $0.type == "pitm" }), pitm.start + 4 <= pitm.end,
              let primary = bytes[pitm.start] == 0 ? integer(bytes, at: pitm.start + 4, size: 2, end: pitm.end)
                                                   : integer(bytes, at: pitm.start + 4, size: 4, end: pitm.end),
              let iinf = children.first(where: { $0.type == "iinf" }), iinf.start + 4 <= iinf.end else { return nil }
        let entries = iinf.start + 4 + (bytes[iinf.start] == 0 ? 2 : 4)
        guard entries <= iinf.end else { return nil }
        for infe in boxes(in: bytes, from: entries, to: iinf.end) where infe.type == "infe" && infe.start + 4 <= infe.end {
            // Versions 2 and 3 name an item type (0 and 1 describe files, not images).
            let version = bytes[infe.start]
            guard version == 2 || version == 3 else { continue }
            let idSize = version == 2 ? 2 : 4
            guard let id = integer(bytes, at: infe.start + 4, size: idSize, end: infe.end), id == primary else { continue }
            let typeStart = infe.start + 4 + idSize + 2
            guard typeStart + 4 <= infe.end else { return nil }
            return String(decoding: bytes[typeStart ..< typeStart + 4], as: UTF8.self)
        }
        return nil
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
                size = to - at   // to the end of its container
            }
            guard size >= header, size <= to - at else { break }
            found.append(Box(type: String(decoding: bytes[at + 4 ..< at + 8], as: UTF8.self), start: at + header, end: at + size))
            at += size
        }
        return found
    }

    /// A big-endian unsigned integer of `size` bytes at `at`, if it ends by `end` and fits in an Int.
    private static func integer(_ bytes: [UInt8], at: Int, size: Int, end: Int) -> Int? {
        guard at >= 0, size <= 8, at + size <= min(end, bytes.count) else { return nil }
        var value: UInt64 = 0
        for byte in bytes[at ..< at + size] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
