// SPDX-License-Identifier: MIT
// The bundled Swedbank Pay callback scenarios (swedbankpay.paymentorders.callback) against a merchant listener on
// 127.0.0.1 port 0, and the payment order's callbacks in the outbox (swedbankpay-api.md §1.8).
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay callback scenarios")
struct SwedbankPayCallbackScenarioTests {
    /// A v3.1 order whose callbackUrl is the listener, created under `scenario`; its id and session token.
    static func order(_ client: SwedbankPayClient, hooks: RunningServer, scenario: String?) async throws -> (id: String, token: String) {
        let body = SwedbankPayExamples.order(callbackUrl: "http://127.0.0.1:\(hooks.port)/hooks/swedbankpay")
        let response = try await client.create(body, headers: scenario.map { [("Sandbox-Scenario", $0)] } ?? [])
        try #require(response.status == 200, "\(response)")
        let json = try response.jsonObject()
        let id = try #require((json["paymentOrder"] as? [String: Any])?["id"] as? String)
        let operations = try #require(json["operations"] as? [[String: Any]])
        let href = try #require(operations.first { $0["rel"] as? String == "view-paymentsession" }?["href"] as? String)
        let token = try #require(href.split(separator: "/").last.map(String.init))
        return (String(id.dropFirst("/psp/paymentorders/".count)), token)
    }

    /// Pays the order as the session API does (a card authorization): its callback follows.
    static func pay(_ sandbox: PaymentSandbox, _ client: SwedbankPayClient, _ id: String) throws {
        let namespace = Namespace(client.namespaceName)
        let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: id, instrument: "CreditCard", prefill: false)
        sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: id, attempt, transactionType: .authorization,
                                              details: .object([("cardBrand", .string("Visa")), ("maskedPan", .string("492500******0004"))]))
    }

    static func withSwedbankPay(_ body: (PaymentSandbox, RunningServer, SwedbankPayClient, MerchantListener, RunningServer) async throws -> Void)
    async throws {
        let listener = MerchantListener()
        try await withServer(listener.router) { _, hooks in
            try await withSandboxInstance({ deterministic(&$0) }) { sandbox, server in
                try await body(sandbox, server, SwedbankPayClient(server), listener, hooks)
            }
        }
    }

    static func outbox(_ client: SwedbankPayClient) -> OutboxClient {
        OutboxClient { method, path, body in try await client.send(method, path, body: body, contentType: "application/json") }
    }

    @Test("Outbox: the order's callback is kept with the order id as its object; a plain order's callback is delivered")
    func outbox_KeepsTheOrdersCallback() async throws {
        try await Self.withSwedbankPay { sandbox, _, client, listener, hooks in
            let (id, _) = try await Self.order(client, hooks: hooks, scenario: nil)
            try Self.pay(sandbox, client, id)
            let received = try await listener.wait(for: 1)
            let callbacks = try await Self.outbox(client).wait { states($0) == ["delivered"] }
            #expect(callbacks[0]["object"] as? String == id && callbacks[0]["operation"] as? String == "swedbankpay.paymentorders.callback")
            #expect(((callbacks[0]["body"] as? [String: Any])?["paymentOrder"] as? [String: Any])?["id"] as? String == "/psp/paymentorders/\(id)")
            #expect(received[0].json["orderReference"] as? String == "or-123456")
            #expect(try await Self.outbox(client).list("?object=\(id)").count == 1)
            #expect(try await Self.outbox(client).list("?object=/psp/paymentorders/\(id)").count == 1, "the resource path names it too")
            #expect(try await Self.outbox(client).list("?object=other").isEmpty)
        }
    }

    @Test("swedbankpay-callback-not-sent: no callback reaches callbackUrl; the outbox holds it until delivered by hand")
    func notSent() async throws {
        try await Self.withSwedbankPay { sandbox, _, client, listener, hooks in
            let (id, _) = try await Self.order(client, hooks: hooks, scenario: "swedbankpay-callback-not-sent")
            try Self.pay(sandbox, client, id)
            let held = try await Self.outbox(client).list()
            #expect(states(held) == ["held"] && attempts(held[0]).isEmpty, "\(held)")
            // A plain order paid after it: its callback is sent at once, so once it has come, the held one would
            // have come before it.
            let (plain, _) = try await Self.order(client, hooks: hooks, scenario: nil)
            try Self.pay(sandbox, client, plain)
            let first = try await listener.wait(for: 1)
            #expect(first.map { ($0.json["paymentOrder"] as? [String: Any])?["id"] as? String } == ["/psp/paymentorders/\(plain)"],
                    "only the plain order's callback reached callbackUrl")
            #expect(states(try await Self.outbox(client).list("?object=\(id)")) == ["held"])
            let delivered = try await Self.outbox(client).deliver(try #require(held[0]["id"] as? String))
            #expect(delivered.status == 200 && ((try? delivered.jsonObject()["attempt"] as? [String: Any])?["status"] as? Int) == 200, "\(delivered)")
            let received = try await listener.wait(for: 2)
            #expect(received.count == 2 && (received[1].json["paymentOrder"] as? [String: Any])?["id"] as? String == "/psp/paymentorders/\(id)")
        }
    }

    @Test("swedbankpay-callback-late: the callback comes 300 s of the sandbox clock after the payment")
    func late() async throws {
        try await Self.withSwedbankPay { sandbox, server, client, listener, hooks in
            let marker = try await SwedbankPayCallbackMarker.start(sandbox, server)
            let (id, _) = try await Self.order(client, hooks: hooks, scenario: "swedbankpay-callback-late")
            try Self.pay(sandbox, client, id)
            let pending = try await Self.outbox(client).list()
            #expect(states(pending) == ["pending"] && pending[0]["due"] is String, "\(pending)")
            try await client.advanceClock(seconds: 299)
            try await marker.fire()   // the callback timer has looked at this namespace's clock at 299 s
            #expect(listener.received.isEmpty, "not before 300 s")
            let waiting = try await Self.outbox(client).list()
            #expect(states(waiting) == ["pending"] && attempts(waiting[0]).isEmpty, "not before 300 s: \(waiting)")
            try await client.advanceClock(seconds: 1)
            _ = try await listener.wait(for: 1)
            _ = try await Self.outbox(client).wait { states($0) == ["delivered"] }
        }
    }

    @Test("swedbankpay-callback-twice: the callback reaches callbackUrl twice with the same body")
    func twice() async throws {
        try await Self.withSwedbankPay { sandbox, _, client, listener, hooks in
            let (id, _) = try await Self.order(client, hooks: hooks, scenario: "swedbankpay-callback-twice")
            try Self.pay(sandbox, client, id)
            let received = try await listener.wait(for: 2)
            #expect(received.count == 2 && received[0].body == received[1].body)
            let callbacks = try await Self.outbox(client).wait { states($0) == ["delivered", "delivered"] }
            #expect(callbacks.allSatisfy { $0["object"] as? String == id })
        }
    }

    @Test("swedbankpay-callback-failing: calls 1 and 2 fail as if answered 500 (not made); the retry 60 s after the first call reaches the merchant")
    func failing() async throws {
        try await Self.withSwedbankPay { sandbox, _, client, listener, hooks in
            let (id, _) = try await Self.order(client, hooks: hooks, scenario: "swedbankpay-callback-failing")
            try Self.pay(sandbox, client, id)
            let outbox = Self.outbox(client)
            var callbacks = try await outbox.wait { $0.first.map { attempts($0).count == 1 } ?? false }
            #expect(attempts(callbacks[0])[0]["status"] as? Int == 500 && attempts(callbacks[0])[0]["simulated"] as? Bool == true)
            try await client.advanceClock(seconds: 30)
            callbacks = try await outbox.wait { $0.first.map { attempts($0).count == 2 } ?? false }
            #expect(listener.received.isEmpty, "the merchant is not called while the failure is simulated")
            try await client.advanceClock(seconds: 30)
            let received = try await listener.wait(for: 1)
            #expect((received[0].json["paymentOrder"] as? [String: Any])?["id"] as? String == "/psp/paymentorders/\(id)")
            callbacks = try await outbox.wait { states($0) == ["delivered"] }
            #expect(attempts(callbacks[0]).map { $0["status"] as? Int } == [500, 500, 200])
            let notes = try await client.waitForJournal("method=CALLBACK", count: 3).map { $0["note"] as? String ?? "" }
            #expect(notes[0].hasSuffix("call 1/7: answered 500 (simulated by the scenario); retry 30 s after the first call (sandbox clock)"), "\(notes)")
        }
    }

    @Test("swedbankpay-callback-before-redirect: the page's 303 to completeUrl waits until the merchant has answered the callback")
    func beforeRedirect() async throws {
        try await Self.withSwedbankPay { sandbox, server, client, listener, hooks in
            let (_, token) = try await Self.order(client, hooks: hooks, scenario: "swedbankpay-callback-before-redirect")
            let page = CheckoutPageClient(try server.client())
            listener.hold()
            let pay = Task {
                let response = try await page.post("/checkout/\(token)/card", [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
                return (response, answeredBefore: listener.answered)
            }
            _ = try await listener.wait(for: 1)
            #expect(listener.answered == 0)
            listener.release()
            let (redirect, answeredBefore) = try await pay.value
            #expect(redirect.status == 303 && redirect.header("Location") == "https://example.com/payment-completed", "\(redirect)")
            #expect(answeredBefore == 1, "the redirect came after the merchant answered the callback")
            #expect(listener.answered == 1)
            // The journal records the callback's call once its answer came, and the page's POST once its own answer
            // went: the redirect waited for the callback's answer, so the call comes first.
            let post = try await client.waitForJournal("method=POST&path_prefix=/checkout/\(token)/card", count: 1)[0]
            let calls = try await client.journal("method=CALLBACK")
            let call = try #require(calls.first, "\(calls)")
            #expect(try #require(call["sequence"] as? Int) < (try #require(post["sequence"] as? Int)),
                    "the redirect waits for the callback's answer: \(calls), \(post)")
        }
    }
}
