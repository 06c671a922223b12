// SPDX-License-Identifier: MIT
// The outbox's costs measured on a CLI-started sandbox, a process of its own: CPU while late callbacks wait, memory
// while a callback endpoint answers without end.
import Foundation
import PaymentSandbox
import SandboxScenarios
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What /proc says of another process.
enum ChildResources {
    /// CPU time (user and system) the process used so far.
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "(comm)": state is field 3, utime 14, stime 15 (proc(5)).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident set size, in bytes.
    static func residentBytes(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kibibytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kibibytes * 1024
    }
}

extension CLITests {
    /// Like ``withListening(_:environment:_:)``, also handing over the child (to measure it).
    static func withListeningChild<T>(_ arguments: [String], _ body: (ChildProcess, RunningServer) async throws -> T) async throws -> T {
        try await withChild(["--port", "0", "--quiet"] + arguments) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(listeningPort(line), "\(line)")
            let result = try await body(child, RunningServer(port: port, inProcess: nil))
            child.terminate()
            try await expectStopsCleanly(child)
            return result
        }
    }

    @Test("1,000 late callbacks (800 evicted from an outbox of 200) leave the sandbox idle: under 20% of a core over 2 s; the evicted are never sent")
    func lateCallbacks_LeaveTheSandboxIdle() async throws {
        try await Self.withListeningChild(["--callback-outbox", "200", "--callback-outbox-per-namespace", "5000"]) { child, server in
            let listener = MerchantListener()
            try await withServer(listener.router) { _, hooks in
                let client = KlarnaClient(server, namespace: "idle-late")
                try await client.useScenario("callback-late")
                for _ in 0..<500 {   // each paid HPP session: IN_PROGRESS and COMPLETED, 300 s late
                    let id = try await CallbackOutboxTests.hppSession(client, hooks: hooks)
                    let paid = try await KlarnaHPP.act(server, id, "pay")
                    try #require(paid.status == 303, "\(paid)")
                }
                let listing = try await client.get("/__sandbox/callbacks?limit=1000").jsonObject()
                let callbacks = try #require(listing["callbacks"] as? [[String: Any]])
                #expect(listing["evicted"] as? Int == 800 && callbacks.count == 200 && Set(states(callbacks)) == ["pending"], "\(listing["evicted"] ?? "-")")

                let pid = child.processIdentifier
                let before = try #require(ChildResources.cpuSeconds(pid))
                let clock = ContinuousClock(), start = clock.now
                try await Task.sleep(for: .seconds(2))   // the interval measured, not a wait for something
                let used = try #require(ChildResources.cpuSeconds(pid)) - before
                let wall = (clock.now - start) / .seconds(1)
                #expect(used < 0.2 * wall, "the idle sandbox used \(used) s of CPU in \(wall) s")

                try await client.advanceClock(seconds: 300)
                _ = try await listener.wait(for: 200)
                _ = try await client.outbox.wait("(200 delivered)") { states($0).count == 200 && Set(states($0)) == ["delivered"] }
                let sent = try await client.journal("method=CALLBACK&limit=5000")
                #expect(sent.count == 200, "\(sent.count) calls: the evicted callbacks must not be sent")
                #expect(listener.received.count == 200)
            }
        }
    }

    @Test("Deliveries to an endless body keep the sandbox's memory flat: 5 of them, each answered with a 4 KiB prefix")
    func endlessAnswers_KeepTheMemoryFlat() async throws {
        try await Self.withListeningChild([]) { child, server in
            let listener = MerchantListener()
            try await withServer(listener.router) { _, hooks in
                let client = KlarnaClient(server, namespace: "endless")
                let id = try await CallbackOutboxHostileEndpointTests.heldCallback(client, hooks: hooks)
                try await withHostileEndpoint { endpoint in
                    let pid = child.processIdentifier
                    // One delivery first: what any first call loads (the client's code paths) is not growth.
                    _ = try await client.outbox.deliver(id, #"{"url": "\#(endpoint.url("/endless"))"}"#)
                    let before = try #require(ChildResources.residentBytes(pid))
                    for round in 1...5 {
                        let response = try await client.outbox.deliver(id, #"{"url": "\#(endpoint.url("/endless"))"}"#)
                        let attempt = try #require(try response.jsonObject()["attempt"] as? [String: Any], "\(response)")
                        #expect(attempt["status"] as? Int == 200
                                && (attempt["answer"] as? String)?.unicodeScalars.count == CallbackHTTPClient.answerPrefixBytes, "round \(round)")
                    }
                    try await CallbackOutboxHostileEndpointTests.eventually("every endless writer stops") { endpoint.connectionsEnded("/endless") == 6 }
                    let grown = try #require(ChildResources.residentBytes(pid)) - before
                    #expect(grown < 32 << 20, "RSS grew by \(grown >> 20) MiB")
                    #expect(endpoint.bytesWritten("/endless") < 6 * (32 << 20), "the endpoint got \(endpoint.bytesWritten("/endless") >> 20) MiB out")
                }
            }
        }
    }
}
