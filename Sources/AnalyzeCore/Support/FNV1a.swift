/// FNV-1a, 64-bit: a stable, fast, non-cryptographic hash of a string's UTF-8, the same on every
/// machine and run (Swift's `Hasher` is seeded per process). Used for output-name suffixes and shards.
enum FNV1a {
    static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
