/// An input file's identity by content.
public struct InputFingerprint: Sendable, Hashable, Codable {
    public let bytes: Int
    public let sha256: String

    public init(of data: [UInt8]) {
        bytes = data.count
        sha256 = ContentHash.sha256Hex(data)
    }

    /// An identity computed elsewhere (a file hashed in chunks, a folder of frames).
    package init(bytes: Int, sha256: String) {
        self.bytes = bytes
        self.sha256 = sha256
    }
}

/// Everything found in one image: the JSON contract scripts rely on.
///
/// All coordinates are pixels of the upright image (EXIF orientation applied), origin top-left.
/// Each request's result sits under its kind's name (`rectangles`, `faces`, `barcodes`, `text` and
/// `fullText`, `objects`, `classification`…); a kind that was not requested is absent, a requested
/// kind with nothing found is an empty array. Encoded with sorted keys and no timestamps, so the
/// same input and options give the same bytes.
public struct ImageAnalysis: Sendable, Hashable, Encodable {
    /// The input path as given (or as found under a directory argument).
    public let file: String
    /// For a page of a multi-page file (a TIFF scan, a fax): which page, of how many (`page`, `pages`
    /// in the JSON, absent for a file read whole).
    public var page: ImageSource.Page?
    /// The EXIF orientation that was applied, 1–8 (1 when the tag is missing or invalid).
    public let orientation: Int
    /// Size of the upright image.
    public let width: Int
    public let height: Int
    /// Non-fatal problems (e.g. an invalid orientation tag that was treated as 1).
    public var warnings: [String]
    /// The input's size and SHA-256: with `optionsHash`, what `--resume` compares.
    public var input: InputFingerprint?
    /// A hash of the requests and output options that produced this result.
    public var optionsHash: String?
    /// Requests that failed on this image, by kind (`{"text": {"code", "message"}}`); the other
    /// requests' results are kept. Absent from the JSON when empty.
    public var requestErrors: [String: RequestError] = [:]

    /// Why one request failed on an image.
    public struct RequestError: Sendable, Hashable, Codable {
        public let code: String
        public let message: String

        package init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// Each request's result, in the order the requests were performed.
    public private(set) var results: [KindResult] = []

    /// One request's result under its kind.
    public struct KindResult: Sendable {
        public let kind: ObservationKind
        public let result: any RequestResult
    }

    public init(file: String, orientation: Int, width: Int, height: Int, warnings: [String] = []) {
        self.file = file
        self.orientation = orientation
        self.width = width
        self.height = height
        self.warnings = warnings
    }

    /// The result of `kind`; nil when it was not requested.
    public subscript(kind: ObservationKind) -> (any RequestResult)? {
        results.first { $0.kind == kind }?.result
    }

    /// The result of `kind` as its concrete type.
    public func result<R: RequestResult>(_ kind: ObservationKind, as type: R.Type = R.self) -> R? {
        self[kind] as? R
    }

    /// Stores (or replaces) the result of `kind`.
    public mutating func set(_ result: any RequestResult, for kind: ObservationKind) {
        if let index = results.firstIndex(where: { $0.kind == kind }) {
            results[index] = KindResult(kind: kind, result: result)
        } else {
            results.append(KindResult(kind: kind, result: result))
        }
    }

    /// The kinds that have a result, in the order they were performed.
    public var kinds: [ObservationKind] { results.map(\.kind) }

    /// How many observations of a kind were found; nil when the kind was not requested.
    public func count(of kind: ObservationKind) -> Int? { self[kind]?.summary.count }

    /// The same analysis without its results (what a run keeps in memory per image).
    public var withoutResults: ImageAnalysis {
        var bare = self
        bare.results = []
        return bare
    }

    public static func == (a: ImageAnalysis, b: ImageAnalysis) -> Bool {
        a.file == b.file && a.page == b.page && a.orientation == b.orientation && a.width == b.width
            && a.height == b.height && a.warnings == b.warnings
            && a.input == b.input && a.optionsHash == b.optionsHash && a.requestErrors == b.requestErrors
            && a.results.count == b.results.count
            && a.results.allSatisfy { entry in b[entry.kind].map(entry.result.isEqual(to:)) ?? false }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(file)
        hasher.combine(page)
        hasher.combine(optionsHash)
        hasher.combine(Set(kinds))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnalysisCodingKey.self)
        try container.encode(AnalyzeVersion.schema, forKey: AnalysisCodingKey("schemaVersion"))
        try container.encode(AnalyzeVersion.tool, forKey: AnalysisCodingKey("toolVersion"))
        try container.encode(file, forKey: Self.fileKey)
        if let page {
            try container.encode(page.number, forKey: Self.pageKey)
            try container.encode(page.count, forKey: Self.pagesKey)
        }
        try container.encode(orientation, forKey: AnalysisCodingKey("orientation"))
        try container.encode(width, forKey: AnalysisCodingKey("width"))
        try container.encode(height, forKey: AnalysisCodingKey("height"))
        try container.encode(warnings, forKey: AnalysisCodingKey("warnings"))
        try container.encodeIfPresent(input, forKey: AnalysisCodingKey("input"))
        try container.encodeIfPresent(optionsHash, forKey: AnalysisCodingKey("optionsHash"))
        if !requestErrors.isEmpty { try container.encode(requestErrors, forKey: Self.errorsKey) }
        for entry in results {
            try entry.result.encode(into: &container, as: entry.kind)
        }
    }

    package static let fileKey = AnalysisCodingKey("file")
    package static let pageKey = AnalysisCodingKey("page")
    package static let pagesKey = AnalysisCodingKey("pages")
    package static let errorsKey = AnalysisCodingKey("errors")
}
