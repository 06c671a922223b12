// SPDX-License-Identifier: MIT
// Klarna's playground test data (klarna-api.md §6) without any Sandbox-Scenario header: the content rules
// of scenarios/klarna/playground.json ("klarna-playground") decide from what the app passes to the SDK's
// authorize()/load() (jsonData) and from the create-order body.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna scenarios: playground data")
struct KlarnaScenarioPlaygroundTests {
    @Test("a hard decline from the billing email or the sample person's denied phone: approved false, show_form false",
          arguments: [
              ("customer+denied@email.us", "+13106683312", "reject"),
              ("customer+reject_reason_high_risk@email.us", "+13106683312", "reject high_risk"),
              // Upper case, as Klarna's CA list writes it.
              ("customer+reject_reason_HIGH_RISK@email.us", "+13106683312", "reject high_risk"),
              ("customer@email.us", "+13106354386", "reject"),
          ])
    func rejects(email: String, phone: String, decision: String) async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("playground-reject"))
            let session = try await client.newSession(KlarnaExamples.usSession)
            ScenarioExpect.rejected(try await client.authorize(session, PlaygroundData.jsonData(email: email, phone: phone), scenario: nil))
            let state = try await client.paymentsState()
            #expect((state["authorizations"] as? [Any])?.isEmpty == true, "\(state)")
            let sessions = try #require(state["sessions"] as? [[String: Any]])
            #expect(sessions.first?["scenario"] is NSNull, "a playground session sticks to no scenario: \(sessions)")
            #expect(try await client.journalLines("path_prefix=/__sandbox/klarna/") == [
                "POST /__sandbox/klarna/payments/sessions/\(session)/authorize 200 scenario=klarna-playground klarna.payments.authorize: \(decision)",
            ])
        }
    }

    @Test("+red: load and authorize answer ShowFormFalseError")
    func red() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("playground-red"))
            let session = try await client.newSession(KlarnaExamples.usSession)
            let data = PlaygroundData.jsonData(email: "customer+red@email.us")
            ScenarioExpect.sdkError(try await client.load(session, data), approved: nil, name: "ShowFormFalseError", action: "Load",
                                    message: ScenarioExpect.showFormFalseMessage("load"), isFatal: true)
            ScenarioExpect.sdkError(try await client.authorize(session, data, scenario: nil), name: "ShowFormFalseError", action: "Authorize",
                                    message: ScenarioExpect.showFormFalseMessage("authorize"), isFatal: true)
            // Load without the +red data shows the form.
            expectJSON(try await client.load(session, PlaygroundData.jsonData(email: "customer@email.us")), #"{"show_form": true}"#)
        }
    }

    @Test("+pend-accept: authorize approves, create order answers fraud_status PENDING")
    func pendAccept() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("playground-pending"))
            let email = "customer+pend-accept-05@email.us"
            let session = try await client.newSession(KlarnaExamples.usSession)
            ScenarioExpect.approved(try await client.authorize(session, PlaygroundData.jsonData(email: email), scenario: nil),
                                    token: sequentialID(2))
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), PlaygroundData.usOrder(email: email), scenario: nil),
                                 id: sequentialID(3), origin: sandbox.origin, fraudStatus: "PENDING")
            let orders = try #require(try await client.paymentsState()["orders"] as? [[String: Any]])
            #expect(orders.first?["fraud_status"] as? String == "PENDING", "\(orders)")
            #expect(try await client.journalLines("path_prefix=/payments/v1/authorizations/") == [
                "POST /payments/v1/authorizations/\(sequentialID(2))/order 200 scenario=klarna-playground klarna.payments.create_order: fraud_pending",
            ])
        }
    }

    @Test("an ordinary customer@email.us is approved and the order ACCEPTED")
    func ordinaryCustomer() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("playground-approved"))
            let email = "customer@email.us"
            let session = try await client.newSession(KlarnaExamples.usSession)
            ScenarioExpect.approved(try await client.authorize(session, PlaygroundData.jsonData(email: email), scenario: nil),
                                    token: sequentialID(2))
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), PlaygroundData.usOrder(email: email), scenario: nil),
                                 id: sequentialID(3), origin: sandbox.origin)
            // No rule matched anywhere: no scenario applied at all.
            #expect(try await client.journalLines() == [
                "POST /payments/v1/sessions 200 scenario=- klarna.payments.create_session: approve",
                "POST /__sandbox/klarna/payments/sessions/\(session)/authorize 200 scenario=- klarna.payments.authorize: approve",
                "POST /payments/v1/authorizations/\(sequentialID(2))/order 200 scenario=- klarna.payments.create_order: approve",
            ])
        }
    }

    @Test("the playground email in the session itself (not in jsonData) triggers too")
    func emailInSession() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("playground-in-session"))
            let body = KlarnaExamples.edit(KlarnaExamples.usSession) {
                $0["billing_address"] = KlarnaExamples.object(PlaygroundData.usAddress(email: "customer+denied@email.us"))
            }
            let session = try await client.newSession(body)
            ScenarioExpect.rejected(try await client.authorize(session, scenario: nil))
        }
    }
}
