// SPDX-License-Identifier: MIT
// A FIFO in a scenario directory: validate and serve used to hang in open(2) (deaf to SIGTERM), POST reload never
// answered and blocked its event loop, the watcher stopped for good. Now the FIFO is a problem naming it, reloads
// read files on a queue of their own, and a loading validate or serve ends on SIGTERM/SIGINT.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Scenario directories: FIFOs, stuck file systems, signals while loading")
struct ScenarioSpecialFileTests {
    static func fifo(_ directory: ScenarioDirectory, _ name: String) throws {
        let path = directory.url.appendingPathComponent(name).path
        try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path): errno \(errno)")
    }

    static func fifoProblem(_ directory: ScenarioDirectory, _ name: String) -> String {
        "\(directory.shown(name)): not a regular file (a FIFO); not read"
    }

    @Test("validate DIR with a FIFO in it exits 1 within seconds, naming the FIFO")
    func validateNamesTheFIFO() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("mine.json", scenarioFile("e2e-beside-a-fifo", rules: []))
            try Self.fifo(directory, "stuck.json")
            let validated = try await runCLI(["validate", directory.url.path], workingDirectory: ScenarioPaths.packageRoot,
                                             timeout: .seconds(20))
            #expect(validated.status == 1, "exit status \(String(describing: validated.status)) (nil: still running after 20 s)")
            #expect(validated.stderr == Self.fifoProblem(directory, "stuck.json") + "\n1 problem found\n", "\(validated.stderr)")
        }
    }

    @Test("serve --scenarios DIR with a FIFO in it refuses to start within seconds, naming the FIFO, as for an invalid file")
    func serveNamesTheFIFO() async throws {
        try await withScenarioDirectory { directory in
            try Self.fifo(directory, "stuck.json")
            let served = try await runCLI(["--port", "0", "--quiet", "--scenarios", directory.url.path],
                                          workingDirectory: ScenarioPaths.packageRoot, timeout: .seconds(20))
            #expect(served.status == 1, "exit status \(String(describing: served.status)) (nil: still running after 20 s)")
            #expect(served.stderr == Self.fifoProblem(directory, "stuck.json")
                    + "\npayment-sandbox: not starting: 1 problem in the scenario files\n", "\(served.stderr)")
            #expect(!served.stdout.contains("listening"))
        }
    }

    /// The reload's file work is held up by a stuck file system (the engine's file queue blocked in open(2) of a FIFO
    /// with no writer, as the old reload blocked on the FIFO in the directory): health requests are answered all the
    /// while; once it is free the reload answers, naming the FIFO in the directory.
    @Test("POST reload with a FIFO answers 422 naming it; while the files are stuck, 12 health requests are answered",
          .timeLimit(.minutes(5)))
    func reloadWhileTheFilesAreStuck() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("flip.json", ScenarioControlReloadTests.rejecting)
            try await withScenarioSandbox(bundled: false, extra: [directory.url]) { sandbox, server in
                try Self.fifo(directory, "stuck.json")
                let gate = directory.url.deletingLastPathComponent().appendingPathComponent("gate-\(UUID().uuidString)").path
                try #require(mkfifo(gate, 0o600) == 0)
                defer { unlink(gate) }
                let blocked = Locked(false)
                let stuck = Task {
                    await sandbox.scenarios.onFileQueue {
                        blocked.withLock { $0 = true }
                        let fd = open(gate, O_RDONLY)   // blocks until the test opens the other end
                        if fd >= 0 { close(fd) }
                    }
                }
                /// Opens the gate's write end (it succeeds only once the queue is in open(2)): the queue goes on.
                func release() async throws {
                    let deadline = ContinuousClock.now + .seconds(60)
                    while ContinuousClock.now < deadline {
                        let fd = open(gate, O_WRONLY | O_NONBLOCK)
                        if fd >= 0 { close(fd); return }
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    Issue.record("the file queue never reached the gate")
                }
                let deadline = ContinuousClock.now + .seconds(60)
                while !blocked.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                try #require(blocked.withLock { $0 }, "the file queue never ran the blocking work")

                let answered = Locked(false)
                let reload = Task {
                    defer { answered.withLock { $0 = true } }
                    return try await RawClient.exchange(port: server.port, rawRequest("POST", "/__sandbox/scenarios/reload"),
                                                        timeout: .seconds(20))
                }
                for index in 0..<12 {
                    let health = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health"), timeout: .seconds(5))
                    #expect(health.status == 200, "health request \(index): \(health)")
                }
                #expect(!answered.withLock { $0 }, "the reload answered while its files were stuck")
                try await release()
                await stuck.value
                let response = try await reload.value
                expectJSON(response, status: 422, """
                    {"error": "Unprocessable Content", "status": 422,
                     "message": "the scenario files have problems; the previous set stays loaded",
                     "problems": \(KlarnaExamples.jsonText([Self.fifoProblem(directory, "stuck.json")]))}
                    """)
                try directory.remove("stuck.json")
                let fixed = try await RawClient.exchange(port: server.port, rawRequest("POST", "/__sandbox/scenarios/reload"))
                #expect(fixed.status == 200, "\(fixed)")
            }
        }
    }

    @Test("the watcher reports a FIFO that appears, forgets it when it goes, and still picks up a changed file",
          .timeLimit(.minutes(5)))
    func watcherOutlivesAFIFO() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("flip.json", ScenarioControlReloadTests.rejecting)
            try await withScenarioSandbox(bundled: false, extra: [directory.url], watch: .milliseconds(100)) { _, server in
                let client = KlarnaClient(server, namespace: uniqueNamespace("watch-fifo"))
                /// Polls GET /__sandbox/scenarios for up to 10 s until `done` holds.
                func eventually(_ what: String, _ done: ([String: Any]) -> Bool) async throws {
                    let deadline = ContinuousClock.now + .seconds(60)
                    var last: [String: Any] = [:]
                    while ContinuousClock.now < deadline {
                        last = try await client.scenarioList()
                        if done(last) { return }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                    Issue.record("not within 10 s: \(what); last listing: \(last)")
                }
                func description(_ list: [String: Any]) -> String? {
                    (list["scenarios"] as? [[String: Any]])?.first?["description"] as? String
                }

                try Self.fifo(directory, "stuck.json")
                try await eventually("the FIFO reported") { ($0["reload_problems"] as? [String]) == [Self.fifoProblem(directory, "stuck.json")] }
                expectKlarnaError(try await ScenarioControlReloadTests.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])

                try directory.remove("stuck.json")
                try await eventually("the FIFO gone") { ($0["reload_problems"] as? [String]) == [] }
                try directory.write("flip.json", ScenarioControlReloadTests.pending)
                try await eventually("the changed file") { description($0) == "Create order is pending, after the change." }
            }
        }
    }

    // MARK: Signals while loading

    /// Starts the executable with the test-only pause before it loads anything and waits until it pauses.
    static func pausedWhileLoading(_ arguments: [String]) async throws -> ChildProcess {
        let child = try ChildProcess(try CLITests.binary(), arguments, environment: ["PAYMENT_SANDBOX_TEST_START_PAUSE": "120"],
                                     workingDirectory: ScenarioPaths.packageRoot)
        let deadline = ContinuousClock.now + ChildProcess.startupTimeout
        while !child.stderr.contains("test pause:"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(child.stderr.contains("payment-sandbox: test pause: loading in 120.0 s"), "it never paused; stderr: \(child.stderr)")
        return child
    }

    @Test("SIGTERM to a validate still loading ends it within seconds: exit 143, saying so")
    func sigtermWhileValidating() async throws {
        try await ResourceGate.shared {
            let child = try await Self.pausedWhileLoading(["validate", "scenarios"])
            defer { child.kill() }
            child.terminate()
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 143, "exit status \(String(describing: status)) (nil: still running after 60 s); stderr: \(child.stderr)")
            #expect(child.stderr.hasSuffix("payment-sandbox: validate: SIGTERM received, stopping\n"), "\(child.stderr)")
            #expect(child.stdout.isEmpty)
        }
    }

    @Test("SIGINT to a serve still starting ends it within seconds: exit 130, not started")
    func sigintWhileStarting() async throws {
        try await ResourceGate.shared {
            let child = try await Self.pausedWhileLoading(["--port", "0", "--quiet"])
            defer { child.kill() }
            child.interrupt()
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 130, "exit status \(String(describing: status)) (nil: still running after 60 s); stderr: \(child.stderr)")
            #expect(child.stderr.hasSuffix("payment-sandbox: SIGINT received while starting; not started\n"), "\(child.stderr)")
            #expect(!child.stdout.contains("listening"))
        }
    }
}
