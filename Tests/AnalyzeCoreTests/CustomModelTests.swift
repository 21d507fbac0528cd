import Foundation
import Testing
@testable import AnalyzeCore

/// `--model`: a network of one's own, taken as a detector or a classifier by its outputs.
@Suite("Your own model")
struct CustomModelTests {
    static let models = Fixture.root.deletingLastPathComponent().appendingPathComponent(".models")

    func file(_ name: String) throws -> String {
        let path = Self.models.appendingPathComponent(name).path
        try #require(FileManager.default.fileExists(atPath: path), "run scripts/fetch-models (scripts/test does)")
        return path
    }

    @Test func aClassifierIsRecognisedByItsOutputsAndLabelsTheImage() throws {
        var models = ModelLocator(directories: [])
        let request = try CustomModel.request(weights: try file("efficientnet-lite0.onnx"), configuration: nil, labels: try file("imagenet.names"),
                                              inputWidth: 224, inputHeight: 224, preprocessing: .tf, minimumConfidence: nil, models: &models)
        let classify = try #require(request as? ClassificationRequest)
        let source = ImageSource(path: try OpenCVSample.path("squirrel_cls.jpg"), outputName: "x")
        let analysis = try ImageRequestHandler(source: source).perform(RequestSet([classify]), engines: WorkerEngines(models: models)).analysis
        #expect(analysis.classification?.first?.identifier == "fox squirrel")
    }

    @Test func aDarknetDetectorIsRecognisedAndFindsTheBall() throws {
        var models = ModelLocator(directories: [])
        let request = try CustomModel.request(weights: try file("yolov4-tiny.weights"), configuration: try file("yolov4-tiny.cfg"), labels: try file("coco.names"),
                                              inputWidth: 416, inputHeight: 416, preprocessing: nil, minimumConfidence: nil, models: &models)
        let detect = try #require(request as? ObjectRequest)
        let source = ImageSource(path: try OpenCVSample.path("messi5.jpg"), outputName: "x")
        let analysis = try ImageRequestHandler(source: source).perform(RequestSet([detect]), engines: WorkerEngines(models: models)).analysis
        #expect(analysis.objects?.contains { $0.identifier == "sports ball" } == true)
    }

    @Test func outputsThatAreNeitherAreRefusedWithTheirShapes() throws {
        var models = ModelLocator(directories: [])
        let error = try #require(throws: AnalysisError.self) {
            _ = try CustomModel.request(weights: try file("centerface.onnx"), configuration: nil, labels: try file("coco.names"),
                                        inputWidth: 416, inputHeight: 416, preprocessing: nil, minimumConfidence: nil, models: &models)
        }
        #expect(error.message.contains("cannot interpret") && error.message.contains("[1,10,104,104]"))
    }

    @Test func labelsThatDoNotMatchTheClassesAreRefused() throws {
        var models = ModelLocator(directories: [])
        let error = try #require(throws: AnalysisError.self) {
            _ = try CustomModel.request(weights: try file("yolov4-tiny.weights"), configuration: try file("yolov4-tiny.cfg"), labels: try file("imagenet.names"),
                                        inputWidth: 416, inputHeight: 416, preprocessing: nil, minimumConfidence: nil, models: &models)
        }
        #expect(error.message.contains("80") && error.message.contains("1000"))
    }

    @Test func onTheCommandLineABadModelIsAUsageError() throws {
        let result = try CommandLineTests().run([Fixture.path("samples/gift-card.jpg"), "--model", try file("centerface.onnx"), "--labels", try file("coco.names"), "-o", "/tmp/never-written"])
        #expect(result.status == 2 && result.stderr.contains("cannot interpret"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written"))
        #expect(try CommandLineTests().run([Fixture.path("samples/gift-card.jpg"), "--model", "x.onnx"]).status == 2)
    }
}
