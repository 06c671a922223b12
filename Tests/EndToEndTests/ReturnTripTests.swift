// SPDX-License-Identifier: MIT
// The return trip to the app lost or late while the payment is done on the server (docs/scenarios.md, "Failures apps must survive"), with the bundled
// scenarios: Klarna's hosted page (klarna.hpp.redirect) and Swedbank Pay's checkout pages (swedbankpay.checkout.redirect).
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

@Suite("Return trip: the redirect to the app lost or late, the payment done")
struct ReturnTripTests {
    static let appURL = #"{"success": "myapp://klarna-redirect?sid={{session_id}}"}"#

    /// A KP session under `scenario` and an HPP session on it whose success URL is the app's.
    static func hppSession(_ client: KlarnaClient, scenario: String) async throws -> String {
        ScenarioExpect.sessionCreated(try await client.createSession(scenario: scenario), id: sequentialID(1))
        let kp = sequentialID(1)
        return try await KlarnaHPP.newHPPSession(client, KlarnaHPP.createBody(kp, merchantURLs: Self.appURL))
    }

    @Test("Klarna HPP, hpp-redirect-lost: pay completes the session, the page shows it with no redirect to myapp://")
    func klarnaRedirectLost() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("trip-hpp-lost"))
            let id = try await Self.hppSession(client, scenario: "hpp-redirect-lost")
            let page = try await KlarnaHPP.browser(server, "POST", "/__sandbox/klarna/hpp/sessions/\(id)/pay", form: "action=pay")
            #expect(page.status == 200 && page.header("Location") == nil, "\(page)")
            #expect(page.bodyText.contains(#"data-status="COMPLETED""#) && page.bodyText.contains("Payment complete"), "\(page)")
            #expect(!page.bodyText.contains("myapp:"), "the page offers no way back")
            let session = try await KlarnaHPP.read(client, id)
            #expect(session["status"] as? String == "COMPLETED" && session["authorization_token"] as? String != nil, "\(session)")
            let entries = try await client.journal("path_prefix=/__sandbox/klarna/hpp/")
            let note = entries.first?["note"] as? String ?? ""
            #expect(note.contains("-> COMPLETED") && note.contains("scenario=hpp-redirect-lost klarna.hpp.redirect: redirect_lost"), "\(entries)")
        }
    }

    @Test("Klarna HPP, hpp-redirect-late: the session is COMPLETED at once, the 303 to myapp:// comes 5 s later")
    func klarnaRedirectLate() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("trip-hpp-late"))
            let id = try await Self.hppSession(client, scenario: "hpp-redirect-late")
            let clock = ContinuousClock(), started = clock.now
            // The in-process exchange waits up to 5 s by default: longer here, for the late redirect.
            async let paid = server.exchange(klarnaRequest("POST", "/__sandbox/klarna/hpp/sessions/\(id)/pay", port: server.port),
                                             timeout: .seconds(30))
            // While the redirect is on its way, the server already says COMPLETED.
            var status: String?
            while clock.now - started < .seconds(4), status != "COMPLETED" {
                status = try await KlarnaHPP.read(client, id)["status"] as? String
                if status != "COMPLETED" { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == "COMPLETED")
            #expect(clock.now - started < .seconds(5), "COMPLETED before the redirect")
            KlarnaHPP.expect303(try await paid, to: "myapp://klarna-redirect?sid=\(id)", status: "COMPLETED")
            #expect(clock.now - started >= .seconds(5))
        }
    }

    @Test("Swedbank Pay checkout page, swedbankpay-redirect-lost: the card pays, the page shows it paid, no 303 to completeUrl")
    func swedbankPayRedirectLost() async throws {
        try await withSwedbankPaySandbox(transport: .inProcess) { sandbox, server in
            let token = try await SwedbankPayTestOrder.create(server, namespace: "trip-spay-lost-\(UUID().uuidString.prefix(8))",
                                                              scenario: "swedbankpay-redirect-lost")
            let page = try await CheckoutPageClient(server: server).post("/checkout/\(token)/card",
                                                                         [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(page.status == 200 && page.header("Location") == nil, "\(page)")
            #expect(CheckoutPageClient.attribute("data-status", after: #"<main id="result""#, in: page.bodyText) == "Paid", "\(page)")
            #expect(!page.bodyText.contains(SwedbankPayTestOrder.completeUrl) && !page.bodyText.contains("postMessage"), "\(page)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    @Test("Swedbank Pay checkout page, swedbankpay-redirect-late: the order is Paid at once, the 303 to completeUrl comes 5 s later")
    func swedbankPayRedirectLate() async throws {
        try await withSwedbankPaySandbox(transport: .inProcess) { sandbox, server in
            let token = try await SwedbankPayTestOrder.create(server, namespace: "trip-spay-late-\(UUID().uuidString.prefix(8))",
                                                              scenario: "swedbankpay-redirect-late")
            let clock = ContinuousClock(), started = clock.now
            let form = "pan=4925000000000004&expiry=12%2F33&cvc=123"
            async let paid = server.exchange("POST /checkout/\(token)/card HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)",
                timeout: .seconds(30))
            while clock.now - started < .seconds(4), SwedbankPayTestOrder.status(sandbox, token: token) != .paid {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            #expect(clock.now - started < .seconds(5), "Paid before the redirect")
            let response = try await paid
            #expect(response.status == 303 && response.header("Location") == SwedbankPayTestOrder.completeUrl, "\(response)")
            #expect(clock.now - started >= .seconds(5))
        }
    }

    /// A prepared session under `scenario` with a local Swish start (`msisdn: null`): the launch-client-app href's token.
    static func swishStarted(_ sandbox: PaymentSandbox, _ server: RunningServer, _ label: String, scenario: String?)
    async throws -> (driver: SwedbankPaySessionDriver, token: String, launchToken: String) {
        let (driver, token, idle) = try await SwedbankPaySessionEdgeTests.prepared(sandbox, server, label, scenario: scenario)
        let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
        let started = try await driver.exchange("POST", start, body: #"{"culture":"sv-SE","msisdn":null,"client":{}}"#)
        try #require(started.status == 200, "\(started)")
        let marker = "swish://paymentrequest?token="
        let text = started.bodyText
        let range = try #require(text.range(of: marker), "no launch-client-app href in \(text)")
        let launchToken = String(text[range.upperBound...].prefix { $0.isLetter || $0.isNumber })
        try #require(!launchToken.isEmpty)
        return (driver, token, launchToken)
    }

    static let paymentURL = "https://example.com/perform-payment"
    static func swishApp(_ launchToken: String) -> String {
        "/swish/paymentrequest?token=\(launchToken)&callbackurl=\(SwedbankPaySessionDriver.formEncode(paymentURL))"
    }

    @Test("Swish app stand-in without a scenario: the payer pays in Swish, which reopens the app through paymentUrl (303)")
    func swishAppReturns() async throws {
        try await withSwedbankPaySandbox(transport: .inProcess) { sandbox, server in
            let (driver, token, launchToken) = try await Self.swishStarted(sandbox, server, "trip-swish-ok", scenario: nil)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
            let opened = try await driver.exchange("GET", Self.swishApp(launchToken))
            #expect(opened.status == 303 && opened.header("Location") == Self.paymentURL, "\(opened)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            let again = try await driver.exchange("GET", Self.swishApp(launchToken))
            #expect(again.status == 404, "the request is answered: \(again)")
        }
    }

    @Test("Swish, swedbankpay-swish-app-not-reopened: the order is Paid, the Swish app stays on 'Paid', paymentUrl is never opened")
    func swishAppNotReopened() async throws {
        try await withSwedbankPaySandbox(transport: .inProcess) { sandbox, server in
            let (driver, token, launchToken) = try await Self.swishStarted(sandbox, server, "trip-swish-lost",
                                                                           scenario: "swedbankpay-swish-app-not-reopened")
            let opened = try await driver.exchange("GET", Self.swishApp(launchToken))
            #expect(opened.status == 200 && opened.header("Location") == nil, "\(opened)")
            #expect(CheckoutPageClient.attribute("data-status", after: #"<main id="swish-app""#, in: opened.bodyText) == "Paid", "\(opened)")
            #expect(!opened.bodyText.contains(Self.paymentURL))
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            // An app that looks for itself (the SDK's GET of the session) finds it complete.
            let session = try await driver.exchange("GET", "/psp/paymentsessions/\(token)")
            #expect(session.status == 200 && session.bodyText.contains("redirect-payer"), "\(session)")
            let journal = try await SwedbankPayClient(server, namespace: driver.namespace).journal("")
            #expect(journal.contains { ($0["note"] as? String)?.contains("swedbankpay.swish.app_return: redirect_lost") == true }, "\(journal)")
        }
    }
}
