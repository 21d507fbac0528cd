import Synchronization

/// One slot per parallel task, filled by the tasks (each its own index) and read once they are all
/// done: how `DispatchQueue.concurrentPerform` iterations hand back their results.
package final class ResultSlots<Value>: @unchecked Sendable {
    // Guarded by `lock`.
    private var slots: [Value?]
    private let lock = Mutex(())

    package init(count: Int) { slots = Array(repeating: nil, count: count) }

    package func set(_ index: Int, _ value: Value) {
        lock.withLock { _ in slots[index] = value }
    }

    /// Every slot, in order (nil where a task stored nothing).
    package var values: [Value?] { lock.withLock { _ in slots } }
}

/// Values handed to parallel tasks where each task touches only its own part (its own tracker, its
/// own frame and engines): the one place that promise is made, instead of the types being Sendable.
package struct DisjointShare<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
