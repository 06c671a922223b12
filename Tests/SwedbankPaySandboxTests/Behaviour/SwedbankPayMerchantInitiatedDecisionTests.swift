// SPDX-License-Identifier: MIT
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
@testable import SwedbankPaySandbox
import Testing

/// The card decision inside a Recur (`swedbankpay.card.authorize` on a stored card) takes the one path from a
/// scenario decision to an answer that every other decision takes: its `http_error` sends the scenario's body and
/// headers, its `drop_connection` drops, its `delay_ms` delays; an answered error makes no order.
@Suite("Swedbank Pay: the merchant-initiated card decision answers as every decision does")
struct SwedbankPayMerchantInitiatedDecisionTests {
    private struct Failure: Decodable { var acquirer: String }

    @Test("Recur: http_error with a body and headers, then drop_connection, then a delayed approve")
    func recurDecision_HTTPErrorBodyDropAndDelay() async throws {
        let file = #"""
            {"name": "swedbankpay-e2e-recur-answers", "description": "Written by a behaviour test.", "rules": [
              {"operation": "swedbankpay.card.authorize", "sequence": [{"outcome": "http_error", "status": 502, "body": {"acquirer": "down"}, "headers": {"Retry-After": "7"}}, {"outcome": "drop_connection"}, {"outcome": "approve", "delay_ms": 600}]}]}
            """#
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swedbankpay-behaviour-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(file.utf8).write(to: directory.appendingPathComponent("recur.json"))
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration(scenarioDirectories: [directory])) { client, sandbox in
            let merchant = SwedbankPayMerchant(client)
            let recurrence = try #require(try await paidWithTokens(sandbox, merchant)["recurrence"])
            let namespace = Namespace(merchant.namespaceName)
            let ordersBefore = sandbox.swedbankPayOrders.snapshot(namespace).data
            let headers = ["Sandbox-Scenario": "swedbankpay-e2e-recur-answers"]
            let recur = { (reference: String) in
                SwedbankPayExamples.merchantInitiated("Recur", tokenField: "recurrenceToken", token: recurrence, payeeReference: reference)
            }

            let failed = try await merchant.create(recur("CD2001"), headers: headers)
            #expect(failed.status == .badGateway, "\(failed.status) \(failed.text)")
            #expect(try failed.decode(Failure.self).acquirer == "down")
            #expect(failed.header("Retry-After") == "7")
            #expect(sandbox.swedbankPayOrders.snapshot(namespace).data == ordersBefore, "an answered error makes no order")

            await #expect(throws: (any Error).self) { _ = try await merchant.create(recur("CD2002"), headers: headers) }

            let started = ContinuousClock.now
            let paid = try await merchant.create(recur("CD2003"), headers: headers)
            #expect(paid.status == .ok, "\(paid.status) \(paid.text)")
            #expect(ContinuousClock.now - started >= .milliseconds(600), "delay_ms delays the answer")
        }
    }
}
