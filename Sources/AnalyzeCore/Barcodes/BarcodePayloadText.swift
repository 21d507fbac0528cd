import Foundation

/// Turns payload bytes that no engine decoded into Unicode text.
///
/// zxing-cpp decodes ECI and QR's default character sets itself; this is the reading for bytes
/// only ZBar saw (ZBar is asked for raw bytes so that NULs and binary survive): UTF-8 when the
/// bytes are UTF-8, Shift_JIS when they are a well-formed Shift_JIS text with double-byte
/// characters (what Japanese QR codes carry without an ECI), else ISO-8859-1 (QR's default).
enum BarcodePayloadText {
    static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if looksLikeShiftJIS(bytes), let text = String(data: Data(bytes), encoding: .shiftJIS) { return text }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    /// Every lead byte (0x81–0x9F, 0xE0–0xEF) is followed by a valid trail byte (0x40–0xFC but
    /// 0x7F), there is at least one such pair, and no other byte is above 0x7F except half-width
    /// katakana (0xA1–0xDF).
    static func looksLikeShiftJIS(_ bytes: [UInt8]) -> Bool {
        var pairs = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if (0x81...0x9F).contains(byte) || (0xE0...0xEF).contains(byte) {
                guard index + 1 < bytes.count else { return false }
                let trail = bytes[index + 1]
                guard (0x40...0xFC).contains(trail), trail != 0x7F else { return false }
                pairs += 1
                index += 2
            } else if byte < 0x80 || (0xA1...0xDF).contains(byte) {
                index += 1
            } else {
                return false
            }
        }
        return pairs > 0
    }
}
