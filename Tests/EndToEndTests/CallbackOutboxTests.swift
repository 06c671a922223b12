// SPDX-License-Identifier: MIT
// The callback outbox (/__sandbox/callbacks: list, read, deliver by hand) and the bundled Klarna HPP callback
// scenarios (klarna.hpp.status_callback), each against a merchant listener on 127.0.0.1 port 0.
import Foundation
import KlarnaSandbox
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import Testing

/// A merchant's callback endpoint on real sockets: records every POST under /hooks/ and, while `holding`, keeps
/// its answer back until ``release()``.
final class MerchantListener: Sendable {
    struct Received: Sendable {
        var target: String
        var contentType: String?
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body) as? [String: Any]) ?? [:] }
    }

    private struct State {
        var received: [Received] = []
        var holding = false
        var answered = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    /// One event per call received.
    private let arrivals = EventCount()

    var received: [Received] { state.withLock { $0.received } }
    /// Calls answered so far.
    var answered: Int { state.withLock { $0.answered } }

    /// From now on, answers wait for ``release()``.
    func hold() { state.withLock { $0.holding = true } }

    /// Answers every call kept back, and the later ones at once.
    func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holding = false
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var router: Router {
        var router = Router()
        router.add("POST /hooks/*") { [self] request in
            let held = state.withLock { state -> Bool in
                state.received.append(Received(target: request.target, contentType: request.headers["Content-Type"], body: request.body))
                return state.holding
            }
            arrivals.add()
            if held {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> Bool in
                        guard state.holding else { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            }
            state.withLock { $0.answered += 1 }
            return .text("ok")
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

/// The outbox as a client reads it.
struct OutboxClient: Sendable {
    var send: @Sendable (_ method: String, _ path: String, _ body: String?) async throws -> RawResponse

    func list(_ query: String = "") async throws -> [[String: Any]] {
        let response = try await send("GET", "/__sandbox/callbacks\(query)", nil)
        try #require(response.status == 200, "\(response)")
        return try #require(try response.jsonObject()["callbacks"] as? [[String: Any]])
    }

    /// The outbox once `done` holds for it (60 s at most: a loaded start has delayed callbacks by 30 s).
    func wait(_ what: String = "", sourceLocation: SourceLocation = #_sourceLocation,
              until done: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let callbacks = try await list("?limit=1000")   // the page's most: every callback a test makes
            if done(callbacks) { return callbacks }
            try await Task.sleep(for: .milliseconds(20))
        }
        let callbacks = try await list()
        Issue.record("the outbox never got there \(what): \(callbacks)", sourceLocation: sourceLocation)
        return callbacks
    }

    func deliver(_ id: String, _ body: String? = nil) async throws -> RawResponse {
        try await send("POST", "/__sandbox/callbacks/\(id)/deliver", body)
    }
}

extension KlarnaClient {
    var outbox: OutboxClient { OutboxClient { method, path, body in try await send(method, path, body: body) } }

    /// Makes `name` the namespace's default scenario.
    func useScenario(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await send("PUT", "/__sandbox/scenario", body: #"{"name": "\#(name)"}"#)
        try #require(response.status == 200, "\(response)", sourceLocation: sourceLocation)
    }
}

func states(_ callbacks: [[String: Any]]) -> [String] { callbacks.map { $0["state"] as? String ?? "?" } }
func attempts(_ callback: [String: Any]) -> [[String: Any]] { callback["attempts"] as? [[String: Any]] ?? [] }

@Suite("Callback outbox and Klarna HPP callback scenarios")
struct CallbackOutboxTests {
    /// An HPP session whose status_update goes to the listener, with success and back URLs.
    static func hppSession(_ client: KlarnaClient, hooks: RunningServer) async throws -> String {
        let kp = try await client.newSession()
        let urls = #"{"status_update": "http://127.0.0.1:\#(hooks.port)/hooks/status?sid={{session_id}}", "success": "https://merchant.example/success"}"#
        return try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: urls))
    }

    static func withKlarna(_ label: String, scenario: String? = nil, configure: @escaping (inout SandboxConfiguration) -> Void = { _ in },
                           _ body: (KlarnaClient, RunningServer, MerchantListener, RunningServer) async throws -> Void) async throws {
        let listener = MerchantListener()
        try await withServer(listener.router) { _, hooks in
            try await withSandbox({ configuration in
                deterministic(&configuration)
                configure(&configuration)
            }) { server in
                let client = KlarnaClient(server, namespace: uniqueNamespace(label))
                if let scenario { try await client.useScenario(scenario) }
                try await body(client, server, listener, hooks)
            }
        }
    }

    // MARK: The outbox

    @Test("Outbox: each callback is kept with id, object, URL, headers, body, created, attempts and last result; filter by object; read one; 404 and 400 in the control format")
    func outbox_ListsEveryCallback() async throws {
        try await Self.withKlarna("outbox") { client, server, listener, hooks in
            let first = try await Self.hppSession(client, hooks: hooks)
            let second = try await Self.hppSession(client, hooks: hooks)
            _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(first)")  // IN_PROGRESS
            expectNoContent(try await client.delete("/hpp/v1/sessions/\(second)"))         // DISABLED
            let received = try await listener.wait(for: 2)
            let callbacks = try await client.outbox.wait("(2 delivered)") { states($0) == ["delivered", "delivered"] }
            #expect(callbacks.map { $0["object"] as? String } == [first, second])
            let callback = callbacks[0]
            let id = try #require(callback["id"] as? String)
            #expect(callback["operation"] as? String == "klarna.hpp.status_callback")
            #expect(callback["url"] as? String == "http://127.0.0.1:\(hooks.port)/hooks/status?sid=\(first)")
            #expect((callback["headers"] as? [String: String]) == ["Content-Type": "application/json"])
            let body = try #require(callback["body"] as? [String: Any])
            #expect((body["session"] as? [String: Any])?["status"] as? String == "IN_PROGRESS")
            let sent = try #require(received.first { $0.target.hasSuffix(first) })
            #expect(body["event_id"] as? String == sent.json["event_id"] as? String, "the kept body is the one sent")
            #expect(callback["created"] as? String == "2027-01-15T08:00:00.000Z")
            #expect(callback["due"] is NSNull && callback["scenario"] is NSNull)
            let tries = attempts(callback)
            #expect(tries.count == 1 && tries[0]["status"] as? Int == 200 && tries[0]["error"] is NSNull && tries[0]["manual"] as? Bool == false)
            #expect((callback["last_result"] as? [String: Any])?["status"] as? Int == 200)

            let filtered = try await client.outbox.list("?object=\(second)")
            #expect(filtered.count == 1 && ((filtered[0]["body"] as? [String: Any])?["session"] as? [String: Any])?["status"] as? String == "DISABLED")
            let one = try await client.get("/__sandbox/callbacks/\(id)")
            #expect(one.status == 200 && (try? one.jsonObject()["object"] as? String) == first, "\(one)")

            let unknown = try await client.get("/__sandbox/callbacks/cb_999999")
            #expect(unknown.status == 404 && (try? unknown.jsonObject()["error"] as? String) == "Not Found", "\(unknown)")
            let badFilter = try await client.get("/__sandbox/callbacks?status=200")
            #expect(badFilter.status == 400 && (try? badFilter.jsonObject()["message"] as? String)?.contains("use object") == true, "\(badFilter)")
            // Another namespace sees none of them.
            let other = KlarnaClient(server, namespace: uniqueNamespace("outbox-other"))
            #expect(try await other.outbox.list().isEmpty)
            let otherRead = try await other.get("/__sandbox/callbacks/\(id)")
            #expect(otherRead.status == 404)
            // A reset forgets them.
            try await client.reset()
            #expect(try await client.outbox.list().isEmpty)
        }
    }

    @Test("Outbox: POST …/deliver sends it now, to its URL or to {\"url\"}; answers the attempt; a bad URL is 400")
    func outbox_DeliversByHand() async throws {
        try await Self.withKlarna("outbox-deliver") { client, server, listener, hooks in
            let id = try await Self.hppSession(client, hooks: hooks)
            _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")
            _ = try await client.outbox.wait { states($0) == ["delivered"] }
            let callbackID = try #require(try await client.outbox.list().first?["id"] as? String)

            let again = try await client.outbox.deliver(callbackID)
            #expect(again.status == 200, "\(again)")
            let attempt = try #require(try again.jsonObject()["attempt"] as? [String: Any])
            #expect(attempt["status"] as? Int == 200 && attempt["manual"] as? Bool == true && attempt["delivered"] as? Bool == true)
            let elsewhere = try await client.outbox.deliver(callbackID, #"{"url": "http://127.0.0.1:\#(hooks.port)/hooks/elsewhere"}"#)
            let answer = try elsewhere.jsonObject()
            #expect((answer["attempt"] as? [String: Any])?["url"] as? String == "http://127.0.0.1:\(hooks.port)/hooks/elsewhere")
            #expect(attempts(try #require(answer["callback"] as? [String: Any])).count == 3)
            let received = try await listener.wait(for: 3)
            #expect(received.map(\.target) == ["/hooks/status?sid=\(id)", "/hooks/status?sid=\(id)", "/hooks/elsewhere"])
            #expect(Set(received.map { $0.json["event_id"] as? String }).count == 1, "the same callback each time")
            // A refused connection is an attempt without a status.
            let refused = try await client.outbox.deliver(callbackID, #"{"url": "http://127.0.0.1:9/down"}"#)
            let failed = try #require(try refused.jsonObject()["attempt"] as? [String: Any])
            #expect(refused.status == 200 && failed["status"] is NSNull && (failed["error"] as? String)?.isEmpty == false, "\(refused)")
            let stateAfter = try await client.outbox.list().first?["state"] as? String
            #expect(stateAfter == "delivered", "a failed manual call changes nothing")
            let journal = try await client.journal("method=CALLBACK")
            #expect(journal.count == 4 && (journal[1]["note"] as? String)?.contains("delivered by hand (\(callbackID))") == true, "\(journal)")

            for bad in [#"{"url": "ftp://example.com/x"}"#, #"{"url": "/relative"}"#, #"{"url": "http://"}"#, "not json"] {
                let response = try await client.outbox.deliver(callbackID, bad)
                #expect(response.status == 400 && (try? response.jsonObject()["status"] as? Int) == 400, "\(bad): \(response)")
            }
            let unknown = try await client.outbox.deliver("cb_999999")
            #expect(unknown.status == 404)
            #expect(listener.received.count == 3)
        }
    }

    @Test("Outbox: bounded per namespace and in all; the oldest go first")
    func outbox_IsBounded() async throws {
        try await Self.withKlarna("outbox-bounds", configure: {
            $0.callbackOutboxCapacityPerNamespace = 2
            $0.callbackOutboxCapacity = 3
        }) { client, server, listener, hooks in
            var ids: [String] = []
            for _ in 0..<3 {
                let id = try await Self.hppSession(client, hooks: hooks)
                ids.append(id)
                expectNoContent(try await client.delete("/hpp/v1/sessions/\(id)"))
            }
            _ = try await listener.wait(for: 3)
            var callbacks = try await client.outbox.wait { states($0) == ["delivered", "delivered"] }
            #expect(callbacks.map { $0["object"] as? String } == Array(ids.suffix(2)))
            let other = KlarnaClient(server, namespace: uniqueNamespace("outbox-bounds-2"))
            for _ in 0..<2 {
                let id = try await Self.hppSession(other, hooks: hooks)
                expectNoContent(try await other.delete("/hpp/v1/sessions/\(id)"))
            }
            _ = try await listener.wait(for: 5)
            _ = try await other.outbox.wait { $0.count == 2 }
            callbacks = try await client.outbox.list()
            #expect(callbacks.map { $0["object"] as? String } == [ids[2]], "3 in all: the oldest of the whole outbox went")
            let listing = try await client.get("/__sandbox/callbacks").jsonObject()
            #expect(listing["capacity"] as? Int == 3 && listing["capacity_per_namespace"] as? Int == 2 && listing["evicted"] as? Int == 2)
        }
    }

    // MARK: Bundled scenarios

    @Test("callback-not-sent: the merchant gets nothing; the outbox holds each callback until it is delivered by hand")
    func notSent() async throws {
        try await Self.withKlarna("cb-not-sent", scenario: "callback-not-sent") { client, server, listener, hooks in
            let id = try await Self.hppSession(client, hooks: hooks)
            KlarnaHPP.expect303(try await KlarnaHPP.act(server, id, "pay"), to: "https://merchant.example/success", status: "COMPLETED")
            let callbacks = try await client.outbox.list()
            #expect(states(callbacks) == ["held", "held"] && callbacks.allSatisfy { attempts($0).isEmpty }, "\(callbacks)")
            #expect((callbacks[0]["scenario"] as? String)?.contains("scenario=callback-not-sent klarna.hpp.status_callback: callback_not_sent") == true)
            let completed = try #require(callbacks.last)
            #expect(((completed["body"] as? [String: Any])?["session"] as? [String: Any])?["status"] as? String == "COMPLETED")
            let delivered = try await client.outbox.deliver(try #require(completed["id"] as? String))
            #expect(((try? delivered.jsonObject()["callback"] as? [String: Any])?["state"] as? String) == "delivered", "\(delivered)")
            let received = try await listener.wait(for: 1)
            #expect(received.count == 1 && (received[0].json["session"] as? [String: Any])?["status"] as? String == "COMPLETED")
            let after = try await client.outbox.list()
            #expect(states(after) == ["held", "delivered"])
        }
    }

    @Test("callback-late: the first call waits 300 s of the sandbox clock; the outbox says when it is due")
    func late() async throws {
        try await Self.withKlarna("cb-late", scenario: "callback-late") { client, server, listener, hooks in
            let marker = try await KlarnaCallbackMarker.start(server)
            let id = try await Self.hppSession(client, hooks: hooks)
            _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")
            let pending = try await client.outbox.list()
            #expect(states(pending) == ["pending"] && pending[0]["due"] as? String == "2027-01-15T08:05:00.000Z", "\(pending)")
            try await client.advanceClock(seconds: 299)
            try await marker.fire()   // the callback timer has looked at this namespace's clock at 299 s
            #expect(listener.received.isEmpty, "not before 300 s")
            let waiting = try await client.outbox.list()
            #expect(states(waiting) == ["pending"] && attempts(waiting[0]).isEmpty, "not before 300 s: \(waiting)")
            try await client.advanceClock(seconds: 1)
            let received = try await listener.wait(for: 1)
            #expect((received[0].json["session"] as? [String: Any])?["status"] as? String == "IN_PROGRESS")
            let delivered = try await client.outbox.wait { states($0) == ["delivered"] }
            #expect(attempts(delivered[0]).first?["time"] as? String == "2027-01-15T08:05:00.000Z")
        }
    }

    @Test("callback-twice: each status_update reaches the merchant twice with the same event_id")
    func twice() async throws {
        try await Self.withKlarna("cb-twice", scenario: "callback-twice") { client, server, listener, hooks in
            let id = try await Self.hppSession(client, hooks: hooks)
            _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")
            let received = try await listener.wait(for: 2)
            #expect(received.count == 2 && received[0].body == received[1].body, "\(received.map(\.json))")
            let callbacks = try await client.outbox.wait { states($0) == ["delivered", "delivered"] }
            #expect(callbacks.map { $0["object"] as? String } == [id, id])
            #expect((callbacks[1]["description"] as? String)?.hasSuffix("(copy 2/2)") == true, "\(callbacks)")
        }
    }

    @Test("callback-before-redirect: the consumer's 303 waits until the merchant has answered the COMPLETED callback")
    func beforeRedirect() async throws {
        try await Self.withKlarna("cb-before-redirect", scenario: "callback-before-redirect") { client, server, listener, hooks in
            let id = try await Self.hppSession(client, hooks: hooks)
            _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")  // IN_PROGRESS, answered at once
            _ = try await listener.wait(for: 1)
            listener.hold()
            let pay = Task {
                let response = try await KlarnaHPP.act(server, id, "pay")
                return (response, answeredBefore: listener.answered)
            }
            let received = try await listener.wait(for: 2)
            #expect((received[1].json["session"] as? [String: Any])?["status"] as? String == "COMPLETED")
            #expect(listener.answered == 1)
            listener.release()
            let (redirect, answeredBefore) = try await pay.value
            KlarnaHPP.expect303(redirect, to: "https://merchant.example/success", status: "COMPLETED")
            #expect(answeredBefore == 2, "the redirect came after the merchant answered the callback")
            #expect(listener.answered == 2)
            // The journal records the callback's call once its answer came, and the pay request once its own answer
            // went: the redirect waited for the callback's answer, so the call comes first.
            let payEntry = try await KlarnaHPP.waitForJournal(client, "method=POST&path_prefix=/__sandbox/klarna/hpp/sessions/\(id)/pay", count: 1)[0]
            let calls = try await client.journal("method=CALLBACK")
            let call = try #require(calls.first { ($0["note"] as? String)?.contains("status_update COMPLETED") == true }, "\(calls)")
            #expect(try #require(call["sequence"] as? Int) < (try #require(payEntry["sequence"] as? Int)),
                    "the redirect waits for the callback's answer: \(calls), \(payEntry)")
        }
    }

    @Test("callback-failing: the first 2 calls fail as if the merchant answered 503 (not called); the third, after two retry delays, reaches it")
    func failing() async throws {
        try await Self.withKlarna("cb-failing", scenario: "callback-failing", configure: { $0.klarnaHPP.callbackRetryDelay = 10 }) { client, server, listener, hooks in
            let id = try await Self.hppSession(client, hooks: hooks)
            _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")
            var callbacks = try await client.outbox.wait { $0.first.map { attempts($0).count == 1 } ?? false }
            var first = attempts(callbacks[0])[0]
            #expect(first["status"] as? Int == 503 && first["simulated"] as? Bool == true && callbacks[0]["due"] as? String == "2027-01-15T08:00:10.000Z",
                    "\(callbacks)")
            try await client.advanceClock(seconds: 10)
            callbacks = try await client.outbox.wait { $0.first.map { attempts($0).count == 2 } ?? false }
            first = attempts(callbacks[0])[1]
            #expect(first["status"] as? Int == 503 && first["simulated"] as? Bool == true)
            #expect(listener.received.isEmpty, "the merchant is not called while the failure is simulated")
            try await client.advanceClock(seconds: 10)
            _ = try await listener.wait(for: 1)
            callbacks = try await client.outbox.wait { states($0) == ["delivered"] }
            #expect(attempts(callbacks[0]).map { $0["status"] as? Int } == [503, 503, 200])
            let notes = try await client.journal("method=CALLBACK").map { $0["note"] as? String ?? "" }
            #expect(notes.count == 3 && notes[0].hasSuffix("attempt 1/4: answered 503 (simulated by the scenario); retry in 10 s (sandbox clock)"), "\(notes)")
        }
    }

    // MARK: Your own rules

    @Test("Own rules: field conditions see the callback body (session.status); http_error fails each call as that status; a delivery by hand ends the retries")
    func ownRules_FieldConditions_HTTPError_ManualDeliveryEndsRetries() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("callbacks.json", scenarioFile("e2e-callback-rules", rules: [
                #"{"operation": "klarna.hpp.status_callback", "when": [{"field": "session.status", "equals": "COMPLETED"}], "outcome": "callback_not_sent"}"#,
                #"{"operation": "klarna.hpp.status_callback", "when": [{"field": "session.status", "equals": "DISABLED"}], "outcome": "http_error", "status": 502}"#,
            ]))
            try await Self.withKlarna("cb-own-rules", scenario: "e2e-callback-rules", configure: {
                $0.scenarioDirectories = [directory.url]
                $0.klarnaHPP.callbackRetryDelay = 10
            }) { client, server, listener, hooks in
                let marker = try await KlarnaCallbackMarker.start(server)
                let paid = try await Self.hppSession(client, hooks: hooks)
                KlarnaHPP.expect303(try await KlarnaHPP.act(server, paid, "pay"), to: "https://merchant.example/success", status: "COMPLETED")
                let received = try await listener.wait(for: 1)
                #expect((received[0].json["session"] as? [String: Any])?["status"] as? String == "IN_PROGRESS", "no rule for IN_PROGRESS: sent")
                let kept = try await client.outbox.wait { states($0) == ["delivered", "held"] }
                #expect(kept[0]["scenario"] is NSNull && (kept[1]["scenario"] as? String)?.contains("callback_not_sent (rule 0)") == true, "\(kept)")

                let disabled = try await Self.hppSession(client, hooks: hooks)
                expectNoContent(try await client.delete("/hpp/v1/sessions/\(disabled)"))
                var failing = try await client.outbox.wait { $0.count == 3 && attempts($0[2]).count == 1 }
                let first = attempts(failing[2])[0]
                #expect(first["status"] as? Int == 502 && first["simulated"] as? Bool == true && failing[2]["state"] as? String == "pending")
                let id = try #require(failing[2]["id"] as? String)
                let delivered = try await client.outbox.deliver(id)
                #expect(((try? delivered.jsonObject()["callback"] as? [String: Any])?["state"] as? String) == "delivered", "\(delivered)")
                _ = try await listener.wait(for: 2)
                try await client.advanceClock(seconds: 10)
                try await marker.fire()   // the callback timer has looked at this namespace's clock since the retry came due
                failing = try await client.outbox.list("?object=\(disabled)")
                #expect(attempts(failing[0]).map { $0["manual"] as? Bool } == [false, true], "no retry after the delivery by hand: \(failing)")
                #expect(listener.received.count == 2)
            }
        }
    }

    @Test("The outbox endpoints need the control token when one is set")
    func outbox_UnderTheControlToken() async throws {
        try await withSandbox({ $0.controlToken = "t0k" }) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("outbox-token"))
            for (method, path) in [("GET", "/__sandbox/callbacks"), ("GET", "/__sandbox/callbacks/cb_1"), ("POST", "/__sandbox/callbacks/cb_1/deliver")] {
                let refused = try await client.send(method, path)
                #expect(refused.status == 401, "\(method) \(path): \(refused)")
            }
            let allowed = try await client.send("GET", "/__sandbox/callbacks", headers: [("Sandbox-Control-Token", "t0k")])
            #expect(allowed.status == 200 && (try? allowed.jsonObject()["callbacks"] as? [Any])?.isEmpty == true, "\(allowed)")
        }
    }
}
