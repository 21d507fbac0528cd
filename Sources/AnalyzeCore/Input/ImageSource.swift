import Foundation

/// One input image: where it is, how it is named in outputs.
public struct ImageSource: Sendable, Hashable {
    /// The path as given on the command line or found under a directory argument.
    public let path: String
    /// The base name for `<name>.png`, `<name>.svg`, `<name>.json`; unique within a run.
    public let outputName: String

    public init(path: String, outputName: String) {
        self.path = path
        self.outputName = outputName
    }

    /// Reads the whole file once; every later stage works on these bytes.
    func readBytes() throws(AnalysisError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AnalysisError(.missingFile, "no such file", file: path)
        }
        guard !isDirectory.boolValue else { throw AnalysisError(.unreadable, "is a directory", file: path) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AnalysisError(.unreadable, "cannot open the file (permission denied?)", file: path)
        }
        defer { try? handle.close() }
        do {
            let data = try handle.readToEnd() ?? Data()
            return [UInt8](data)
        } catch {
            throw AnalysisError(.unreadable, "cannot read the file: \(error.localizedDescription)", file: path)
        }
    }
}
