import Foundation

/// One input: where it is, what it is, how it is named in outputs.
public struct ImageSource: Sendable, Hashable {
    /// The path as given on the command line or found under a directory argument (a stream's URL).
    public let path: String
    /// The base name for `<name>.png`, `<name>.svg`, `<name>.json`; unique within a run.
    public let outputName: String
    /// A still image, or a sequence of frames.
    public let kind: Kind
    /// Which page of a multi-page file (a TIFF scan, a fax) this input is; nil for a file read whole.
    public let page: Page?

    /// A page of a multi-page file: each page is an input of its own, with its own outputs.
    public struct Page: Sendable, Hashable, Codable {
        /// From 1, in the file's order.
        public let number: Int
        /// How many pages the file holds.
        public let count: Int

        public init(number: Int, count: Int) {
            self.number = number
            self.count = count
        }
    }

    /// What an input is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A still image (JPEG, PNG, TIFF, BMP, WebP, HEIF).
        case image
        /// A video file, read by FFmpeg.
        case video
        /// A folder of images read as the frames of one sequence (`--sequence`).
        case frames
        /// A live source: a stream URL FFmpeg reads, or a V4L2 camera.
        case stream

        /// Whether the input is a sequence of frames.
        public var isSequence: Bool { self != .image }
    }

    /// A PDF page's crop box in points (1/72 inch, before its rotation), read with the page count
    /// while the inputs were listed: the page is then rendered without asking poppler for it again.
    public var pdfPageSize: PDFRenderer.PageSize?

    public init(path: String, outputName: String, kind: Kind = .image, page: Page? = nil) {
        self.path = path
        self.outputName = outputName
        self.kind = kind
        self.page = page
    }

    /// How the input is named in lines and the report: ``displayPath``, and for a page of a
    /// multi-page file which page (`scan.tif (page 2 of 3)`).
    public var label: String {
        guard let page else { return displayPath }
        return displayPath + " (page \(page.number) of \(page.count))"
    }

    /// The path as outputs show it (JSON, report, stderr): a stream URL's user and password
    /// (`rtsp://user:secret@host/…`) and the values of its credential query parameters
    /// (`?password=…`, `token`, `key`…: ``credentialParameters``) become `***`; everything else as given.
    public var displayPath: String { redacting(path) }

    /// `text` with a stream URL's credentials replaced by `***` wherever they appear (FFmpeg's
    /// messages quote the URL).
    public func redacting(_ text: String) -> String {
        guard kind == .stream else { return text }
        var text = text
        if let credentials = Self.credentials(in: path) {
            text = text.replacingOccurrences(of: credentials, with: "***")
        }
        for (name, value) in Self.credentialQuery(in: path) {
            text = text.replacingOccurrences(of: name + "=" + value, with: name + "=***")
        }
        return text
    }

    /// Query parameters whose values are secrets (compared in lower case).
    static let credentialParameters: Set<String> = [
        "password", "passwd", "pass", "pwd", "secret", "token", "access_token", "auth", "authorization", "key",
        "apikey",
        "api_key", "sig", "signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token", "session",
        "sessionid",
    ]

    /// The `user:password` part of a URL's authority, if any.
    static func credentials(in url: String) -> String? {
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return nil }
        let userinfo = authority[..<at]
        return userinfo.isEmpty ? nil : String(userinfo)
    }

    /// The URL's query parameters named in ``credentialParameters`` with a non-empty value, as
    /// written (name, value).
    static func credentialQuery(in url: String) -> [(name: String, value: String)] {
        guard url.contains("://"), let question = url.firstIndex(of: "?") else { return [] }
        let query = url[url.index(after: question)...].prefix { $0 != "#" }
        return query.split(whereSeparator: { $0 == "&" || $0 == ";" }).compactMap { pair in
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let name = String(pair[..<equals]), value = String(pair[equals...].dropFirst())
            return credentialParameters.contains(name.lowercased()) && !value.isEmpty ? (name, value) : nil
        }
    }

    /// Reads the whole file once (regular files only, at most `maximumBytes`); every later stage
    /// works on these bytes.
    package func readBytes(maximumBytes: Int = RegularFile.defaultMaximumBytes) throws(AnalysisError) -> [UInt8] {
        try RegularFile.read(path, maximumBytes: maximumBytes)
    }
}
