import AnalyzeCore
import AnalyzeOutput

/// What the run report keeps of one image: its status, counts, payloads and first lines of text.
/// Small enough to hold for 100,000 images; the full observations stay in the image's JSON.
public struct ImageDigest: Sendable, Hashable, Codable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// Analysed, every check passed.
        case ok
        /// Could not be analysed (unreadable, undecodable, too large…).
        case failed
        /// Analysed, but a request failed on it (the others' results are kept); counts as failed.
        case partial
        /// Analysed, but a `--require`/`--forbid` check failed.
        case checkFailed = "check-failed"
    }

    public let file: String
    /// For a page of a multi-page file: which page (from 1), of how many; absent otherwise.
    public let page: Int?
    public let pages: Int?
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
    /// Short lines worth showing: barcode payloads (`symbology: payload`, at most 20, each cut to
    /// 300 characters), recognised labels with their confidence.
    public let payloads: [String]
    /// The first five text lines.
    public let textPreview: [String]
    /// Labels recognised, per kind (the report filters on them).
    public let labels: [String: [String]]
    /// What the report's search looks through: all recognised text, every payload and label, at
    /// most ``searchLimit`` characters (absent in summaries written before analyze 0.3).
    public let searchText: String?

    /// Characters of an image's text and payloads kept for search.
    public static let searchLimit = 4000

    /// For a sequence: how it was read and its tracks (absent for a still image).
    public let sequence: SequenceDigest?

    /// What the report keeps of a sequence.
    public struct SequenceDigest: Sendable, Hashable, Codable {
        /// `video`, `frames` or `stream`.
        public let source: String
        public let framesRead: Int
        public let framesAnalysed: Int
        public let framesDropped: Int
        public let duration: Double?
        /// How many tracks there were, and the longest 8 of them (by frames): a card stays short.
        public let trackCount: Int
        public let tracks: [TrackSummary]
    }

    /// How the report and the lists of failures name the input: its file, and for a page of a
    /// multi-page file which page (`scan.tif (page 2 of 3)`).
    public var label: String {
        guard let page, let pages else { return file }
        return file + " (page \(page) of \(pages))"
    }

    /// The report's order: by file, then page.
    package static func inOrder(_ a: ImageDigest, _ b: ImageDigest) -> Bool {
        a.file != b.file ? a.file < b.file : (a.page ?? 0) < (b.page ?? 0)
    }

    public init(source: ImageSource, result: Result<ImageAnalysis, AnalysisError>, checkFailures: [String]) {
        switch result {
        case .failure(let error):
            self.init(source: source, failure: error)
        case .success(let analysis):
            self.init(
                source: source, analysis: analysis, summaries: analysis.results.map { ($0.kind, $0.result.summary) },
                checkFailures: checkFailures, sequence: nil, extraCounts: [:])
        }
    }

    private init(source: ImageSource, failure error: AnalysisError) {
        file = source.displayPath
        (page, pages) = (source.page?.number, source.page?.count)
        outputName = source.outputName
        status = .failed
        errorCode = error.code.rawValue
        errorMessage = error.message
        checkFailures = []
        orientation = nil
        width = nil
        height = nil
        counts = [:]
        payloads = []
        textPreview = []
        labels = [:]
        searchText = nil
        sequence = nil
    }

    /// The digest of an analysed sequence: its counts are summed over its analysed frames.
    init(source: ImageSource, analysis: ImageAnalysis, sequence: SequenceOutcome, checkFailures: [String]) {
        let longest = sequence.tracks.sorted {
            $0.frames != $1.frames ? $0.frames > $1.frames : $0.trackID < $1.trackID
        }.prefix(8)
        let s = sequence.sequence
        self.init(
            source: source, analysis: analysis, summaries: sequence.summaries, checkFailures: checkFailures,
            sequence: SequenceDigest(
                source: s.source.rawValue, framesRead: s.framesRead, framesAnalysed: s.framesAnalysed,
                framesDropped: s.framesDropped, duration: s.duration, trackCount: sequence.tracks.count,
                tracks: longest.sorted { $0.trackID < $1.trackID }),
            extraCounts: s.tracking == nil ? [:] : ["tracks": sequence.tracks.count])
    }

    private init(
        source: ImageSource, analysis: ImageAnalysis, summaries: [(kind: ObservationKind, summary: ResultSummary)],
        checkFailures: [String],
        sequence: SequenceDigest?, extraCounts: [String: Int]
    ) {
        file = source.displayPath
        (page, pages) = (source.page?.number, source.page?.count)
        outputName = source.outputName
        self.sequence = sequence
        if analysis.requestErrors.isEmpty {
            status = checkFailures.isEmpty ? .ok : .checkFailed
            errorCode = nil
            errorMessage = nil
        } else {
            status = .partial
            errorCode = "request-failed"
            errorMessage = analysis.requestErrors.sorted { $0.key < $1.key }.map {
                "\($0.key) failed: \($0.value.message) [\($0.value.code)]"
            }
            .joined(separator: "; ")
        }
        self.checkFailures = checkFailures
        orientation = analysis.orientation
        width = analysis.width
        height = analysis.height
        var counts: [String: Int] = [:], payloads: [String] = [], preview: [String] = [],
            labels: [String: [String]] = [:]
        var searchable: [String] = []
        for (kind, summary) in summaries {
            counts[kind.rawValue] = summary.count
            counts.merge(summary.extraCounts) { $0 + $1 }
            payloads += summary.highlights
            preview += summary.textPreview
            searchable += summary.searchable + summary.labels
            if !summary.labels.isEmpty { labels[kind.rawValue] = summary.labels }
        }
        counts.merge(extraCounts) { $0 + $1 }
        self.counts = counts
        self.payloads = payloads
        textPreview = preview
        self.labels = labels
        let joined = searchable.joined(separator: "\n")
        searchText = joined.isEmpty ? nil : String(joined.prefix(Self.searchLimit))
    }
}
