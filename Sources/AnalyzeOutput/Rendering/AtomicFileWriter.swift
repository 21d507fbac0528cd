import AnalyzeCore
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
        let temporary = directory.appendingPathComponent(temporaryName(serial: registry.nextSerial()))
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

    /// The host, as temporary names carry it: letters, digits, `.` and `-`, at most 40 of them.
    private static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        let name =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let kept = String(
            name.unicodeScalars.filter {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "." || $0 == "-")
            }.prefix(40))
        return kept.isEmpty ? "host" : kept
    }()

    /// `.analyze-HOST-PID-N.tmp`: whose it is, so that a later run on this host can tell a dead
    /// run's leftovers (``removeStale(in:)``) from another live run's files (a shard on another
    /// machine writing to the same shared folder is never touched).
    static func temporaryName(serial: Int) -> String { ".analyze-\(host)-\(getpid())-\(serial).tmp" }

    /// Removes, in `directory` and up to four levels under it, the temporaries of runs on this host that are no longer
    /// running (their process is gone: killed with SIGKILL, or the machine stopped); and those named
    /// as before 0.5 (`.analyze-PID-N.tmp…`, no host) when their process is gone and they are over
    /// an hour old. Returns how many were removed.
    @discardableResult
    public static func removeStale(in directory: URL) -> Int {
        guard
            let walk = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: [.contentModificationDateKey], options: [])
        else { return 0 }
        var removed = 0
        for case let url as URL in walk {
            // Outputs sit in the folder or a few levels under it; an -o above a large tree is not walked.
            if walk.level >= 4 { walk.skipDescendants() }
            let name = url.lastPathComponent
            guard name.hasPrefix(".analyze-"), name.contains(".tmp") else { continue }
            let fields =
                name.dropFirst(".analyze-".count).split(separator: ".", maxSplits: 1).first.map {
                    $0.split(separator: "-")
                } ?? []
            let stale: Bool
            if fields.count >= 3, let pid = Int32(fields[fields.count - 2]), Int(fields[fields.count - 1]) != nil,
                fields.dropLast(2).joined(separator: "-") == host
            {
                stale = pid != getpid() && !isRunning(pid)
            } else if fields.count == 2, let pid = Int32(fields[0]), Int(fields[1]) != nil {
                let modified =
                    (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? Date()
                stale = pid != getpid() && !isRunning(pid) && Date().timeIntervalSince(modified) > 3600
            } else {
                stale = false
            }
            if stale, unlink(url.path) == 0 { removed += 1 }
        }
        return removed
    }

    private static func isRunning(_ pid: Int32) -> Bool { pid > 0 && (kill(pid, 0) == 0 || errno == EPERM) }

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
            temporaryURL = url.deletingLastPathComponent().appendingPathComponent(
                AtomicFileWriter.temporaryName(serial: registry.nextSerial()) + ext)
            registry.insert(temporaryURL.path)
            let fd = open(temporaryURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                registry.remove(temporaryURL.path)
                throw AnalysisError(
                    .outputFailed, "cannot create \(temporaryURL.path): \(String(cString: strerror(errno)))")
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

    func nextSerial() -> Int {
        state.withLock {
            $0.serial += 1; return $0.serial
        }
    }
    func insert(_ path: String) { state.withLock { _ = $0.paths.insert(path) } }
    func remove(_ path: String) { state.withLock { _ = $0.paths.remove(path) } }
    func snapshot() -> [String] { state.withLock { Array($0.paths) } }
}
