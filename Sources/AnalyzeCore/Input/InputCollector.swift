import Foundation
import Synchronization

/// Turns command-line arguments (files and directories) into the run's list of images.
///
/// Directories are searched recursively for images by extension (JPEG, PNG, TIFF, BMP, WebP, HEIF, AVIF,
/// Netpbm, JPEG 2000, Sun raster, GIF),
/// PDF documents and videos,
/// in sorted order; files named explicitly are taken whatever their extension (a missing one
/// becomes a per-image error later, not a usage error). Duplicates are dropped. Output names
/// are the file stems, made unique when two inputs share a stem. Each page of a multi-page TIFF or
/// PDF is an input of its own (``expandingPages(_:selection:)``).
public enum InputCollector {
    /// Extensions picked up when searching directories (lower-cased).
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "tif", "tiff", "bmp", "dib", "webp", "heic", "heif", "hif", "avif",
        "pbm", "pgm", "ppm", "pnm", "pam", "jp2", "j2k", "j2c", "jpc", "ras", "gif",
    ]
    /// Document extensions: every page of a PDF is rendered (poppler) and analysed as an image.
    public static let documentExtensions: Set<String> = ["pdf"]
    /// Video extensions, read by FFmpeg as sequences of frames (lower-cased).
    public static let videoExtensions: Set<String> = [
        "mp4", "m4v", "mov", "avi", "mkv", "webm", "mpg", "mpeg", "ts", "wmv", "flv", "3gp",
    ]

    /// The inputs named by `arguments`, then the folders of frames in `sequences` (`--sequence`).
    /// Folders in `excluding` (the run's output folder) are never searched, so a run's own outputs
    /// are not analysed by the next run. An argument with a URL scheme (`udp://…`, `rtsp://…`) or a
    /// `/dev/video*` device is a live stream.
    /// `pages`: which pages of multi-page TIFFs and PDFs become inputs (``PageSelection``).
    public static func collect(
        _ arguments: [String], sequences: [String] = [], excluding excluded: [String] = [],
        pages selection: PageSelection = .all
    ) -> [ImageSource] {
        expandingPages(files(arguments, sequences: sequences, excluding: excluded), selection: selection)
    }

    /// The inputs as ``collect(_:sequences:excluding:pages:)`` finds and names them, a multi-page file
    /// still one input: what a shard (``Shard``, by file) is chosen from before ``expandingPages(_:selection:)``
    /// counts the pages of only the files it keeps.
    public static func files(_ arguments: [String], sequences: [String] = [], excluding excluded: [String] = [])
        -> [ImageSource]
    {
        let skipped = Set(excluded.map(canonical))
        var inputs: [(String, ImageSource.Kind)] = []
        var seen = Set<String>()
        func add(_ path: String, _ kind: ImageSource.Kind) {
            let key = kind == .stream ? path : URL(fileURLWithPath: path).standardizedFileURL.path
            if seen.insert(key).inserted { inputs.append((path, kind)) }
        }
        for argument in arguments {
            if isStream(argument) {
                add(argument, .stream)
            } else if FilePathBytes.isDirectory(argument) {
                imagesUnder(directory: argument, skipping: skipped).forEach { add($0, kind(of: $0)) }
            } else {
                add(argument, kind(of: argument))
            }
        }
        for folder in sequences { add(folder, .frames) }
        return name(inputs)
    }

    /// The pages of a TIFF or PDF at `path` by its first bytes (whatever its name), 0 for anything
    /// else; and a PDF's page sizes, read by the same `pdfinfo`.
    static func pages(_ path: String) -> (count: Int, pdfSizes: [Int: PDFRenderer.PageSize]) {
        guard let head = RegularFile.head(path, count: 1024) else { return (0, [:]) }
        if ImageHeader.TIFFKind(head) != nil {
            return (ImageHeader.tiffPageDirectories(path, limit: 10_000).count, [:])
        }
        if PDFRenderer.isPDF(head) { return PDFRenderer.pages(path: path, maximumPages: maximumPages) }
        return (0, [:])
    }

    /// At most this many pages of one file are analysed (a hostile file can chain tens of thousands
    /// of tiny directories); the first page's warnings say when there are more.
    public static let maximumPages = 1_000

    /// Every page of a multi-page TIFF (a scanned document, a fax) or PDF as an input of its own, as
    /// `tesseract` reads every page: `scan.tif` of 3 pages becomes `scan.page-1`, `scan.page-2` and
    /// `scan.page-3` (numbers zero-padded to the page count's digits, so they sort in page order), each
    /// with its own outputs and line. A TIFF's pages are found along its chain of directories, read
    /// where they lie (reduced-resolution copies of a page, overviews and thumbnails, are not pages); a
    /// PDF's are counted by poppler. Only the pages in `selection` become inputs (none, when it holds none
    /// of the file's). A file of one page, or one that cannot be read here (the error comes when it is
    /// analysed), stays one input.
    public static func expandingPages(_ sources: [ImageSource], selection: PageSelection = .all) -> [ImageSource] {
        // Counted side by side: a PDF's count is a pdfinfo process (10–20 ms), and a folder may hold thousands.
        let counts = Mutex(
            [(count: Int, pdfSizes: [Int: PDFRenderer.PageSize])](repeating: (0, [:]), count: sources.count))
        DispatchQueue.concurrentPerform(iterations: sources.count) { index in
            guard sources[index].kind == .image else { return }
            let pages = Self.pages(sources[index].path)
            counts.withLock { $0[index] = pages }
        }
        let pageCounts = counts.withLock { $0 }
        return sources.indices.flatMap { index -> [ImageSource] in
            var source = sources[index]
            let (pages, sizes) = pageCounts[index]
            guard pages > 1 else {
                source.pdfPageSize = sizes[1]
                return [source]
            }
            let digits = String(min(pages, maximumPages)).count
            return (1...min(pages, maximumPages)).filter(selection.contains).map { number in
                let padded = String(repeating: "0", count: digits - String(number).count) + String(number)
                var page = ImageSource(
                    path: source.path, outputName: source.outputName + ".page-" + padded, kind: .image,
                    page: ImageSource.Page(number: number, count: pages))
                page.pdfPageSize = sizes[number]
                return page
            }
        }
    }

    /// Whether an argument names a live source: a URL with a scheme FFmpeg reads, or a V4L2 camera.
    public static func isStream(_ argument: String) -> Bool {
        if argument.hasPrefix("/dev/video") { return true }
        guard let range = argument.range(of: "://") else { return false }
        let scheme = argument[..<range.lowerBound]
        return !scheme.isEmpty
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
            && scheme.lowercased() != "file"
    }

    /// A file's kind by its extension: a video or (anything else) an image.
    static func kind(of path: String) -> ImageSource.Kind {
        videoExtensions.contains((path as NSString).pathExtension.lowercased()) ? .video : .image
    }

    /// The real, absolute form of a path (symlinks resolved), for comparing folders.
    public static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Image files under `directory`, recursively, in sorted order; hidden files and folders in
    /// `skipped` are left out. Read with raw bytes (``FilePathBytes``), so no name is lost.
    static func imagesUnder(directory: String, skipping skipped: Set<String> = []) -> [String] {
        guard !skipped.contains(canonical(directory)) else { return [] }
        var found: [String] = []
        var pending = [directory]
        while let folder = pending.popLast() {
            for entry in FilePathBytes.entries(of: folder) where !entry.name.hasPrefix(".") {
                let path = folder.hasSuffix("/") ? folder + entry.name : folder + "/" + entry.name
                if entry.isDirectory {
                    if !skipped.isEmpty, skipped.contains(canonical(path)) { continue }
                    pending.append(path)
                } else if case let ext = (entry.name as NSString).pathExtension.lowercased(),
                    imageExtensions.contains(ext) || documentExtensions.contains(ext) || videoExtensions.contains(ext)
                {
                    found.append(path)
                }
            }
        }
        return found.sorted()
    }

    /// Output names, one per input and never two alike (compared without case, for case-blind
    /// file systems). A stem the run's own files use (`summary`, `index`, `summary.shard-…`) gets a
    /// leading `_`. A stem stays as it is unless it is shared, shaped like a generated name (`x-1a2b3c4d`) or
    /// like a rectified crop (`card.rect-1`); those get `-<8 hex digits>` of a stable hash of their
    /// path, so names do not depend on order, jobs or shards. Whatever still collides (a hash
    /// collision) gets `-2`, `-3`… in path order.
    static func name(_ paths: [String]) -> [ImageSource] {
        name(paths.map { ($0, ImageSource.Kind.image) })
    }

    static func name(_ inputs: [(String, ImageSource.Kind)]) -> [ImageSource] {
        let paths = inputs.map(\.0)
        // Names the run's own files use are moved aside: `summary` → `_summary` (and `analyze report`
        // never takes an image's JSON for a shard summary).
        let stems = inputs.map { path, kind -> String in
            let stem =
                kind == .stream
                ? streamStem(of: path)
                : kind == .frames
                    ? sanitizedStem(of: (path as NSString).lastPathComponent + ".dir") : sanitizedStem(of: path)
            return isReserved(stem) ? "_" + stem : stem
        }
        var counts: [String: Int] = [:]
        for stem in stems { counts[stem.lowercased(), default: 0] += 1 }
        var names = zip(paths, stems).map { path, stem in
            counts[stem.lowercased(), default: 0] > 1 || needsHash(stem) ? stem + "-" + stableHash(path) : stem
        }
        let all = Set(names.map { $0.lowercased() })
        var used = Set<String>()
        for index in paths.indices.sorted(by: { paths[$0] < paths[$1] }) {
            var name = names[index]
            var counter = 1
            while used.contains(name.lowercased()) {
                counter += 1
                let candidate = names[index] + "-\(counter)"
                if !all.contains(candidate.lowercased()) { name = candidate }
            }
            used.insert(name.lowercased())
            names[index] = name
        }
        return inputs.indices.map { ImageSource(path: inputs[$0].0, outputName: names[$0], kind: inputs[$0].1) }
    }

    /// `udp://127.0.0.1:5000?x` → `stream-127.0.0.1-5000`; `/dev/video0` → `video0`.
    static func streamStem(of url: String) -> String {
        if url.hasPrefix("/dev/") { return sanitizedStem(of: url + ".dev") }
        var rest = url.range(of: "://").map { String(url[$0.upperBound...]) } ?? url
        // Never a user name or password in a file name.
        if let credentials = ImageSource.credentials(in: url), let range = rest.range(of: credentials + "@") {
            rest.removeSubrange(range)
        }
        let host = rest.split(separator: "?").first.map(String.init) ?? rest
        let cleaned = String(
            host.unicodeScalars.map { s -> Character in
                s.isASCII && (s.properties.isAlphabetic || s.properties.numericType != nil || s == ".")
                    ? Character(s) : "-"
            }
        ).split(separator: "-").joined(separator: "-")
        return "stream-" + String(cleaned.prefix(100))
    }

    /// Whether a stem is one the run's own files use.
    static func isReserved(_ stem: String) -> Bool {
        let lower = stem.lowercased()
        return lower == "summary" || lower == "index" || lower.hasPrefix("summary.") || lower.hasPrefix("index.")
    }

    /// Whether a stem could collide with a generated name or a rectified crop.
    static func needsHash(_ stem: String) -> Bool {
        let lower = stem.lowercased()
        if let dash = lower.lastIndex(of: "-") {
            let tail = lower[lower.index(after: dash)...]
            if tail.count == 8 && tail.allSatisfy(\.isHexDigit) { return true }
            if lower[..<dash].hasSuffix(".rect") && !tail.isEmpty && tail.allSatisfy(\.isNumber) { return true }
        }
        // `x.page-2` would take the name of the second page of a multi-page file x.
        if let dot = lower.range(of: ".page-", options: .backwards) {
            let tail = lower[dot.upperBound...]
            if !tail.isEmpty && tail.allSatisfy(\.isNumber) { return true }
        }
        // `x.level` and `x.contact` would take the names of image x's levelled copy and video x's contact sheet.
        return lower.hasSuffix(".level") || lower.hasSuffix(".contact")
    }

    static func sanitizedStem(of path: String) -> String {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let cleaned = String(
            stem.unicodeScalars.map { s -> Character in
                (s.properties.isAlphabetic || s.properties.numericType != nil || "-_.+@".unicodeScalars.contains(s))
                    ? Character(s) : "_"
            })
        let trimmed = cleaned.hasPrefix(".") ? "_" + cleaned.dropFirst() : cleaned
        guard !trimmed.isEmpty else { return "image" }
        // At most 200 bytes of UTF-8 (whole characters): with `-<hash>` and `.rect-<n>.png` the
        // output name stays under the 255-byte NAME_MAX.
        var capped = ""
        var bytes = 0
        for character in trimmed {
            bytes += character.utf8.count
            if bytes > 200 { break }
            capped.append(character)
        }
        return capped
    }

    /// 8 hex digits of a stable hash of the path (FNV-1a): the same across runs and machines.
    public static func stableHash(_ text: String) -> String {
        let hex = String(UInt32(truncatingIfNeeded: FNV1a.hash(text)), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
