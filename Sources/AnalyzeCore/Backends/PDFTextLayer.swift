import Foundation

/// The text a PDF page carries itself (a born-digital document: a report, an invoice, a statement),
/// read by poppler's `pdftotext -bbox-layout` in a process of its own (``Subprocess``), as words with
/// their boxes in the rendered page's pixels. What ``PDFText`` decides between it and OCR; and how much
/// of a page its images cover (`pdfimages -list`), which tells a scan or a page of photos from a typeset
/// page. Its output is untrusted: a word is kept only when its box lies on the page, and a layer of
/// characters without meaning (fonts with no Unicode map give U+FFFD or private-use code points) is
/// reported as unusable rather than returned as text.
enum PDFTextLayer {
    static let pdftotext = "/usr/bin/pdftotext"
    static let pdfimages = "/usr/bin/pdfimages"
    /// The most `pdftotext` may write for one page: a dense page of small print is about 1 MB.
    static let maximumOutput = 32 << 20

    /// One page's text layer: its lines in pixels of the rendered page, and the whole text (lines
    /// separated by newlines, blocks by blank lines).
    struct Layer: Equatable {
        var lines: [TextObservation] = []
        var fullText = ""
        /// Characters that carry no meaning (U+FFFD, private use, controls) among the non-space ones.
        var meaninglessCharacters = 0
        var characters = 0

        var wordCount: Int { lines.reduce(0) { $0 + $1.words.count } }

        /// Text whose characters are at least 90% meaningful (a font without a Unicode map makes a
        /// layer of U+FFFD or private-use code points: OCR reads such a page better).
        var isUsable: Bool { meaninglessCharacters * 10 <= characters }
    }

    /// Page `page`'s text layer, its points scaled by `pixelsPerPoint` (the rendering's dpi / 72) and
    /// its boxes kept to the `width` × `height` pixels of the rendered page.
    static func read(_ document: PDFRenderer.Source, page: Int, pixelsPerPoint: Double, width: Int, height: Int)
        throws(AnalysisError) -> Layer
    {
        let run = try document.run(
            Subprocess(
                executable: pdftotext,
                arguments: [
                    "-f", "\(page)", "-l", "\(page)", "-bbox-layout", "-cropbox", "-enc", "UTF-8",
                    "-q", document.argument, "-",
                ],
                timeout: PDFRenderer.pageTimeout, maximumOutput: maximumOutput))
        try PDFRenderer.check(run, "pdftotext")
        return parse(run.output, pixelsPerPoint: pixelsPerPoint, width: width, height: height)
    }

    /// `pdftotext -bbox-layout`'s XHTML, read: `<block>`s of `<line>`s of `<word xMin= yMin= xMax= yMax=>`,
    /// in points from the crop box's top-left corner, in the page's rotated frame (what `pdftoppm` draws).
    static func parse(_ xhtml: [UInt8], pixelsPerPoint: Double, width: Int, height: Int) -> Layer {
        var layer = Layer()
        var blocks: [String] = [], blockLines: [String] = []
        var lineWords: [RecognizedWord] = []
        func endLine() {
            defer { lineWords = [] }
            guard !lineWords.isEmpty else { return }
            let string = lineWords.map(\.string).joined(separator: " ")
            let box = BoundingBox(enclosing: lineWords.flatMap(\.boundingBox.corners))
            layer.lines.append(TextObservation(string: string, confidence: 1, boundingBox: box, words: lineWords))
            blockLines.append(string)
        }
        func endBlock() {
            endLine()
            if !blockLines.isEmpty { blocks.append(blockLines.joined(separator: "\n")) }
            blockLines = []
        }
        var scanner = TagScanner(xhtml)
        while let tag = scanner.nextTag() {
            switch tag.name {
            case "word":
                let text = scanner.text(until: "</word>")
                let string = String(decoding: unescaped(text), as: UTF8.self)
                    .unicodeScalars.filter { !$0.properties.isWhitespace }.reduce(into: "") {
                        $0.unicodeScalars.append($1)
                    }
                guard !string.isEmpty, let box = tag.box(scale: pixelsPerPoint, width: width, height: height) else {
                    continue
                }
                for scalar in string.unicodeScalars {
                    layer.characters += 1
                    if Self.isMeaningless(scalar) { layer.meaninglessCharacters += 1 }
                }
                lineWords.append(RecognizedWord(string: string, confidence: 1, boundingBox: box, characters: nil))
            case "/line": endLine()
            case "/block", "/flow", "/page": endBlock()
            default: break
            }
        }
        endBlock()
        layer.fullText = blocks.joined(separator: "\n\n")
        return layer
    }

    /// A code point that stands for no character: the replacement character, private use, a control.
    static func isMeaningless(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .privateUse, .control, .unassigned, .surrogate: true
        default: scalar == "\u{FFFD}"
        }
    }

    /// The fraction (0–1) of a page of `area` square points that the images it draws cover, from
    /// `pdfimages -list` (each image's pixels over its drawn resolution; soft masks, which belong to an
    /// image, not counted).
    static func imageCoverage(_ document: PDFRenderer.Source, page: Int, area: Double) throws(AnalysisError) -> Double {
        let run = try document.run(
            Subprocess(
                executable: pdfimages, arguments: ["-list", "-f", "\(page)", "-l", "\(page)", document.argument],
                timeout: PDFRenderer.pageTimeout, maximumOutput: 4 << 20))
        try PDFRenderer.check(run, "pdfimages")
        return coverage(listing: run.output, area: area)
    }

    /// `pdfimages -list`'s table, read: `page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio`.
    static func coverage(listing: [UInt8], area: Double) -> Double {
        guard area > 0 else { return 0 }
        var covered = 0.0
        for row in String(decoding: listing, as: UTF8.self).split(separator: "\n") {
            let fields = row.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 14, Int(fields[0]) != nil, ["image", "stencil"].contains(fields[2]),
                let w = Double(fields[3]), let h = Double(fields[4]), let xppi = Double(fields[12]),
                let yppi = Double(fields[13]),
                xppi > 0, yppi > 0
            else { continue }
            covered += (w / xppi * 72) * (h / yppi * 72)
            if covered >= area { return 1 }
        }
        return min(1, covered / area)
    }

    /// poppler's XML escapes undone: `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` and numeric references.
    static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] == UInt8(ascii: "&"),
                let end = bytes[i..<min(bytes.endIndex, i + 12)].firstIndex(of: UInt8(ascii: ";"))
            else {
                out.append(bytes[i])
                i += 1
                continue
            }
            let name = String(decoding: bytes[(i + 1)..<end], as: UTF8.self)
            var replacement: [UInt8]?
            switch name {
            case "amp": replacement = [UInt8(ascii: "&")]
            case "lt": replacement = [UInt8(ascii: "<")]
            case "gt": replacement = [UInt8(ascii: ">")]
            case "quot": replacement = [UInt8(ascii: "\"")]
            case "apos": replacement = [UInt8(ascii: "'")]
            default:
                if name.hasPrefix("#x"), let v = UInt32(name.dropFirst(2), radix: 16), let s = Unicode.Scalar(v) {
                    replacement = Array(String(s).utf8)
                } else if name.hasPrefix("#"), let v = UInt32(name.dropFirst()), let s = Unicode.Scalar(v) {
                    replacement = Array(String(s).utf8)
                }
            }
            if let replacement {
                out += replacement
                i = end + 1
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    /// Walks the tags of poppler's XHTML: names and the numeric attributes of the box.
    struct TagScanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        struct Tag {
            var name = ""
            var attributes: [String: Double] = [:]

            /// The box of `xMin`, `yMin`, `xMax`, `yMax` scaled and cut to the page; nil when missing,
            /// not finite or nothing of it lies on the page.
            func box(scale: Double, width: Int, height: Int) -> BoundingBox? {
                guard let x0 = attributes["xMin"], let y0 = attributes["yMin"], let x1 = attributes["xMax"],
                    let y1 = attributes["yMax"],
                    [x0, y0, x1, y1].allSatisfy(\.isFinite)
                else { return nil }
                let left = max(0, min(x0, x1) * scale), top = max(0, min(y0, y1) * scale)
                let right = min(Double(width), max(x0, x1) * scale), bottom = min(Double(height), max(y0, y1) * scale)
                guard right > left, bottom > top else { return nil }
                return BoundingBox(x: left, y: top, width: right - left, height: bottom - top)
            }
        }

        /// The next tag after the current position, its attributes read; nil at the end.
        mutating func nextTag() -> Tag? {
            guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")),
                let close = bytes[open...].firstIndex(of: UInt8(ascii: ">"))
            else {
                index = bytes.endIndex
                return nil
            }
            index = close + 1
            let inside = bytes[(open + 1)..<close]
            var tag = Tag()
            let nameEnd =
                inside.firstIndex { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\t") }
                ?? inside.endIndex
            tag.name = String(decoding: inside[inside.startIndex..<nameEnd], as: UTF8.self)
            // name="value" pairs: only the box's numbers are needed.
            var i = nameEnd
            while let eq = inside[i...].firstIndex(of: UInt8(ascii: "=")), eq + 1 < inside.endIndex,
                inside[eq + 1] == UInt8(ascii: "\"")
            {
                let key = String(decoding: inside[i..<eq], as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                guard let end = inside[(eq + 2)...].firstIndex(of: UInt8(ascii: "\"")) else { break }
                if let value = Double(String(decoding: inside[(eq + 2)..<end], as: UTF8.self)) {
                    tag.attributes[key] = value
                }
                i = end + 1
            }
            return tag
        }

        /// The bytes from the current position up to `terminator`, which is passed over.
        mutating func text(until terminator: String) -> ArraySlice<UInt8> {
            let marker = Array(terminator.utf8)
            var i = index
            while i + marker.count <= bytes.count {
                if bytes[i] == marker[0], bytes[i..<i + marker.count].elementsEqual(marker) {
                    defer { index = i + marker.count }
                    return bytes[index..<i]
                }
                i += 1
            }
            defer { index = bytes.count }
            return bytes[index...]
        }
    }
}
