import Foundation
import Testing

@testable import AnalyzeBatch
@testable import AnalyzeCore
@testable import AnalyzeOutput

/// A local input is read as the file it names and nothing else: no part of its name is taken for a
/// protocol, and no container that refers to other files or addresses is followed (issue 35, items 1–2).
@Suite("Inputs are what they are named")
struct InputReferenceTests {
    /// A listener on 127.0.0.1 that counts the connections it accepts, on a port of its own.
    final class Listener: @unchecked Sendable {
        let port: UInt16
        private let socket: Int32
        private let lock = NSLock()
        private var accepted = 0
        private var thread: Thread?

        struct SetupFailed: Error {}

        init() throws {
            let s = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard s >= 0 else { throw SetupFailed() }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0, listen(s, 8) == 0 else { close(s); throw SetupFailed() }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) }
            }
            socket = s
            port = UInt16(bigEndian: address.sin_port)
        }

        /// Accepts (and closes) connections on a thread of its own until ``stop()``.
        func start() {
            let thread = Thread { [self] in
                while true {
                    let client = accept(self.socket, nil, nil)
                    if client < 0 { return }
                    self.lock.lock(); self.accepted += 1; self.lock.unlock()
                    close(client)
                }
            }
            self.thread = thread
            thread.start()
        }

        var connections: Int { lock.lock(); defer { lock.unlock() }; return accepted }

        func stop() { shutdown(socket, Int32(SHUT_RDWR)); close(socket) }
    }

    static func ffmpeg() throws -> String {
        try #require(
            ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) },
            "ffmpeg makes the videos (scripts/test installs it)")
    }

    /// Writes a one-second test-pattern video of `size` to `path`.
    static func makeVideo(_ path: String, size: String) throws {
        let made = try runProgram(
            try ffmpeg(),
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=10",
                "-t", "1", "-pix_fmt", "yuv420p", path,
            ])
        try #require(made.status == 0, "\(made.output)")
    }

    @Test func aVideoNamedLikeAURLIsReadAsTheLocalFileAndNothingIsFetched() throws {
        let listener = try Listener()
        listener.start()
        defer { listener.stop() }
        let folder = try Fixture.temporaryDirectory()
        let name = "http:127.0.0.1:\(listener.port).mp4"
        try Self.makeVideo(folder.appendingPathComponent(name).path, size: "320x240")
        let out = try Fixture.temporaryDirectory()
        // Given by a bare name, from the folder it is in (as `analyze *.mp4` gives it), and by --files-from.
        let list = folder.appendingPathComponent("list.txt")
        try Data((name + "\n").utf8).write(to: list)
        for arguments in [[name], ["--files-from", list.path]] {
            let run = try runProgram(
                CommandLineTests.binary.path, arguments + ["--rects", "--no-png", "--no-svg", "-o", out.path],
                in: folder)
            #expect(run.status == 0, "\(run.output)")
            let json =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: out.appendingPathComponent("http_127.0.0.1_\(listener.port).json")))
                as? [String: Any]
            let sequence = json?["sequence"] as? [String: Any]
            #expect(
                sequence?["width"] as? Int == 320 && sequence?["height"] as? Int == 240
                    && sequence?["framesAnalysed"] as? Int == 10,
                "the local file's own frames")
        }
        #expect(listener.connections == 0, "analyze connected to 127.0.0.1:\(listener.port)")
    }

    @Test func aPlaylistNamedLikeAVideoIsRefusedAndItsSegmentIsNotRead() throws {
        let folder = try Fixture.temporaryDirectory()
        let segment = folder.appendingPathComponent("other.ts").path
        let made = try runProgram(
            try Self.ffmpeg(),
            [
                "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10",
                "-t", "1", segment,
            ])
        try #require(made.status == 0)
        let listener = try Listener()
        listener.start()
        defer { listener.stop() }
        // An HLS playlist naming a local segment and one on the listener, and an FFmpeg concat script.
        let hls =
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:1.0,\n\(segment)\n#EXTINF:1.0,\nhttp://127.0.0.1:\(listener.port)/b.ts\n#EXT-X-ENDLIST\n"
        try Data(hls.utf8).write(to: folder.appendingPathComponent("upload.mp4"))
        try Data("ffconcat version 1.0\nfile '\(segment)'\n".utf8).write(
            to: folder.appendingPathComponent("concat.mp4"))
        let out = try Fixture.temporaryDirectory()
        let run = try runProgram(
            CommandLineTests.binary.path,
            ["upload.mp4", "concat.mp4", "--rects", "--no-png", "--no-svg", "-o", out.path], in: folder)
        #expect(run.status != 0)
        #expect(
            run.output.contains("upload.mp4: it is not a self-contained video file (FFmpeg reads it as 'hls'"),
            "\(run.output)")
        #expect(
            run.output.contains("concat.mp4: it is not a self-contained video file (FFmpeg reads it as 'concat'"),
            "\(run.output)")
        #expect(
            !FileManager.default.fileExists(atPath: out.appendingPathComponent("upload.mp4").path),
            "no annotated video of another file's frames")
        #expect(listener.connections == 0)
    }
}
