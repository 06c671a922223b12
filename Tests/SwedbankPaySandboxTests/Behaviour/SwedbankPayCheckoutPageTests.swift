// SPDX-License-Identifier: MIT
// The Swedbank Pay checkout pages in-process, as a browser (or an SDK's web view) uses them: the payment menu
// and the new-card form (redirect-checkout, and embedded by the view-checkout script), Swish on the page, web-based
// instruments, cancel, the ACS challenge for typed cards (swedbankpay-api.md §3.7; otherwise inferred). Headless Chromium drives the
// same pages in .ci/run (scripts/browser/test_swedbankpay_pages.py).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay checkout pages")
struct SwedbankPayCheckoutPageTests {
    static func namespace(_ label: String) -> String { "spay-pages-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// An order and the path of its checkout page.
    static func order(_ client: SandboxClient, _ label: String, description: String = "Test Purchase", amount: Int = 1500,
                      payerReference: String? = "payer-1", scenario: String? = nil) async throws -> (namespace: String, token: String, page: String) {
        let namespace = namespace(label)
        let token = try await SwedbankPayTestOrder.create(client, namespace: namespace, description: description, amount: amount,
                                                          payerReference: payerReference, scenario: scenario)
        return (namespace, token, "/checkout/\(token)")
    }

    static func paidInstrument(_ sandbox: PaymentSandbox, _ token: String) -> (String?, SwedbankPayTransactionType?) {
        guard let (namespace, orderID) = sandbox.swedbankPayOrders.lookup(token: token),
              let view = sandbox.swedbankPayOrders.snapshot(namespace, orderID: orderID) else { return (nil, nil) }
        return (view.paidInstrument, view.paidTransactionType)
    }

    /// `GET /psp/paymentorders/<id>?$expand=<node>` as the merchant reads it.
    static func expanded(_ client: SandboxClient, _ sandbox: PaymentSandbox, token: String, _ node: String) async throws -> String {
        let (namespace, orderID) = try #require(sandbox.swedbankPayOrders.lookup(token: token))
        return try await client.namespace(namespace.name).send(.get, "/psp/paymentorders/\(orderID)?$expand=\(node)",
                                                               headers: ["Authorization": "Bearer \(namespace.name)"]).text
    }

    @Test func menu_ShowsTheOrderEscaped_AndEveryPageMethod() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "menu", description: #"<script>alert("x")</script> & co"#)
            let response = try await browser.get(page)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
            let html = response.text
            #expect(CheckoutPageClient.mainID(html) == "swedbankpay-checkout")
            #expect(CheckoutPageClient.attribute("data-token", after: #"id="swedbankpay-checkout""#, in: html) == token)
            #expect(CheckoutPageClient.attribute("data-status", after: #"id="swedbankpay-checkout""#, in: html) == "Initialized")
            #expect(!html.contains("<script>alert"))
            #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co"))
            #expect(CheckoutPageClient.attribute("data-minor-units", after: #"id="total-amount""#, in: html) == "1500")
            #expect(html.contains(">15.00 SEK</strong>"))
            for method in ["CreditCard", "Swish", "Invoice-PayExFinancingSe", "Trustly"] {
                #expect(html.contains(#"data-method="\#(method)""#), "method \(method)")
            }
            #expect(!html.contains(#"data-method="ApplePay""#) && !html.contains(#"data-method="GooglePay""#))
            // payer-aware: the three saved cards; the Swish number prefilled from payer.msisdn.
            #expect(html.components(separatedBy: #"class="pay-saved-card""#).count - 1 == 3)
            #expect(CheckoutPageClient.attribute("value", after: #"id="swish-msisdn""#, in: html) == "+46739000001")
            // History: PaymentLoaded once; integration Redirect for a top-level load.
            _ = try await browser.get(page)
            let (namespace, orderID) = try #require(sandbox.swedbankPayOrders.lookup(token: token))
            let view = try #require(sandbox.swedbankPayOrders.snapshot(namespace, orderID: orderID))
            #expect(view.integration == "Redirect")
            let history = try await Self.expanded(client, sandbox, token: token, "history")
            #expect(history.components(separatedBy: "PaymentLoaded").count - 1 == 1)
        }
    }

    @Test func newCard_Frictionless_RedirectsToCompleteUrl_AndThePageIsThenUnavailable() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "frictionless", payerReference: nil)
            let paid = try await browser.post("\(page)/card", [("pan", "4925 0000 0000 0004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(paid.status == 303)
            #expect(paid.header("Location") == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            #expect(Self.paidInstrument(sandbox, token) == ("CreditCard", .authorization))
            // A double submit changes nothing and lands on the same page; the menu is gone.
            let again = try await browser.post("\(page)/card", [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(again.status == 303 && again.header("Location") == SwedbankPayTestOrder.completeUrl)
            let after = try await browser.get(page)
            #expect(CheckoutPageClient.mainID(after.text) == "swedbankpay-unavailable")
            #expect(CheckoutPageClient.attribute("data-reason", after: "<main", in: after.text) == "paid")
        }
    }

    @Test func newCard_ThreeDSecure_ChallengeApproved_Pays() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "3ds")
            let submitted = try await browser.post("\(page)/card", [("pan", "4761739001010416"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(submitted.status == 303)
            let acs = try #require(submitted.header("Location"))
            #expect(acs.hasPrefix("\(client.baseURL.absoluteString)/acs/challenge?creq="))
            let challenge = try await browser.get(browser.path(acs))
            #expect(challenge.status == 200)
            let html = challenge.text
            #expect(CheckoutPageClient.mainID(html) == "acs-challenge")
            #expect(html.contains(#"<dd id="acs-card">476173******0416</dd>"#) && html.contains(#"<dd id="acs-amount">15.00 SEK</dd>"#))
            let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: html))
            #expect(approve.action == "\(client.baseURL.absoluteString)\(page)/card/cres")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            let done = try await browser.post(browser.path(approve.action), approve.fields)
            #expect(done.status == 303 && done.header("Location") == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            // The challenge is over: its page is no longer served, a replayed cres changes nothing.
            #expect(try await browser.get(browser.path(acs)).status == 400)
            let replay = try await browser.post(browser.path(approve.action), approve.fields)
            #expect(replay.status == 303 && replay.header("Location") == SwedbankPayTestOrder.completeUrl)
        }
    }

    @Test func savedCard_ChallengeCancelled_ShowsTheProblem_ThenAnotherCardPays() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "saved")
            let menu = try await browser.get(page).text
            let enrolled = try #require(CheckoutPageClient.form(containing: #"data-masked-pan="476173******0416""#, in: menu))
            let submitted = try await browser.post(enrolled.action, enrolled.fields)
            let challenge = try await browser.get(browser.path(try #require(submitted.header("Location")))).text
            let cancel = try #require(CheckoutPageClient.form(containing: #"id="acs-cancel""#, in: challenge))
            let declined = try await browser.post(browser.path(cancel.action), cancel.fields)
            #expect(declined.status == 200)
            #expect(CheckoutPageClient.mainID(declined.text) == "swedbankpay-checkout")
            #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: declined.text)
                    == "https://api.payex.com/psp/errordetail/creditcard/3dsecuredeclined")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            let frictionless = try #require(CheckoutPageClient.form(containing: #"data-masked-pan="492500******0004""#, in: declined.text))
            let paid = try await browser.post(frictionless.action, frictionless.fields)
            #expect(paid.status == 303 && paid.header("Location") == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            // The merchant sees the failed attempt before the paid one.
            let failed = try await Self.expanded(client, sandbox, token: token, "failedattempts")
            #expect(failed.contains("3dsecuredeclined"))
        }
    }

    @Test func cardInput_IsChecked_400WithTheMenuAgain() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "input")
            let cases: [([(String, String)], String)] = [
                ([("pan", "4925000000000005"), ("expiry", "12/33"), ("cvc", "123")], "The card number is not valid."),
                ([("pan", "6011111111111117"), ("expiry", "12/33"), ("cvc", "123")], "This card brand is not accepted"),
                ([("pan", "4925000000000004"), ("expiry", "13/33"), ("cvc", "123")], "The expiry date must be MM/YY."),
                ([("pan", "4925000000000004"), ("expiry", "10/26"), ("cvc", "123")], "The card has expired."),  // the clock is 2027-01
                ([("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "12a")], "The CVC must be 3 or 4 digits."),
                ([], "The card number is not valid."),
            ]
            for (fields, message) in cases {
                let response = try await browser.post("\(page)/card", fields)
                #expect(response.status == 400, "\(fields)")
                #expect(response.text.contains(#"<p id="card-error" class="error" role="alert">\#(message)"#), "\(fields): \(response.text)")
            }
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    @Test func cardDeclinedScenario_ShowsTheAcquirersProblem() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "declined", scenario: "swedbankpay-card-declined")
            let response = try await browser.post("\(page)/card", [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(response.status == 200)
            #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: response.text)
                    == "https://api.payex.com/psp/errordetail/creditcard/carddeclined")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    @Test func swish_WaitsForThePayer_ThenRedirects_OrShowsTheDecline() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (namespace, token, page) = try await Self.order(client, "swish")
            let waiting = try await browser.post("\(page)/swish", [("msisdn", "+46 739 000 001")])
            #expect(waiting.status == 200 && CheckoutPageClient.mainID(waiting.text) == "swish-waiting")
            #expect(waiting.text.contains(#"<meta http-equiv="refresh" content="2;url=\#(page)/swish/status">"#))
            // Before the payer answers: the same page, also from the menu's address; a second submit changes nothing.
            #expect(CheckoutPageClient.mainID(try await browser.get("\(page)/swish/status").text) == "swish-waiting")
            #expect(CheckoutPageClient.mainID(try await browser.get(page).text) == "swish-waiting")
            #expect(CheckoutPageClient.mainID(try await browser.post("\(page)/swish", [("msisdn", "+46739000001")]).text) == "swish-waiting")
            // Cancel is not allowed while Swish waits (as abort-payment, swedbankpay-api.md §3.6 G).
            let cancel = try await browser.post("\(page)/abort", [])
            #expect(cancel.status == 409 && CheckoutPageClient.mainID(cancel.text) == "swedbankpay-error")
            sandbox.registry.advance(Namespace(namespace), by: 3)
            let done = try await browser.get("\(page)/swish/status")
            #expect(done.status == 303 && done.header("Location") == SwedbankPayTestOrder.completeUrl)
            #expect(Self.paidInstrument(sandbox, token) == ("Swish", .sale))

            let (declinedNamespace, declinedToken, declinedPage) = try await Self.order(client, "swish-declined", scenario: "swedbankpay-swish-declined")
            _ = try await browser.post("\(declinedPage)/swish", [("msisdn", "+46739000001")])
            sandbox.registry.advance(Namespace(declinedNamespace), by: 3)
            let declined = try await browser.get("\(declinedPage)/swish/status")
            #expect(declined.status == 200)
            #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: declined.text)
                    == "https://api.payex.com/psp/errordetail/swishdeclined")
            #expect(SwedbankPayTestOrder.status(sandbox, token: declinedToken) == .initialized)
            // A number that is not +<country><number>: Swish's input error at once.
            let invalid = try await browser.post("\(declinedPage)/swish", [("msisdn", "0701234567")])
            #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: invalid.text)
                    == "https://api.payex.com/psp/errordetail/inputerror")
        }
    }

    @Test func webBasedInstruments_InvoiceAuthorizes_TrustlyIsASale() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            for (method, type) in [("Invoice-PayExFinancingSe", SwedbankPayTransactionType.authorization), ("Trustly", .sale)] {
                let (_, token, page) = try await Self.order(client, "web")
                let response = try await browser.post("\(page)/web/\(method)", [("ssn", "199710202392")])
                #expect(response.status == 303 && response.header("Location") == SwedbankPayTestOrder.completeUrl, "\(method)")
                #expect(Self.paidInstrument(sandbox, token) == (method, type))
            }
            // Not an instrument of the page: 409 in Swedbank Pay's words, as an HTML page.
            let (_, _, page) = try await Self.order(client, "web-unknown")
            let unknown = try await browser.post("\(page)/web/ApplePay", [])
            #expect(unknown.status == 409)
            #expect(CheckoutPageClient.attribute("data-problem-type", after: "<main", in: unknown.text)
                    == "https://api.payex.com/psp/errordetail/paymentsessions/operationnotallowed")
        }
    }

    @Test func cancel_RedirectsToCancelUrl_AndUnknownTokensAreNotFound() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (_, token, page) = try await Self.order(client, "cancel")
            let cancelled = try await browser.post("\(page)/abort", [])
            #expect(cancelled.status == 303 && cancelled.header("Location") == SwedbankPayTestOrder.cancelUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .aborted)
            let again = try await browser.post("\(page)/abort", [])
            #expect(again.status == 303 && again.header("Location") == SwedbankPayTestOrder.cancelUrl)
            #expect(CheckoutPageClient.attribute("data-reason", after: "<main", in: try await browser.get(page).text) == "aborted")
            let card = try await browser.post("\(page)/card", [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(card.status == 303 && card.header("Location") == SwedbankPayTestOrder.cancelUrl)

            let unknown = try await browser.get("/checkout/\(String(repeating: "0", count: 64))")
            #expect(unknown.status == 404)
            #expect(CheckoutPageClient.attribute("data-reason", after: "<main", in: unknown.text) == "not_found")
            #expect(try await browser.post("/checkout/nope/abort", []).status == 404)
            let badChallenge = try await browser.post("/acs/challenge", [("creq", "not base64 json")])
            #expect(badChallenge.status == 400 && CheckoutPageClient.mainID(badChallenge.text) == "acs-error")
        }
    }

    /// The SDK's web-view fallback (swedbankpay-api.md §3.6 D, §3.7): customize-payment, then view-payment is a script
    /// that embeds the menu; paying there ends the session, which the app's next GET shows.
    @Test func viewCheckoutScript_EmbedsTheMenu_AndTheSessionSeesThePayment() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            var (end, driver, token) = try await SwedbankPaySessionFlowTests.pay(.iOS, .webBased("Trustly"), scenario: nil, sandbox: sandbox,
                                                                                client: client)
            guard case .webView(let href) = end else { Issue.record("\(end)"); return }
            let script = try await browser.get(browser.path(href))
            #expect(script.status == 200)
            #expect(script.header("Content-Type") == "application/javascript; charset=utf-8")
            #expect(script.text.contains("payex.hostedView.checkout = checkout"))
            let menuURL = "\(client.baseURL.absoluteString)/checkout/\(token)?embed=1&culture=sv-SE"
            #expect(script.text.contains(#""menuUrl":"\#(menuURL)""#))
            #expect(script.text.contains(#""completeUrl":"https://example.com/payment-completed?order=1""#))
            // In instrument mode (customize-payment Trustly) the embedded menu offers Trustly only.
            let menu = try await browser.get(browser.path(menuURL)).text
            #expect(CheckoutPageClient.attribute("data-embed", after: "<main", in: menu) == "1")
            #expect(menu.contains(#"data-method="Trustly""#) && !menu.contains(#"data-method="Swish""#))
            let form = try #require(CheckoutPageClient.form(containing: #"id="pay-Trustly""#, in: menu))
            #expect(form.action == "/checkout/\(token)/web/Trustly?embed=1")
            let result = try await browser.post(form.action, [("ssn", "199710202392")])
            #expect(result.status == 200 && CheckoutPageClient.mainID(result.text) == "result")
            #expect(CheckoutPageClient.attribute("data-status", after: "<main", in: result.text) == "Paid")
            #expect(result.text.contains(#""event":"paid""#) && result.text.contains("window.parent.postMessage(message"))
            // The app's next GET of the session ends at completeUrl.
            let document = try await driver.call("GET", driver.sessionURL)
            let redirect = try #require(document.topLevel(.redirectPayer))
            #expect(redirect.href == SwedbankPayTestOrder.completeUrl)
            // An unknown token: a script that reports the error to the page instead of a 404 the page cannot handle.
            let missing = try await browser.get("/checkout/client/nope?culture=sv-SE")
            #expect(missing.status == 200 && missing.text.contains(#""menuUrl":null"#))
        }
    }

    /// The bundled `swedbankpay-capture-refused`: paid on the page, the merchant's capture is refused, a cancellation is not.
    @Test func captureRefusedScenario_RefusesTheCapture_NotTheCancellation() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (namespace, token, page) = try await Self.order(client, "capture-refused", scenario: "swedbankpay-capture-refused")
            let paid = try await browser.post("\(page)/card", [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(paid.status == 303 && SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            let (_, orderID) = try #require(sandbox.swedbankPayOrders.lookup(token: token))
            func send(_ path: String, _ body: String) async throws -> SandboxResponse {
                try await client.namespace(nil).send(.post, path, headers: ["Authorization": "Bearer \(namespace)",
                                                                             "Content-Type": "application/json;version=3.1"],
                                                     body: Data(body.utf8))
            }
            let capture = try await send("/psp/paymentorders/\(orderID)/captures",
                #"{"transaction":{"description":"Capture","amount":1500,"vatAmount":0,"payeeReference":"cap1"}}"#)
            #expect(capture.status == 403, "\(capture)")
            #expect(capture.jsonObject()?["type"] as? String == "https://api.payex.com/psp/errordetail/forbidden")
            let cancel = try await send("/psp/paymentorders/\(orderID)/cancellations",
                #"{"transaction":{"description":"Cancel","payeeReference":"can1"}}"#)
            #expect(cancel.status == 200, "\(cancel)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .cancelled)
        }
    }

    @Test func journal_NamesTheOrdersNamespaceForPageRequests_AndTheBusinessDecisions() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let (namespace, _, page) = try await Self.order(client, "journal", scenario: "swedbankpay-card-declined")
            _ = try await browser.get(page)
            _ = try await browser.post("\(page)/card", [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            let journal = try await client.namespace(namespace).send(.get, "/__sandbox/journal")
            let entries = try #require(journal.jsonObject()?["entries"] as? [[String: Any]])
            #expect(entries.contains { $0["method"] as? String == "GET" && $0["path"] as? String == page }, "\(journal.text)")
            // The business decisions inside the card POST, each with the scenario that made it.
            let decisions = entries.filter { $0["method"] as? String == "DECISION" }.compactMap { $0["note"] as? String }
            #expect(decisions.count == 2, "\(decisions)")
            #expect(decisions.first?.hasPrefix("scenario=swedbankpay-card-declined swedbankpay.card.authenticate:") == true, "\(decisions)")
            #expect(decisions.last?.hasPrefix("scenario=swedbankpay-card-declined swedbankpay.card.authorize: card_declined") == true,
                    "\(decisions)")
        }
    }
}
