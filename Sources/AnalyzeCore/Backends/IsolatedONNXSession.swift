import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where and within what bounds a network of one's own runs: in a process of its own, this program's
/// hidden `serve-model` subcommand, whose address space is capped and whose every forward is given a
/// time limit. A model is untrusted input, and what a forward costs can depend on the pixels (a `Loop`
/// whose trip count or an `Expand` whose size is computed from them), so no run before the first image
/// can bound it: each forward is bounded as it runs, on the image it runs on.
public struct NetworkIsolation: Sendable, Hashable, Codable {
    /// The program to start (`analyze`), an absolute path; it is run as `executable serve-model PATH`.
    public var executable: String
    /// Bytes of address space the model's process may map.
    public var memoryLimit: Int
    /// Seconds one forward may take; the process is then killed and the image gets an error.
    public var timeout: Double

    public init(executable: String, memoryLimit: Int, timeout: Double) {
        self.executable = executable
        self.memoryLimit = memoryLimit
        self.timeout = timeout
    }
}

/// A float network run by ``ONNXSession`` or by ``IsolatedONNXSession``.
package protocol FloatNetworkSession: AnyObject {
    /// Runs the network on one float tensor and returns its first output.
    func run(_ input: [Float], shape: [Int]) throws(AnalysisError) -> FloatTensor
}

extension ONNXSession: FloatNetworkSession {}

/// An ONNX model run by ONNX Runtime in a child process (``NetworkIsolation``): the tensor goes down a
/// pipe and the output comes back. A forward that passes its time limit, or a process that dies (out of
/// its memory cap, or crashed), fails that forward with a clear error; the next forward starts a new
/// process. Not thread-safe: one per worker, as ``ONNXSession``.
package final class IsolatedONNXSession: FloatNetworkSession {
    private let modelPath: String
    private let libraryPath: String
    private let name: String
    private let isolation: NetworkIsolation
    private var child: (pid: pid_t, input: Int32, output: Int32)?

    /// The largest output taken back (floats): far above any detector's or classifier's.
    static let maximumOutputValues = 1 << 24

    package init(model: ModelIdentity, models: ModelLocator, isolation: NetworkIsolation) throws(AnalysisError) {
        modelPath = try models.path(of: model)
        libraryPath = try models.path(of: ONNXRuntime.library)
        name = model.name
        self.isolation = isolation
    }

    deinit { stop() }

    package func run(_ input: [Float], shape: [Int]) throws(AnalysisError) -> FloatTensor {
        guard shape.reduce(1, *) == input.count, !shape.isEmpty, shape.count <= 8 else {
            throw AnalysisError(.engineFailed, "\(name): the input does not have the shape \(shape)")
        }
        let process = try started()
        var request = Self.encode(UInt64(shape.count))
        for d in shape { request += Self.encode(Int64(d)) }
        input.withUnsafeBytes { request += $0 }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(isolation.timeout * 1e9)
        switch Self.exchange(request, input: process.input, output: process.output, deadline: deadline) {
        case .success(let tensor):
            return tensor
        case .failure(let failure):
            stop()
            switch failure {
            case .timedOut:
                throw AnalysisError(
                    .engineFailed,
                    "\(name) did not finish within \(Self.seconds(isolation.timeout)) on this image: stopped")
            case .died:
                throw AnalysisError(
                    .engineFailed,
                    "\(name) stopped on this image: it needed more than \(isolation.memoryLimit >> 20) MiB of memory, or crashed"
                )
            case .refused(let message):
                // ONNXSession's messages name the model already.
                throw AnalysisError(.engineFailed, message.hasPrefix(name) ? message : "\(name): \(message)")
            }
        }
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// The running process, started when there is none.
    private func started() throws(AnalysisError) -> (pid: pid_t, input: Int32, output: Int32) {
        if let child { return child }
        let argv = [
            Subprocess.prlimit, "--as=\(isolation.memoryLimit)", "--", isolation.executable, "serve-model",
            "--runtime", libraryPath, modelPath,
        ]
        var toChild: [Int32] = [-1, -1], fromChild: [Int32] = [-1, -1]
        guard Subprocess.pipe2(&toChild, O_CLOEXEC) == 0 else { throw Self.cannotStart(errno) }
        guard Subprocess.pipe2(&fromChild, O_CLOEXEC) == 0 else {
            close(toChild[0]); close(toChild[1])
            throw Self.cannotStart(errno)
        }
        Subprocess.ignoreBrokenPipes
        // ONNX Runtime's own warnings are not the run's to print; failures come back as replies.
        let (pid, spawned) = Subprocess.spawn(argv, stdin: toChild[0], stdout: fromChild[1], stderr: nil)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1]); close(fromChild[0])
            throw Self.cannotStart(spawned)
        }
        for fd in [toChild[1], fromChild[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let process = (pid, toChild[1], fromChild[0])
        child = process
        return process
    }

    private static func cannotStart(_ code: Int32) -> AnalysisError {
        AnalysisError(.engineUnavailable, "cannot start the model's process: \(String(cString: strerror(code)))")
    }

    /// Ends the process (closing its input ends a healthy one; a busy one is killed) and reaps it.
    private func stop() {
        guard let process = child else { return }
        child = nil
        close(process.input)
        close(process.output)
        kill(process.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(process.pid, &status, 0) < 0 && errno == EINTR {}
    }

    private enum Failure: Error {
        case timedOut, died
        case refused(String)
    }

    /// Writes `request` and reads one reply, both within `deadline`, through one `poll` loop (the child
    /// may stop reading; a pipe holds less than a tensor).
    private static func exchange(_ request: [UInt8], input: Int32, output: Int32, deadline: UInt64) -> Result<
        FloatTensor, Failure
    > {
        var written = 0
        var reply: [UInt8] = []
        var needed = 8  // the status word first
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if let parsed = parse(reply, needed: &needed) { return parsed }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return .failure(.timedOut) }
            var fds = [
                pollfd(fd: written < request.count ? input : -1, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: output, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno != EINTR { return .failure(.died) }
            if fds[0].revents != 0 {
                let n = request.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return -1 }
                    return write(input, base + written, min(1 << 20, request.count - written))
                }
                if n > 0 {
                    written += n
                } else if n < 0 && errno != EAGAIN && errno != EINTR {
                    return .failure(.died)
                }
            }
            if fds[1].revents != 0 {
                let n = buffer.withUnsafeMutableBytes {
                    read(output, $0.baseAddress, min($0.count, needed - reply.count))
                }
                if n > 0 {
                    reply.append(contentsOf: buffer[0..<n])
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    return .failure(.died)
                }
            }
        }
    }

    /// The reply when `bytes` holds all of it; else nil, with `needed` raised to what is known to come.
    /// A reply: Int64 status (0, or the length of a message that follows); when 0, UInt64 rank, that many
    /// Int64 dimensions, then their product of floats.
    private static func parse(_ bytes: [UInt8], needed: inout Int) -> Result<FloatTensor, Failure>? {
        guard bytes.count >= needed else { return nil }
        let status = Int(Int64(littleEndianBytes: bytes, at: 0))
        if status != 0 {
            guard (1...4096).contains(status) else { return .failure(.refused("the model's process answered badly")) }
            // A failure is answered without reading the rest of the request: the process is stopped.
            needed = 8 + status
            guard bytes.count >= needed else { return nil }
            return .failure(.refused(String(decoding: bytes[8..<needed], as: UTF8.self)))
        }
        guard bytes.count >= 16 else { needed = 16; return nil }
        let rank = Int(truncatingIfNeeded: UInt64(littleEndianBytes: bytes, at: 8))
        guard (0...8).contains(rank) else { return .failure(.refused("the model's process answered badly")) }
        let header = 16 + 8 * rank
        guard bytes.count >= header else { needed = header; return nil }
        var shape: [Int] = []
        var count = 1
        for i in 0..<rank {
            let d = Int(Int64(littleEndianBytes: bytes, at: 16 + 8 * i))
            guard d >= 0, d <= maximumOutputValues else { return .failure(.refused("its output is too large")) }
            shape.append(d)
            count *= d
            guard count <= maximumOutputValues else { return .failure(.refused("its output is too large")) }
        }
        needed = header + 4 * count
        guard bytes.count >= needed else { return nil }
        let values = bytes[header..<needed].withUnsafeBytes { raw in
            (0..<count).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
        }
        return .success(FloatTensor(shape: shape, values: values))
    }

    private static func encode<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// `serve-model`'s loop: loads `modelPath` into an ``ONNXSession`` and answers each request on stdin
    /// on stdout until stdin ends. Returns the exit status.
    package static func serve(modelPath: String, libraryPath: String) -> Int32 {
        var models = ModelLocator(directories: [])
        let session: ONNXSession
        do {
            let library = try models.add(file: libraryPath)
            guard library == ONNXRuntime.library else {
                FileHandle.standardError.write(Data("serve-model: \(libraryPath) is not ONNX Runtime's library\n".utf8))
                return 1
            }
            session = try ONNXSession(model: try models.add(file: modelPath), models: models)
        } catch {
            reply(failure: error.message)
            return 1
        }
        while true {
            guard let rankBytes = readExactly(8) else { return 0 }
            let rank = Int(truncatingIfNeeded: UInt64(littleEndianBytes: rankBytes, at: 0))
            guard (1...8).contains(rank), let dims = readExactly(8 * rank) else { return 1 }
            let shape = (0..<rank).map { Int(Int64(littleEndianBytes: dims, at: 8 * $0)) }
            guard shape.allSatisfy({ (1...(1 << 28)).contains($0) }) else { return 1 }
            let (count, overflow) = shape.reduce((1, false)) { a, d in
                let (p, o) = a.0.multipliedReportingOverflow(by: d)
                return (p, a.1 || o)
            }
            guard !overflow, count <= 1 << 28, let values = readExactly(4 * count) else { return 1 }
            let input = values.withUnsafeBytes { raw in
                (0..<count).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) }
            }
            do {
                let output = try session.run(input, shape: shape)
                guard output.values.count <= maximumOutputValues else {
                    reply(failure: "its output has \(output.values.count) values, more than \(maximumOutputValues)")
                    continue
                }
                var bytes = encode(Int64(0)) + encode(UInt64(output.shape.count))
                for d in output.shape { bytes += encode(Int64(d)) }
                output.values.withUnsafeBytes { bytes += $0 }
                guard writeAll(bytes) else { return 1 }
            } catch {
                reply(failure: error.message)
            }
        }
    }

    private static func reply(failure message: String) {
        let text = Array((message.isEmpty ? "failed" : message).utf8.prefix(4096))
        _ = writeAll(encode(Int64(text.count)) + text)
    }

    private static func readExactly(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = bytes.withUnsafeMutableBytes { read(0, $0.baseAddress.map { $0 + got }, count - got) }
            if n > 0 {
                got += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return nil
            }
        }
        return bytes
    }

    private static func writeAll(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { write(1, $0.baseAddress.map { $0 + sent }, bytes.count - sent) }
            if n > 0 {
                sent += n
            } else if !(n < 0 && errno == EINTR) {
                return false
            }
        }
        return true
    }
}

extension FixedWidthInteger {
    /// The little-endian value of `Self.bitWidth / 8` bytes of `bytes` at `offset` (the caller checks the length).
    init(littleEndianBytes bytes: [UInt8], at offset: Int) {
        var value = Self.zero
        for i in 0..<(Self.bitWidth / 8) { value |= Self(truncatingIfNeeded: bytes[offset + i]) << (8 * i) }
        self = value
    }
}
