// SPDX-License-Identifier: MIT
// Descriptors and threads do not grow with start/stop cycles or with connections the server ends.
// These tests count process-wide resources, so they hold the resource gate exclusively: no other
// end-to-end test runs while they measure.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

@Suite("Resource leaks", .serialized)
struct ResourceLeakTests {
    struct Counts: CustomStringConvertible {
        var descriptors: Int
        var threads: Int
        var description: String { "\(descriptors) descriptors, \(threads) threads" }
    }

    static func counts() throws -> Counts {
        Counts(descriptors: try #require(ProcessResources.openDescriptorCount(), "cannot list /proc/self/fd"),
               threads: try #require(ProcessResources.threadCount(), "cannot list /proc/self/task"))
    }

    /// Waits (up to `timeout`) for threads that are exiting and sockets that are closing to go away,
    /// and returns the counts once they are at or below `limit`, or the last counts seen.
    static func settledCounts(atMost limit: Counts? = nil, timeout: Duration = .seconds(2)) async throws -> Counts {
        let deadline = ContinuousClock.now + timeout
        var last = try counts()
        var stableRounds = 0
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            let now = try counts()
            if let limit, now.descriptors <= limit.descriptors, now.threads <= limit.threads { return now }
            stableRounds = now.descriptors == last.descriptors && now.threads == last.threads ? stableRounds + 1 : 0
            last = now
            if limit == nil && stableRounds >= 5 { return now }
        }
        return last
    }

    /// One start/stop cycle, with a keep-alive connection left open across stop() when `withConnection`.
    static func cycle(withConnection: Bool) async throws {
        try await withSandboxInstance { sandbox, server in
            guard withConnection else { return }
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await client.readResponse().status == 200)
            await sandbox.stop()
            try await expectServerCloses(client, within: .seconds(1))
        }
    }

    @Test("200 start/stop cycles leave descriptors and threads where they were")
    func startStopCycles() async throws {
        try await ResourceGate.exclusive {
            // Warm up: the concurrency pool, Foundation's threads, lazily opened files.
            for index in 0..<3 { try await Self.cycle(withConnection: index % 2 == 0) }
            let baseline = try await Self.settledCounts()

            let clock = ContinuousClock()
            let started = clock.now
            for index in 0..<200 { try await Self.cycle(withConnection: index % 2 == 0) }
            let elapsed = started.duration(to: clock.now)

            let slack = Counts(descriptors: baseline.descriptors + 3, threads: baseline.threads + 4)
            let after = try await Self.settledCounts(atMost: slack)
            #expect(after.descriptors <= slack.descriptors,
                    "descriptors grew from \(baseline.descriptors) to \(after.descriptors) over 200 cycles: \(ProcessResources.descriptorTargets())")
            #expect(after.threads <= slack.threads,
                    "threads grew from \(baseline.threads) to \(after.threads) over 200 cycles: \(ProcessResources.threadNames())")
            #expect(elapsed < .seconds(20), "200 cycles took \(elapsed)")
        }
    }

    @Test("connections the server ends (timeouts, errors, Connection: close, cap) release their descriptors while it runs")
    func connectionsReleaseDescriptors() async throws {
        try await ResourceGate.exclusive {
            try await withSandbox({
                $0.http.headTimeout = .milliseconds(300)
                $0.http.idleTimeout = .milliseconds(300)
                $0.http.bodyIdleTimeout = .milliseconds(300)
                $0.http.limits.maxBodyBytes = 100
                $0.http.maxConnections = 4
            }) { server in
                // Warm up once through every path, then take the baseline with the server running.
                try await Self.misbehave(port: server.port)
                let baseline = try await Self.settledCounts()
                for _ in 0..<10 { try await Self.misbehave(port: server.port) }
                let slack = Counts(descriptors: baseline.descriptors + 2, threads: baseline.threads + 4)
                let after = try await Self.settledCounts(atMost: slack, timeout: .seconds(3))
                #expect(after.descriptors <= slack.descriptors,
                        "descriptors grew from \(baseline.descriptors) to \(after.descriptors): \(ProcessResources.descriptorTargets())")
                #expect(after.threads <= slack.threads, "threads grew from \(baseline.threads) to \(after.threads)")
                #expect(try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health")).status == 200)
            }
        }
    }

    /// An exchange that retries while the connection cap (4) refuses it: connections the previous steps
    /// closed may not have been seen gone by the server yet (a busy machine), and a 503 then is the cap
    /// working, not the path under test.
    static func exchangeBelowCap(port: Int, _ request: String) async throws -> RawResponse {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let response = try await RawClient.exchange(port: port, request)
            if response.status != 503 || ContinuousClock.now >= deadline { return response }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// One connection ending each way the server can end it; every client socket is closed afterwards.
    static func misbehave(port: Int) async throws {
        // Malformed.
        let malformed = try await RawClient.connect(port: port, sending: "GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n")
        let refusal = try await malformed.readResponse()
        #expect(refusal.status == 400, "\(refusal)")
        _ = try await malformed.readUntilClose(timeout: .seconds(5))
        malformed.close()
        // Connection: close.
        let closing = try await exchangeBelowCap(port: port, rawRequest("GET", "/__sandbox/health", headers: [("Connection", "close")]))
        #expect(closing.status == 200, "\(closing)")
        // 413.
        let tooLarge = try await exchangeBelowCap(port: port, "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
        #expect(tooLarge.status == 413, "\(tooLarge)")
        // Head, idle and body timeouts, at the same time.
        let silent = try await RawClient.connect(port: port)
        let idle = try await RawClient.connect(port: port, sending: rawRequest("GET", "/__sandbox/health"))
        _ = try await idle.readResponse()
        let stalled = try await RawClient.connect(port: port, sending: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        for client in [silent, idle, stalled] {
            _ = try await client.readUntilClose(timeout: .seconds(5))
            client.close()
        }
        // A client that disconnects in the middle of a head.
        let quitter = try await RawClient.connect(port: port)
        try await quitter.send("GET /__sandbox/health HTTP/1.1\r\nHo")
        quitter.close()
        // Over the cap (4): some of six keep-alive clients are refused.
        var holders: [RawClient] = []
        var refused = 0
        for _ in 0..<6 {
            let client = try await RawClient.connect(port: port, sending: rawRequest("GET", "/__sandbox/health"))
            holders.append(client)
            if try await client.readResponse().status == 503 { refused += 1 }
        }
        #expect(refused >= 2)
        holders.forEach { $0.close() }
        // Wait until the server has seen them go, so the next round starts below the cap.
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let probe = try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health", headers: [("Connection", "close")]))
            if probe.status == 200 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
