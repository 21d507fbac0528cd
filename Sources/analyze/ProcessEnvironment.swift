import AnalyzeBatch
import AnalyzeCore
import AnalyzeOutput
import Dispatch
import Foundation

/// Process-level signal handling for the command.
enum ProcessEnvironment {
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
                    Terminal.printError("analyze: interrupted again; stopped without finishing")
                    exit(128 + sig)
                }
                interruptingSignal = sig
                flag.cancel()
                Terminal.printError("analyze: interrupted; finishing the images in progress (again to stop at once)")
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
