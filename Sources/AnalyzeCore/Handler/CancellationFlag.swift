import Foundation

/// Tells a running batch to stop taking new images (e.g. on Ctrl-C): images in progress finish
/// and their outputs are written completely; nothing new starts.
public final class CancellationFlag: @unchecked Sendable {
    // Invariant: `cancelled` is only read or written while `lock` is held.
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public func cancel() { lock.withLock { cancelled = true } }
    public var isCancelled: Bool { lock.withLock { cancelled } }
}
