// SPDX-License-Identifier: MIT
// Graceful stop, several servers at once, ports in use.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxScenarios
import SwedbankPaySandbox
import SandboxHTTP
import Testing

/// Counts handler starts so a test knows a request is in flight.
final class Counter: Sendable {
    private let events = EventCount()
    func increment() { events.add() }
    var current: Int { events.count }

    /// Waits until the count reaches `target` (woken by the increment that reaches it), at most `timeout`.
    func wait(for target: Int, timeout: Duration = .seconds(120)) async throws -> Bool {
        await events.wait(for: target, limit: timeout)
    }
}

@Suite("Lifecycle")
struct LifecycleTests {
    /// The request is held in its handler until stop() has begun (the server no longer reports a port), so that it
    /// is in flight when the stop comes, however long a loaded machine takes to start the stopping task. stop()
    /// queues the stop for the loop right after the port goes, long before the released handler's answer can reach
    /// it; one event loop, so both go through the same queue.
    @Test("stop() lets an in-flight request finish with Connection: close, then refuses new connections")
    func gracefulStop() async throws {
        let started = Counter(), released = EventCount()
        var router = TestRoutes.router()
        router.add("GET /held") { request in
            started.increment()
            _ = await released.wait(for: 1)
            return .text("held \(request.target)")
        }
        try await withServer(router, alone: true, { $0.eventLoopCount = 1 }) { server, running in
            let client = try await RawClient.connect(port: running.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/held"))
            #expect(try await started.wait(for: 1), "the handler never started")

            let clock = ContinuousClock()
            let stopper = Task { await server.stop(); return clock.now }
            let deadline = clock.now + .seconds(120)
            while server.port != nil, clock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
            #expect(server.port == nil, "stop() never began")
            let releasedAt = clock.now
            released.add()

            let response = try await client.readResponse(timeout: .seconds(30))
            #expect(response.status == 200)
            #expect(response.bodyText == "held /held")
            #expect(response.closesConnection, "the last answer before stopping must say Connection: close: \(response.rawHead)")
            expectWellFramed(response)
            try await expectServerCloses(client)

            let stopReturned = await stopper.value
            #expect(releasedAt.duration(to: stopReturned) < .milliseconds(1500), "stop() took \(releasedAt.duration(to: stopReturned)) after the answer")
            #expect(server.port == nil)
            do {
                let late = try await RawClient.connect(port: running.port)
                late.close()
                Issue.record("a connection was accepted after stop() returned")
            } catch let error as RawClientError {
                #expect(error.isConnectionRefused, "\(error)")
            }
        }
    }

    @Test("stop() closes idle keep-alive connections at once")
    func stopClosesIdleConnections() async throws {
        // A long grace period: stop() must not wait for it when nothing is in flight.
        try await withSandboxInstance(alone: true, { $0.http.shutdownGracePeriod = .seconds(5) }) { sandbox, server in
            let port = server.port
            let client = try await RawClient.connect(port: port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await client.readResponse().status == 200)
            let silent = try await RawClient.connect(port: port)
            defer { silent.close() }
            let (_, elapsed) = await measure { await sandbox.stop() }
            #expect(elapsed < .seconds(2), "stop() with only idle connections took \(elapsed) (grace period 5 s)")
            #expect(sandbox.baseURL == nil)
            try await expectServerCloses(client, within: .seconds(1))
            // The silent connection may not have been accepted yet when the listener closed; the kernel
            // then resets it. Either way it must not stay open.
            let observation = try await silent.readUntilClose(timeout: .seconds(1))
            #expect(observation == .closed(received: []) || observation == .reset(received: []), "\(observation)")
        }
    }

    @Test("a handler slower than the grace period is cut off with 503, Retry-After and Connection: close; stop() returns promptly")
    func stopCutsOffSlowHandler() async throws {
        let started = Counter()
        try await withServer(TestRoutes.router(onSlowStart: { started.increment() }), alone: true, { $0.shutdownGracePeriod = .milliseconds(300) }) { server, running in
            let client = try await RawClient.connect(port: running.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/slow?ms=5000"))
            #expect(try await started.wait(for: 1))
            let (_, elapsed) = await measure { await server.stop() }
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(3), "stop() took \(elapsed) with a 300 ms grace period")
            // Received before the stop, so answered: 503 in place of the answer that did not come in time.
            let response = try await client.readResponse(timeout: .seconds(1))
            #expect(response.status == 503, "\(response)")
            #expect(response.header("Retry-After") == "1", "\(response.rawHead)")
            #expect(response.closesConnection, "\(response.rawHead)")
            expectWellFramed(response)
            try await expectServerCloses(client, within: .seconds(1))
        }
    }

    @Test("stop() can be called twice and concurrently")
    func stopIsIdempotent() async throws {
        try await withSandboxInstance { sandbox, _ in
            async let first: Void = sandbox.stop()
            async let second: Void = sandbox.stop()
            _ = await (first, second)
            await sandbox.stop()
            #expect(sandbox.baseURL == nil)
        }
    }

    @Test("two sandboxes at once: different ports, independent")
    func twoSandboxes() async throws {
        try await withSandbox { first in
            try await withSandboxInstance({ $0.http.maxConnections = 1 }) { secondSandbox, second in
                #expect(first.port != second.port)
                // Both answer; then the second one's connection cap (1) is reached and the first one is not affected.
                let held = try await RawClient.connect(port: second.port)
                defer { held.close() }
                try await held.send(rawRequest("GET", "/__sandbox/echo"))
                #expect(try await held.readResponse().status == 200)
                #expect(try await RawClient.exchange(port: first.port, rawRequest("GET", "/__sandbox/health")).status == 200)
                #expect(try await RawClient.exchange(port: second.port, rawRequest("GET", "/__sandbox/health")).status == 503)
                #expect(try await RawClient.exchange(port: first.port, rawRequest("GET", "/__sandbox/health")).status == 200)
                // Stopping the second leaves the first serving.
                await secondSandbox.stop()
                try await expectServerCloses(held, within: .seconds(1))
                do {
                    _ = try await RawClient.connect(port: second.port)
                    Issue.record("the stopped sandbox still accepts connections")
                } catch let error as RawClientError {
                    #expect(error.isConnectionRefused)
                }
                #expect(try await RawClient.exchange(port: first.port, rawRequest("GET", "/__sandbox/health")).status == 200)
            }
        }
    }

    @Test("starting a second server on a port in use throws addressInUse")
    func portInUse() async throws {
        try await withSandbox { server in
            let clash = HTTPServer(configuration: HTTPServerConfiguration(port: server.port), router: Router())
            #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: server.port)) { try clash.start() }
            #expect(clash.port == nil)

            let sandboxClash = PaymentSandbox(configuration: SandboxConfiguration(port: server.port))
            #expect(throws: HTTPServerError.addressInUse(host: "127.0.0.1", port: server.port)) { try sandboxClash.start() }
            #expect(sandboxClash.baseURL == nil)
            await sandboxClash.stop()  // harmless on a server that never started

            // The first one is unaffected.
            let health = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health"))
            #expect(health.status == 200)
        }
    }

    @Test("start() on a running server throws alreadyStarted")
    func startTwice() async throws {
        try await withServer(Router()) { server, running in
            #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
            #expect(server.port == running.port)
        }
    }

    @Test("the port can be bound again right after stop()")
    func portReusableAfterStop() async throws {
        try await withSandboxInstance { first, server in
            let port = server.port
            // Leave a connection behind in TIME_WAIT on the server side.
            #expect(try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health", headers: [("Connection", "close")])).status == 200)
            await first.stop()
            try await withSandbox({ $0.port = port }) { second in
                #expect(second.port == port)
                let health = try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health"))
                #expect(health.status == 200)
            }
        }
    }
}
