import Foundation
import Testing
@testable import AnalyzeCore

/// Real photographs from Debian's plasma-workspace-wallpapers (scripts/fetch-test-images).
enum Wallpaper {
    static let folder = Fixture.root.deletingLastPathComponent().appendingPathComponent(".models/wallpapers")

    static func image(_ name: String) throws -> UprightImage {
        let path = folder.appendingPathComponent("\(name)/contents/images/2560x1600.jpg").path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-test-images (scripts/test does)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 10_000_000)
    }
}

@Suite("Horizon")
struct HorizonRequestTests {
    func horizon(_ image: UprightImage) throws -> HorizonObservation? {
        try HorizonRequest().perform(on: image, engines: WorkerEngines()).horizon
    }

    /// The photo turned by `degrees` counter-clockwise, same size, corners filled by reflection.
    func turned(_ image: UprightImage, by degrees: Double) throws -> UprightImage {
        UprightImage(pixels: try image.pixels.rotatedKeepingSize(byDegrees: degrees), orientation: .up)
    }

    @Test(arguments: [-20.0, -10, -5, 0, 5, 10, 20])
    func aLevelSeaHorizonTurnedByAKnownAngleComesBackWithinOneDegree(degrees: Double) throws {
        // summer_1am: a calm sea under a clear sky, the horizon level.
        let photo = try Wallpaper.image("summer_1am")
        let found = try #require(try horizon(try turned(photo, by: degrees)))
        #expect(abs(found.angle - degrees) <= 1, "found \(found.angle)°")
        #expect(found.confidence > 0.5)
    }

    @Test(arguments: [-20.0, -10, 10, 20])
    func aLakeShoreTurnedByAKnownAngleTurnsByThatAngle(degrees: Double) throws {
        // BytheWater: the far shore of a lake, itself not quite level in the photo.
        let photo = try Wallpaper.image("BytheWater")
        let level = try #require(try horizon(photo))
        let found = try #require(try horizon(try turned(photo, by: degrees)))
        #expect(abs((found.angle - level.angle) - degrees) <= 1, "level \(level.angle)°, turned \(found.angle)°")
    }

    /// Black bars (a letterboxed video frame, a scan's black edge) are not the horizon: summer_1am
    /// with 300 px of black above and below gives its sea horizon, not the bars' edges.
    @Test func blackBarsAreNotTheHorizon() throws {
        let folder = try Fixture.temporaryDirectory()
        let source = Wallpaper.folder.appendingPathComponent("summer_1am/contents/images/2560x1600.jpg").path
        let padded = folder.appendingPathComponent("letterboxed.png").path
        let script = "import cv2, sys; im = cv2.imread(sys.argv[1]); "
            + "cv2.imwrite(sys.argv[2], cv2.copyMakeBorder(im, 300, 300, 0, 0, cv2.BORDER_CONSTANT, value=(0, 0, 0)))"
        let made = try runProgram("/usr/bin/python3", ["-c", script, source, padded])
        try #require(made.status == 0)
        let image = try UprightImage(decoding: [UInt8](try Data(contentsOf: URL(fileURLWithPath: padded))), orientation: .up, maximumPixels: 10_000_000)
        let found = try #require(try horizon(image))
        // The sea horizon: at 63.5% of the photo's 1600 rows, 300 rows down.
        #expect(abs(found.start.y - (300 + 0.635 * 1600)) < 0.03 * 1600, "found at \(found.start.y)")
        #expect(abs(found.angle) <= 1)
    }

    @Test func theHorizonLineCrossesTheImageWhereTheSeaMeetsTheSky() throws {
        let photo = try Wallpaper.image("summer_1am")
        let found = try #require(try horizon(photo))
        // The sea horizon of summer_1am is at about 63% of the height.
        #expect(abs(found.start.y / Double(photo.height) - 0.635) < 0.03)
        #expect(found.start.x == 0 && found.end.x == Double(photo.width - 1))
        // The transform levels: it maps the line's ends to one height.
        let t = found.transform
        func mapped(_ p: PixelPoint) -> Double { t[3] * p.x + t[4] * p.y + t[5] }
        let turnedPhoto = try turned(photo, by: 12)
        let tilted = try #require(try horizon(turnedPhoto))
        let u = tilted.transform
        let y1 = u[3] * tilted.start.x + u[4] * tilted.start.y + u[5], y2 = u[3] * tilted.end.x + u[4] * tilted.end.y + u[5]
        #expect(abs(y1 - y2) < 0.02 * Double(photo.width))
        #expect(abs(mapped(found.start) - mapped(found.end)) < 0.02 * Double(photo.width))
    }

    @Test(arguments: ["astronaut.png", "camera.png"])
    func aPortraitHasNoHorizon(name: String) throws {
        let analysis = try DebianPhoto.analyze(name, RequestSet([HorizonRequest()]))
        #expect(analysis.horizon == nil)
        #expect(analysis.result(.horizon, as: HorizonResult.self) != nil) // requested, and found none
    }

    @Test(arguments: ["samples/printed-page.png", "text/page.png"])
    func aDocumentPageHasNoHorizon(file: String) throws {
        #expect(try Fixture.analyze(file, RequestSet([HorizonRequest()])).horizon == nil)
    }

    @Test func noHorizonIsWrittenAsNullAndAFoundOneIsDrawn() throws {
        let none = try Fixture.analyze("samples/printed-page.png", RequestSet([HorizonRequest()]))
        let json = String(decoding: try JSONRenderer.encode(none), as: UTF8.self)
        #expect(json.contains("\"horizon\" : null"))
        let photo = try Wallpaper.image("summer_1am")
        var analysis = ImageAnalysis(file: "summer_1am.jpg", orientation: 1, width: photo.width, height: photo.height, warnings: [])
        analysis.set(try HorizonRequest().perform(on: photo, engines: WorkerEngines()), for: .horizon)
        let svg = SVGRenderer.svg(for: analysis, imageHref: nil)
        #expect(svg.contains("<line class=\"horizon\""))
        let written = String(decoding: try JSONRenderer.encode(analysis), as: UTF8.self)
        let decoded = try JSONDecoder().decode(ImageAnalysis.self, from: Data(written.utf8))
        #expect(decoded.horizon == analysis.horizon)
    }
}

@Suite("Levelled images")
struct LevelTests {
    @Test func levelWritesTheImageTurnedSoThatItsHorizonIsLevel() throws {
        let input = Wallpaper.folder.appendingPathComponent("BytheWater/contents/images/2560x1600.jpg").path
        try #require(FileManager.default.fileExists(atPath: input), "run scripts/fetch-test-images (scripts/test does)")
        let out = try Fixture.temporaryDirectory(), again = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(at: again) }
        let cli = CommandLineTests()
        let first = try cli.run([input, "--horizon", "--level", "--no-svg", "-q", "-o", out.path])
        #expect(first.status == 0, "\(first.stderr)")
        let levelled = out.appendingPathComponent("2560x1600.level.jpg")
        #expect(FileManager.default.fileExists(atPath: levelled.path))
        let tilted = try JSONDecoder().decode(ImageAnalysis.self, from: Data(contentsOf: out.appendingPathComponent("2560x1600.json")))
        #expect(abs(tilted.horizon?.angle ?? 0) > 3) // the photo's shore is tilted about 6°
        // The levelled copy, analysed again, has a level horizon.
        let second = try cli.run([levelled.path, "--horizon", "--no-png", "--no-svg", "-q", "-o", again.path])
        #expect(second.status == 0, "\(second.stderr)")
        // A stem ending in `.level` gets a hash (it could take another image's levelled copy's name).
        let name = try #require(InputCollector.collect([levelled.path]).first?.outputName)
        #expect(name.hasPrefix("2560x1600.level-"))
        let level = try JSONDecoder().decode(ImageAnalysis.self, from: Data(contentsOf: again.appendingPathComponent(name + ".json")))
        let angle = try #require(level.horizon?.angle)
        #expect(abs(angle) <= 1, "\(angle)°")
    }

    @Test func noLevelledImageWithoutAHorizon() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let result = try CommandLineTests().run([Fixture.path("samples/printed-page.png"), "--horizon", "--level", "-q", "-o", out.path])
        #expect(result.status == 0)
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("printed-page.level.png").path))
    }
}
