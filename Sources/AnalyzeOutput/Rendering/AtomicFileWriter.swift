import AnalyzeCore
import Foundation
import Synchronization

/// Writes files so that nothing half-written is ever visible: the bytes go to a hidden temporary
/// file in the same directory, are flushed, and then renamed over the target in one step.
/// Temporary files in flight are tracked so an interrupted run can remove them (see `removeInFlight`).
public enum AtomicFileWriter {
    private static let registry = TemporaryFileRegistry()

    public static func write(_ bytes: [UInt8], to url: URL) throws(AnalysisError) {
        let (temporary, fd) = try createTemporary(in: url.deletingLastPathComponent(), extension: "")
        registry.insert(temporary.path)
        defer { registry.remove(temporary.path) }
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
        // Renamed while its lock is held: a cleaner never sees an unlocked temporary that is still ours.
        guard ok, rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            close(fd)
            throw AnalysisError(.outputFailed, "cannot write \(url.path): \(reason)")
        }
        close(fd)
    }

    /// Creates a new temporary file in `directory` and takes an exclusive lock on it (`flock`), held
    /// until its descriptor is closed. The lock, not the name, is what tells a live run's temporary
    /// from a dead one's (``removeStale(in:)``): it is held by the open file, so it holds across PID
    /// namespaces (containers, CI runners) and, on NFS, across hosts; it is released by the kernel
    /// however the process ends. A temporary removed between its creation and its lock (by a cleaner
    /// that found it unlocked) is made again under another name.
    private static func createTemporary(in directory: URL, extension ext: String) throws(AnalysisError) -> (
        URL, Int32
    ) {
        for _ in 0..<8 {
            // Short whatever the target's name: a name near NAME_MAX (83 CJK characters are 249 bytes)
            // must not fail because its temporary name is longer.
            let url = directory.appendingPathComponent(temporaryName(serial: registry.nextSerial()) + ext)
            let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                if errno == EEXIST { continue }
                throw AnalysisError(.outputFailed, "cannot create \(url.path): \(String(cString: strerror(errno)))")
            }
            if flock(fd, LOCK_EX | LOCK_NB) == 0, isSameFile(fd, url.path) { return (url, fd) }
            close(fd)
        }
        throw AnalysisError(
            .outputFailed, "cannot create a temporary file in \(directory.path): it was removed each time")
    }

    /// Whether the open file `fd` is still the one at `path` (not unlinked or replaced).
    private static func isSameFile(_ fd: Int32, _ path: String) -> Bool {
        var open = stat(), named = stat()
        return fstat(fd, &open) == 0 && lstat(path, &named) == 0 && open.st_dev == named.st_dev
            && open.st_ino == named.st_ino
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

    /// What a temporary's name starts with; the host, process and serial after it say whose it is
    /// to a person, and the lock says whether it is still being written.
    static let lockedPrefix = ".analyze-locked-"

    /// `.analyze-locked-HOST-PID-N.tmp`, locked while it is written (``createTemporary(in:extension:)``).
    static func temporaryName(serial: Int) -> String { "\(lockedPrefix)\(host)-\(getpid())-\(serial).tmp" }

    /// Removes, in `directory` and up to four levels under it, the temporaries no live process holds:
    /// those whose lock can be taken (the run that wrote them is gone: killed with SIGKILL, or its
    /// machine stopped), whichever host, PID namespace or container wrote them. Temporaries named as
    /// before the lock (`.analyze-HOST-PID-N.tmp`, `.analyze-PID-N.tmp`), which nothing protects, are
    /// removed only when they are this host's, their process is not seen, and they have not changed for
    /// an hour (a process in another PID namespace is not seen, but a file being written changes).
    /// Returns how many were removed.
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
            if name.hasPrefix(lockedPrefix) {
                if removeIfUnlocked(url.path) { removed += 1 }
                continue
            }
            guard let owner = unlockedOwner(of: name) else { continue }
            let modified =
                (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? Date()
            let stale =
                (owner.host == nil || owner.host == host) && owner.pid != getpid() && !isRunning(owner.pid)
                && Date().timeIntervalSince(modified) > 3600
            if stale, unlink(url.path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Unlinks the temporary at `path` if its lock can be taken, holding the lock while it does, and
    /// only if the path still names the file that was locked.
    private static func removeIfUnlocked(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0,
            isSameFile(fd, path)
        else { return false }
        return unlink(path) == 0
    }

    /// The host (nil in the oldest form) and process in an unlocked temporary's name,
    /// `.analyze-HOST-PID-N.tmp[.ext]` or `.analyze-PID-N.tmp[.ext]`; the host may hold dots and dashes.
    static func unlockedOwner(of name: String) -> (host: String?, pid: Int32)? {
        guard name.hasPrefix(".analyze-"), let tmp = name.range(of: ".tmp", options: .backwards) else { return nil }
        let after = name[tmp.upperBound...]
        guard after.isEmpty || (after.hasPrefix(".") && !after.dropFirst().contains(".")) else { return nil }
        let fields = name[name.index(name.startIndex, offsetBy: ".analyze-".count)..<tmp.lowerBound].split(
            separator: "-", omittingEmptySubsequences: false)
        guard fields.count >= 2, let pid = Int32(fields[fields.count - 2]), pid > 0,
            Int(fields[fields.count - 1]) != nil
        else { return nil }
        return (fields.count == 2 ? nil : fields.dropLast(2).joined(separator: "-"), pid)
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
            let (temporary, fd) = try AtomicFileWriter.createTemporary(
                in: url.deletingLastPathComponent(), extension: ext)
            temporaryURL = temporary
            registry.insert(temporaryURL.path)
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

        /// Flushes the file and renames it to its name, then lets its lock go.
        public func commit() throws(AnalysisError) {
            guard !done else { return }
            done = true
            if let handle { fsync(handle.fileDescriptor) }
            defer {
                try? handle?.close()
                handle = nil
                registry.remove(temporaryURL.path)
            }
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
            unlink(temporaryURL.path)
            try? handle?.close()
            handle = nil
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
