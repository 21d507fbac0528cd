internal import COpenCVShim
import Foundation

/// Renders the pages of a PDF (a scanned document, a born-digital one) to pixels with poppler's
/// `pdftoppm`, as `pdftoppm -r 300` would, each page upright by its `/Rotate` and cut to its crop box (what a
/// viewer shows). poppler runs in a process of its own (``Subprocess``): a PDF is a program more than an
/// image, and a hostile one that crashes, hangs or exhausts poppler ends that process with a clear
/// error for its page while the batch goes on. The page's size is read first (`pdfinfo`), so a page
/// that would be rendered larger than `--max-pixels` is refused before it is drawn.
public enum PDFRenderer {
    static let pdftoppm = "/usr/bin/pdftoppm"
    static let pdfinfo = "/usr/bin/pdfinfo"
    /// The rendering resolution unless `--pdf-dpi` says otherwise: what Tesseract expects of a page and
    /// what scanners most often write.
    public static let defaultResolution = 300
    /// Seconds each poppler program may take for one page (`--pdf-page-timeout`), as the pixel count
    /// of a page is bounded: a form-XObject bomb of a few kilobytes would otherwise render for minutes.
    /// A 300-dpi page renders in about a second here. Bound for the scope of one image's analysis.
    @TaskLocal public static var pageTimeout: Double = defaultPageTimeout
    public static let defaultPageTimeout = 30.0

    /// Whether `bytes` are a PDF: its `%PDF-` header at the start, or in the first 1024 bytes (where
    /// readers look for it, after junk some generators write) of a file that does not begin as an image
    /// (a JPEG whose metadata happens to quote "%PDF-" stays a JPEG).
    package static func isPDF(_ bytes: [UInt8]) -> Bool {
        let marker: [UInt8] = Array("%PDF-".utf8)
        if bytes.starts(with: marker) { return true }
        let head = bytes.prefix(1024)
        guard head.count >= marker.count, ImageHeader.Format(bytes) == nil, !HEIFDecoder.isHEIF(bytes) else {
            return false
        }
        return (head.startIndex...head.endIndex - marker.count).contains {
            head[$0..<$0 + marker.count].elementsEqual(marker)
        }
    }

    /// What `pdfinfo` says of a document and of one of its pages.
    struct Info: Equatable {
        var pages = 0
        /// The page's size; nil when pdfinfo gave none.
        var size: PageSize?
    }

    /// A page's crop box in points (1/72 inch), before its rotation.
    public struct PageSize: Sendable, Hashable {
        public let width: Double
        public let height: Double
    }

    /// Where poppler reads the document: the bytes through a pipe, or a regular file handed over as its
    /// stdin and named `/proc/self/fd/0`, which poppler opens again as a file it can seek in and reads only
    /// what the page needs (piped, every page of a 240 MB book made poppler read all of it, twice).
    enum Source {
        case bytes([UInt8])
        case file(String)

        /// `source` as `path` when that is a regular file poppler can be handed, else `bytes`.
        static func preferring(path: String, over bytes: [UInt8]) -> Source {
            (try? RegularFile.validate(path)) != nil ? .file(path) : .bytes(bytes)
        }

        var argument: String {
            if case .file = self { return "/proc/self/fd/0" }
            return "-"
        }

        func run(_ helper: Subprocess) throws(AnalysisError) -> Subprocess.Outcome {
            switch self {
            case .bytes(let bytes): try helper.run(input: bytes)
            case .file(let path): try helper.run(readingFile: path)
            }
        }
    }

    /// The document's page count and the size of `page` (from 1).
    static func info(_ document: Source, page: Int, timeout: Double = pageTimeout) throws(AnalysisError) -> Info {
        let run = try runInfo(document, pages: page...page, timeout: timeout)
        return parse(run.output, page: page)
    }

    /// `pdfinfo` on `pages` of the document, checked.
    private static func runInfo(_ document: Source, pages: ClosedRange<Int>, timeout: Double) throws(AnalysisError)
        -> Subprocess.Outcome
    {
        let run = try document.run(
            Subprocess(
                executable: pdfinfo,
                arguments: ["-f", "\(pages.lowerBound)", "-l", "\(pages.upperBound)", document.argument],
                timeout: timeout, maximumOutput: 1 << 20))
        // pdfinfo refuses a first page past the last one: page 1 of a document whose page tree holds
        // none, or a page of a document that has lost pages since the inputs were listed.
        if run.status != 0, run.errors.contains("Wrong page range given") {
            if run.errors.contains("last page (0)") {
                throw AnalysisError(
                    .undecodable, "PDF: poppler found no page in it (its page tree is empty or damaged)")
            }
            throw AnalysisError(
                .undecodable,
                "PDF: page \(pages.lowerBound) asked, the file has fewer pages (it changed during the run)")
        }
        try check(run, "pdfinfo")
        return run
    }

    /// `pdfinfo`'s report, read.
    static func parse(_ output: [UInt8], page: Int) -> Info {
        var info = Info(size: sizes(output)[page])
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.first == "Pages:", fields.count == 2, let n = Int(fields[1]) { info.pages = n }
        }
        return info
    }

    /// `pdfinfo`'s sizes of pages (`Page    2 size:  595.276 x 841.89 pts (A4)`), by page number.
    static func sizes(_ output: [UInt8]) -> [Int: PageSize] {
        var sizes: [Int: PageSize] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 6, fields[0] == "Page", let number = Int(fields[1]), fields[2] == "size:",
                fields[4] == "x",
                let w = Double(fields[3]), let h = Double(fields[5])
            {
                sizes[number] = PageSize(width: w, height: h)
            }
        }
        return sizes
    }

    /// The number of pages of the PDF at `path` (handed to `pdfinfo`, not read here), and the sizes of
    /// its first `maximumPages` pages, read by the same `pdfinfo`; 0 and none when poppler cannot open
    /// it (the error comes when it is analysed). Given 30 s: it runs while the inputs are listed.
    static func pages(path: String, maximumPages: Int) -> (count: Int, pdfSizes: [Int: PageSize]) {
        guard let run = try? runInfo(.file(path), pages: 1...max(1, maximumPages), timeout: 30) else { return (0, [:]) }
        return (parse(run.output, page: 1).pages, sizes(run.output))
    }

    /// Page `page` (from 1) of the PDF `document`, rendered at `resolution` dots per inch, as BGR pixels;
    /// with poppler's warnings about the file (at most five, one line each).
    /// `size`: the page's size when it was read with the page count (no `pdfinfo` for it then).
    static func render(_ document: Source, page: Int, size: PageSize? = nil, resolution: Int, maximumPixels: Int)
        throws(AnalysisError) -> (OpenCVMat, warnings: [String])
    {
        var pageSize = size
        if pageSize == nil {
            let info = try Self.info(document, page: page)
            guard info.pages > 0 else { throw AnalysisError(.undecodable, "PDF: poppler found no page in it") }
            guard page <= info.pages else {
                throw AnalysisError(
                    .undecodable,
                    "PDF: page \(page) asked, the file has \(info.pages) page(s) (it changed during the run)")
            }
            pageSize = info.size
        }
        let (w, h) = (pageSize?.width ?? 0, pageSize?.height ?? 0)
        guard w > 0, h > 0, w < 1e6, h < 1e6 else {
            throw AnalysisError(.undecodable, "PDF: page \(page) has no usable size (\(w) x \(h) pt)")
        }
        let width = Int((w * Double(resolution) / 72).rounded(.up)),
            height = Int((h * Double(resolution) / 72).rounded(.up))
        guard width * height <= maximumPixels else {
            throw AnalysisError(
                .tooLarge,
                "PDF: page \(page) is \(Int(w))x\(Int(h)) pt: at \(resolution) dpi \(width)x\(height) = \(width * height) pixels, over the limit of \(maximumPixels) (lower --pdf-dpi or raise --max-pixels)"
            )
        }
        let pixelBytes = (width + 2) * (height + 2) * 3
        let run = try document.run(
            Subprocess(
                executable: pdftoppm,
                arguments: ["-r", "\(resolution)", "-f", "\(page)", "-l", "\(page)", "-cropbox", document.argument],
                timeout: pageTimeout, memoryLimit: max(2 << 30, 3 * pixelBytes + (1 << 30)),
                maximumOutput: pixelBytes + 64))
        try check(run, "pdftoppm")
        let pixels = try Self.pixels(ofPPM: run.output, maximumPixels: maximumPixels)
        return (pixels, warnings(run.errors))
    }

    /// The pixels of a binary PPM (`P6`, 8-bit), as BGR.
    static func pixels(ofPPM ppm: [UInt8], maximumPixels: Int) throws(AnalysisError) -> OpenCVMat {
        // "P6" whitespace width whitespace height whitespace maxval, one whitespace, then the rows.
        var fields: [Int] = [], index = 2
        guard ppm.starts(with: Array("P6".utf8)) else {
            throw AnalysisError(.undecodable, "PDF: pdftoppm gave no image")
        }
        while fields.count < 3, index < min(ppm.count, 64) {
            while index < ppm.count, [0x20, 0x0A, 0x0D, 0x09].contains(ppm[index]) { index += 1 }
            var value = 0, digits = 0
            while index < ppm.count, (0x30...0x39).contains(ppm[index]), digits < 9 {
                value = value * 10 + Int(ppm[index] - 0x30)
                index += 1
                digits += 1
            }
            guard digits > 0 else { break }
            fields.append(value)
        }
        index += 1
        guard fields.count == 3, fields[2] == 255, fields[0] > 0, fields[1] > 0, fields[0] * fields[1] <= maximumPixels,
            ppm.count - index >= fields[0] * fields[1] * 3
        else {
            throw AnalysisError(.undecodable, "PDF: pdftoppm gave a malformed image")
        }
        let (width, height) = (fields[0], fields[1])
        return try ppm.withUnsafeBufferPointer { buffer throws(AnalysisError) -> OpenCVMat in
            guard let base = buffer.baseAddress else { throw AnalysisError(.undecodable, "PDF: empty image") }
            return try OpenCVMat.make(.undecodable) {
                aocv_mat_from_rgb(base + index, Int32(width), Int32(height), width * 3, $0)
            }
        }
    }

    /// Throws the error a failed run means: poppler's own words (its last message), or what stopped it.
    static func check(_ run: Subprocess.Outcome, _ program: String) throws(AnalysisError) {
        if run.timedOut {
            throw AnalysisError(
                .undecodable,
                "PDF: \(program) did not finish within \(Int(run.timeout)) s; the page is not analysed (--pdf-page-timeout)"
            )
        }
        if run.outputOverflowed {
            let what = program == "pdftoppm" ? "the page's pixels" : "\(run.output.count >> 20) MB for one page"
            throw AnalysisError(.undecodable, "PDF: \(program) wrote more than \(what); stopped")
        }
        guard run.status == 0 else {
            let said = run.errors.split(separator: "\n").last.map { ": " + $0.prefix(300) } ?? ""
            if run.status == nil {
                throw AnalysisError(
                    .undecodable,
                    "PDF: \(program) was ended by a signal (its limits of memory or time, or a crash)\(said)")
            }
            // prlimit could not start it: 126 (not executable) or 127 (missing).
            if run.status == 127 || run.status == 126 {
                throw AnalysisError(
                    .engineUnavailable,
                    "PDF support needs poppler-utils (\(program) could not be run: apt install poppler-utils)")
            }
            throw AnalysisError(.undecodable, "PDF: \(program) could not read it\(said)")
        }
    }

    /// poppler's complaints about a page it still rendered, as JSON warnings: at most five distinct lines.
    static func warnings(_ errors: String) -> [String] {
        var seen = Set<String>(), out: [String] = []
        for line in errors.split(separator: "\n") where out.count < 5 {
            let text = "PDF: " + AnalysisError.oneLine(String(line.prefix(300)))
            if seen.insert(text).inserted { out.append(text) }
        }
        return out
    }
}
