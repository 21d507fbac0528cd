import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import AnalyzeReport
import ArgumentParser
import Foundation
import Synchronization

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
        abstract:
            "Find rectangles, faces, barcodes, text, objects, labels, horizons and tracks in images, PDFs and videos, in batch; write annotated images or video, SVG, JSON and an HTML report.",
        version: AnalyzeVersion.tool,
        subcommands: [
            RunCommand.self, ReportCommand.self, SimilarCommand.self, ModelsCommand.self, VersionCommand.self,
            ProbeModelCommand.self, ServeModelCommand.self,
        ],
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
        // `analyze help nosuch` is a usage error, not the overview with status 0.
        if arguments.first == "help", arguments.count >= 2, !subcommandNames.contains(arguments[1]) {
            Terminal.printError(
                "Error: no such subcommand '\(arguments[1])'; the subcommands are \(subcommandNames.joined(separator: ", "))"
            )
            Foundation.exit(2)
        }
        var parsed: (any ParsableCommand)?
        do {
            var command = try parseAsRoot(arguments)
            parsed = command
            try command.run()
        } catch {
            // An error of a subcommand's run shows that subcommand's usage, not the root's.
            let shown = parsed.flatMap { usageError(error, in: type(of: $0)) } ?? fullMessage(for: error)
            if exitCode(for: error) == .validationFailure {
                Terminal.printError(shown, keepingNewlines: true)
                Foundation.exit(2)
            }
            if let parsed, exitCode(for: error) != .success {
                type(of: parsed).exit(withError: error)
            }
            exit(withError: error)
        }
    }
}

extension Analyze {
    /// `Error: …` and the subcommand's usage, as `analyze …` (the default `run` without its name),
    /// for a validation error its run threw; nil for other errors.
    static func usageError(_ error: any Error, in command: any ParsableCommand.Type) -> String? {
        guard let validation = error as? ValidationError, let name = command.configuration.commandName else {
            return nil
        }
        var usage = command.usageString()
        if usage.hasPrefix(name + " ") { usage.removeFirst(name.count + 1) }
        let shown = command == RunCommand.self ? "analyze " + usage : "analyze \(name) " + usage
        return "Error: \(validation.message)\nUsage: \(shown)\n  See 'analyze help \(name)' for more information."
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
    /// Whether a progress bar is on stderr's current line (cleared before any line is printed).
    private static let barVisible = Atomic<Bool>(false)

    /// Prints `line` on stderr made printable: paths and messages from a hostile folder or file carry
    /// no escape sequence to the terminal, no bidirectional override and no newline (which would start a
    /// line a CI log may take for a command of its own). `keepingNewlines`: a message of several lines
    /// (the usage text after a usage error).
    static func printError(_ line: String, keepingNewlines: Bool = false) {
        let clear = barVisible.exchange(false, ordering: .relaxed) ? "\r\u{1B}[K" : ""
        write(
            Array((clear + MarkupEscaping.printable(line, keeping: keepingNewlines ? ["\n"] : []) + "\n").utf8),
            to: STDERR_FILENO)
    }

    /// Redraws the progress bar on stderr's current line.
    static func drawBar(_ text: String) {
        write(Array(("\r" + text + "\u{1B}[K").utf8), to: STDERR_FILENO)
        barVisible.store(true, ordering: .relaxed)
    }

    /// Removes the progress bar, if one is shown.
    static func clearBar() {
        if barVisible.exchange(false, ordering: .relaxed) { write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO) }
    }

    /// The terminal's width in columns (stderr's, then `$COLUMNS`, then 80).
    static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let n = Int(text), n > 0 { return n }
        return 80
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
