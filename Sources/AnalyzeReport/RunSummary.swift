import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import Foundation

/// `summary.json`: the run as a whole — options, totals, failures, stage timings, and a digest
/// per image (sorted by file, so shard summaries merge into the same summary a single run gives).
public struct RunSummary: Sendable, Codable {
    public struct ImageCounts: Sendable, Hashable, Codable {
        public var total = 0
        public var analysed = 0
        public var failed = 0
        public var checkFailed = 0
        /// Skipped by `--resume` because their outputs were up to date (included in `analysed`).
        public var resumed = 0
    }

    public struct Failure: Sendable, Hashable, Codable {
        public let file: String
        public let reason: String
    }

    public var tool = "analyze"
    /// The version of `summary.json`'s contract (`schemas/summary.schema.json`).
    public var schemaVersion = AnalyzeVersion.schema
    /// The version of the tool that wrote it.
    public var toolVersion = AnalyzeVersion.tool
    /// The requests with their parameters, and the output options.
    public var requests: RequestSet
    public var checks: [ObservationCheck]
    /// Which files each image got (the report links only those).
    public var outputs: OutputLayout = OutputLayout()
    public var images = ImageCounts()
    /// Observations found over the run, per kind (`text` counts lines; `words` too).
    public var totals: [String: Int] = [:]
    /// Images that could not be analysed, with the reason.
    public var failures: [Failure] = []
    /// Images that failed a `--require`/`--forbid` check.
    public var checkFailures: [Failure] = []
    /// Seconds spent per stage, summed over all images and workers (read, orientation, decode,
    /// each request, render, write).
    public var timings: [String: Double] = [:]
    /// Wall-clock seconds of the run (0 for a merged report).
    public var wallSeconds: Double = 0
    public var jobs: Int = 1
    /// `K/N` when this summary covers one shard.
    public var shard: String?
    /// In a merged report: the shards (`K/N`) of the batch whose summaries were not among those
    /// merged; absent when the set is complete (or was not sharded).
    public var missingShards: [String]?
    public var entries: [ImageDigest] = []

    public init(
        requests: RequestSet, checks: [ObservationCheck], outputs: OutputLayout = OutputLayout(),
        entries: [ImageDigest], timings: StageTimings
    ) {
        self.requests = requests
        self.outputs = outputs
        self.checks = checks
        self.timings = timings.seconds.mapValues { ($0 * 1000).rounded() / 1000 }
        self.entries = entries.sorted(by: ImageDigest.inOrder)
        recount()
    }

    /// Recomputes counts, totals and failure lists from `entries`.
    public mutating func recount() {
        entries.sort(by: ImageDigest.inOrder)
        images = ImageCounts()
        totals = [:]
        failures = []
        checkFailures = []
        for entry in entries {
            images.total += 1
            switch entry.status {
            case .failed, .partial:
                images.failed += 1
                failures.append(
                    Failure(file: entry.label, reason: "\(entry.errorMessage ?? "failed") [\(entry.errorCode ?? "?")]"))
            case .checkFailed:
                images.analysed += 1
                images.checkFailed += 1
                checkFailures.append(Failure(file: entry.label, reason: entry.checkFailures.joined(separator: "; ")))
            case .ok:
                images.analysed += 1
            }
            for (kind, n) in entry.counts { totals[kind, default: 0] += n }
        }
    }

    /// The shards of every `K/N` count seen that are not among `present`, as `K/N`, sorted.
    static func missingShards(of present: [String]) -> [String] {
        var seen: [Int: Set<Int>] = [:]
        for shard in present.compactMap(Shard.init) { seen[shard.count, default: []].insert(shard.index) }
        return seen.keys.sorted().flatMap { n in (0..<n).filter { !(seen[n] ?? []).contains($0) }.map { "\($0)/\(n)" } }
    }

    /// Merges shard summaries of one batch: entries are united (a file seen twice keeps its last
    /// digest), timings summed, wall time and jobs dropped.
    public static func merge(_ parts: [RunSummary]) throws(AnalysisError) -> RunSummary {
        guard var merged = parts.first else { throw AnalysisError(.missingFile, "no summary to merge") }
        var byFile: [String: ImageDigest] = [:]
        var timings: [String: Double] = [:]
        var resumed = 0
        for part in parts {
            guard part.requests == merged.requests, part.checks == merged.checks, part.outputs == merged.outputs else {
                throw AnalysisError(
                    .outputFailed, "the summaries were made with different options; they are not shards of one batch")
            }
            for entry in part.entries { byFile[entry.label] = entry }
            for (stage, s) in part.timings { timings[stage, default: 0] += s }
            resumed += part.images.resumed
        }
        merged.entries = Array(byFile.values)
        merged.timings = timings.mapValues { ($0 * 1000).rounded() / 1000 }
        merged.wallSeconds = 0
        let missing = missingShards(of: parts.compactMap(\.shard))
        merged.missingShards = missing.isEmpty ? nil : missing
        merged.shard = nil
        merged.recount()
        merged.images.resumed = resumed
        return merged
    }
}
