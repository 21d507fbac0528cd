import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// An image's JSON depends only on that image and the options: not on `--jobs`, the order of the
/// inputs, or the images a worker saw before (ZBar's decoders keep state across images, so every
/// scan gets a fresh ZBar scanner; on the public barcode suite that took the images whose JSON
/// differed between `--jobs 1` and `--jobs 2` from 23 to 0).
@Suite("Deterministic output")
struct DeterminismTests {
    static func sources() -> [ImageSource] {
        let folders = ["barcodes", "symbologies", "samples", "rects", "orientation"].map(Fixture.path)
        let photos = OpenCVSample.folder.path
        return InputCollector.collect(folders + (FileManager.default.fileExists(atPath: photos) ? [photos] : []))
    }

    func jsonByFile(_ sources: [ImageSource], jobs: Int) throws -> [String: [UInt8]] {
        let outcomes = try BatchRunner(
            sources: sources, requests: RequestSet([BarcodeRequest(), RectangleRequest()]), output: nil, jobs: jobs
        ).run()
        return try outcomes.reduce(into: [:]) { result, outcome in
            if let analysis = outcome.analysis { result[outcome.source.path] = try JSONRenderer.encode(analysis) }
        }
    }

    @Test func theJSONOfAnImageIsTheSameWhateverTheJobsTheOrderAndTheOtherImages() throws {
        let sources = Self.sources()
        #expect(sources.count > 20)
        let reference = try jsonByFile(sources, jobs: 1)
        var generator = UntrustedBytesTests.Generator(state: 42)
        let shuffled = try jsonByFile(sources.shuffled(using: &generator), jobs: 2)
        #expect(shuffled == reference)
        // Each half alone, and the second half first.
        let half = sources.count / 2
        let split = try jsonByFile(Array(sources[half...]), jobs: 1).merging(
            try jsonByFile(Array(sources[..<half]), jobs: 1)
        ) { a, _ in a }
        #expect(split == reference)
        // Every image alone on a fresh worker.
        for source in sources.prefix(12) {
            #expect(try jsonByFile([source], jobs: 1)[source.path] == reference[source.path], "\(source.path)")
        }
    }
}
