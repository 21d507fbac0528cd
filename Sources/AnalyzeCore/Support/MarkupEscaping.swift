/// Escaping for text placed in XML (SVG, JUnit) and HTML: payloads and OCR text are untrusted.
public enum MarkupEscaping {
    /// Escapes `& < > " '` and replaces characters XML 1.0 forbids (NUL and other C0 controls,
    /// lone surrogates, U+FFFE/U+FFFF) with U+FFFD, so the result is well-formed and inert both
    /// as element text and inside a quoted attribute. Bidirectional embeddings, overrides and isolates
    /// (U+202A–U+202E, U+2066–U+2069), which would make a payload or a PDF's text display reversed
    /// (`moc.elpmaxe` shown as `example.com`), are shown as `[U+202E]` in what people read (the report,
    /// the SVG overlay, JUnit); `exact` keeps them, for hOCR, which programs read (as they read the JSON).
    public static func escape(_ text: String, exact: Bool = false) -> String {
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
                } else if scalar.isBidiControl, !exact {
                    out += "[U+" + String(scalar.value, radix: 16, uppercase: true) + "]"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A short, single-line form of an untrusted string for labels: control characters shown
    /// as `\x1b`-style escapes and bidirectional controls as `\u202e` (a terminal would otherwise
    /// show the rest of the line reversed), cut to `limit` characters with an ellipsis.
    public static func label(_ text: String, limit: Int = 40) -> String {
        let out = printable(text)
        return out.count > limit ? String(out.prefix(limit - 1)) + "…" : out
    }

    /// `text` with control characters (but those in `kept`) shown as `\x1b`-style escapes and
    /// bidirectional controls as `\u202e`: what a terminal or a CI log shows as it is, whatever an
    /// untrusted string held (an escape sequence would rewrite the screen; a newline in a file name
    /// would start a line of its own).
    public static func printable(_ text: String, keeping kept: Set<Unicode.Scalar> = []) -> String {
        func escaped(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.isControlCharacter && !kept.contains(scalar)) || scalar.isBidiControl
        }
        guard text.unicodeScalars.contains(where: escaped) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if !escaped(scalar) {
                out.unicodeScalars.append(scalar)
            } else if scalar.isControlCharacter {
                out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out += "\\u" + String(scalar.value, radix: 16)
            }
        }
        return out
    }
}

extension Unicode.Scalar {
    /// C0 and C1 control characters and DEL: what escaping replaces or shows as an escape.
    var isControlCharacter: Bool { value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) }
    /// Bidirectional embeddings, overrides and isolates (not the marks LRM, RLM and ALM, which reorder nothing
    /// around them): what escaping shows instead of obeying.
    var isBidiControl: Bool { (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) }
}
