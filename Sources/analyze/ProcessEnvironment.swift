import AnalyzeCore
import Dispatch
import Foundation

/// Process-level set-up the command needs before any engine starts.
enum ProcessEnvironment {
    /// Tesseract links libgomp, which reads OMP_THREAD_LIMIT once, when the library loads, and
    /// would otherwise start a thread per core inside every worker. If the variable is unset, the
    /// command sets it to 1 and re-executes itself, so workers (not OpenMP) use the cores.
    /// Runs can skip the re-execution (about 0.1 s of library loading) when they will not
    /// recognise text: request flags are given and none of them (nor a check) asks for text.
    static func limitOpenMPThreads() {
        guard ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil, willRecogniseText(Array(CommandLine.arguments.dropFirst())) else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        let arguments = CommandLine.arguments
        var cArguments = arguments.map { strdup($0) }
        cArguments.append(nil)
        execv("/proc/self/exe", cArguments)
        // execv only returns on failure: carry on with OpenMP's default.
    }

    /// Whether these command-line arguments can lead to Tesseract running (errs towards yes).
    static func willRecogniseText(_ arguments: [String]) -> Bool {
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) { return false }
        if arguments.contains("--text") { return true }
        for (i, argument) in arguments.enumerated() where argument == "--require" || argument == "--forbid" {
            if i + 1 < arguments.count, arguments[i + 1].lowercased() == "text" { return true }
        }
        if arguments.contains(where: { $0.hasPrefix("--require=") || $0.hasPrefix("--forbid=") }) { return true }
        let requestFlags: Set<String> = ["--rects", "--faces", "--barcodes", "--require", "--forbid"]
        return !arguments.contains(where: requestFlags.contains)
    }

    /// On Ctrl-C or SIGTERM: remove temporary files being written, then exit 130/143, so no
    /// half-written output survives.
    static func installInterruptHandler() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                AtomicFileWriter.removeInFlight()
                FileHandle.standardError.write(Data("analyze: interrupted; outputs written so far are complete, nothing partial was left\n".utf8))
                exit(128 + sig)
            }
            source.resume()
            sources.append(source)
        }
    }

    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
