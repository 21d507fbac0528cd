import AnalyzeCore
import ArgumentParser
import Foundation

/// `analyze`: Apple Vision's requests, in batch, on Linux. The root command only dispatches:
/// `analyze PATH…` runs ``RunCommand`` (the default), `analyze report`, `analyze models`,
/// `analyze version`, `analyze help [SUBCOMMAND]`.
@main
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Find rectangles, faces, barcodes and text in images, in batch; write annotated PNG, SVG and JSON per image.",
        version: AnalyzeVersion.current,
        subcommands: [RunCommand.self, ReportCommand.self, ModelsCommand.self, VersionCommand.self],
        defaultSubcommand: RunCommand.self
    )

    /// The subcommands' names (for suggestions on a typo).
    static var subcommandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// Parses and runs; every usage error exits 2, in every subcommand (ArgumentParser's own
    /// default would be 64). `analyze --help` shows the analysis flags, the part people look for.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments == ["--help"] || arguments == ["-h"] {
            print(Analyze.helpMessage(for: RunCommand.self))
            return
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                Terminal.printError(fullMessage(for: error))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// `analyze version`: the same as `analyze --version`.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the version and exit.")

    func run() { print(AnalyzeVersion.current) }
}

/// The tool's version, shown by `--version` and `analyze version`.
enum AnalyzeVersion {
    static let current = "0.2.0"
}

/// Writes to the terminal's error stream.
enum Terminal {
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
