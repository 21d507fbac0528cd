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

    /// On the first Ctrl-C or SIGTERM: stop taking new images; images in progress finish and
    /// are written completely, then the command exits 130/143. On a second one: remove the
    /// temporary files being written and exit at once. Either way no half-written output survives.
    static func installInterruptHandler(cancelling flag: CancellationFlag) {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if flag.isCancelled {
                    AtomicFileWriter.removeInFlight()
                    FileHandle.standardError.write(Data("analyze: interrupted again; stopped without finishing\n".utf8))
                    exit(128 + sig)
                }
                interruptingSignal = sig
                flag.cancel()
                FileHandle.standardError.write(Data("analyze: interrupted; finishing the images in progress (again to stop at once)\n".utf8))
            }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal that cancelled the run, if any (set once, from the signal queue, before the
    /// flag is cancelled; read after the run).
    nonisolated(unsafe) static var interruptingSignal: Int32?

    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
