import AnalyzeCore
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `analyze`: Apple Vision's requests, in batch, on Linux. The root command only dispatches:
/// `analyze PATH…` runs ``RunCommand`` (the default), `analyze report`, `analyze models`,
/// `analyze version`, `analyze help [SUBCOMMAND]`.
@main
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "analyze",
        abstract: "Find rectangles, faces, barcodes and text in images, in batch; write annotated PNG, SVG and JSON per image.",
        version: AnalyzeVersion.tool,
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
        // A closed stdout/stderr pipe makes write(2) fail with EPIPE instead of killing the run.
        signal(SIGPIPE, SIG_IGN)
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

    func run() { print(AnalyzeVersion.tool) }
}

/// Writes to stdout and stderr with plain `write(2)`: a full disk (`2>/dev/full`) or a closed pipe
/// (`| head -c 10`) makes a write fail, never the process (Foundation's FileHandle traps on
/// errors, and SIGPIPE is ignored from the start). Output to a stream that failed is dropped; the
/// run, its files and its exit status are unaffected.
enum Terminal {
    static func printError(_ line: String) {
        write(Array((line + "\n").utf8), to: STDERR_FILENO)
    }

    /// Writes all of `bytes`; false when the stream failed (closed pipe, full disk).
    @discardableResult
    static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return Glibc.write(fd, base + offset, bytes.count - offset)
            }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
