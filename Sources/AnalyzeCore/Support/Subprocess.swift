import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a helper program on untrusted bytes in a process of its own (poppler's `pdfinfo` and
/// `pdftoppm` on a PDF): whatever the file does to it, a crash, a hang or a runaway allocation ends
/// that process, not the batch. The bytes go to its stdin and its stdout is collected, both through one
/// `poll` loop; it is killed after `timeout` seconds of wall time or when it writes more than
/// `maximumOutput` bytes, and its address space and CPU time are capped by `prlimit` (util-linux). The
/// CPU cap lies a second past the wall-time limit, so that the wall clock decides: a program that used a
/// whole core for the time it was given, while this process waited for one, would otherwise die of
/// SIGXCPU first and read as a crash. A death by SIGXCPU still counts as a timeout.
/// Programs are named by absolute path and run with a minimal environment.
package struct Subprocess {
    /// The program, an absolute path.
    let executable: String
    let arguments: [String]
    /// Seconds of wall time before it is killed (of CPU time, one more).
    var timeout: Double = 120
    /// Bytes of address space it may map.
    var memoryLimit = 2 << 30
    /// Bytes of stdout kept; more kills it.
    var maximumOutput = 64 << 20

    static let prlimit = "/usr/bin/prlimit"

    package init(
        executable: String, arguments: [String], timeout: Double = 120, memoryLimit: Int = 2 << 30,
        maximumOutput: Int = 64 << 20
    ) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
        self.memoryLimit = memoryLimit
        self.maximumOutput = maximumOutput
    }

    package struct Outcome {
        /// Its exit status; nil when it was killed (by us or a signal).
        package let status: Int32?
        let output: [UInt8]
        /// Its stderr, at most 64 KiB of it.
        package let errors: String
        package let timedOut: Bool
        let outputOverflowed: Bool
        /// The seconds it was given.
        var timeout: Double = 0
    }

    /// Runs it with `input` on its stdin; throws only when it cannot be started.
    package func run(input: [UInt8]) throws(AnalysisError) -> Outcome {
        try run(input: input, file: nil)
    }

    /// Runs it with the regular file at `path` as its stdin (opened as ``RegularFile`` opens inputs).
    func run(readingFile path: String) throws(AnalysisError) -> Outcome {
        let fd = try RegularFile.descriptor(path)
        defer { close(fd) }
        return try run(input: [], file: fd)
    }

    private func run(input: [UInt8], file: Int32?) throws(AnalysisError) -> Outcome {
        Self.ignoreBrokenPipes
        let argv =
            [Self.prlimit, "--as=\(memoryLimit)", "--cpu=\(Int(timeout.rounded(.up)) + 1)", "--", executable]
            + arguments
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var fds: [Int32] = [-1, -1]
            // Close-on-exec from the start: a helper another worker starts at the same moment must not
            // inherit this one's stdin (it would never see its end).
            guard Self.pipe2(&fds, O_CLOEXEC) == 0 else {
                for p in pipes { close(p[0]); close(p[1]) }
                throw AnalysisError(
                    .engineFailed, "cannot create a pipe for \(executable): \(String(cString: strerror(errno)))")
            }
            pipes.append(fds)
        }
        let (stdinPipe, stdoutPipe, stderrPipe) = (pipes[0], pipes[1], pipes[2])
        let (pid, spawned) = Self.spawn(argv, stdin: file ?? stdinPipe[0], stdout: stdoutPipe[1], stderr: stderrPipe[1])
        close(stdinPipe[0])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        guard spawned == 0 else {
            close(stdinPipe[1]); close(stdoutPipe[0]); close(stderrPipe[0])
            throw AnalysisError(
                .engineUnavailable, "cannot run \(Self.prlimit) (util-linux): \(String(cString: strerror(spawned)))")
        }
        for fd in [stdinPipe[1], stdoutPipe[0], stderrPipe[0]] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        var output: [UInt8] = [], errors: [UInt8] = []
        // Room for all it may write, at once: a page's pixels (a 116 MP page is 350 MB) are not copied
        // again and again as the array doubles (untouched room costs no memory).
        output.reserveCapacity(maximumOutput + 1)
        var written = 0, timedOut = false, overflowed = false
        var inputFD = stdinPipe[1], outputFD = stdoutPipe[0], errorFD = stderrPipe[0]
        if input.isEmpty || file != nil { close(inputFD); inputFD = -1 }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while outputFD >= 0 || errorFD >= 0 {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { timedOut = true; break }
            var fds = [
                pollfd(fd: inputFD, events: Int16(POLLOUT), revents: 0),
                pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: errorFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
            if ready < 0 && errno != EINTR { break }
            if inputFD >= 0, fds[0].revents != 0 {
                let n = input.withUnsafeBytes { raw -> Int in
                    guard let base = raw.baseAddress else { return -1 }
                    return write(inputFD, base + written, min(1 << 20, input.count - written))
                }
                if n > 0 { written += n }
                // Done, or the program stopped reading (EPIPE: it refused the file): no more input.
                if written == input.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                    close(inputFD); inputFD = -1
                }
            }
            for (index, isOutput) in [(1, true), (2, false)] where fds[index].revents != 0 {
                let fd = isOutput ? outputFD : errorFD
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if isOutput {
                        output.append(contentsOf: buffer[0..<n])
                        if output.count > maximumOutput { overflowed = true }
                    } else if errors.count < 65_536 {
                        errors.append(contentsOf: buffer[0..<min(n, 65_536 - errors.count)])
                    }
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    close(fd)
                    if isOutput { outputFD = -1 } else { errorFD = -1 }
                }
            }
            if overflowed { break }
        }
        for fd in [inputFD, outputFD, errorFD] where fd >= 0 { close(fd) }
        var status: Int32 = 0
        // It may have closed its outputs and still run: waited for until the deadline, then killed.
        while !timedOut && !overflowed {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid || (done < 0 && errno != EINTR) { break }
            if DispatchTime.now().uptimeNanoseconds >= deadline { timedOut = true; break }
            usleep(2_000)
        }
        if timedOut || overflowed {
            kill(pid, SIGKILL)
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG (macros Swift does not import).
        let exited = status & 0x7F == 0
        if !exited && status & 0x7F == SIGXCPU { timedOut = true }
        return Outcome(
            status: exited && !timedOut && !overflowed ? (status >> 8) & 0xFF : nil, output: output,
            errors: String(decoding: errors, as: UTF8.self), timedOut: timedOut, outputOverflowed: overflowed,
            timeout: timeout)
    }

    /// Starts `argv` (its first element, an absolute path) with the given descriptors as its stdin,
    /// stdout and stderr (nil: /dev/null), the default action for SIGPIPE and SIGINT (this process
    /// ignores or handles them) and a minimal environment. The pid, and 0 or why it could not start.
    static func spawn(_ argv: [String], stdin: Int32, stdout: Int32, stderr: Int32?) -> (pid: pid_t, error: Int32) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        if let stderr {
            posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let variables: [String] = ["PATH=/usr/bin:/bin", "LC_ALL=C"]
        let environment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { (cArguments + environment).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environment)
        return (pid, spawned)
    }

    /// glibc's `pipe2`, which Swift's Glibc module does not declare.
    @_silgen_name("pipe2")
    static func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32

    /// A helper that stops reading makes writes to its stdin fail with EPIPE instead of a SIGPIPE that
    /// would end this process (the command ignores SIGPIPE from the start as well).
    static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()
}
