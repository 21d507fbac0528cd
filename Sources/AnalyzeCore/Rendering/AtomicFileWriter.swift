import Foundation
import Synchronization

/// Writes files so that nothing half-written is ever visible: the bytes go to a hidden temporary
/// file in the same directory, are flushed, and then renamed over the target in one step.
/// Temporary files in flight are tracked so an interrupted run can remove them (see `removeInFlight`).
public enum AtomicFileWriter {
    private static let registry = TemporaryFileRegistry()

    public static func write(_ bytes: [UInt8], to url: URL) throws(AnalysisError) {
        let directory = url.deletingLastPathComponent()
        // Short whatever the target's name: a name near NAME_MAX (83 CJK characters are 249 bytes)
        // must not fail because its temporary name is longer.
        let temporary = directory.appendingPathComponent(".analyze-\(getpid())-\(registry.nextSerial()).tmp")
        registry.insert(temporary.path)
        defer { registry.remove(temporary.path) }
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw AnalysisError(.outputFailed, "cannot create \(temporary.path): \(String(cString: strerror(errno)))")
        }
        var ok = true
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = Foundation.write(fd, base + offset, raw.count - offset)
                if n <= 0 { ok = false; break }
                offset += n
            }
        }
        if fsync(fd) != 0 { ok = false }
        close(fd)
        guard ok, rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw AnalysisError(.outputFailed, "cannot write \(url.path): \(reason)")
        }
    }

    public static func write(_ text: String, to url: URL) throws(AnalysisError) {
        try write(Array(text.utf8), to: url)
    }

    /// Deletes every temporary file still being written (call from a signal handler's queue
    /// before exiting on Ctrl-C).
    public static func removeInFlight() {
        for path in registry.snapshot() { unlink(path) }
    }
}

/// The set of temporary files being written, guarded by a mutex.
private final class TemporaryFileRegistry: Sendable {
    private struct State {
        var paths = Set<String>()
        var serial = 0
    }

    private let state = Mutex(State())

    func nextSerial() -> Int { state.withLock { $0.serial += 1; return $0.serial } }
    func insert(_ path: String) { state.withLock { _ = $0.paths.insert(path) } }
    func remove(_ path: String) { state.withLock { _ = $0.paths.remove(path) } }
    func snapshot() -> [String] { state.withLock { Array($0.paths) } }
}
