#if canImport(Glibc)
    import Glibc
#endif

/// File names are bytes; Swift strings are Unicode. A name that is not valid UTF-8 (`café` saved
/// as Latin-1 by an old camera or a Windows share) would otherwise be lost when read into a
/// `String`, and the file could not be opened again ("no such file").
///
/// Here every byte of a path that is not part of valid UTF-8 becomes the private-use character
/// U+F780 + (byte − 0x80) (0x80–0xFF → U+F780–U+F7FF, the range Apple's CoreFoundation uses for
/// the same purpose), and turns back into that byte when the file is opened: the mapping is
/// reversible, so every file found can be read. Such names show those characters in the JSON;
/// output names replace them with `_`.
public enum FilePathBytes {
    static let base: UInt32 = 0xF780

    /// The path's string form, escaping bytes that are not valid UTF-8.
    public static func string(fromRaw bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var out = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            if length > 0,
                let scalar = String(validating: bytes[index..<index + length], as: UTF8.self)?.unicodeScalars.first
            {
                out.append(scalar)
                index += length
            } else {
                out.append(Unicode.Scalar(base + UInt32(bytes[index]) - 0x80) ?? "?")
                index += 1
            }
        }
        return String(out)
    }

    /// The bytes to give the file system for `path` (the inverse of ``string(fromRaw:)``).
    public static func raw(_ path: String) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in path.unicodeScalars {
            if (base...base + 0x7F).contains(scalar.value) {
                out.append(UInt8(scalar.value - base + 0x80))
            } else {
                out += Array(String(scalar).utf8)
            }
        }
        return out
    }

    /// Whether `path` holds escaped bytes.
    static func hasEscapes(_ path: String) -> Bool {
        path.unicodeScalars.contains { (base...base + 0x7F).contains($0.value) }
    }

    /// Calls `body` with the path as a NUL-terminated C string of its raw bytes.
    static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) -> R) -> R {
        let bytes = raw(path).map { CChar(bitPattern: $0) } + [0]
        return bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return body("") }
            return body(base)
        }
    }

    /// Whether anything exists at `path`, by its raw bytes (a file, folder or device; a dangling
    /// symbolic link counts: it is there to report).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return withCString(path) { lstat($0, &info) } == 0
    }

    /// Whether `path` names a directory (following symbolic links, as for a command-line argument).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return withCString(path) { stat($0, &info) } == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The process's arguments (without the program name) as path strings, with bytes that are not
    /// UTF-8 escaped, and how each reads when decoded lossily (what an argument parser sees).
    public static func commandLineArguments() -> [(escaped: String, lossy: String)] {
        (1..<Int(CommandLine.argc)).compactMap { i in
            guard let pointer = CommandLine.unsafeArgv[i] else { return nil }
            let bytes = Array(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            return (string(fromRaw: bytes), String(decoding: bytes, as: UTF8.self))
        }
    }

    /// `arguments` as parsed, each replaced by its escaped form when its bytes were not UTF-8.
    public static func restoringRawBytes(_ arguments: [String]) -> [String] {
        guard arguments.contains(where: { $0.contains("\u{FFFD}") }) else { return arguments }
        let raw = commandLineArguments()
        return arguments.map { argument in
            guard argument.contains("\u{FFFD}"), let match = raw.first(where: { $0.lossy == argument }) else {
                return argument
            }
            return match.escaped
        }
    }

    /// The lines of a path list (`--files-from`), each with bytes that are not UTF-8 escaped.
    public static func pathLines(_ data: [UInt8]) -> [String] {
        data.split(separator: 0x0A).map { line in
            let trimmed = line.last == 0x0D ? line.dropLast() : line[...]
            return string(fromRaw: Array(trimmed))
        }.filter { !$0.isEmpty }
    }

    /// The length of the valid UTF-8 sequence starting at `index`, or 0.
    private static func sequenceLength(_ b: [UInt8], at index: Int) -> Int {
        let first = b[index]
        let length =
            first < 0x80
            ? 1
            : first >= 0xC2 && first <= 0xDF
                ? 2 : first >= 0xE0 && first <= 0xEF ? 3 : first >= 0xF0 && first <= 0xF4 ? 4 : 0
        guard length > 0, index + length <= b.count else { return 0 }
        for k in 1..<length where b[index + k] & 0xC0 != 0x80 { return 0 }
        return length
    }

    /// The entries of a directory as (name, isDirectory, isFile), read with opendir/readdir and
    /// lstat (symbolic links to directories are not followed, so a link loop cannot recurse).
    static func entries(of directory: String) -> [(name: String, isDirectory: Bool)] {
        guard let dir = withCString(directory, { opendir($0) }) else { return [] }
        defer { closedir(dir) }
        var result: [(String, Bool)] = []
        while let entry = readdir(dir) {
            let nameBytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if nameBytes == [0x2E] || nameBytes == [0x2E, 0x2E] { continue }
            let name = string(fromRaw: nameBytes)
            let full = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var info = stat()
            guard withCString(full, { lstat($0, &info) }) == 0 else { continue }
            result.append((name, (info.st_mode & S_IFMT) == S_IFDIR))
        }
        return result
    }
}
