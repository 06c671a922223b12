// SPDX-License-Identifier: MIT
// Issue 21, one decision path: decisions taken within a call (the hosted page's pay and return trip, the session
// store's business decisions on the checkout page) go through the scenario player, and the journal files the
// browser's call under the namespace the handler's answer names (the browser sends none), with the decision.
import Foundation
import PaymentSandbox
import SandboxScenarios
import SandboxTestSupport
import Testing

@Suite("One decision path: decisions within a call, journaled in the namespace the answer names")
struct DecisionPathTests {
    @Test("Klarna HPP pay: the browser's call is journaled in the session's namespace with both decisions, none in default")
    func klarnaHostedPagePay_JournaledInTheSessionsNamespace() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("decision-hpp"))
            let id = try await ReturnTripTests.hppSession(client, scenario: "hpp-redirect-lost")
            let page = try await KlarnaHPP.browser(server, "POST", "/__sandbox/klarna/hpp/sessions/\(id)/pay", form: "action=pay")
            #expect(page.status == 200, "\(page)")
            let entries = try await client.journal("path_prefix=/__sandbox/klarna/hpp/")
            let note = try #require(entries.first?["note"] as? String, "\(entries)")
            #expect(note.contains("scenario=hpp-redirect-lost klarna.payments.authorize (hosted page pay): approve"), "\(note)")
            #expect(note.contains("; scenario=hpp-redirect-lost klarna.hpp.redirect: redirect_lost"), "\(note)")
            let opened = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")
            #expect(opened.status != 404, "\(opened)")
            #expect(try await client.journal("path_prefix=/hpp/payments/").count == 1, "the page's GET, in the session's namespace")
            let defaults = try await KlarnaClient(server, namespace: "default").journal("")
            #expect(!defaults.contains { ($0["path"] as? String)?.contains(id) == true }, "\(defaults)")
        }
    }

    @Test("Checkout page, card.authenticate http_error: the page answers it, the session takes no effect, all in the order's namespace")
    func checkoutCardDecisionAnsweringTheCall_IsAValue_JournaledInTheOrdersNamespace() async throws {
        let file = scenarioFile("decision-path-authenticate-error", rules: [
            #"{"operation": "swedbankpay.card.authenticate", "sequence": [{"outcome": "http_error", "status": 503}, {"outcome": "approve"}]}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["decision-path.json": file], transport: .inProcess) { sandbox, server in
            let namespace = "decision-page-\(UUID().uuidString.prefix(8))"
            let token = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace, scenario: "decision-path-authenticate-error")
            let client = CheckoutPageClient(try server.client())
            let card = [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")]
            let answered = try await client.post("/checkout/\(token)/card", card)
            #expect(answered.status == 503, "\(answered)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized, "the answered call made no attempt")
            let menu = try await client.get("/checkout/\(token)")
            #expect(menu.status == 200 && CheckoutPageClient.mainID(menu.text) == "swedbankpay-checkout", "\(menu)")
            let paid = try await client.post("/checkout/\(token)/card", card)
            #expect(paid.status == 303 && SwedbankPayTestOrder.status(sandbox, token: token) == .paid, "\(paid)")

            let entries = try await SwedbankPayClient(server, namespace: namespace).journal("")
            let cardPosts = entries.filter { $0["method"] as? String == "POST" && $0["path"] as? String == "/checkout/\(token)/card" }
            #expect(cardPosts.map { $0["status"] as? Int } == [503, 303], "\(entries)")
            let decisions = entries.filter { $0["method"] as? String == "DECISION" }.compactMap { $0["note"] as? String }
            #expect(decisions.first?.hasPrefix("scenario=decision-path-authenticate-error swedbankpay.card.authenticate: http_error 503") == true,
                    "\(decisions)")
            let defaults = try await SwedbankPayClient(server, namespace: "default").journal("")
            #expect(!defaults.contains { ($0["path"] as? String)?.contains(token) == true }, "\(defaults)")
        }
    }
}
