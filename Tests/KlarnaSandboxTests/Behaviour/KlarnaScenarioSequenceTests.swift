// SPDX-License-Identifier: MIT
// Scenario files written by the test into a temporary directory (loaded after the bundled ones):
// sequences counted per object (token, session), http_error with a custom body and headers,
// and conditions on request headers and body fields (drop_connection, which the connection sees, is in EndToEndTests).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna scenarios: sequences, faults and header conditions")
struct KlarnaScenarioSequenceTests {
    static let files: [(String, String)] = [
        ("e2e-retry-order.json", scenarioFile("e2e-retry-order", "First create order fails with 503, then it works.", rules: [
            #"{"operation": "klarna.payments.create_order", "sequence": [{"outcome": "http_error", "status": 503}, {"outcome": "approve"}]}"#,
        ])),
        ("e2e-custom-error.json", scenarioFile("e2e-custom-error", rules: [
            #"{"operation": "klarna.payments.create_order", "outcome": "http_error", "status": 429, "body": {"error": "slow down", "retry": true, "after": [1, 2.5, null]}, "headers": {"Retry-After": "7", "X-E2E-Custom": "yes"}}"#,
        ])),
        ("nested/e2e-header-condition.json", scenarioFile("e2e-header-condition", rules: [
            #"{"operation": "klarna.payments.create_order", "when": [{"header": "X-E2E-Fault", "equals": "gateway"}], "outcome": "http_error", "status": 502}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"header": "x-e2e-fault", "matches": "^rej"}], "outcome": "rejected"}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"header": "X-E2E-Fault", "contains": "pend"}], "outcome": "fraud_pending"}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"header": "X-E2E-Fault", "exists": true}], "outcome": "http_error", "status": 400, "body": {"unexpected": "fault"}}"#,
        ])),
        ("e2e-authorize-retry.json", scenarioFile("e2e-authorize-retry", rules: [
            #"{"operation": "klarna.payments.authorize", "sequence": [{"outcome": "reject", "delay_ms": 300}, {"outcome": "cancel"}, {"outcome": "approve"}]}"#,
        ])),
        ("e2e-field-condition.json", scenarioFile("e2e-field-condition", rules: [
            #"{"operation": "klarna.payments.create_order", "when": [{"field": "order_amount", "equals": 62400.0}, {"field": "order_lines[1].type", "equals": "shipping_fee"}, {"field": "merchant_reference2", "exists": false}], "outcome": "fraud_rejected"}"#,
        ])),
    ]

    /// An in-process sandbox with the bundled scenarios and ``files``.
    func withSequenceSandbox<T>(_ body: (SandboxClient) async throws -> T) async throws -> T {
        try await withScenarioDirectory { directory in
            for (name, text) in Self.files { try directory.write(name, text) }
            return try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration(scenarioDirectories: [directory.url]), body)
        }
    }

    @Test("a create-order sequence [503, approve] counts per token: each new token fails once, then succeeds")
    func sequencePerToken() async throws {
        try await withSequenceSandbox { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sequence"))
            _ = try await client.createSession(scenario: "e2e-retry-order")
            let first = try await client.newAuthorization(sequentialID(1))
            expectKlarnaError(try await client.createOrder(first, scenario: nil), 503, "TEMPORARILY_UNAVAILABLE", ["Temporarily unavailable"])
            ScenarioExpect.order(try await client.createOrder(first, scenario: nil), id: sequentialID(3), origin: sandbox.origin)
            // The last element repeats: the same order again (idempotent).
            ScenarioExpect.order(try await client.createOrder(first, scenario: nil), id: sequentialID(3), origin: sandbox.origin)

            // A second session (and token) counts on its own.
            _ = try await client.createSession(scenario: "e2e-retry-order")
            let second = try await client.newAuthorization(sequentialID(4))
            expectKlarnaError(try await client.createOrder(second, scenario: nil), 503, "TEMPORARILY_UNAVAILABLE", ["Temporarily unavailable"])
            ScenarioExpect.order(try await client.createOrder(second, scenario: nil), id: sequentialID(6), origin: sandbox.origin)

            // Another namespace's first call fails too: counters are per namespace.
            let elsewhere = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sequence-other"))
            _ = try await elsewhere.createSession(scenario: "e2e-retry-order")
            let third = try await elsewhere.newAuthorization(sequentialID(7))
            expectKlarnaError(try await elsewhere.createOrder(third, scenario: nil), 503, "TEMPORARILY_UNAVAILABLE", ["Temporarily unavailable"])

            #expect(try await client.journal("path_prefix=/payments/v1/authorizations/").map { journalLine($0) } == [
                "POST /payments/v1/authorizations/\(first)/order 503 scenario=e2e-retry-order klarna.payments.create_order: http_error 503 (rule 0, step 0)",
                "POST /payments/v1/authorizations/\(first)/order 200 scenario=e2e-retry-order klarna.payments.create_order: approve (rule 0, step 1)",
                "POST /payments/v1/authorizations/\(first)/order 200 scenario=e2e-retry-order klarna.payments.create_order: approve (rule 0, step 1)",
                "POST /payments/v1/authorizations/\(second)/order 503 scenario=e2e-retry-order klarna.payments.create_order: http_error 503 (rule 0, step 0)",
                "POST /payments/v1/authorizations/\(second)/order 200 scenario=e2e-retry-order klarna.payments.create_order: approve (rule 0, step 1)",
            ])
        }
    }

    @Test("the sequence applies through the header as well, counting the header's calls on the token")
    func sequenceThroughHeader() async throws {
        try await withSequenceSandbox { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sequence-header"))
            let (_, token) = try await client.authorizedSession()
            expectKlarnaError(try await client.createOrder(token, scenario: "e2e-retry-order"), 503, "TEMPORARILY_UNAVAILABLE",
                              ["Temporarily unavailable"])
            ScenarioExpect.order(try await client.createOrder(token, scenario: "e2e-retry-order"), id: sequentialID(3), origin: sandbox.origin)
        }
    }

    @Test("http_error with a body and headers: that status, that JSON, those headers")
    func customError() async throws {
        try await withSequenceSandbox { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("custom-error"))
            let (_, token) = try await client.authorizedSession()
            let response = try await client.createOrder(token, scenario: "e2e-custom-error")
            expectJSON(response, status: 429, #"{"error": "slow down", "retry": true, "after": [1, 2.5, null]}"#)
            #expect(response.header("Retry-After") == "7", "\(response.summary)")
            #expect(response.header("X-E2E-Custom") == "yes", "\(response.summary)")
            #expect((try await client.paymentsState()["orders"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("conditions on a request header: equals, matches (name in any case), contains, exists; no header approves",
          arguments: [
              ("gateway", "502"),
              ("rejected-please", "403"),
              ("suspend", "pending"),
              ("anything", "400"),
              ("", "200"),
          ])
    func headerConditions(fault: String, expected: String) async throws {
        try await withSequenceSandbox { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("header-condition"))
            _ = try await client.createSession(scenario: "e2e-header-condition")
            let token = try await client.newAuthorization(sequentialID(1))
            let response = try await client.createOrder(token, scenario: nil, headers: fault.isEmpty ? [:] : ["X-E2E-Fault": fault])
            switch expected {
            case "502": expectKlarnaError(response, 502, "TEMPORARILY_UNAVAILABLE", ["Temporarily unavailable"])
            case "403": expectKlarnaError(response, 403, "REJECTED", ["Rejected"])
            case "pending": ScenarioExpect.order(response, id: sequentialID(3), origin: sandbox.origin, fraudStatus: "PENDING")
            case "400": expectJSON(response, status: 400, #"{"unexpected": "fault"}"#)
            default: ScenarioExpect.order(response, id: sequentialID(3), origin: sandbox.origin)
            }
        }
    }

    @Test("an authorize sequence counts per session; delay_ms on a step delays that step")
    func authorizeSequencePerSession() async throws {
        try await withSequenceSandbox { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("authorize-sequence"))
            let first = try await client.newSession()
            let second = try await client.newSession()
            let (rejected, rejectTime) = try await measure { try await client.authorize(first, scenario: "e2e-authorize-retry") }
            ScenarioExpect.rejected(rejected)
            #expect(rejectTime >= .milliseconds(300), "the first step took \(rejectTime)")
            expectJSON(try await client.authorize(first, scenario: "e2e-authorize-retry"), #"{"approved": false, "show_form": true}"#)
            ScenarioExpect.approved(try await client.authorize(first, scenario: "e2e-authorize-retry"), token: sequentialID(3))
            // The other session starts at the first step.
            ScenarioExpect.rejected(try await client.authorize(second, scenario: "e2e-authorize-retry"))
            // The last step repeats.
            ScenarioExpect.approved(try await client.authorize(first, scenario: "e2e-authorize-retry"), token: sequentialID(4))
        }
    }

    @Test("conditions on body fields: a number by value, an array element's field, an absent field")
    func fieldConditions() async throws {
        try await withSequenceSandbox { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("field-condition"))
            _ = try await client.createSession(scenario: "e2e-field-condition")
            _ = try await client.createSession(scenario: "e2e-field-condition")
            let first = try await client.newAuthorization(sequentialID(1))
            let second = try await client.newAuthorization(sequentialID(2))
            // merchant_reference2 present: the rule does not hold, so the order is the normal one.
            let withReference = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["merchant_reference2"] = "ref-2" }
            ScenarioExpect.order(try await client.createOrder(first, withReference, scenario: nil), id: sequentialID(5), origin: sandbox.origin)
            // Every condition holds (62400 equals 62400.0): fraud_rejected.
            ScenarioExpect.order(try await client.createOrder(second, scenario: nil), id: sequentialID(6), origin: sandbox.origin,
                                 fraudStatus: "REJECTED")
            #expect(try await client.journalLines("path_prefix=/payments/v1/authorizations/") == [
                "POST /payments/v1/authorizations/\(first)/order 200 scenario=e2e-field-condition klarna.payments.create_order: approve",
                "POST /payments/v1/authorizations/\(second)/order 200 scenario=e2e-field-condition klarna.payments.create_order: fraud_rejected",
            ])
        }
    }
}
