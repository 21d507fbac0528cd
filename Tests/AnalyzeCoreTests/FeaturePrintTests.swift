import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// `--featureprint` and `analyze similar`: EfficientNet-Lite0's pooled features, on real photos and
/// copies of them made here (resized, recompressed, cropped).
@Suite("Feature prints and near-duplicates")
struct FeaturePrintTests {
    /// The photo at `path` decoded, and copies of it: half size at JPEG quality 40; the centre 90%
    /// (5% cut from each side) as PNG.
    func copies(of path: String) throws -> (original: [UInt8], small: [UInt8], cropped: [UInt8]) {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let (pixels, _) = try OpenCVMat.decode(original)
        let small = try pixels.resized(width: pixels.width / 2, height: pixels.height / 2).jpegData(quality: 40)
        let (w, h) = (Double(pixels.width), Double(pixels.height))
        let quad = [
            PixelPoint(x: 0.05 * w, y: 0.05 * h), PixelPoint(x: 0.95 * w, y: 0.05 * h),
            PixelPoint(x: 0.95 * w, y: 0.95 * h), PixelPoint(x: 0.05 * w, y: 0.95 * h),
        ]
        let cropped = try pixels.warped(quad: quad, width: Int(0.9 * w), height: Int(0.9 * h)).pngData()
        return (original, small, cropped)
    }

    func print(of bytes: [UInt8], engines: WorkerEngines) throws -> FeaturePrintObservation {
        let image = try UprightImage(decoding: bytes, orientation: .up, maximumPixels: 100_000_000)
        return try FeaturePrintRequest().perform(on: image, engines: engines)
    }

    @Test func copiesOfAPhotoAreCloseAndOtherPhotosFar() throws {
        let engines = WorkerEngines()
        var prints: [String: FeaturePrintObservation] = [:]
        for name in ["messi5.jpg", "fruits.jpg", "baboon.jpg", "apple.jpg", "orange.jpg"] {
            let (original, small, cropped) = try copies(of: try OpenCVSample.path(name))
            let print = try print(of: original, engines: engines)
            #expect(print.elementCount == 1280)
            #expect(abs(print.vector.reduce(0) { $0 + Double($1) * Double($1) } - 1) < 1e-4)
            #expect(print.vector.allSatisfy { $0 >= 0 })
            let toSmall = print.distance(to: try self.print(of: small, engines: engines))
            let toCropped = print.distance(to: try self.print(of: cropped, engines: engines))
            #expect(toSmall < NearDuplicates.defaultMaximumDistance, "\(name): half size, JPEG 40: \(toSmall)")
            #expect(toCropped < NearDuplicates.defaultMaximumDistance, "\(name): 90% crop: \(toCropped)")
            prints[name] = print
        }
        let names = prints.keys.sorted()
        for (i, a) in names.enumerated() {
            for b in names[(i + 1)...] {
                let distance = try #require(prints[a]).distance(to: try #require(prints[b]))
                // apple.jpg and orange.jpg are one studio set-up with another fruit: the closest pair.
                #expect(distance > NearDuplicates.defaultMaximumDistance, "\(a) and \(b): \(distance)")
            }
        }
    }

    @Test func theJSONCarriesTheVectorAndReadsBack() throws {
        var analysis = try OpenCVSample.analyze("messi5.jpg", RequestSet([FeaturePrintRequest()]))
        let print = try #require(analysis.featurePrint)
        analysis.warnings = []
        let json = try JSONRenderer.encode(analysis)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let field = try #require(object["featureprint"] as? [String: Any])
        #expect(field["elementCount"] as? Int == 1280 && field["elementType"] as? String == "float")
        #expect((field["data"] as? String)?.count == 6828)  // 5120 bytes in base64
        let read = try JSONDecoder().decode(ImageAnalysis.self, from: Data(json))
        #expect(read.featurePrint == print)
        // A print whose data does not hold elementCount floats is refused, not read short.
        let broken = String(decoding: json, as: UTF8.self).replacingOccurrences(
            of: "\"elementCount\" : 1280", with: "\"elementCount\" : 1281")
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ImageAnalysis.self, from: Data(broken.utf8)) }
    }

    /// `--featureprint-npy`, a side output the feature print declares in its own file: the same vector
    /// as the JSON, in a file NumPy reads; written only when asked for, and recorded in the summary.
    @Test func theNumPyArrayHoldsTheSameVector() throws {
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let cli = CommandLineTests()
        let messi = try OpenCVSample.path("messi5.jpg")
        let run = try cli.run([messi, "--featureprint", "--featureprint-npy", "-o", out.path, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try Data(contentsOf: out.appendingPathComponent("messi5.json"))
        let analysis = try JSONDecoder().decode(ImageAnalysis.self, from: json)
        let vector = try #require(analysis.featurePrint).vector
        let npy = [UInt8](try Data(contentsOf: out.appendingPathComponent("messi5.featureprint.npy")))
        #expect(Array(npy.prefix(8)) == [0x93] + Array("NUMPY".utf8) + [1, 0])
        let headerLength = Int(npy[8]) | Int(npy[9]) << 8
        #expect((10 + headerLength) % 64 == 0 && npy.count == 10 + headerLength + 4 * 1280)
        let header = String(decoding: npy[10..<(10 + headerLength)], as: UTF8.self)
        #expect(
            header.hasPrefix("{'descr': '<f4', 'fortran_order': False, 'shape': (1280,), }") && header.hasSuffix("\n"))
        let floats = stride(from: 10 + headerLength, to: npy.count, by: 4).map { i in
            Float(
                bitPattern: UInt32(npy[i]) | UInt32(npy[i + 1]) << 8 | UInt32(npy[i + 2]) << 16 | UInt32(npy[i + 3])
                    << 24)
        }
        #expect(floats == vector)
        // NumPy itself reads it as the same unit vector.
        let numpy = try runProgram(
            "/usr/bin/python3",
            [
                "-c",
                "import numpy, sys; a = numpy.load(sys.argv[1]); print(a.dtype, a.shape, round(float((a * a).sum()), 4))",
                out.appendingPathComponent("messi5.featureprint.npy").path,
            ])
        #expect(numpy.status == 0 && numpy.output.contains("float32 (1280,) 1.0"), "\(numpy.output)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("summary.json")))
                as? [String: Any])
        #expect((summary["outputs"] as? [String: Any])?["featureprint-npy"] as? Bool == true)
        let valid = try runScript("validate-json", [out.path])
        #expect(valid.status == 0, "\(valid.output)")
        // Not asked for: no array.
        let plain = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plain) }
        #expect(try cli.run([messi, "--featureprint", "-o", plain.path, "--quiet"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: plain.appendingPathComponent("messi5.featureprint.npy").path))
        #expect(FileManager.default.fileExists(atPath: plain.appendingPathComponent("messi5.json").path))
    }

    @Test func itIsMadeOnlyWhenAskedFor() throws {
        #expect(!RequestSet.all.requests.contains { $0.kind == .featurePrint })
        let (every, _) = try RequestPlan(configured: RequestSet(), asked: []).resolve(models: .standard)
        #expect(!every.requests.contains { $0.kind == .featurePrint })
        let (asked, _) = try RequestPlan(configured: RequestSet(), asked: [.featurePrint]).resolve(models: .standard)
        #expect(asked.requests.map(\.kind) == [.featurePrint])
        #expect(RequestRegistry.kind(named: "feature-print") == .featurePrint)
    }

    @Test func similarListsTheNearDuplicatesOfAFolder() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (messi, small, cropped) = try copies(of: try OpenCVSample.path("messi5.jpg"))
        try Data(messi).write(to: folder.appendingPathComponent("messi.jpg"))
        try Data(small).write(to: folder.appendingPathComponent("nested-messi-small.jpg"))
        try Data(cropped).write(to: folder.appendingPathComponent("messi-crop.png"))
        for name in ["fruits.jpg", "baboon.jpg", "apple.jpg", "orange.jpg"] {
            try FileManager.default.copyItem(
                atPath: try OpenCVSample.path(name), toPath: folder.appendingPathComponent(name).path)
        }
        let p = { (name: String) in folder.appendingPathComponent(name).path }
        let cli = CommandLineTests()
        let groups = try cli.run(["similar", folder.path, "--jobs", "2"])
        #expect(groups.status == 0, "\(groups.stderr)")
        #expect(
            groups.stdout == [p("messi-crop.png"), p("messi.jpg"), p("nested-messi-small.jpg")].joined(separator: "\n")
                + "\n")
        #expect(groups.stderr.contains("7 image(s) compared, 1 group(s) of near-duplicates, 3 pair(s)"))
        // The same answer at one job, as JSON that validates against its schema.
        let json = try cli.run(["similar", folder.path, "--json", "--jobs", "1"])
        #expect(json.status == 0)
        let found = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(
            (found["groups"] as? [[String]]) == [[p("messi-crop.png"), p("messi.jpg"), p("nested-messi-small.jpg")]])
        #expect((found["pairs"] as? [[String: Any]])?.count == 3)
        let file = folder.appendingPathComponent("out.similar.json")
        try Data(json.stdout.utf8).write(to: file)
        let valid = try runScript("validate-json", [file.path])
        #expect(valid.status == 0, "\(valid.output)")
        // A file that is not an image fails on its own; the others are still compared.
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("broken.jpg"))
        let withBad = try cli.run(["similar", folder.path, "--pairs", "--max-distance", "0.75"])
        #expect(withBad.status == 1)
        #expect(withBad.stderr.contains("broken.jpg"))
        #expect(withBad.stdout.split(separator: "\n").count == 3)
        #expect(withBad.stdout.split(separator: "\n").allSatisfy { $0.split(separator: "\t").count == 3 })
    }
}
