// SPDX-License-Identifier: MIT
// commit_then_drop end to end, for representative operations of each API: the call takes full effect (a re-read
// shows it), then the connection closes before the answer; delay_ms still delays; in-process the drop is the same
// (RunningServer maps URLError.networkConnectionLost to closedBeforeResponse, as a socket's close).
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("commit_then_drop: the call takes effect, then the connection drops before the answer")
struct CommitThenDropTests {
    static let dropped = RawClientError.closedBeforeResponse(partial: "")

    /// Every operation the tests drop, under one scenario named per call with the Sandbox-Scenario header.
    static let scenario = scenarioFile("e2e-commit-then-drop", rules: [
        #"{"operation": "klarna.payments.create_session", "outcome": "commit_then_drop", "delay_ms": 300}"#,
        #"{"operation": "klarna.hpp.create_session", "outcome": "commit_then_drop"}"#,
        #"{"operation": "swedbankpay.paymentorders.create", "outcome": "commit_then_drop"}"#,
    ])
    static let header = [("Sandbox-Scenario", "e2e-commit-then-drop")]

    static func withSandbox<T>(_ transport: RequestTransport, _ body: (PaymentSandbox, RunningServer) async throws -> T) async throws -> T {
        try await withScenarioDirectory { directory in
            try directory.write("commit-then-drop.json", scenario)
            return try await withScenarioSandbox(extra: [directory.url], transport: transport) { sandbox, server in
                try await body(sandbox, server)
            }
        }
    }

    @Test("Klarna create session: dropped after delay_ms, the session exists (a GET reads it)", arguments: [RequestTransport.socket, .inProcess])
    func klarnaCreateSession(transport: RequestTransport) async throws {
        try await Self.withSandbox(transport) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("ctd-kp-session"))
            let clock = ContinuousClock(), started = clock.now
            await #expect(throws: Self.dropped) {
                _ = try await client.send("POST", "/payments/v1/sessions", body: KlarnaExamples.gbSession, headers: Self.header)
            }
            #expect(clock.now - started >= .milliseconds(300), "delay_ms delays the drop")
            let read = try await client.readSession(sequentialID(1))
            #expect(read.status == 200, "\(read)")
            #expect(try read.jsonObject()["status"] as? String == "incomplete")
            let journal = try await client.journalLines()
            #expect(journal == [
                "POST /payments/v1/sessions 499 scenario=e2e-commit-then-drop klarna.payments.create_session: commit_then_drop",
                "GET /payments/v1/sessions/\(sequentialID(1)) 200 scenario=e2e-commit-then-drop klarna.payments.read_session: approve",
            ], "\(journal)")
        }
    }

    @Test("Klarna place order and Order Management capture (bundled commit-then-drop): both dropped, both done")
    func klarnaCreateOrderAndCapture() async throws {
        try await Self.withSandbox(.inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("ctd-kp-order"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "commit-then-drop"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            await #expect(throws: Self.dropped) { _ = try await client.createOrder(sequentialID(2), scenario: nil) }
            // The order was placed: Order Management has it, and the token is used up (a repeat would not place a second).
            let order = try await client.omOrder(sequentialID(3))
            #expect(order.status == 200, "\(order)")
            #expect(try order.jsonObject()["status"] as? String == "AUTHORIZED")
            await #expect(throws: Self.dropped) {
                _ = try await client.omCapture(sequentialID(3), #"{"captured_amount": 20000, "description": "First parcel"}"#)
            }
            let captured = try await client.omOrder(sequentialID(3)).jsonObject()
            #expect(captured["captured_amount"] as? Int == 20000 && captured["status"] as? String == "PART_CAPTURED", "\(captured)")
            let journal = try await client.journalLines("path_prefix=/ordermanagement/")
            #expect(journal.contains(
                "POST /ordermanagement/v1/orders/\(sequentialID(3))/captures 499 scenario=commit-then-drop klarna.ordermanagement.capture: commit_then_drop"),
                "\(journal)")
        }
    }

    @Test("Klarna HPP create session: dropped, the HPP session exists (WAITING)")
    func klarnaHPPCreateSession() async throws {
        try await Self.withSandbox(.inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("ctd-hpp"))
            let kp = try await client.newSession()
            await #expect(throws: Self.dropped) {
                _ = try await client.send("POST", "/hpp/v1/sessions", body: KlarnaHPPBodies.createBody(kp), headers: Self.header)
            }
            let read = try await client.get("/hpp/v1/sessions/\(sequentialID(2))")
            #expect(read.status == 200, "\(read)")
            #expect(try read.jsonObject()["status"] as? String == "WAITING")
        }
    }

    @Test("Swedbank Pay create payment order and capture: dropped, the order exists and the capture is made")
    func swedbankPayCreateAndCapture() async throws {
        try await Self.withSandbox(.inProcess) { sandbox, server in
            let client = SwedbankPayClient(server)
            let namespace = Namespace(client.namespaceName)
            await #expect(throws: Self.dropped) { _ = try await client.create(headers: Self.header) }
            let id = sequentialID(1)
            let created = try await client.send("GET", "/psp/paymentorders/\(id)")
            #expect(created.status == 200, "\(created)")
            #expect((try created.jsonObject()["paymentOrder"] as? [String: Any])?["status"] as? String == "Initialized")

            // Paid, then captured under the bundled swedbankpay-commit-then-drop.
            let paidID = try await client.newOrder(headers: [("Sandbox-Scenario", "swedbankpay-commit-then-drop")])
            let attempt = try sandbox.swedbankPayOrders.beginAttempt(namespace, orderID: paidID, instrument: "CreditCard", prefill: false)
            #expect(sandbox.swedbankPayOrders.attemptPaid(namespace, orderID: paidID, attempt, transactionType: .authorization,
                                                          details: SwedbankPayPaymentOrderTests.cardDetails))
            await #expect(throws: Self.dropped) {
                _ = try await client.send("POST", "/psp/paymentorders/\(paidID)/captures",
                                          body: SwedbankPayExamples.capture(amount: 1000, vatAmount: 250, payeeReference: "CTD1"))
            }
            let after = try await client.send("GET", "/psp/paymentorders/\(paidID)")
            let document = try #require(try after.jsonObject()["paymentOrder"] as? [String: Any])
            #expect(document["remainingCaptureAmount"] as? Int == 500, "\(document)")
        }
    }

    @Test("Swedbank Pay payment session: the saved-card attempt's answer is lost, the order is Paid; the SDK's GET shows it")
    func paymentSessionAttempt() async throws {
        try await Self.withSandbox(.inProcess) { sandbox, server in
            let (driver, token, idle) = try await SwedbankPaySessionEdgeTests.prepared(sandbox, server, "ctd-attempt",
                                                                                      scenario: "swedbankpay-commit-then-drop")
            let start = try #require(idle.method("CreditCard")?.operations.first { $0.rel == .startPaymentAttempt }?.href)
            let paymentToken = try #require(idle.method("CreditCard")?.prefills?.compactMap { prefill -> String? in
                if case .card(let card) = prefill, card.rank == 3 { return card.paymentToken }
                return nil
            }.first)
            await #expect(throws: Self.dropped) {
                _ = try await server.exchange(rawRequest("POST", try driver.path(start), headers: [("Accept", "application/json"), ("Content-Type", "application/json")],
                                                         body: #"{"culture":"sv-SE","paymentToken":"\#(paymentToken)","client":{}}"#))
            }
            #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
            let reread = try await driver.exchange("GET", "/psp/paymentsessions/\(token)")
            #expect(reread.status == 200 && reread.text.contains(SwedbankPayTestOrder.completeUrl.replacingOccurrences(of: "/", with: "\\/"))
                    || reread.text.contains(SwedbankPayTestOrder.completeUrl), "\(reread)")
        }
    }
}
