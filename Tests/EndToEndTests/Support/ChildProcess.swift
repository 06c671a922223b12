// SPDX-License-Identifier: MIT
// Spawning the payment-sandbox executable and watching its output and exit, always with timeouts.
import Foundation
import SandboxHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

private func sendSignal(_ pid: Int32, _ signal: Int32) { _ = kill(pid, signal) }

enum CLIBinary {
    static let name = "payment-sandbox"

    /// Where the built `payment-sandbox` executable is: beside the test bundle (the products directory),
    /// else `.build/debug` of this package. Nil when it has not been built.
    static func locate() -> URL? {
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["PAYMENT_SANDBOX_TEST_BINARY"], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        // On Linux the test bundle is an executable in the products directory; on macOS it is a .xctest
        // bundle inside it.
        let bundleURL = Bundle.main.bundleURL
        candidates.append(bundleURL.appendingPathComponent(name))
        candidates.append(bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        // Tests/EndToEndTests/Support/ChildProcess.swift -> package root.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/\(name)"))
        return candidates.map(\.standardizedFileURL).first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    static var notFoundMessage: String {
        "the \(name) executable was not found beside the test bundle (\(Bundle.main.bundleURL.path)) nor in .build/debug; "
            + "build it first with `swift build --build-tests` (or set PAYMENT_SANDBOX_TEST_BINARY)"
    }
}

/// A spawned process whose stdout and stderr are collected by reader threads.
///
/// Spawned with posix_spawn(3), not Foundation's `Process`: on Linux, `Process.run()` of Swift 6.3 reads
/// 256 bytes from every `/proc/self/fd` entry and now and then runs off a mapped page and crashes the
/// whole test process (swift-corelibs-foundation PR #5472; it crashed a CI run here).
final class ChildProcess: Sendable {
    let processIdentifier: pid_t
    private let output = Locked(Output())
    /// The raw wait(2) status once the child has been reaped; nil while it runs. Reaping happens under
    /// the lock, so the pid is never signalled after it could have been reused.
    private let waitStatus = Locked(Int32?.none)
    private struct Output {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var stdoutClosed = false
        var stderrClosed = false
    }

    /// Launches `executable` with `arguments`; `environment` entries are added to (nil values removed from)
    /// this process's environment. `workingDirectory`: where the child starts (default: this process's).
    /// `sigtermOnFirstLine`: the stdout reader thread sends SIGTERM the instant the first line arrives, as
    /// a fast supervisor would.
    init(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:], workingDirectory: URL? = nil,
         sigtermOnFirstLine: Bool = false) throws {
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("PAYMENT_SANDBOX_") { env[key] = nil }
        // Under `swift test --sanitize=thread` the executable is instrumented too, and ThreadSanitizer
        // sleeps a second before every exit (atexit_sleep_ms=1000): that would hide how fast it stops.
        env["TSAN_OPTIONS"] = [env["TSAN_OPTIONS"], "atexit_sleep_ms=0"].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        for (key, value) in environment { env[key] = value }
        let spawned = try Spawn.run(executable.path, [executable.path] + arguments, environment: env.map { "\($0.key)=\($0.value)" },
                                    workingDirectory: workingDirectory?.path)
        processIdentifier = spawned.pid
        startReader(fd: spawned.stdout, isStdout: true, signalPID: sigtermOnFirstLine ? spawned.pid : nil)
        startReader(fd: spawned.stderr, isStdout: false, signalPID: nil)
    }

    deinit {
        // The reader threads hold `self` until the child's output ends, so the child has almost always exited
        // by now: reap it if no test did, so no zombie is left; kill it first in case it closed its output
        // and lives on.
        kill()
        waitStatus.withLock { status in
            guard status == nil else { return }
            var raw: Int32 = 0
            while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
            status = raw
        }
    }

    private func startReader(fd: Int32, isStdout: Bool, signalPID: pid_t?) {
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 4096)
            var signalled = false
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                if let signalPID, !signalled, chunk[0..<n].contains(0x0A) {
                    sendSignal(signalPID, SIGTERM)
                    signalled = true
                }
                output.withLock { isStdout ? $0.stdout.append(contentsOf: chunk[0..<n]) : $0.stderr.append(contentsOf: chunk[0..<n]) }
            }
            output.withLock { if isStdout { $0.stdoutClosed = true } else { $0.stderrClosed = true } }
            close(fd)
        }
        thread.name = "e2e-child-reader"
        thread.start()
    }

    var stdout: String { output.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    var stderr: String { output.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// The raw wait status if the child has exited (reaping it then), nil while it runs.
    private func reapIfExited() -> Int32? {
        waitStatus.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(processIdentifier, &raw, WNOHANG) } while result < 0 && errno == EINTR
            guard result == processIdentifier else { return nil }
            status = raw
            return raw
        }
    }

    var isRunning: Bool { reapIfExited() == nil }

    /// How long a test waits for a child's startup line. Generous: it bounds only a failure, and a child built
    /// with ThreadSanitizer on a loaded 2-core CI machine took over 5 s to start.
    static let startupTimeout: Duration = .seconds(30)

    /// The first complete line on stdout, waiting up to `timeout`.
    func firstStdoutLine(timeout: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (bytes, closed) = output.withLock { ($0.stdout, $0.stdoutClosed) }
            if let newline = bytes.firstIndex(of: 0x0A) { return String(decoding: bytes[..<newline], as: UTF8.self) }
            if closed { return nil }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// The exit status (or, when a signal ended it, the signal's number, as `Process.terminationStatus`
    /// has it) once the process has exited and its output is drained; nil if it is still running after
    /// `timeout`.
    func waitForExit(timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let raw = reapIfExited() {
                // Let the reader threads reach end-of-file so stderr is complete.
                let drainDeadline = ContinuousClock.now + .seconds(1)
                while ContinuousClock.now < drainDeadline, !output.withLock({ $0.stdoutClosed && $0.stderrClosed }) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                return Self.signalNumber(raw) ?? (raw >> 8) & 0xFF
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    /// WTERMSIG when WIFSIGNALED (the C macros are not imported).
    private static func signalNumber(_ raw: Int32) -> Int32? {
        let low = raw & 0x7F
        return low != 0 && low != 0x7F ? low : nil
    }

    var terminatedBySignal: Bool { reapIfExited().flatMap(Self.signalNumber) != nil }

    /// SIGTERM (what a supervisor sends first).
    func terminate() { signalIfRunning(SIGTERM) }

    /// SIGINT (what Ctrl-C sends).
    func interrupt() { signalIfRunning(SIGINT) }

    /// SIGKILL if still running; for cleanup after a failure.
    func kill() { signalIfRunning(SIGKILL) }

    private func signalIfRunning(_ signal: Int32) {
        // Under the lock that reaping takes: a reaped pid may belong to another process by now.
        waitStatus.withLock { status in
            if status == nil { sendSignal(processIdentifier, signal) }
        }
    }
}

/// posix_spawn(3) with stdin from /dev/null, stdout and stderr into pipes, every other descriptor closed
/// in the child (other tests' sockets and pipes must not leak into it, or their peers would never see
/// end-of-file), default signal dispositions and an empty signal mask, its own process group.
private enum Spawn {
    struct Spawned {
        var pid: pid_t
        var stdout: Int32
        var stderr: Int32
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ path: String, _ arguments: [String], environment: [String], workingDirectory: String?) throws -> Spawned {
        let stdoutPipe = try makePipe(), stderrPipe = try makePipe()
        // The child has its own copies of the write ends; the reader sees end-of-file when the child exits.
        defer { close(stdoutPipe.write); close(stderrPipe.write) }

        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        var attributes: posix_spawnattr_t?
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen /dev/null")
        try check(posix_spawn_file_actions_adddup2(&actions, stdoutPipe.write, 1), "adddup2 stdout")
        try check(posix_spawn_file_actions_adddup2(&actions, stderrPipe.write, 2), "adddup2 stderr")
        if let workingDirectory {
            try check(addChdir(&actions, workingDirectory), "addchdir \(workingDirectory)")
        }
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP)
        #if canImport(Darwin)
        // Only what the file actions set up is inherited.
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        try check(addCloseFrom(&actions, 3), "addclosefrom 3")
        #endif
        var allSignals = sigset_t(), noSignals = sigset_t()
        sigfillset(&allSignals)
        sigemptyset(&noSignals)
        try check(posix_spawnattr_setsigdefault(&attributes, &allSignals), "setsigdefault")
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "setsigmask")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "setpgroup")
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "setflags")

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        try check(posix_spawn(&pid, path, &actions, &attributes, argv, envp), "posix_spawn \(path)")
        return Spawned(pid: pid, stdout: stdoutPipe.read, stderr: stderrPipe.read)
    }

    /// A pipe whose ends are close-on-exec in this process (another test's spawn must not inherit them).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }

    private static func check(_ result: Int32, _ what: String) throws {
        guard result != 0 else { return }
        throw Failure(description: "\(what): error \(result) (\(String(cString: strerror(result))))")
    }

    #if canImport(Darwin)
    private static func addChdir(_ actions: inout posix_spawn_file_actions_t?, _ path: String) -> Int32 {
        posix_spawn_file_actions_addchdir_np(&actions, path)
    }
    #else
    // glibc declares these two only under _GNU_SOURCE, which Swift's Glibc module does not define; they are
    // looked up at run time (addchdir_np since glibc 2.29, addclosefrom_np since 2.34).
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static func lookUp<F>(_ name: String, as type: F.Type) throws -> F {
        guard let symbol = dlsym(nil, name) else { throw Failure(description: "\(name) not found: glibc 2.34 or later is needed") }
        return unsafeBitCast(symbol, to: type)
    }

    private static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ path: String) throws -> Int32 {
        try lookUp("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)(&actions, path)
    }

    private static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) throws -> Int32 {
        try lookUp("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)(&actions, lowest)
    }
    #endif
}

extension ChildProcess {
    /// Runs the CLI to completion (at most `timeout`) and returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:], workingDirectory: URL? = nil,
                    timeout: Duration = .seconds(30)) async throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, environment: environment, workingDirectory: workingDirectory)
        let status = try await child.waitForExit(timeout: timeout)
        if status == nil {
            child.kill()
            _ = try await child.waitForExit(timeout: .seconds(2))
        }
        return (status, child.stdout, child.stderr)
    }
}
