import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// Outputs are written to hidden temporaries, locked while they are written; a run removes only the
/// temporaries no live process holds, whichever host, container or PID namespace wrote them.
@Suite("Temporary files")
struct TemporaryFileTests {
    /// A second run whose start-up cleanup cannot see the first run's process (another PID namespace, as a
    /// container or a CI runner on the same host is) leaves the first run's temporaries alone: the first
    /// run, analysing a video into the same folder, finishes with all its outputs (issue 63, item 1).
    @Test func aRunInAnotherPIDNamespaceLeavesALiveRunsTemporariesAlone() throws {
        let unshare = "/usr/bin/unshare"
        try #require(FileManager.default.isExecutableFile(atPath: unshare), "util-linux's unshare")
        try #require(getuid() == 0, "a PID namespace needs root (scripts/test runs as root in CI)")
        let out = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: out) }
        let first = Process()
        first.executableURL = CommandLineTests.binary
        first.arguments = [try OpenCVSample.path("vtest.avi"), "--rects", "--max-frames", "400", "-o", out.path, "-q"]
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }
        // Until its video's temporaries exist.
        let started = Date()
        while !(try FileManager.default.contentsOfDirectory(atPath: out.path)).contains(where: {
            $0.hasPrefix(".analyze-")
        }) {
            try #require(first.isRunning && Date().timeIntervalSince(started) < 60, "the first run wrote no temporary")
            usleep(20_000)
        }
        let second = try runProgram(
            unshare,
            [
                "--pid", "--fork", "--mount-proc", CommandLineTests.binary.path, Fixture.path("barcodes/qr-hello.png"),
                "--barcodes", "-o", out.path, "-q",
            ])
        #expect(second.status == 0, "\(second.output)")
        // Otherwise the first run had nothing in flight while the second cleaned up: nothing was tested.
        try #require(first.isRunning, "the first run ended before the second one's clean-up; give it more frames")
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        #expect(files.isSuperset(of: ["vtest.json", "vtest.mp4", "vtest.contact.png", "qr-hello.json"]), "\(files)")
        #expect(!files.contains { $0.hasPrefix(".analyze-") })
    }

    /// A temporary held open by a live writer survives a clean-up that cannot see its process; once the
    /// writer is gone (its lock released, as when a run is killed), the next clean-up removes it, whatever
    /// host name it carries (one with dots, as cluster nodes have: issue 63, item 6).
    @Test func onlyTemporariesNoLiveProcessHoldsAreRemoved() throws {
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let live = try AtomicFileWriter.Pending(folder.appendingPathComponent("live.json"))
        try live.append("{}")
        // A killed run's temporaries: the files exist, no process holds their lock.
        let dead = [
            ".analyze-locked-node1.example.com-4242-1.tmp", ".analyze-locked-node1.example.com-4242-2.tmp.mp4",
            ".analyze-locked-\(getpid())-x.tmp",
        ]
        let others = ["photo.json", ".analyze-notes.txt", ".analyze-other-host-99999-5.tmp"]
        for name in dead + others { try Data("x".utf8).write(to: folder.appendingPathComponent(name)) }
        #expect(AtomicFileWriter.removeStale(in: folder) == dead.count)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(left == Set(others + [live.temporaryURL.lastPathComponent]))
        try live.commit()
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("live.json").path))
    }

    /// Temporaries named as before they were locked are told apart by host and process, and, since a
    /// process in another PID namespace is not seen, removed only once an hour has passed without a change;
    /// a host name with dots is read whole.
    @Test func unlockedTemporariesAreReadWholeAndRemovedOnlyWhenOld() throws {
        #expect(
            AtomicFileWriter.unlockedOwner(of: ".analyze-node1.example.com-123-4.tmp.mp4")?.host == "node1.example.com")
        #expect(AtomicFileWriter.unlockedOwner(of: ".analyze-node1.example.com-123-4.tmp.mp4")?.pid == 123)
        #expect(AtomicFileWriter.unlockedOwner(of: ".analyze-a-b-7-1.tmp")?.host == "a-b")
        #expect(AtomicFileWriter.unlockedOwner(of: ".analyze-77-3.tmp")?.host == nil)
        #expect(AtomicFileWriter.unlockedOwner(of: ".analyze-notes.txt") == nil)
        let folder = try Fixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let host = try #require(
            AtomicFileWriter.temporaryName(serial: 1).dropFirst(AtomicFileWriter.lockedPrefix.count).split(
                separator: "-"
            ).dropLast(2).joined(separator: "-") as String?)
        let old = folder.appendingPathComponent(".analyze-\(host)-\(ended.processIdentifier)-2.tmp")
        let recent = folder.appendingPathComponent(".analyze-\(host)-\(ended.processIdentifier)-3.tmp")
        for url in [old, recent] { try Data("x".utf8).write(to: url) }
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: old.path)
        #expect(AtomicFileWriter.removeStale(in: folder) == 1)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: recent.path))
    }
}
