import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads input files defensively: regular files only, opened without blocking, never more bytes
/// than a cap. A FIFO named `photo.jpg` would block `open()` forever, `/dev/zero` behind a
/// symlink would grow without end, a sparse 3 GB file would take 3 GB: all are refused with a
/// clear per-input error before a byte is read.
public enum RegularFile {
    /// 1 GiB: larger than any photo or scan `--max-pixels` admits in a compressed format.
    public static let defaultMaximumBytes = 1 << 30

    /// The whole file, or an error saying why it is not read.
    public static func read(_ path: String, maximumBytes: Int = defaultMaximumBytes) throws(AnalysisError) -> [UInt8] {
        let fd = try open(path)
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw AnalysisError(.unreadable, "cannot stat the file: \(String(cString: strerror(errno)))", file: path)
        }
        let size = Int(info.st_size)
        guard size <= maximumBytes else {
            throw AnalysisError(
                .tooLarge,
                "the file is \(size) bytes, over the limit of \(maximumBytes) (raise it with --max-file-bytes)",
                file: path)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + filled, size - filled)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw AnalysisError(
                    .unreadable, "cannot read the file: \(String(cString: strerror(errno)))", file: path)
            }
            if n == 0 { break }
            filled += n
        }
        // A file that shrank while being read keeps what was there.
        if filled < size { bytes.removeSubrange(filled...) }
        return bytes
    }

    /// Throws the error ``read(_:maximumBytes:)`` would when `path` is not a readable regular file
    /// (a video is then opened by FFmpeg, which reads it itself).
    public static func validate(_ path: String) throws(AnalysisError) {
        close(try open(path))
    }

    /// The first `count` bytes of a regular file, or nil (missing, not regular, unreadable).
    public static func head(_ path: String, count: Int) -> [UInt8]? {
        bytes(path, at: 0, count: count)
    }

    /// At most `count` bytes of a regular file from `offset` (fewer at its end), or nil (missing, not
    /// regular, unreadable, a negative offset).
    public static func bytes(_ path: String, at offset: Int, count: Int) -> [UInt8]? {
        withReader(path) { read in read(offset, count) } ?? nil
    }

    /// What identifies the file at `path` now (device, inode, size and modification time), or nil
    /// when it cannot be stat'ed: the same identity twice means the same file, unchanged in between.
    public static func identity(_ path: String) -> String? {
        var info = stat()
        guard FilePathBytes.withCString(path, { stat($0, &info) }) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino):\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }

    /// Calls `body` with a reader of the regular file at `path`, opened once: `read(offset, count)`
    /// gives at most `count` bytes from `offset` (fewer at its end, none past it; nil on an error). nil
    /// when the file cannot be opened or is not a regular file.
    public static func withReader<T>(_ path: String, _ body: (_ read: (Int, Int) -> [UInt8]?) -> T) -> T? {
        guard let fd = try? open(path) else { return nil }
        defer { close(fd) }
        return body { offset, count in
            guard offset >= 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: max(1, count))
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return pread(fd, base, min(count, buffer.count), off_t(offset))
            }
            guard n >= 0 else { return nil }
            return Array(bytes.prefix(n))
        }
    }

    /// A descriptor of the regular file at `path`, opened as inputs are (read-only, non-blocking, close on
    /// exec; a FIFO or device refused); the caller closes it.
    static func descriptor(_ path: String) throws(AnalysisError) -> Int32 {
        let fd = try open(path)
        // Blocking again for the reader it is handed to (a regular file never blocks anyway).
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Opens `path` read-only and non-blocking, and keeps it only when it is a regular file.
    private static func open(_ path: String) throws(AnalysisError) -> Int32 {
        let fd = FilePathBytes.withCString(path) { Glibc.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ENOENT: throw AnalysisError(.missingFile, "no such file", file: path)
            case EACCES: throw AnalysisError(.unreadable, "cannot open the file (permission denied)", file: path)
            case EISDIR: throw AnalysisError(.unreadable, "is a directory", file: path)
            default:
                throw AnalysisError(.unreadable, "cannot open the file: \(String(cString: strerror(code)))", file: path)
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw AnalysisError(.unreadable, "cannot stat the file", file: path)
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(fd)
            let what =
                type == S_IFDIR
                ? "is a directory"
                : type == S_IFIFO
                    ? "is a FIFO (named pipe)"
                    : type == S_IFCHR || type == S_IFBLK
                        ? "is a device" : type == S_IFSOCK ? "is a socket" : "is not a regular file"
            throw AnalysisError(.unreadable, "\(what): only regular files are read", file: path)
        }
        return fd
    }
}
