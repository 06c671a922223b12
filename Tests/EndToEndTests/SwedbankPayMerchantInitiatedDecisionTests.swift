// SPDX-License-Identifier: MIT
import Foundation
import PaymentSandbox
import SandboxScenarios
import Testing

/// The card decision inside a Recur (`swedbankpay.card.authorize` on a stored card) takes the one path from a
/// scenario decision to an answer that every other decision takes: its `http_error` sends the scenario's body and
/// headers, its `drop_connection` drops, its `delay_ms` delays; an answered error makes no order.
@Suite("Swedbank Pay: the merchant-initiated card decision answers as every decision does")
struct SwedbankPayMerchantInitiatedDecisionTests {
    @Test("Recur: http_error with a body and headers, then drop_connection, then a delayed approve")
    func recurDecision_HTTPErrorBodyDropAndDelay() async throws {
        let file = scenarioFile("swedbankpay-e2e-recur-answers", rules: [
            #"{"operation": "swedbankpay.card.authorize", "sequence": [{"outcome": "http_error", "status": 502, "body": {"acquirer": "down"}, "headers": {"Retry-After": "7"}}, {"outcome": "drop_connection"}, {"outcome": "approve", "delay_ms": 600}]}"#,
        ])
        try await withScenarioDirectory { directory in
            try directory.write("recur.json", file)
            try await withSandboxInstance(transport: .inProcess, { deterministic(&$0); $0.scenarioDirectories = [directory.url] }) { sandbox, server in
                let client = SwedbankPayClient(server)
                let recurrence = try #require(try await SwedbankPayTokenOrderTests.paidWithTokens(sandbox, client)["recurrence"])
                let namespace = Namespace(client.namespaceName)
                let ordersBefore = sandbox.swedbankPayOrders.snapshot(namespace).data
                let headers = [("Sandbox-Scenario", "swedbankpay-e2e-recur-answers")]
                let recur = { (reference: String) in
                    SwedbankPayTokenOrderTests.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence, payeeReference: reference)
                }

                let failed = try await client.create(recur("CD2001"), headers: headers)
                #expect(failed.status == 502, "\(failed)")
                #expect(try failed.jsonObject()["acquirer"] as? String == "down")
                #expect(failed.header("Retry-After") == "7")
                #expect(sandbox.swedbankPayOrders.snapshot(namespace).data == ordersBefore, "an answered error makes no order")

                await #expect(throws: (any Error).self) { _ = try await client.create(recur("CD2002"), headers: headers) }

                let started = ContinuousClock.now
                let paid = try await client.create(recur("CD2003"), headers: headers)
                #expect(paid.status == 200, "\(paid)")
                #expect(ContinuousClock.now - started >= .milliseconds(600), "delay_ms delays the answer")
            }
        }
    }
}
