import Crypto
import Foundation

/// SHA-256 as lower-case hex, from swift-crypto: content fingerprints (`--resume`), model
/// identities, the report's script hash. The name avoids clashing with `Crypto.SHA256`.
public enum ContentHash {
    /// The SHA-256 of `bytes` as 64 lower-case hex digits.
    public static func sha256Hex<Bytes: DataProtocol>(_ bytes: Bytes) -> String {
        hex(Array(Crypto.SHA256.hash(data: bytes)))
    }

    /// The raw 32-byte SHA-256 of `bytes`.
    public static func sha256<Bytes: DataProtocol>(_ bytes: Bytes) -> [UInt8] {
        Array(Crypto.SHA256.hash(data: bytes))
    }

    /// The SHA-256 of a file, read in 1 MiB chunks (model files are tens of MB).
    package static func sha256Hex(ofFile path: String) throws(AnalysisError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AnalysisError(.unreadable, "cannot open the file", file: path)
        }
        defer { try? handle.close() }
        var hasher = Crypto.SHA256()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        } catch {
            throw AnalysisError(.unreadable, "cannot read the file: \(error.localizedDescription)", file: path)
        }
        return hex(Array(hasher.finalize()))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
