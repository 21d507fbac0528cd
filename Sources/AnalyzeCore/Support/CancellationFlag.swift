import Synchronization

/// Tells a running batch to stop taking new images (e.g. on Ctrl-C): images in progress finish
/// and their outputs are written completely; nothing new starts.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    public init() {}

    public func cancel() { cancelled.store(true, ordering: .sequentiallyConsistent) }
    public var isCancelled: Bool { cancelled.load(ordering: .sequentiallyConsistent) }
}
