import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import Foundation

/// Writes a run's `summary.json` and `index.html`, and merges shard outputs into one report.
///
/// A run with `--shard K/N` writes `summary.shard-K-of-N.json` and `index.shard-K-of-N.html`,
/// so shards can share one output folder; `analyze report DIR…` merges them.
public enum RunReport {
    public static func names(shard: Shard?) -> (summary: String, index: String) {
        guard let shard else { return ("summary.json", "index.html") }
        let suffix = "shard-\(shard.index)-of-\(shard.count)"
        return ("summary.\(suffix).json", "index.\(suffix).html")
    }

    /// Writes the summary and the HTML page for a run whose per-image files are in `directory`.
    public static func write(_ summary: RunSummary, to directory: URL, shard: Shard?) throws(AnalysisError) {
        let (summaryName, indexName) = names(shard: shard)
        try AtomicFileWriter.write(try JSONRenderer.encode(summary), to: directory.appendingPathComponent(summaryName))
        let cards = summary.entries.map {
            HTMLReportRenderer.Card(digest: $0, folder: "", inputHref: inputHref(from: directory, to: $0.file))
        }
        try AtomicFileWriter.write(
            HTMLReportRenderer.html(summary: summary, cards: cards), to: directory.appendingPathComponent(indexName))
    }

    /// The largest summary `merge` reads (a summary of 100,000 images is about 100 MB).
    public static let maximumSummaryBytes = 512 << 20

    /// Merges the summaries found in `directories` (their shard summaries if they have any,
    /// else their `summary.json`) into `output`'s `summary.json` and `index.html`.
    public static func merge(directories: [URL], into output: URL) throws(AnalysisError) -> RunSummary {
        var parts: [(summary: RunSummary, folder: URL)] = []
        for directory in directories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            let shards = names.filter { $0.hasPrefix("summary.shard-") && $0.hasSuffix(".json") }
            let chosen = shards.isEmpty ? names.filter { $0 == "summary.json" } : shards
            guard !chosen.isEmpty else {
                throw AnalysisError(.missingFile, "no summary.json or summary.shard-*.json", file: directory.path)
            }
            for name in chosen {
                let url = directory.appendingPathComponent(name)
                let data: Data
                do {
                    data = Data(try RegularFile.read(url.path, maximumBytes: Self.maximumSummaryBytes))
                } catch  where error.code == .tooLarge {
                    throw AnalysisError(
                        .tooLarge, "over \(Self.maximumSummaryBytes >> 20) MB: not a summary analyze writes",
                        file: url.path)
                }
                let summary: RunSummary
                do {
                    summary = try JSONDecoder().decode(RunSummary.self, from: data)
                } catch {
                    throw AnalysisError(.undecodable, "not an analyze summary: \(error)", file: url.path)
                }
                if let shard = summary.shard {
                    guard let parsed = Shard(shard) else {
                        throw AnalysisError(
                            .undecodable,
                            "not an analyze summary: shard \"\(shard.prefix(40))\" is not K/N with 0 ≤ K < N ≤ \(Shard.maximumCount)",
                            file: url.path)
                    }
                    if let first = parts.lazy.compactMap({ $0.summary.shard.flatMap(Shard.init) }).first,
                        first.count != parsed.count
                    {
                        throw AnalysisError(
                            .outputFailed,
                            "shard \(parsed) is not of the same batch as shard \(first) (\(parsed.count) shards, not \(first.count))",
                            file: url.path)
                    }
                }
                parts.append((summary, directory))
            }
        }
        let merged = try RunSummary.merge(parts.map(\.summary))
        var folderOf: [String: String] = [:]
        for part in parts {
            let folder = BatchRunner.relativeFolder(from: output, to: part.folder)
            for entry in part.summary.entries { folderOf[entry.file] = folder }
        }
        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        } catch {
            throw AnalysisError(.outputFailed, "cannot create the report folder", file: output.path)
        }
        try AtomicFileWriter.write(try JSONRenderer.encode(merged), to: output.appendingPathComponent("summary.json"))
        let cards = merged.entries.map {
            HTMLReportRenderer.Card(
                digest: $0, folder: folderOf[$0.file] ?? "", inputHref: inputHref(from: output, to: $0.file))
        }
        try AtomicFileWriter.write(
            HTMLReportRenderer.html(summary: merged, cards: cards), to: output.appendingPathComponent("index.html"))
        return merged
    }

    /// The input at `path` (as the run was given it), relative to the report's folder and
    /// percent-encoded from its real bytes; nil when it no longer exists.
    static func inputHref(from report: URL, to path: String) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return BatchRunner.relativePath(from: report, to: URL(fileURLWithPath: path))
    }

}
