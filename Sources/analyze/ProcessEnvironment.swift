import AnalyzeCore
import Dispatch
import Foundation

/// Process-level set-up the command needs before any engine starts.
enum ProcessEnvironment {
    /// Tesseract links libgomp, which reads OMP_THREAD_LIMIT once, when the library loads, and
    /// would otherwise start a thread per core inside every worker. If the variable is unset, the
    /// command sets it to 1 and re-executes itself, so workers (not OpenMP) use the cores.
    static func limitOpenMPThreads() {
        guard ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        let arguments = CommandLine.arguments
        var cArguments = arguments.map { strdup($0) }
        cArguments.append(nil)
        execv("/proc/self/exe", cArguments)
        // execv only returns on failure: carry on with OpenMP's default.
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
