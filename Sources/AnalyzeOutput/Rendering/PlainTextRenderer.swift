import AnalyzeCore

/// `--print`: what `zbarimg` and `tesseract … stdout` print, for scripts that already read them.
/// Every barcode as `symbology:payload` on its own line (zbarimg's shape, with this tool's
/// symbology names), then, when text was requested, the page's text followed by a form feed
/// (tesseract's page separator). Payloads and text are untrusted and printed as they are.
public enum PlainTextRenderer {
    public static func text(for analysis: ImageAnalysis) -> String {
        var out = ""
        for code in analysis.barcodes ?? [] {
            out += "\(code.symbology):\(code.payload)\n"
        }
        if let text = analysis.fullText {
            out += text
            if !text.isEmpty && !text.hasSuffix("\n") { out += "\n" }
            out += "\u{0C}"
        }
        return out
    }

    /// The same text made safe for a terminal: control characters other than newline, tab and form
    /// feed (an escape sequence in a QR code could rewrite the screen) and bidirectional controls
    /// (which would show the rest of a line reversed) shown as escapes (``MarkupEscaping/printable(_:keeping:)``).
    public static func terminalSafe(_ text: String) -> String {
        MarkupEscaping.printable(text, keeping: ["\n", "\t", "\u{0C}"])
    }
}
