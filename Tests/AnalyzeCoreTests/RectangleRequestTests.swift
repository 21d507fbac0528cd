import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

@Suite("Rectangles")
struct RectangleRequestTests {
    struct Expected: Sendable, CustomStringConvertible {
        let file: String
        let corners: [PixelPoint]
        var description: String { file }
    }

    /// The generated perspective documents and their exact corners (Fixtures/rects/corners.tsv).
    static let quads: [Expected] = {
        guard let text = try? String(contentsOfFile: Fixture.path("rects/corners.tsv"), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count == 9 else { return nil }
            let v = fields.dropFirst().compactMap(Double.init)
            guard v.count == 8 else { return nil }
            return Expected(
                file: fields[0], corners: stride(from: 0, to: 8, by: 2).map { PixelPoint(x: v[$0], y: v[$0 + 1]) })
        }
    }()

    @Test func theGeneratedQuadrilateralsAreListed() {
        #expect(Self.quads.count >= 6)
    }

    @Test(arguments: quads)
    func findsEveryCornerWithinTwoPercentOfTheDiagonal(_ expected: Expected) throws {
        let analysis = try Fixture.analyze("rects/\(expected.file)", RequestSet([RectangleRequest()]))
        let best = try #require(analysis.rectangles?.first)
        let diagonal = (Double(analysis.width * analysis.width + analysis.height * analysis.height)).squareRoot()
        for (found, wanted) in zip(best.corners, expected.corners) {
            let error = ((found.x - wanted.x) * (found.x - wanted.x) + (found.y - wanted.y) * (found.y - wanted.y))
                .squareRoot()
            #expect(error <= 0.02 * diagonal, "corner \(found) vs \(wanted)")
        }
        #expect(best.confidence > 0.6)
    }

    @Test func reportsNoRectangleInALandscapeAtDefaultSettings() throws {
        #expect(try Fixture.analyze("rects/landscape.jpg", RequestSet([RectangleRequest()])).rectangles == [])
    }

    @Test func visionParametersFilterTheResults() throws {
        let file = try #require(Self.quads.first).file
        // A tiny maximum aspect ratio or a minimum size larger than the image excludes the document.
        #expect(
            try Fixture.analyze(
                "rects/\(file)", RequestSet([RectangleRequest(minimumAspectRatio: 0.05, maximumAspectRatio: 0.1)])
            ).rectangles == [])
        #expect(
            try Fixture.analyze("rects/\(file)", RequestSet([RectangleRequest(minimumSize: 0.99)])).rectangles == [])
        #expect(
            try Fixture.analyze("rects/\(file)", RequestSet([RectangleRequest(minimumConfidence: 0.999)])).rectangles
                == [])
    }

    @Test func rectifiesTheDocumentIntoItsOwnPNG() throws {
        let file = try #require(Self.quads.first).file
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let sources = [ImageSource(path: Fixture.path("rects/\(file)"), outputName: "doc")]
        let outcomes = try BatchRunner(
            sources: sources, requests: RequestSet([RectangleRequest(maximumObservations: 1)]),
            output: OutputOptions(directory: out, sideOutputs: ["rectify"]), jobs: 1
        ).run()
        let rect = try #require(outcomes.first?.analysis?.rectangles?.first)
        let png = try [UInt8](Data(contentsOf: out.appendingPathComponent("doc.rect-1.png")))
        let size = rect.rectifiedSize
        #expect(ImageHeader(parsing: png) == ImageHeader(width: size.width, height: size.height))
    }
}
