import Foundation

/// Which files the batch runner writes for every image, and where.
public struct OutputOptions: Sendable, Hashable, Codable {
    /// The folder for `<name>.png`, `<name>.svg`, `<name>.json` (created if missing).
    public var directory: URL
    public var writePNG: Bool
    public var writeSVG: Bool
    public var writeJSON: Bool
    /// Also write every rectangle found, perspective-corrected, as `<name>.rect-<n>.png`.
    public var rectify: Bool

    public init(directory: URL, writePNG: Bool = true, writeSVG: Bool = true, writeJSON: Bool = true, rectify: Bool = false) {
        self.rectify = rectify
        self.directory = directory
        self.writePNG = writePNG
        self.writeSVG = writeSVG
        self.writeJSON = writeJSON
    }
}
