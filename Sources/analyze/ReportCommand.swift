import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import AnalyzeReport
import ArgumentParser
import Foundation

/// `analyze report DIR…`: merges the summaries of sharded runs into one index.html and summary.json.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Merge the outputs of sharded runs (--shard K/N) into one index.html and summary.json.",
        discussion: """
            Reads every summary.shard-K-of-N.json (or, if there are none, summary.json) in each DIR and writes the merged summary.json and index.html into OUT (default: the first DIR). Links in the page point to each image's files where they are.

            Exit status: 0 merged and no image failed; 1 some images failed or failed a check; 2 a summary is missing or unreadable, a shard of the batch is missing (the merged report is still written, naming it), or the summaries come from runs with different options.
            """
    )

    @Argument(help: ArgumentHelp("Output folders of the shards (one shared folder is fine).", valueName: "dir"))
    var directories: [String] = []

    @Option(
        name: [.short, .customLong("output")],
        help: ArgumentHelp(
            "Folder for the merged index.html and summary.json (default: the first DIR).", valueName: "dir"))
    var output: String?

    @Option(
        name: .customLong("junit"), help: ArgumentHelp("Also write the merged run as JUnit XML.", valueName: "file"))
    var junit: String?

    func validate() throws {
        if directories.isEmpty { throw ValidationError("give at least one output folder to merge") }
    }

    func run() throws {
        let folders = directories.map { URL(fileURLWithPath: $0) }
        guard let first = folders.first else { throw ValidationError("give at least one folder") }
        for folder in folders where !FileManager.default.fileExists(atPath: folder.path) {
            throw ValidationError("no such folder: \(folder.path)")
        }
        let target = output.map { URL(fileURLWithPath: $0) } ?? first
        let merged: RunSummary
        do {
            merged = try RunReport.merge(directories: folders, into: target)
            if let junit {
                try AtomicFileWriter.write(JUnitRenderer.xml(summary: merged), to: URL(fileURLWithPath: junit))
            }
        } catch {
            Terminal.printError("analyze report: \(error)")
            throw ExitCode(2)
        }
        Terminal.printError(
            "analyze report: \(merged.images.total) image(s), \(merged.images.failed) failed, \(merged.images.checkFailed) failed a check; report: \(target.appendingPathComponent("index.html").path)"
        )
        if let missing = merged.missingShards {
            Terminal.printError(
                "analyze report: incomplete: shard(s) \(missing.joined(separator: ", ")) missing (no summary.shard-K-of-N.json for them); the report says so"
            )
            throw ExitCode(2)
        }
        if merged.images.failed + merged.images.checkFailed > 0 { throw ExitCode(1) }
    }
}
