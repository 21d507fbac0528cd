import Foundation

/// Engines kept for callers of the library's simple API (`ImageRequestHandler.perform(_:)`): each
/// call borrows a ``WorkerEngines`` (Tesseract, ZBar, zxing-cpp, the networks, created on first use)
/// and hands it back, so the second call costs no engine start-up and two threads never share one.
/// The batch runner does not use it: its workers own their engines.
///
/// `@unchecked Sendable`: the engines are not thread-safe, and the lock makes sure each is in one
/// caller's hands at a time (taken out of `idle` before use, put back after).
public final class SharedEngines: @unchecked Sendable {
    /// The process's engines, finding models where `analyze models` looks (``ModelLocator/standard``).
    public static let shared = SharedEngines()

    private let lock = NSLock()
    private var idle: [WorkerEngines] = []
    /// Where the engines find their models.
    public let models: ModelLocator

    public init(models: ModelLocator = .standard) {
        self.models = models
    }

    /// Runs `body` with engines no other call is using at the same time.
    public func withEngines<T>(_ body: (WorkerEngines) throws(AnalysisError) -> T) throws(AnalysisError) -> T {
        let borrowed = lock.withLock { idle.popLast() } ?? WorkerEngines(models: models)
        defer { lock.withLock { idle.append(borrowed) } }
        return try body(borrowed)
    }
}
