import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Requests name models by identity (file name + SHA-256), never by path.
@Suite("Models by identity")
struct ModelIdentityTests {
    func runner(_ requests: RequestSet) -> BatchRunner {
        BatchRunner(sources: [], requests: requests, output: nil, jobs: 1)
    }

    @Test func theSameModelInTwoFoldersGivesTheSameOptionsSoShardsMerge() throws {
        let a = try Fixture.temporaryDirectory(), b = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        let bytes = Data("a network".utf8)
        try bytes.write(to: a.appendingPathComponent("net.onnx"))
        try bytes.write(to: b.appendingPathComponent("net.onnx"))
        var here = ModelLocator(directories: []), there = ModelLocator(directories: [])
        let one = FaceRequest(model: try here.add(file: a.appendingPathComponent("net.onnx").path))
        let two = FaceRequest(model: try there.add(file: b.appendingPathComponent("net.onnx").path))
        #expect(RequestSet([one]) == RequestSet([two]))
        #expect(runner(RequestSet([one])).optionsHash == runner(RequestSet([two])).optionsHash)
        // The summary's requests decode back to the same set (what `analyze report` compares).
        let decoded = try JSONDecoder().decode(RequestSet.self, from: Data(try JSONRenderer.encode(RequestSet([one]))))
        #expect(decoded == RequestSet([one]))
    }

    @Test func aChangedModelChangesTheOptionsHashSoResumeRedoesTheImages() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("net.onnx").path
        try Data("version 1".utf8).write(to: URL(fileURLWithPath: path))
        var models = ModelLocator(directories: [])
        let before = runner(RequestSet([FaceRequest(model: try models.add(file: path))])).optionsHash
        try Data("version 2".utf8).write(to: URL(fileURLWithPath: path))
        let after = runner(RequestSet([FaceRequest(model: try models.add(file: path))])).optionsHash
        #expect(before != after)
    }

    @Test func theStandardFoldersFollowHomeAndXDG() {
        let folders = ModelLocator.standardDirectories(environment: [
            "HOME": "/home/someone", "XDG_DATA_HOME": "/data", "ANALYZE_MODELS": "/models",
        ])
        #expect(folders.first == "/models")
        #expect(folders.contains("/data/analyze/models") && folders.contains("/home/someone/.cache/analyze/models"))
        #expect(
            ModelLocator.standardDirectories(environment: ["HOME": "/home/someone"]).contains(
                "/home/someone/.local/share/analyze/models"))
    }

    /// Found through PATH, argv[0] is just `analyze`: the install prefix comes from /proc/self/exe.
    @Test func thePrefixFolderComesFromTheRealExecutable() {
        let executable = ModelLocator.executablePath()
        #expect(executable.path.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: executable.path))
        let prefix = executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "share/analyze/models"
        ).path
        #expect(ModelLocator.standardDirectories(environment: [:]).contains(prefix))
    }
}
