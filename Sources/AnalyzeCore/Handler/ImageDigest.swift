/// What the run report keeps of one image: its status, counts, payloads and first lines of text.
/// Small enough to hold for 100,000 images; the full observations stay in the image's JSON.
public struct ImageDigest: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// Analysed, every check passed.
        case ok
        /// Could not be analysed (unreadable, undecodable, too large…).
        case failed
        /// Analysed, but a `--require`/`--forbid` check failed.
        case checkFailed = "check-failed"
    }

    public let file: String
    /// Base name of the image's output files.
    public let outputName: String
    public let status: Status
    public let errorCode: String?
    public let errorMessage: String?
    public let checkFailures: [String]
    public let orientation: Int?
    public let width: Int?
    public let height: Int?
    /// Observations per requested kind (`text` counts lines).
    public let counts: [String: Int]
    /// Barcode payloads (`symbology: payload`), at most 20, each cut to 300 characters.
    public let payloads: [String]
    /// The first five text lines.
    public let textPreview: [String]

    public static let maximumPayloads = 20
    public static let previewLines = 5

    public init(source: ImageSource, result: Result<ImageAnalysis, AnalysisError>, checkFailures: [String]) {
        file = source.path
        outputName = source.outputName
        switch result {
        case .failure(let error):
            status = .failed
            errorCode = error.code.rawValue
            errorMessage = error.message
            self.checkFailures = []
            orientation = nil
            width = nil
            height = nil
            counts = [:]
            payloads = []
            textPreview = []
        case .success(let analysis):
            status = checkFailures.isEmpty ? .ok : .checkFailed
            errorCode = nil
            errorMessage = nil
            self.checkFailures = checkFailures
            orientation = analysis.orientation
            width = analysis.width
            height = analysis.height
            var counts: [String: Int] = [:]
            for kind in ObservationKind.allCases {
                if let n = analysis.count(of: kind) { counts[kind.rawValue] = n }
            }
            if let lines = analysis.text { counts["words"] = lines.reduce(0) { $0 + $1.words.count } }
            self.counts = counts
            payloads = (analysis.barcodes ?? []).prefix(Self.maximumPayloads).map { "\($0.symbology): " + String($0.payload.prefix(300)) }
            textPreview = (analysis.text ?? []).prefix(Self.previewLines).map(\.string)
        }
    }
}
