// SPDX-License-Identifier: MIT
// GET /__sandbox/journal/wait and /__sandbox/callbacks/wait: held until a match comes, 408 on timeout, counted
// against the connection cap, ended by stop.
import Foundation
@testable import PaymentSandbox
import SandboxCore
import SandboxTestSupport
import Testing

@Suite("Waiting without sleeping")
struct WaitTests {
    /// Until `condition` holds (the server has taken a wait in), within `limit`.
    static func until(_ what: String, within limit: Duration = .seconds(10), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(what) did not happen within \(limit)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    static func waitRequest(_ target: String, namespace: String) -> String {
        rawRequest("GET", target, headers: [("Sandbox-Namespace", namespace)])
    }

    @Test("a match already journaled answers at once")
    func existingMatch() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("wait-now")
            let klarna = KlarnaClient(server, namespace: namespace)
            #expect(try await klarna.createSession().status == 200)
            let response = try await RawClient.exchange(port: server.port, Self.waitRequest(
                "/__sandbox/journal/wait?method=POST&path=/payments/v1/sessions&body.order_lines%5B0%5D.quantity=1&timeout=5",
                namespace: namespace))
            #expect(response.status == 200)
            let entry = try #require(try response.jsonObject()["entry"] as? [String: Any])
            #expect(entry["path"] as? String == "/payments/v1/sessions")
            #expect(entry["status"] as? Int == 200)
        }
    }

    @Test("a held wait answers as soon as the matching request is journaled")
    func heldUntilMatch() async throws {
        try await withSandboxInstance { sandbox, server in
            let namespace = uniqueNamespace("wait-held")
            let waiter = try await RawClient.connect(port: server.port)
            defer { waiter.close() }
            try await waiter.send(Self.waitRequest("/__sandbox/journal/wait?path=/payments/v1/sessions/%7Bid%7D&timeout=20", namespace: namespace))
            try await Self.until("the wait is held") { sandbox.journal.heldWaits == 1 }
            let klarna = KlarnaClient(server, namespace: namespace)
            let id = try await klarna.newSession()
            // Another namespace's call does not end it; this one's read of the session does.
            _ = try await KlarnaClient(server, namespace: uniqueNamespace("other")).readSession(id)
            #expect(try await klarna.readSession(id).status == 200)
            let response = try await waiter.readResponse(timeout: .seconds(10))
            #expect(response.status == 200)
            let entry = try #require(try response.jsonObject()["entry"] as? [String: Any])
            #expect(entry["path"] as? String == "/payments/v1/sessions/\(id)")
            #expect(entry["status"] as? Int == 200)
            #expect(sandbox.journal.heldWaits == 0)
        }
    }

    @Test("no match within the timeout: 408 in the control API's format, with the nearest misses")
    func timeout() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("wait-timeout")
            #expect(try await KlarnaClient(server, namespace: namespace).createSession().status == 200)
            let response = try await RawClient.exchange(port: server.port, Self.waitRequest(
                "/__sandbox/journal/wait?method=POST&path=/payments/v1/sessions&body.purchase_country=SE&timeout=0.2", namespace: namespace))
            #expect(response.status == 408)
            let json = try response.jsonObject()
            #expect(json["error"] as? String == "Request Timeout")
            #expect(json["status"] as? Int == 408)
            #expect(json["timeout_seconds"] as? Double == 0.2)
            let misses = try #require(json["near_misses"] as? [[String: Any]])
            #expect(misses.first?["reasons"] as? [String] == [#"body field `purchase_country` was "GB", wanted "SE""#])
        }
    }

    @Test("a bad timeout or pattern is a 400")
    func badQuery() async throws {
        try await withSandbox { server in
            let tooLong = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/journal/wait?timeout=31"))
            #expect(tooLong.status == 400)
            #expect(try tooLong.jsonObject()["message"] as? String == #"timeout must be a number of seconds from 0 to 30, not "31""#)
            let unknown = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/callbacks/wait?colour=red"))
            #expect(unknown.status == 400)
            #expect((try unknown.jsonObject()["message"] as? String)?.contains(#"unknown field "colour""#) == true)
        }
    }

    @Test("a held callback wait answers when a matching callback is made")
    func callbackWait() async throws {
        try await withSandboxInstance { sandbox, server in
            let namespace = uniqueNamespace("wait-cb")
            let waiter = try await RawClient.connect(port: server.port)
            defer { waiter.close() }
            try await waiter.send(Self.waitRequest("/__sandbox/callbacks/wait?object=o2&body.status=paid&timeout=20", namespace: namespace))
            try await Self.until("the wait is held") { sandbox.outbox.heldWaits == 1 }
            _ = sandbox.outbox.add(Namespace(namespace), object: "o2", operation: "test.callback", description: "unpaid",
                                   url: "http://127.0.0.1:1/cb", headers: [], body: Data(#"{"status":"unpaid"}"#.utf8), state: .pending)
            let id = sandbox.outbox.add(Namespace(namespace), object: "o2", operation: "test.callback", description: "paid",
                                        url: "http://127.0.0.1:1/cb", headers: [], body: Data(#"{"status":"paid"}"#.utf8), state: .pending)
            let response = try await waiter.readResponse(timeout: .seconds(10))
            #expect(response.status == 200)
            let callback = try #require(try response.jsonObject()["callback"] as? [String: Any])
            #expect(callback["id"] as? String == id)
        }
    }

    @Test("a held wait counts against the connection cap")
    func connectionCap() async throws {
        try await withSandboxInstance({ $0.http.maxConnections = 1 }) { sandbox, server in
            let waiter = try await RawClient.connect(port: server.port)
            defer { waiter.close() }
            try await waiter.send(rawRequest("GET", "/__sandbox/journal/wait?path=/never&timeout=20"))
            try await Self.until("the wait is held") { sandbox.journal.heldWaits == 1 }
            let refused = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health"), timeout: .seconds(5))
            #expect(refused.status == 503)
        }
    }

    @Test("stop ends a held wait like any request in flight")
    func stopEndsWait() async throws {
        try await withSandboxInstance { sandbox, server in
            let waiter = try await RawClient.connect(port: server.port)
            defer { waiter.close() }
            try await waiter.send(rawRequest("GET", "/__sandbox/journal/wait?path=/never&timeout=30"))
            try await Self.until("the wait is held") { sandbox.journal.heldWaits == 1 }
            let started = ContinuousClock.now
            await sandbox.stop()
            let response = try await waiter.readResponse(timeout: .seconds(10))
            #expect(response.status == 503)
            #expect(ContinuousClock.now - started < .seconds(10))
            try await Self.until("the ended wait is let go") { sandbox.journal.heldWaits == 0 }
        }
    }
}
