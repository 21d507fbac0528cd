import AnalyzeCore
import AnalyzeOutput
import Foundation

/// Which files the batch runner writes for every image, and where.
public struct OutputOptions: Sendable, Hashable {
    /// The folder for the per-image outputs and the run's report (created if missing).
    public var directory: URL
    /// Which outputs exist and how they are named.
    public var layout: OutputLayout

    /// `sideOutputs`: the names of the side outputs asked for (`rectify`, `hocr`, `level`; see
    /// ``RequestRegistry/sideOutputs``); every other registered one is recorded as not asked.
    public init(
        directory: URL, writePNG: Bool = true, writeSVG: Bool = true, writeJSON: Bool = true,
        sideOutputs: Set<String> = []
    ) {
        self.directory = directory
        layout = OutputLayout(
            png: writePNG, svg: writeSVG, json: writeJSON,
            sideOutputs: Dictionary(RequestRegistry.sideOutputs.map { ($0.name, sideOutputs.contains($0.name)) }) {
                a, _ in a
            })
    }

    public var writePNG: Bool { layout.png }
    public var writeSVG: Bool { layout.svg }
    public var writeJSON: Bool { layout.json }

    /// Where `file` of `source` goes.
    public func url(of file: OutputLayout.File, for source: ImageSource) -> URL {
        directory.appendingPathComponent(layout.name(of: file, for: source.outputName, input: source.path))
    }
}
