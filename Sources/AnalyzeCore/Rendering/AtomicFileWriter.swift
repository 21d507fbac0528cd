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

    /// A file written piece by piece (a sequence's JSON, frame by frame; an annotated video) that
    /// appears under its name only when ``commit()`` renames it there: until then it is a hidden
    /// temporary file in the same folder, removed by ``discard()``, by `deinit` or on Ctrl-C.
    public final class Pending {
        /// Where the bytes go meanwhile; it keeps the target's extension (`.mp4`), so a writer
        /// that picks its container by extension writes the right one.
        public let temporaryURL: URL
        public let url: URL
        private var handle: FileHandle?
        private var done = false

        public init(_ url: URL) throws(AnalysisError) {
            self.url = url
            let ext = url.pathExtension.isEmpty ? "" : "." + url.pathExtension
            temporaryURL = url.deletingLastPathComponent().appendingPathComponent(".analyze-\(getpid())-\(registry.nextSerial()).tmp\(ext)")
            registry.insert(temporaryURL.path)
            let fd = open(temporaryURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                registry.remove(temporaryURL.path)
                throw AnalysisError(.outputFailed, "cannot create \(temporaryURL.path): \(String(cString: strerror(errno)))")
            }
            handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        }

        deinit { discard() }

        /// Appends bytes to the temporary file.
        public func append(_ bytes: [UInt8]) throws(AnalysisError) {
            guard let handle else { throw AnalysisError(.outputFailed, "\(url.path) is already finished") }
            do {
                try handle.write(contentsOf: bytes)
            } catch {
                throw AnalysisError(.outputFailed, "cannot write \(url.path): \(error.localizedDescription)")
            }
        }

        public func append(_ text: String) throws(AnalysisError) { try append(Array(text.utf8)) }

        /// Flushes the file and renames it to its name.
        public func commit() throws(AnalysisError) {
            guard !done else { return }
            if let handle {
                fsync(handle.fileDescriptor)
                try? handle.close()
                self.handle = nil
            }
            done = true
            registry.remove(temporaryURL.path)
            guard rename(temporaryURL.path, url.path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporaryURL.path)
                throw AnalysisError(.outputFailed, "cannot write \(url.path): \(reason)")
            }
        }

        /// Removes the temporary file; nothing appears under the name.
        public func discard() {
            guard !done else { return }
            done = true
            try? handle?.close()
            handle = nil
            unlink(temporaryURL.path)
            registry.remove(temporaryURL.path)
        }
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
