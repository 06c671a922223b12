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
final class ChildProcess: Sendable {
    private let process: Process
    private let output = Locked(Output())
    private struct Output {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var stdoutClosed = false
        var stderrClosed = false
    }

    /// Launches `executable` with `arguments`; `environment` entries are added to (nil values removed from)
    /// this process's environment.
    /// `sigtermOnFirstLine`: the stdout reader thread sends SIGTERM the instant the first line arrives, as
    /// a fast supervisor would.
    init(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:], sigtermOnFirstLine: Bool = false) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("PAYMENT_SANDBOX_") { env[key] = nil }
        // Under `swift test --sanitize=thread` the executable is instrumented too, and ThreadSanitizer
        // sleeps a second before every exit (atexit_sleep_ms=1000): that would hide how fast it stops.
        env["TSAN_OPTIONS"] = [env["TSAN_OPTIONS"], "atexit_sleep_ms=0"].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ":")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let stdoutPipe = Pipe(), stderrPipe = Pipe()
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        self.process = process
        try process.run()
        let stdoutFD = stdoutPipe.fileHandleForReading.fileDescriptor
        let stderrFD = stderrPipe.fileHandleForReading.fileDescriptor
        startReader(fd: stdoutFD, keepAlive: stdoutPipe, isStdout: true, signalPID: sigtermOnFirstLine ? process.processIdentifier : nil)
        startReader(fd: stderrFD, keepAlive: stderrPipe, isStdout: false, signalPID: nil)
    }

    private func startReader(fd: Int32, keepAlive pipe: Pipe, isStdout: Bool, signalPID: Int32?) {
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
            try? pipe.fileHandleForReading.close()
        }
        thread.name = "e2e-child-reader"
        thread.start()
    }

    var processIdentifier: Int32 { process.processIdentifier }
    var stdout: String { output.withLock { String(decoding: $0.stdout, as: UTF8.self) } }
    var stderr: String { output.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

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

    /// The exit status once the process has exited and its output is drained, or nil if it is still
    /// running after `timeout`.
    func waitForExit(timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if !process.isRunning {
                // Let the reader threads reach end-of-file so stderr is complete.
                let drainDeadline = ContinuousClock.now + .seconds(1)
                while ContinuousClock.now < drainDeadline, !output.withLock({ $0.stdoutClosed && $0.stderrClosed }) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                return process.terminationStatus
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    var terminatedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// SIGTERM (what `Process.terminate()` sends).
    func terminate() { process.terminate() }

    /// SIGINT (what Ctrl-C sends).
    func interrupt() { process.interrupt() }

    /// SIGKILL if still running; for cleanup after a failure.
    func kill() {
        if process.isRunning { sendSignal(process.processIdentifier, SIGKILL) }
    }
}

extension ChildProcess {
    /// Runs the CLI to completion (at most `timeout`) and returns its exit status and output.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:],
                    timeout: Duration = .seconds(5)) async throws -> (status: Int32?, stdout: String, stderr: String) {
        let child = try ChildProcess(executable, arguments, environment: environment)
        let status = try await child.waitForExit(timeout: timeout)
        if status == nil {
            child.kill()
            _ = try await child.waitForExit(timeout: .seconds(2))
        }
        return (status, child.stdout, child.stderr)
    }
}
