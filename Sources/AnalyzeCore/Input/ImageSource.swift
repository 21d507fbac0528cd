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

    /// Reads the whole file once (regular files only, at most `maximumBytes`); every later stage
    /// works on these bytes.
    func readBytes(maximumBytes: Int = RegularFile.defaultMaximumBytes) throws(AnalysisError) -> [UInt8] {
        try RegularFile.read(path, maximumBytes: maximumBytes)
    }
}
