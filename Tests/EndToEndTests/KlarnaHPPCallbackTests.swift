// SPDX-License-Identifier: MIT
// Klarna Hosted Payment Page status_update callbacks (klarna-api.md §4) to a merchant endpoint listening on a socket,
// with retries released by POST /__sandbox/clock; the rest of the HPP tests run in-process in KlarnaSandboxTests.
// Manual clock and sequential ids.
import Foundation
import SandboxHTTP
import PaymentSandbox
import KlarnaSandbox
import SandboxTestSupport
import Testing

@Suite("Klarna HPP: status_update callbacks")
struct KlarnaHPPCallbackTests {
    @Test("Callbacks: every change POSTs {event_id, session}; 500s are retried when the sandbox clock passes the delay; journal shows each attempt")
    func callbacks_RetriedOnSandboxClock() async throws {
        let listener = CallbackListener(failuresFirst: 2)
        try await withServer(listener.router) { _, hooks in
            try await withSandbox(transport: .inProcess, { configuration in
                deterministic(&configuration)
                configuration.klarnaHPP.callbackRetryDelay = 30
            }) { server in
                let client = KlarnaClient(server, namespace: uniqueNamespace("hpp-callbacks"))
                let marker = try await KlarnaCallbackMarker.start(server)
                let kp = try await client.newSession()
                let target = "http://127.0.0.1:\(hooks.port)/hooks/status?hpp={{session_id}}&secret=s3"
                let id = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: #"{"status_update": "\#(target)"}"#))
                let filled = "http://127.0.0.1:\(hooks.port)/hooks/status?hpp=\(id)&secret=s3"

                _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")  // IN_PROGRESS: attempt 1 answered 500
                var received = try await listener.wait(for: 1)
                // The retry is scheduled when the sandbox has the listener's answer, which can come after the
                // listener saw the request: wait for the journal line of each attempt before moving the clock.
                _ = try await KlarnaHPP.waitForJournal(client, "method=CALLBACK", count: 1)
                // No retry before the delay has passed on the sandbox clock: not at 29 s, once the callback timer has
                // looked at this namespace's clock since it moved.
                try await client.advanceClock(seconds: 29)
                try await marker.fire()
                #expect(listener.received.count == 1, "no retry before 30 s")
                try await client.advanceClock(seconds: 1)
                received = try await listener.wait(for: 2)  // attempt 2: 500
                _ = try await KlarnaHPP.waitForJournal(client, "method=CALLBACK", count: 2)
                try await client.advanceClock(seconds: 30)
                received = try await listener.wait(for: 3)  // attempt 3: 200, done
                #expect(received.map(\.target) == Array(repeating: "/hooks/status?hpp=\(id)&secret=s3", count: 3))
                #expect(received.allSatisfy { $0.contentType == "application/json" })
                let bodies = try received.map { try #require(try JSONSerialization.jsonObject(with: $0.body) as? [String: Any]) }
                let eventID = try #require(bodies[0]["event_id"] as? String)
                #expect(isUUID(eventID) && bodies.allSatisfy { $0["event_id"] as? String == eventID }, "the retries reuse the event id")
                #expect(canonicalJSON(try JSONSerialization.data(withJSONObject: bodies[0]["session"] as Any)) == canonicalJSON(Data("""
                    {"session_id": "\(id)", "status": "IN_PROGRESS", "updated_at": "\(KlarnaHPP.createdAt)", "expires_at": "\(KlarnaHPP.expiresAt)"}
                    """.utf8)))

                // Pay: COMPLETED, delivered at once (the listener now answers 200).
                _ = try await KlarnaHPP.act(server, id, "pay")
                received = try await listener.wait(for: 4)
                let completed = try #require(try JSONSerialization.jsonObject(with: received[3].body) as? [String: Any])
                let session = try #require(completed["session"] as? [String: Any])
                #expect(session["status"] as? String == "COMPLETED" && session["authorization_token"] != nil, "\(completed)")
                #expect(completed["event_id"] as? String != eventID)

                // The journal entry follows the listener's answer.
                let entries = try await KlarnaHPP.waitForJournal(client, "method=CALLBACK", count: 4)
                #expect(entries.map { $0["path"] as? String } == Array(repeating: filled, count: 4))
                #expect(entries.map { $0["status"] as? Int } == [500, 500, 200, 200])
                let notes = entries.map { $0["note"] as? String ?? "" }
                #expect(notes[0] == "status_update IN_PROGRESS of HPP session \(id), event_id \(eventID), attempt 1/4: answered 500; retry in 30 s (sandbox clock)",
                        "\(notes)")
                #expect(notes[2] == "status_update IN_PROGRESS of HPP session \(id), event_id \(eventID), attempt 3/4", "\(notes)")
                #expect(notes[3].hasPrefix("status_update COMPLETED of HPP session \(id)"), "\(notes)")
                #expect(entries.allSatisfy { ($0["request_body"] as? String)?.contains(#""session":{"#) == true })
            }
        }
    }

    @Test("Callbacks: an unreachable listener gets 4 attempts in all, then the journal says it gave up")
    func callbacks_GiveUpAfterFourAttempts() async throws {
        try await withSandbox(transport: .inProcess, { configuration in
            deterministic(&configuration)
            configuration.klarnaHPP.callbackRetryDelay = 5
        }) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("hpp-callbacks-down"))
            let marker = try await KlarnaCallbackMarker.start(server)
            let kp = try await client.newSession()
            // Port 9 (discard) on loopback: connection refused.
            let id = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: #"{"status_update": "http://127.0.0.1:9/down"}"#))
            expectNoContent(try await client.delete("/hpp/v1/sessions/\(id)"))
            var entries: [[String: Any]] = []
            for attempt in 1...4 {
                entries = try await KlarnaHPP.waitForJournal(client, "method=CALLBACK", count: attempt)
                try await client.advanceClock(seconds: 5)
            }
            // A fifth attempt would be due now: once the callback timer has looked at this namespace's clock, none.
            try await marker.fire()
            entries = try await client.journal("method=CALLBACK")
            #expect(entries.count == 4 && entries.allSatisfy { $0["status"] as? Int == 0 }, "\(entries)")
            #expect((entries.last?["note"] as? String)?.hasSuffix("; giving up") == true, "\(entries)")
            #expect((entries.first?["note"] as? String)?.contains("status_update DISABLED") == true, "\(entries)")
        }
    }
}

/// A merchant's status_update endpoint: records every POST under /hooks/ and answers 500 to the first few.
final class CallbackListener: Sendable {
    struct Received: Sendable {
        var target: String
        var contentType: String?
        var body: Data
    }

    private let state: Locked<(received: [Received], failuresLeft: Int)>
    /// One event per call received.
    private let arrivals = EventCount()

    init(failuresFirst: Int) { state = Locked(([], failuresFirst)) }

    var received: [Received] { state.withLock { $0.received } }

    var router: Router {
        var router = Router()
        router.addImmediate("POST /hooks/*") { [self] request in
            let fail = state.withLock { state -> Bool in
                state.received.append(Received(target: request.target, contentType: request.headers["Content-Type"], body: request.body))
                guard state.failuresLeft > 0 else { return false }
                state.failuresLeft -= 1
                return true
            }
            arrivals.add()
            return fail ? .text("try again", status: .internalServerError) : .text("ok")
        }
        return router
    }

    /// The calls so far once there are at least `count` (an issue when ``EventCount``'s backstop passes first).
    func wait(for count: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [Received] {
        if await !arrivals.wait(for: count) {
            Issue.record("expected \(count) callbacks, got \(received.count)", sourceLocation: sourceLocation)
        }
        return received
    }
}
