// SPDX-License-Identifier: MIT
// The payment-session API's scenario decisions that the connection carries, on a socket: a page's delayed answer, an
// http_error's own headers as written, drop_connection closing the connection (docs/scenarios.md). The session API's
// behaviour in-process: SwedbankPaySandboxTests (SwedbankPaySessionEdgeTests).
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay payment session: edges on a socket")
struct SwedbankPaySessionEdgeTests {
    static func namespace(_ label: String) -> String { "spay-edge-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// A prepared session (the SDK's first GET and prepare-payment), without choosing an instrument.
    static func prepared(_ sandbox: PaymentSandbox, _ server: RunningServer, _ label: String, platform: SwedbankPayPlatform = .iOS,
                         instrument: String? = nil, scenario: String? = nil)
    async throws -> (driver: SwedbankPaySessionDriver, token: String, idle: PaymentOutputModel) {
        let namespace = namespace(label)
        let token = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace, instrument: instrument, scenario: scenario)
        var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: try server.client(), namespace: namespace, platform: platform, choice: nil)
        _ = try await driver.run(token: token)
        return (driver, token, try #require(driver.lastDocument))
    }

    /// `delay_ms` on web.pay delays the page's answer to the pay button (the page path of the same delay).
    @Test func webPayDelay_DelaysThePagesAnswer() async throws {
        let file = scenarioFile("swedbankpay-e2e-slow-web", rules: [
            #"{"operation": "swedbankpay.web.pay", "outcome": "approve", "delay_ms": 1000}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["slow-web.json": file]) { sandbox, server in
            let token = try await SwedbankPayTestOrder.create(try server.client(), namespace: Self.namespace("slow-web"), scenario: "swedbankpay-e2e-slow-web")
            let clock = ContinuousClock(), started = clock.now
            let response = try await CheckoutPageClient(try server.client()).post("/checkout/\(token)/web/Invoice-PayExFinancingSe",
                                                                             [("ssn", "600307-1161")])
            #expect(clock.now - started >= .milliseconds(1000))
            #expect(response.status == 303)
            #expect(response.header("Location") == SwedbankPayTestOrder.completeUrl)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
        }
    }

    // MARK: Scenarios: a business decision's http_error and drop_connection

    /// A business decision's `http_error` answers the call that asked with the scenario's status, `body` and `headers`,
    /// as the scenario player answers the operations' own (docs/scenarios.md); the attempt is not started.
    @Test func swishSaleHTTPError_AnswersTheScenariosBodyAndHeaders() async throws {
        let file = scenarioFile("swedbankpay-e2e-swish-502", rules: [
            #"{"operation": "swedbankpay.swish.sale", "outcome": "http_error", "status": 502, "body": {"message": "Swish is down", "retry": true}, "headers": {"Retry-After": "7", "X-E2E-Custom": "yes"}}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["swish-502.json": file]) { sandbox, server in
            let (driver, token, idle) = try await Self.prepared(sandbox, server, "swish-502", scenario: "swedbankpay-e2e-swish-502")
            let start = try #require(idle.method("Swish")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let response = try await RawClient.exchange(port: server.port, rawRequest(
                "POST", try driver.path(start), headers: [("Content-Type", "application/json")],
                body: #"{"culture":"sv-SE","msisdn":"+46739000001","client":{}}"#))
            #expect(response.status == 502)
            #expect(response.header("Retry-After") == "7")
            #expect(response.header("X-E2E-Custom") == "yes")
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(json?["message"] as? String == "Swish is down")
            #expect(json?["retry"] as? Bool == true)
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }

    /// Without a `body`, a business decision's `http_error` is the standard problem for its status; its `delay_ms`
    /// delays it, and `drop_connection` closes the connection without an answer, as for the operations' own decisions.
    @Test func cardAuthorizeHTTPErrorWithoutBody_IsTheStatusProblem_AndDropConnectionDrops() async throws {
        let file = scenarioFile("swedbankpay-e2e-authorize-errors", rules: [
            #"{"operation": "swedbankpay.card.authorize", "sequence": [{"outcome": "http_error", "status": 503, "delay_ms": 500}, {"outcome": "drop_connection"}]}"#,
        ])
        try await withSwedbankPaySandbox(extraScenarios: ["authorize-errors.json": file]) { sandbox, server in
            let (driver, token, idle) = try await Self.prepared(sandbox, server, "authorize-errors", scenario: "swedbankpay-e2e-authorize-errors")
            let start = try #require(idle.method("CreditCard")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let paymentToken = try #require(idle.method("CreditCard")?.prefills?.compactMap { prefill -> String? in
                if case .card(let card) = prefill, card.rank == 3 { return card.paymentToken }
                return nil
            }.first)
            let body = #"{"culture":"sv-SE","paymentToken":"\#(paymentToken)","client":{}}"#
            let clock = ContinuousClock(), started = clock.now
            let refused = try await driver.exchange("POST", start, body: body)
            #expect(clock.now - started >= .milliseconds(500))
            #expect(refused.status == 503)
            let problem = try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any]
            #expect(problem?["type"] as? String == "https://api.payex.com/psp/errordetail/systemerror")
            await #expect(throws: (any Error).self) { _ = try await driver.exchange("POST", start, body: body) }
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .initialized)
        }
    }
}
