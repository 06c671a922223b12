// SPDX-License-Identifier: MIT
// Callback calls to merchant endpoints that misbehave (an endless body, a trickle, redirects) and the outbox's bounds
// (attempts kept per callback, URL length), each against a HostileEndpoint or a MerchantListener on 127.0.0.1.
import Foundation
import KlarnaSandbox
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import Testing

// Off under ThreadSanitizer: its endless and trickling endpoints keep both cores busy for their deadlines, and the
// instrumented servers beside them then miss theirs (connections closed before an answer). The plain run covers it.
@Suite("Callback calls to endpoints that misbehave, and the outbox's bounds",
       .enabled(if: !NamespaceBoundsTests.underThreadSanitizer, "its hostile endpoints starve the instrumented servers of other tests"))
struct CallbackOutboxHostileEndpointTests {
    /// `body` of the callback every call here sends.
    static let body = Data(#"{"event": "test"}"#.utf8)

    /// Waits until `done` holds (60 s at most: a loaded start has delayed callbacks by 30 s).
    static func eventually(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !done() {
            guard ContinuousClock.now < deadline else {
                Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    // MARK: The call

    @Test("An endless body (Content-Length 8e9, zeros): the call keeps a 4 KiB prefix and drops the connection at once")
    func endlessBody_KeepsAPrefix_DropsTheConnection() async throws {
        // Alone: it measures time, which a burst of parallel tests could stretch.
        try await alone {
            try await withHostileEndpoint { endpoint in
                let client = CallbackHTTPClient(timeout: 10)
                let (answer, took) = await measure { await client.post(Self.body, to: endpoint.url("/endless")) }
                #expect(answer.status == 200 && answer.problem == nil, "\(answer)")
                #expect(answer.answer == Data(count: CallbackHTTPClient.answerPrefixBytes))
                #expect(took < .seconds(5), "answered in \(took), not at the deadline")
                // The endpoint's writer ends once the connection is gone: it could only fill the sockets' buffers.
                try await Self.eventually("the endless writer stops") { endpoint.connectionsEnded("/endless") == 1 }
                #expect(endpoint.bytesWritten("/endless") < 64 << 20, "\(endpoint.bytesWritten("/endless")) bytes were taken")
            }
        }
    }

    @Test("A trickling endpoint (a byte a second) fails within the call's deadline; 20 other calls to the same host go through meanwhile")
    func trickle_FailsWithinTheDeadline_OthersToTheHostGoThrough() async throws {
        try await alone {
            try await withHostileEndpoint { endpoint in
                let client = CallbackHTTPClient(timeout: 2)
                let start = ContinuousClock.now
                let results = await withTaskGroup(of: (String, CallbackAnswer, Duration).self) { group in
                    for index in 0..<10 {
                        let path = index % 2 == 0 ? "/trickle" : "/trickle-head"
                        group.addTask { (path, await client.post(Self.body, to: endpoint.url(path)), ContinuousClock.now - start) }
                    }
                    for index in 0..<20 {
                        group.addTask { ("/ok", await client.post(Self.body, to: endpoint.url("/ok?n=\(index)")), ContinuousClock.now - start) }
                    }
                    var results: [(String, CallbackAnswer, Duration)] = []
                    for await result in group { results.append(result) }
                    return results
                }
                let trickles = results.filter { $0.0 != "/ok" }, others = results.filter { $0.0 == "/ok" }
                #expect(trickles.count == 10 && others.count == 20)
                for (path, answer, took) in trickles {
                    #expect(answer.status == 0 && answer.problem?.hasPrefix("no whole answer within 2 s") == true, "\(path): \(answer)")
                    #expect(took >= .seconds(2) && took < .seconds(4), "\(path) ended after \(took)")
                }
                let firstTrickleEnd = trickles.map(\.2).min() ?? .zero
                for (_, answer, took) in others {
                    #expect(answer.status == 200 && answer.answer == Data("ok".utf8), "\(answer)")
                    #expect(took < firstTrickleEnd, "delivered after \(took), while the trickles held on until \(firstTrickleEnd)")
                }
                #expect(endpoint.requests(to: "/ok").count == 20)
            }
        }
    }

    @Test("A redirect is the answer: the status is recorded, the Location is never called", arguments: [301, 302, 303, 307, 308])
    func redirect_IsTheAnswer(status: Int) async throws {
        try await ResourceGate.shared {
            try await withHostileEndpoint { endpoint in
                let answer = await CallbackHTTPClient(timeout: 30).post(Self.body, to: endpoint.url("/redirect/\(status)"))
                #expect(answer.status == status && answer.problem == nil && answer.answer == Data("see /target".utf8), "\(answer)")
                #expect(endpoint.requests(to: "/target").isEmpty, "the redirect was followed")
            }
        }
    }

    @Test("The request: POST, the URL's path and query (no fragment), Host, Content-Type, Content-Length, Connection: close, Basic auth from user information; a chunked answer after 100 Continue is decoded")
    func request_AndAChunkedAnswer() async throws {
        try await ResourceGate.shared {
            try await withHostileEndpoint { endpoint in
                let client = CallbackHTTPClient(timeout: 30)
                let answer = await client.post(Self.body, to: "http://us%40er:pa%3As@127.0.0.1:\(endpoint.port)/chunked?sid=1#fragment")
                #expect(answer.status == 200 && answer.answer == Data("hello".utf8), "\(answer)")
                let request = try #require(endpoint.requests.first)
                #expect(request.target == "/chunked?sid=1" && request.body == Self.body)
                let lines = request.head.split(separator: "\r\n").map(String.init)
                #expect(lines.first == "POST /chunked?sid=1 HTTP/1.1", "\(lines)")
                for line in ["Host: 127.0.0.1:\(endpoint.port)", "Content-Type: application/json", "Content-Length: \(Self.body.count)",
                             "Connection: close", "Authorization: Basic " + Data("us@er:pa:s".utf8).base64EncodedString()] {
                    #expect(lines.contains(line), "\(line) not in \(lines)")
                }
                let refused = await client.post(Self.body, to: "http://127.0.0.1:9/down")
                #expect(refused.status == 0 && refused.problem?.contains("cannot connect to 127.0.0.1:9") == true, "\(refused)")
                let unknown = await client.post(Self.body, to: "gopher://127.0.0.1/")
                #expect(unknown.status == 0 && unknown.problem?.contains("unsupported URL scheme gopher") == true, "\(unknown)")
                // A host name is looked up (off the cooperative pool); every address is tried (::1 first, then 127.0.0.1).
                let named = await client.post(Self.body, to: "http://localhost:\(endpoint.port)/ok?named")
                #expect(named.status == 200 && endpoint.requests(to: "/ok?named").count == 1, "\(named)")
                // A name that does not resolve fails, by the deadline at the latest, whether the lookup answers or not.
                let (nowhere, took) = await measure { await CallbackHTTPClient(timeout: 2).post(Self.body, to: "http://callback.sandbox.invalid/") }
                #expect(nowhere.status == 0 && nowhere.problem?.isEmpty == false && took < .seconds(30), "\(nowhere) after \(took)")
            }
        }
    }

    @Test("Callbacks through the sender: 10 to a trickling endpoint fail within their deadline while 20 to the same host are delivered")
    func sender_TrickleDoesNotStarveTheHost() async throws {
        try await alone {
            try await withHostileEndpoint { endpoint in
                let registry = NamespaceRegistry(clock: SystemClock())
                let outbox = CallbackOutbox(registry: registry)
                let sender = CallbackSender(registry: registry, journal: nil, outbox: outbox, timeout: 2, clockPollInterval: .milliseconds(50)) { _ in 0 }
                let namespace = Namespace("hostile-trickle")
                for index in 0..<30 {
                    let path = index < 10 ? "/trickle?n=\(index)" : "/ok?n=\(index)"
                    sender.send(Callback(namespace: namespace, url: endpoint.url(path), body: Self.body, note: "test \(index)"),
                                retrying: .afterEachFailure(delay: 10, calls: 1))
                }
                try await Self.eventually("every callback delivered or failed") {
                    outbox.entries(namespace).allSatisfy { $0.state == .delivered || $0.state == .failed }
                }
                let entries = outbox.entries(namespace)
                for entry in entries {
                    let attempt = try #require(entry.attempts.first)
                    if entry.url.contains("/trickle") {
                        #expect(entry.state == .failed && attempt.status == nil && attempt.error?.hasPrefix("no whole answer within 2 s") == true, "\(attempt)")
                        #expect(attempt.durationSeconds >= 2 && attempt.durationSeconds < 4, "\(attempt.durationSeconds) s")
                    } else {
                        #expect(entry.state == .delivered && attempt.status == 200 && attempt.answer == "ok", "\(attempt)")
                        #expect(attempt.durationSeconds < 1.5, "a call to the same host waited \(attempt.durationSeconds) s")
                    }
                }
            }
        }
    }

    // MARK: The outbox

    /// A held callback (callback-not-sent) of an HPP session whose status_update is the listener; its id.
    static func heldCallback(_ client: KlarnaClient, hooks: RunningServer) async throws -> String {
        try await client.useScenario("callback-not-sent")
        let id = try await CallbackOutboxTests.hppSession(client, hooks: hooks)
        expectNoContent(try await client.delete("/hpp/v1/sessions/\(id)"))
        return try #require(try await client.outbox.list().first?["id"] as? String)
    }

    @Test("Deliver 40 times: the callback keeps its last 10 attempts, counts 40, and each attempt the answer's start")
    func deliver40Times_KeepsTheLast10_CountsAll() async throws {
        try await CallbackOutboxTests.withKlarna("outbox-attempts") { client, _, listener, hooks in
            let id = try await Self.heldCallback(client, hooks: hooks)
            for index in 0..<40 {
                let delivered = try await client.outbox.deliver(id, #"{"url": "http://127.0.0.1:\#(hooks.port)/hooks/n\#(index)"}"#)
                try #require(delivered.status == 200, "\(delivered)")
            }
            _ = try await listener.wait(for: 40)
            let callback = try await client.get("/__sandbox/callbacks/\(id)").jsonObject()
            let kept = attempts(callback)
            #expect(callback["attempt_count"] as? Int == 40, "\(callback)")
            #expect(kept.map { $0["url"] as? String } == (30..<40).map { "http://127.0.0.1:\(hooks.port)/hooks/n\($0)" })
            #expect(kept.allSatisfy { $0["answer"] as? String == "ok" && $0["manual"] as? Bool == true }, "\(kept)")
            #expect((callback["last_result"] as? [String: Any])?["url"] as? String == "http://127.0.0.1:\(hooks.port)/hooks/n39")
        }
    }

    @Test("A URL over 8 KiB is refused: deliver's url (400, not echoed whole), Klarna HPP's status_update, Swedbank Pay's callbackUrl; 8 KiB passes")
    func longURLs_AreRefused() async throws {
        try await CallbackOutboxTests.withKlarna("outbox-long-url") { client, server, listener, hooks in
            let id = try await Self.heldCallback(client, hooks: hooks)
            let base = "http://127.0.0.1:\(hooks.port)/hooks/"
            let longest = base + String(repeating: "a", count: MerchantURL.maxLength - base.utf8.count)
            let refused = try await client.outbox.deliver(id, #"{"url": "\#(longest)a"}"#)
            #expect(refused.status == 400 && refused.bodyText.contains("is \(MerchantURL.maxLength + 1) bytes long, more than the 8192 allowed"),
                    "\(refused.status) \(refused.bodyText.prefix(500))")
            #expect(refused.body.count < 2048, "the error echoes \(refused.body.count) bytes")
            let accepted = try await client.outbox.deliver(id, #"{"url": "\#(longest)"}"#)
            #expect(accepted.status == 200 && ((try? accepted.jsonObject()["attempt"] as? [String: Any])?["status"] as? Int) == 200,
                    "\(accepted.status) \(accepted.bodyText.prefix(300))")
            #expect(try await listener.wait(for: 1).first?.target.utf8.count == MerchantURL.maxLength - "http://127.0.0.1:\(hooks.port)".utf8.count)

            let kp = try await client.newSession()
            let hpp = try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaExamples.jsonText(["status_update": longest + "a"])))
            _ = expectKlarnaError(hpp, 400, "BAD_VALUE", ["Bad value: merchant_urls.status_update",
                                                           "We were unable to create a session with the provided data. Some field constraint was violated."])
            let swedbank = try await SwedbankPayClient(server).create(MerchantURLValidationTests.swedbankOrder(replacing: "callbackUrl", with: longest + "a"))
            MerchantURLValidationTests.expectInputError(swedbank, "PaymentOrder.Urls.CallbackUrl")
            #expect(swedbank.bodyText.contains("more than the 8192 allowed"), "\(swedbank.bodyText.prefix(500))")
        }
    }

    @Test("Deliver to a 307 (or a 303): a failed attempt with that status; the redirect's target is never called")
    func deliver_ToARedirect_IsAFailedAttempt() async throws {
        try await CallbackOutboxTests.withKlarna("outbox-redirect") { client, _, _, hooks in
            let id = try await Self.heldCallback(client, hooks: hooks)
            try await withHostileEndpoint { endpoint in
                for status in [307, 303] {
                    let response = try await client.outbox.deliver(id, #"{"url": "\#(endpoint.url("/redirect/\(status)"))"}"#)
                    let attempt = try #require(try response.jsonObject()["attempt"] as? [String: Any], "\(response)")
                    #expect(attempt["status"] as? Int == status && attempt["delivered"] as? Bool == false && attempt["error"] is NSNull, "\(attempt)")
                    #expect((try response.jsonObject()["callback"] as? [String: Any])?["state"] as? String == "held")
                }
                #expect(endpoint.requests(to: "/target").isEmpty, "a redirect was followed")
                #expect(endpoint.requests(to: "/redirect/").count == 2)
            }
        }
    }

    @Test("Deliver to an endless body: answered at once with status 200 and the body's first 4 KiB; to a trickle: answered when the 10 s deadline ends the call")
    func deliver_ToAnEndlessBodyAndATrickle() async throws {
        try await CallbackOutboxTests.withKlarna("outbox-hostile") { client, server, _, hooks in
            let id = try await Self.heldCallback(client, hooks: hooks)
            try await withHostileEndpoint { endpoint in
                let endless = try await client.outbox.deliver(id, #"{"url": "\#(endpoint.url("/endless"))"}"#)
                let attempt = try #require(try endless.jsonObject()["attempt"] as? [String: Any], "\(endless)")
                #expect(attempt["status"] as? Int == 200 && (attempt["answer"] as? String)?.unicodeScalars.count == CallbackHTTPClient.answerPrefixBytes,
                        "\(attempt["status"] ?? "-") \((attempt["answer"] as? String)?.count ?? -1)")
                let path = "/__sandbox/callbacks/\(id)/deliver"
                let body = #"{"url": "\#(endpoint.url("/trickle"))"}"#
                let (trickle, took) = try await measure {
                    try await server.exchange(klarnaRequest("POST", path, port: server.port, headers: client.headers([("Content-Type", "application/json")]),
                                                            body: body), timeout: .seconds(30))
                }
                let failed = try #require(try trickle.jsonObject()["attempt"] as? [String: Any], "\(trickle)")
                #expect(trickle.status == 200 && failed["status"] is NSNull && (failed["error"] as? String)?.hasPrefix("no whole answer within 10 s") == true,
                        "\(failed)")
                // At the deadline, not at the server's 120 s handler timeout (30 s: room for a busy test machine).
                #expect(took >= .seconds(10) && took < .seconds(30), "answered after \(took)")
            }
        }
    }
}
