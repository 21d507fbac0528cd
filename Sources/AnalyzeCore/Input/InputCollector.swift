import Foundation

/// Turns command-line arguments (files and directories) into the run's list of images.
///
/// Directories are searched recursively for images by extension (JPEG, PNG, TIFF, BMP, WebP),
/// in sorted order; files named explicitly are taken whatever their extension (a missing one
/// becomes a per-image error later, not a usage error). Duplicates are dropped. Output names
/// are the file stems, made unique when two inputs share a stem.
public enum InputCollector {
    /// Extensions picked up when searching directories (lower-cased).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "tif", "tiff", "bmp", "dib", "webp"]

    /// The images named by `arguments`. Folders in `excluding` (the run's output folder) are never
    /// searched, so a run's own outputs are not analysed by the next run.
    public static func collect(_ arguments: [String], excluding excluded: [String] = []) -> [ImageSource] {
        let skipped = Set(excluded.map(canonical))
        var paths: [String] = []
        var seen = Set<String>()
        func add(_ path: String) {
            let key = URL(fileURLWithPath: path).standardizedFileURL.path
            if seen.insert(key).inserted { paths.append(path) }
        }
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue {
                imagesUnder(directory: argument, skipping: skipped).forEach(add)
            } else {
                add(argument)
            }
        }
        return name(paths)
    }

    /// The real, absolute form of a path (symlinks resolved), for comparing folders.
    public static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    static func imagesUnder(directory: String, skipping skipped: Set<String> = []) -> [String] {
        guard !skipped.contains(canonical(directory)), let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if !skipped.isEmpty, enumerator.fileAttributes?[.type] as? FileAttributeType == .typeDirectory,
               skipped.contains(canonical(directory + "/" + relative)) {
                enumerator.skipDescendants()
                continue
            }
            let ext = (relative as NSString).pathExtension.lowercased()
            guard imageExtensions.contains(ext) else { continue }
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") { continue }
            found.append(directory.hasSuffix("/") ? directory + relative : directory + "/" + relative)
        }
        return found.sorted()
    }

    /// Stems stay as they are unless two inputs share one; those get `-<8 hex digits>` of a
    /// stable hash of their path, so names do not depend on order, jobs or shards.
    static func name(_ paths: [String]) -> [ImageSource] {
        let stems = paths.map { sanitizedStem(of: $0) }
        var counts: [String: Int] = [:]
        for stem in stems { counts[stem.lowercased(), default: 0] += 1 }
        return zip(paths, stems).map { path, stem in
            let unique = counts[stem.lowercased(), default: 0] > 1 ? stem + "-" + stableHash(path) : stem
            return ImageSource(path: path, outputName: unique)
        }
    }

    static func sanitizedStem(of path: String) -> String {
        let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let cleaned = String(stem.unicodeScalars.map { s -> Character in
            (s.properties.isAlphabetic || s.properties.numericType != nil || "-_.+@".unicodeScalars.contains(s)) ? Character(s) : "_"
        })
        let trimmed = cleaned.hasPrefix(".") ? "_" + cleaned.dropFirst() : cleaned
        guard !trimmed.isEmpty else { return "image" }
        // At most 200 bytes of UTF-8 (whole characters): with `-<hash>` and `.rect-<n>.png` the
        // output name stays under the 255-byte NAME_MAX.
        var capped = ""
        var bytes = 0
        for character in trimmed {
            bytes += character.utf8.count
            if bytes > 200 { break }
            capped.append(character)
        }
        return capped
    }

    /// 8 hex digits of a stable hash of the path (FNV-1a): the same across runs and machines.
    public static func stableHash(_ text: String) -> String {
        let hex = String(UInt32(truncatingIfNeeded: FNV1a.hash(text)), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
