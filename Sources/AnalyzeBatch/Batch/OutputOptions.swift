import Foundation
import AnalyzeCore
import AnalyzeOutput

/// Which files the batch runner writes for every image, and where.
public struct OutputOptions: Sendable, Hashable {
    /// The folder for the per-image outputs and the run's report (created if missing).
    public var directory: URL
    /// Which outputs exist and how they are named.
    public var layout: OutputLayout

    public init(directory: URL, writePNG: Bool = true, writeSVG: Bool = true, writeJSON: Bool = true, rectify: Bool = false) {
        self.directory = directory
        layout = OutputLayout(png: writePNG, svg: writeSVG, json: writeJSON, rectify: rectify)
    }

    public var writePNG: Bool { layout.png }
    public var writeSVG: Bool { layout.svg }
    public var writeJSON: Bool { layout.json }
    public var rectify: Bool { layout.rectify }

    /// Where `file` of `source` goes.
    public func url(of file: OutputLayout.File, for source: ImageSource) -> URL {
        directory.appendingPathComponent(layout.name(of: file, for: source.outputName, input: source.path))
    }
}
