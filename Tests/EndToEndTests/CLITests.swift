// SPDX-License-Identifier: MIT
// The payment-sandbox executable: startup line, SIGTERM, exit codes, healthcheck, environment.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

@Suite("Command line")
struct CLITests {
    static func binary() throws -> URL {
        try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
    }

    /// `payment-sandbox 0.1.0 listening on http://127.0.0.1:PORT (scenarios: ...)` -> PORT.
    static func listeningPort(_ line: String) -> Int? {
        let prefix = "payment-sandbox \(SandboxVersion.current) listening on http://127.0.0.1:"
        guard line.hasPrefix(prefix), line.hasSuffix(")") else { return nil }
        let rest = line.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: " "), rest[space...].hasPrefix(" (scenarios: ") else { return nil }
        return Int(rest[..<space])
    }

    /// After SIGTERM/SIGINT: the child must exit with status 0 within `timeout`. ThreadSanitizer reports
    /// in an instrumented child (exit status 66) are reported as such.
    static func expectStopsCleanly(_ child: ChildProcess, within timeout: Duration = .seconds(1),
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let status = try await child.waitForExit(timeout: timeout)
        let stderr = child.stderr
        if stderr.contains("WARNING: ThreadSanitizer") {
            let summaries = stderr.split(separator: "\n").filter { $0.contains("SUMMARY: ThreadSanitizer") }
            Issue.record("ThreadSanitizer reported races in payment-sandbox (exit status \(String(describing: status))): \(summaries)",
                         sourceLocation: sourceLocation)
            return
        }
        #expect(status != nil, "still running \(timeout) after the signal; stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(status == nil || status == 0, "exit status \(String(describing: status)); stderr: \(stderr)", sourceLocation: sourceLocation)
        #expect(!child.terminatedBySignal, "killed by the signal instead of stopping", sourceLocation: sourceLocation)
    }

    /// Polls /__sandbox/health until it answers 200.
    static func waitUntilHealthy(port: Int, timeout: Duration = .seconds(3)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let response = try? await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health"), timeout: .seconds(1)),
               response.status == 200 {
                return true
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Runs `body` with a started child; kills it if it is still running afterwards. Runs alone: these
    /// tests hold the process to "exits within a second of SIGTERM".
    static func withChild<T>(_ arguments: [String], environment: [String: String?] = [:], sigtermOnFirstLine: Bool = false,
                             _ body: (ChildProcess) async throws -> T) async throws -> T {
        try await alone {
            let child = try ChildProcess(try binary(), arguments, environment: environment, sigtermOnFirstLine: sigtermOnFirstLine)
            do {
                let result = try await body(child)
                child.kill()
                return result
            } catch {
                child.kill()
                throw error
            }
        }
    }

    /// Runs the CLI to completion.
    static func run(_ arguments: [String], environment: [String: String?] = [:]) async throws -> (status: Int32?, stdout: String, stderr: String) {
        try await ResourceGate.shared { try await ChildProcess.run(try binary(), arguments, environment: environment) }
    }

    @Test("serves on --port 0, prints its address, answers health and exits 0 on SIGTERM within a second")
    func serveAndTerminate() async throws {
        try await Self.withChild(["--port", "0", "--quiet"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(Self.listeningPort(line), "unexpected startup line: \(line)")
            #expect(port > 0)
            #expect(try await Self.waitUntilHealthy(port: port), "health never answered 200")
            let health = try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health"))
            #expect(try health.jsonObject()["version"] as? String == SandboxVersion.current)

            child.terminate()
            try await Self.expectStopsCleanly(child)
            // --quiet: the startup line is all there is on stdout.
            #expect(child.stdout == line + "\n")
            // The port is released.
            do {
                _ = try await RawClient.connect(port: port)
                Issue.record("still accepting connections after exit")
            } catch let error as RawClientError {
                #expect(error.isConnectionRefused)
            }
        }
    }

    @Test("SIGTERM sent as soon as the startup line appears still stops it cleanly with exit status 0")
    func sigtermRightAfterStartupLine() async throws {
        // A supervisor (or a test harness) takes the startup line as "ready". Several tries, because the
        // window between printing the line and handling signals is short.
        for attempt in 0..<10 {
            let outcome: String? = try await Self.withChild(["--port", "0", "--quiet"], sigtermOnFirstLine: true) { child in
                _ = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                guard let status = try await child.waitForExit(timeout: .seconds(30)) else {
                    return "still running 30 s after SIGTERM (the signal was lost)"
                }
                if child.terminatedBySignal { return "killed by signal \(status) instead of stopping gracefully" }
                if child.stderr.contains("WARNING: ThreadSanitizer") { return "ThreadSanitizer reported races (exit status \(status))" }
                return status == 0 ? nil : "exit status \(status); stderr: \(child.stderr)"
            }
            if let outcome {
                Issue.record("attempt \(attempt + 1): SIGTERM right after the startup line: \(outcome)")
                return
            }
        }
    }

    @Test("SIGTERM while a keep-alive client is connected still exits 0 within a second")
    func terminateWithOpenConnection() async throws {
        try await Self.withChild(["--port", "0", "--quiet"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout))
            let port = try #require(Self.listeningPort(line), "unexpected startup line: \(line)")
            #expect(try await Self.waitUntilHealthy(port: port))
            let client = try await RawClient.connect(port: port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await client.readResponse().status == 200)
            child.terminate()
            try await Self.expectStopsCleanly(child)
            try await expectServerCloses(client, within: .seconds(1))
        }
    }

    @Test("without --quiet each request is logged on stdout")
    func requestLog() async throws {
        try await Self.withChild(["--port", "0"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout))
            let port = try #require(Self.listeningPort(line), "unexpected startup line: \(line)")
            #expect(try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health")).status == 200)
            let deadline = ContinuousClock.now + .seconds(30)
            while !child.stdout.contains("GET /__sandbox/health 200"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(child.stdout.contains("GET /__sandbox/health 200"), "stdout: \(child.stdout)")
            child.terminate()
            try await Self.expectStopsCleanly(child)
        }
    }

    @Test("an unknown flag exits 2 with a one-line reason and the usage on stderr")
    func unknownFlag() async throws {
        let result = try await Self.run(["--bogus"])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "payment-sandbox: unknown option '--bogus'", "stderr: \(result.stderr)")
        #expect(result.stderr.contains("usage: payment-sandbox"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("bad values exit 2 naming the flag or variable", arguments: [
        (["--port", "70000"], [String: String?](), "--port"),
        (["--port"], [:], "--port needs a value"),
        (["--max-connections", "0"], [:], "--max-connections"),
        ([], ["PAYMENT_SANDBOX_PORT": "http"], "PAYMENT_SANDBOX_PORT"),
        (["frobnicate"], [:], "unknown command 'frobnicate'"),
        (["--public-url", "localhost:8443"], [:], "--public-url must be an http or https URL"),
        ([], ["PAYMENT_SANDBOX_PUBLIC_URL": "ftp://x"], "PAYMENT_SANDBOX_PUBLIC_URL"),
    ])
    func badValues(arguments: [String], environment: [String: String?], mentions: String) async throws {
        let result = try await Self.run(arguments, environment: environment)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.contains(mentions) == true, "stderr: \(result.stderr)")
    }

    @Test("--public-url is the base of every Swedbank Pay href, whatever Host says")
    func publicURL() async throws {
        try await Self.withChild(["--port", "0", "--quiet", "--public-url", "https://pay.example.test:8443/"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(Self.listeningPort(line))
            let body = #"{"paymentorder":{"operation":"Purchase","currency":"SEK","amount":1500,"vatAmount":0,"description":"x","#
                + #""userAgent":"cli","language":"sv-SE","urls":{"hostUrls":["https://example.com"],"completeUrl":"https://example.com/done"},"#
                + #""payeeInfo":{"payeeId":"5cabf558-5283-482f-b252-4d58e06f6f3b","payeeReference":"cli1"}}}"#
            let response = try await RawClient.exchange(port: port, "POST /psp/paymentorders HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Authorization: Bearer cli\r\nContent-Type: application/json;version=3.1\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Connection: close\r\n\r\n\(body)")
            #expect(response.status == 200, "\(response)")
            let operations = try #require(try response.jsonObject()["operations"] as? [[String: Any]])
            let hrefs = operations.compactMap { $0["href"] as? String }
            #expect(hrefs.count >= 4)
            #expect(hrefs.allSatisfy { $0.hasPrefix("https://pay.example.test:8443/") }, "\(hrefs)")
        }
    }

    @Test("a port in use exits 1 saying so")
    func portInUse() async throws {
        try await withSandbox { server in
            let result = try await Self.run(["--port", String(server.port), "--quiet"])
            #expect(result.status == 1, "stdout: \(result.stdout) stderr: \(result.stderr)")
            #expect(result.stderr.contains("port \(server.port) on 127.0.0.1 is already in use"), "stderr: \(result.stderr)")
            #expect(!result.stdout.contains("listening"))
        }
    }

    @Test("--version prints the version")
    func version() async throws {
        let result = try await Self.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "payment-sandbox \(SandboxVersion.current)\n")
    }

    @Test("--help prints the usage and exits 0")
    func help() async throws {
        let result = try await Self.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: payment-sandbox"))
    }

    @Test("healthcheck exits 0 against a running sandbox and 1 against a closed port")
    func healthcheck() async throws {
        let closedPort = try await withSandbox { server in
            let healthy = try await Self.run(["healthcheck", "--port", String(server.port)])
            #expect(healthy.status == 0, "stderr: \(healthy.stderr)")
            #expect(healthy.stderr.contains("200"), "stderr: \(healthy.stderr)")
            return server.port
        }
        // The sandbox above has stopped: nothing listens there any more.
        let unhealthy = try await Self.run(["healthcheck", "--port", String(closedPort), "--timeout", "1"])
        #expect(unhealthy.status == 1, "stderr: \(unhealthy.stderr)")
        #expect(unhealthy.stderr.contains("cannot connect"), "stderr: \(unhealthy.stderr)")
    }

    @Test("PAYMENT_SANDBOX_PORT chooses the port; a --port flag wins over it")
    func portFromEnvironment() async throws {
        // A port that was free a moment ago: the one a stopped sandbox had.
        let port = try await withSandbox { $0.port }
        try await Self.withChild(["--quiet"], environment: ["PAYMENT_SANDBOX_PORT": String(port)]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            #expect(Self.listeningPort(line) == port, "\(line)")
            #expect(try await Self.waitUntilHealthy(port: port))
            child.terminate()
            try await Self.expectStopsCleanly(child)
        }
        try await Self.withChild(["--port", "0", "--quiet"], environment: ["PAYMENT_SANDBOX_PORT": "1"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let chosen = try #require(Self.listeningPort(line), "\(line)")
            #expect(chosen != 1)
            #expect(try await Self.waitUntilHealthy(port: chosen))
            child.terminate()
            try await Self.expectStopsCleanly(child)
        }
    }

    @Test("SIGINT stops it too")
    func interrupt() async throws {
        try await Self.withChild(["--port", "0", "--quiet"]) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout))
            let port = try #require(Self.listeningPort(line))
            #expect(try await Self.waitUntilHealthy(port: port))
            child.interrupt()
            try await Self.expectStopsCleanly(child)
        }
    }
}
