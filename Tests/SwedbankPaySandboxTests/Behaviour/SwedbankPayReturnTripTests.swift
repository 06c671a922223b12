// SPDX-License-Identifier: MIT
// The return trip to the app lost or late while the payment is done on the server (docs/scenarios.md, "Failures apps
// must survive"), with the bundled scenarios: the checkout pages (swedbankpay.checkout.redirect) and the Swish app
// stand-in (swedbankpay.swish.app_return).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay return trip: the redirect to the app lost or late, the payment done")
struct SwedbankPayReturnTripTests {
    @Test("Swedbank Pay checkout page, swedbankpay-redirect-lost: the card pays, the page shows it paid, no 303 to completeUrl")
    func swedbankPayRedirectLost() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let token = try await SwedbankPayTestOrder.create(client, namespace: "trip-spay-lost-\(UUID().uuidString.prefix(8))",
                                                              scenario: "swedbankpay-redirect-lost")
            let page = try await CheckoutPageClient(client).post("/checkout/\(token)/card",
                                                                         [("pan", "4925000000000004"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(page.status == 200 && page.header("Location") == nil, "\(page)")
            #expect(CheckoutPageClient.attribute("data-status", after: #"<main id="result""#, in: page.text) == "Paid", "\(page)")
            #expect(!page.text.contains(SwedbankPayTestOrder.completeUrl) && !page.text.contains("postMessage"), "\(page)")
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    @Test("Swedbank Pay checkout page, swedbankpay-redirect-late: the order is Paid at once, the 303 to completeUrl comes 5 s later")
    func swedbankPayRedirectLate() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let token = try await SwedbankPayTestOrder.create(client, namespace: "trip-spay-late-\(UUID().uuidString.prefix(8))",
                                                              scenario: "swedbankpay-redirect-late")
            let clock = ContinuousClock(), started = clock.now
            let form = "pan=4925000000000004&expiry=12%2F33&cvc=123"
            // Whether the answer has come, rather than a time: on a loaded machine the request itself may start late.
            let answered = Locked(false)
            async let paid: SandboxResponse = {
                let response = try await client.send(.post, "/checkout/\(token)/card",
                                                     headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8))
                answered.withLock { $0 = true }
                return response
            }()
            while !answered.withLock({ $0 }), SwedbankPayTestOrder.status(sandbox, token: token) != .paid {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            #expect(!answered.withLock { $0 }, "Paid before the redirect")
            let response = try await paid
            #expect(response.status == 303 && response.header("Location") == SwedbankPayTestOrder.completeUrl, "\(response)")
            #expect(clock.now - started >= .seconds(5))
        }
    }

    /// A prepared session under `scenario` with a local Swish start (`msisdn: null`): the launch-client-app href's token.
    static func swishStarted(_ sandbox: PaymentSandbox, _ client: SandboxClient, _ label: String, scenario: String?)
    async throws -> (driver: SwedbankPaySessionDriver, token: String, launchToken: String) {
        let (driver, token, idle) = try await SwedbankPaySessionEdgeTests.prepared(sandbox, client, label, scenario: scenario)
        let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
        let started = try await driver.exchange("POST", start, body: #"{"culture":"sv-SE","msisdn":null,"client":{}}"#)
        try #require(started.status == 200, "\(started)")
        let marker = "swish://paymentrequest?token="
        let text = started.text
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
        try await withSwedbankPaySandbox { sandbox, client in
            let (driver, token, launchToken) = try await Self.swishStarted(sandbox, client, "trip-swish-ok", scenario: nil)
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
        try await withSwedbankPaySandbox { sandbox, client in
            let (driver, token, launchToken) = try await Self.swishStarted(sandbox, client, "trip-swish-lost",
                                                                           scenario: "swedbankpay-swish-app-not-reopened")
            let opened = try await driver.exchange("GET", Self.swishApp(launchToken))
            #expect(opened.status == 200 && opened.header("Location") == nil, "\(opened)")
            #expect(CheckoutPageClient.attribute("data-status", after: #"<main id="swish-app""#, in: opened.text) == "Paid", "\(opened)")
            #expect(!opened.text.contains(Self.paymentURL))
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            // An app that looks for itself (the SDK's GET of the session) finds it complete.
            let session = try await driver.exchange("GET", "/psp/paymentsessions/\(token)")
            #expect(session.status == 200 && session.text.contains("redirect-payer"), "\(session)")
            let journal = try await client.namespace(driver.namespace).control.journal()
            #expect(journal.contains { $0.note.contains("swedbankpay.swish.app_return: redirect_lost") }, "\(journal)")
        }
    }
}
