/// Escaping for text placed in XML (SVG, JUnit) and HTML: payloads and OCR text are untrusted.
public enum MarkupEscaping {
    /// Escapes `& < > " '` and replaces characters XML 1.0 forbids (NUL and other C0 controls,
    /// lone surrogates, U+FFFE/U+FFFF) with U+FFFD, so the result is well-formed and inert both
    /// as element text and inside a quoted attribute.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.isControlCharacter || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A short, single-line form of an untrusted string for labels: control characters shown
    /// as `\u{..}`-style escapes, cut to `limit` characters with an ellipsis.
    public static func label(_ text: String, limit: Int = 40) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isControlCharacter {
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out.count > limit ? String(out.prefix(limit - 1)) + "…" : out
    }
}

extension Unicode.Scalar {
    /// C0 and C1 control characters and DEL: what escaping replaces or shows as an escape.
    var isControlCharacter: Bool { value < 0x20 || value == 0x7F || (0x80 ... 0x9F).contains(value) }
}
