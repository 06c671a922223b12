// SPDX-License-Identifier: MIT
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

@Suite struct ScenarioSelectionTests {
    static func scenario(_ rules: String...) throws -> Scenario {
        try Scenario.parse("{\"name\": \"t\", \"description\": \"t\", \"rules\": [\n" + rules.joined(separator: ",\n") + "]}", file: "t.json", vocabulary: .sandbox).get()
    }

    static func body(_ text: String) throws -> JSONNode { try JSONDocument.parse(text) }

    static let order = """
    {"purchase_country": "US", "order_amount": 1000,
     "billing_address": {"email": "customer+denied@email.us", "postal_code": "10024", "phone": null},
     "order_lines": [{"reference": "19-402", "quantity": 2}, {"reference": "gift", "quantity": 1}],
     "tags": ["gift", "express"], "nested": {"flag": true, "list": [1, 2]}}
    """

    /// Whether a one-condition rule matches the order body and `headers`.
    static func holds(_ condition: String, body: String? = order, headers: HTTPHeaders = [:]) throws -> Bool {
        let scenario = try scenario(#"{"operation": "klarna.payments.create_order", "outcome": "rejected", "when": ["# + condition + "]}")
        let decision = scenario.decide(.klarnaPaymentsCreateOrder, body: try body.map(Self.body), headers: headers, callIndex: 0)
        return decision.matchedRule
    }

    // MARK: Conditions on fields

    @Test func equals() throws {
        #expect(try Self.holds(#"{"field": "purchase_country", "equals": "US"}"#))
        #expect(try !Self.holds(#"{"field": "purchase_country", "equals": "us"}"#))
        #expect(try Self.holds(#"{"field": "order_amount", "equals": 1000.0}"#))
        #expect(try !Self.holds(#"{"field": "order_amount", "equals": "1000"}"#))
        #expect(try Self.holds(#"{"field": "order_lines[1].reference", "equals": "gift"}"#))
        #expect(try Self.holds(#"{"field": "billing_address.phone", "equals": null}"#))
        #expect(try Self.holds(#"{"field": "nested", "equals": {"list": [1, 2], "flag": true}}"#))
        #expect(try !Self.holds(#"{"field": "nested.list", "equals": [2, 1]}"#))
        #expect(try !Self.holds(#"{"field": "missing", "equals": null}"#))
        #expect(try !Self.holds(#"{"field": "order_lines[5].reference", "equals": "gift"}"#))
    }

    @Test func contains() throws {
        #expect(try Self.holds(#"{"field": "billing_address.email", "contains": "+denied"}"#))
        #expect(try !Self.holds(#"{"field": "billing_address.email", "contains": "+DENIED"}"#))
        #expect(try Self.holds(#"{"field": "tags", "contains": "express"}"#))
        #expect(try !Self.holds(#"{"field": "tags", "contains": "expr"}"#))
        #expect(try !Self.holds(#"{"field": "order_amount", "contains": "10"}"#))
        #expect(try !Self.holds(#"{"field": "missing", "contains": "x"}"#))
    }

    @Test func matches() throws {
        #expect(try Self.holds(#"{"field": "billing_address.email", "matches": "(?i)\\+DENIED@"}"#))
        #expect(try Self.holds(#"{"field": "billing_address.postal_code", "matches": "^[0-9]{5}$"}"#))
        #expect(try !Self.holds(#"{"field": "billing_address.postal_code", "matches": "^[0-9]{4}$"}"#))
        #expect(try Self.holds(#"{"field": "order_amount", "matches": "^1000$"}"#))
        #expect(try !Self.holds(#"{"field": "nested.flag", "matches": "true"}"#))
        #expect(try !Self.holds(#"{"field": "missing", "matches": ".*"}"#))
    }

    @Test func exists() throws {
        #expect(try Self.holds(#"{"field": "billing_address.postal_code", "exists": true}"#))
        #expect(try Self.holds(#"{"field": "billing_address.phone", "exists": true}"#))
        #expect(try Self.holds(#"{"field": "customer", "exists": false}"#))
        #expect(try !Self.holds(#"{"field": "customer", "exists": true}"#))
        #expect(try Self.holds(#"{"field": "order_lines[1]", "exists": true}"#))
        #expect(try Self.holds(#"{"field": "order_lines[2]", "exists": false}"#))
        #expect(try Self.holds(#"{"field": "purchase_country.x", "exists": false}"#))
    }

    @Test func noBody_HasNoFields() throws {
        #expect(try Self.holds(#"{"field": "a", "exists": false}"#, body: nil))
        #expect(try !Self.holds(#"{"field": "a", "exists": true}"#, body: nil))
        #expect(try !Self.holds(#"{"field": "a", "equals": null}"#, body: nil))
        #expect(try Self.holds(#"{"field": "a", "exists": false}"#, body: "[1]"))
    }

    // MARK: Conditions on headers

    @Test func headers() throws {
        let headers = HTTPHeaders([("X-Test-Case", "checkout-42"), ("Accept", "text/html"), ("Accept", "application/json")])
        #expect(try Self.holds(#"{"header": "x-test-case", "equals": "checkout-42"}"#, headers: headers))
        #expect(try !Self.holds(#"{"header": "X-Test-Case", "equals": "checkout"}"#, headers: headers))
        #expect(try Self.holds(#"{"header": "X-TEST-CASE", "contains": "out-4"}"#, headers: headers))
        #expect(try Self.holds(#"{"header": "X-Test-Case", "matches": "^checkout-[0-9]+$"}"#, headers: headers))
        #expect(try Self.holds(#"{"header": "accept", "equals": "application/json"}"#, headers: headers))
        #expect(try Self.holds(#"{"header": "X-Test-Case", "exists": true}"#, headers: headers))
        #expect(try Self.holds(#"{"header": "X-Missing", "exists": false}"#, headers: headers))
        #expect(try !Self.holds(#"{"header": "X-Missing", "contains": "a"}"#, headers: headers))
        #expect(try !Self.holds(#"{"header": "X-Missing", "matches": ".*"}"#, headers: headers))
    }

    // MARK: Rules

    @Test func allConditionsMustHold() throws {
        #expect(try Self.holds(#"{"field": "purchase_country", "equals": "US"}, {"field": "tags", "contains": "gift"}"#))
        #expect(try !Self.holds(#"{"field": "purchase_country", "equals": "US"}, {"field": "tags", "contains": "nope"}"#))
    }

    @Test func firstMatchingRuleForTheOperation_Wins() throws {
        let scenario = try Self.scenario(
            #"{"operation": "klarna.payments.authorize", "outcome": "cancel"}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"field": "order_amount", "equals": 5}], "outcome": "rejected"}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"field": "purchase_country", "equals": "US"}], "outcome": "fraud_pending"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "expire_token", "delay_ms": 250}"#
        )
        let us = try Self.body(#"{"purchase_country": "US", "order_amount": 5}"#)
        let se = try Self.body(#"{"purchase_country": "SE", "order_amount": 6}"#)
        #expect(scenario.decide(.klarnaPaymentsCreateOrder, body: us, headers: [:], callIndex: 0)
                == ScenarioDecision(outcome: .rejected, ruleIndex: 1, stepIndex: 0))
        #expect(scenario.decide(.klarnaPaymentsCreateOrder, body: try Self.body(#"{"purchase_country": "US"}"#), headers: [:], callIndex: 0)
                == ScenarioDecision(outcome: .fraudPending, ruleIndex: 2, stepIndex: 0))
        #expect(scenario.decide(.klarnaPaymentsCreateOrder, body: se, headers: [:], callIndex: 0)
                == ScenarioDecision(outcome: .expireToken, delay: .milliseconds(250), ruleIndex: 3, stepIndex: 0))
        #expect(scenario.decide(.klarnaPaymentsAuthorize, body: nil, headers: [:], callIndex: 0).outcome == .cancel)
        #expect(scenario.firstMatchingRule(for: .klarnaPaymentsCreateOrder, body: se, headers: [:]) == 3)
        #expect(scenario.hasRules(for: .klarnaPaymentsAuthorize))
        #expect(!scenario.hasRules(for: .klarnaPaymentsLoad))
    }

    @Test func noMatchingRule_Approves() throws {
        let scenario = try Self.scenario(#"{"operation": "klarna.payments.authorize", "when": [{"field": "x", "exists": true}], "outcome": "cancel"}"#)
        let decision = scenario.decide(.klarnaPaymentsAuthorize, body: try Self.body("{}"), headers: [:], callIndex: 0)
        #expect(decision == .approve)
        #expect(!decision.matchedRule)
        #expect(decision.delay == nil)
        #expect(scenario.decide(.klarnaPaymentsLoad, body: nil, headers: [:], callIndex: 3) == .approve)
        let empty = try Self.scenario()
        #expect(empty.decide(.klarnaPaymentsCreateOrder, body: nil, headers: [:], callIndex: 0) == .approve)
    }

    @Test func sequence_StepsByCallIndex_AndTheLastRepeats() throws {
        let scenario = try Self.scenario(#"""
        {"operation": "klarna.payments.create_order", "sequence": [
          {"outcome": "http_error", "status": 503, "delay_ms": 100},
          {"outcome": "drop_connection"},
          {"outcome": "approve"}]}
        """#)
        let outcomes = (0..<6).map { scenario.decide(.klarnaPaymentsCreateOrder, body: nil, headers: [:], callIndex: $0) }
        #expect(outcomes.map(\.outcome) == [
            .httpError(status: 503, body: nil, headers: [:]), .dropConnection, .approve, .approve, .approve, .approve,
        ])
        #expect(outcomes.map(\.stepIndex) == [0, 1, 2, 2, 2, 2])
        #expect(outcomes.map(\.delay) == [.milliseconds(100), nil, nil, nil, nil, nil])
        #expect(outcomes.allSatisfy { $0.ruleIndex == 0 })
    }

    @Test func inlineOutcome_RepeatsForEveryCall() throws {
        let scenario = try Self.scenario(#"{"operation": "klarna.payments.authorize", "outcome": "reject", "reason": "under_age"}"#)
        for call in [0, 1, 7] {
            #expect(scenario.decide(.klarnaPaymentsAuthorize, body: nil, headers: [:], callIndex: call)
                    == ScenarioDecision(outcome: .reject(reason: "under_age"), ruleIndex: 0, stepIndex: 0))
        }
    }

    @Test func perRuleCounting_WithTheLowerLevelAPI() throws {
        let scenario = try Self.scenario(
            #"{"operation": "klarna.payments.load", "when": [{"header": "X-Flaky", "exists": true}], "sequence": [{"outcome": "http_error", "status": 500}, {"outcome": "approve"}]}"#
        )
        let index = try #require(scenario.firstMatchingRule(for: .klarnaPaymentsLoad, body: nil, headers: ["X-Flaky": "1"]))
        #expect(scenario.rules[index].decision(ruleIndex: index, callIndex: 1)
                == ScenarioDecision(outcome: .approve, ruleIndex: 0, stepIndex: 1, fromSequence: true))
        #expect(scenario.rules[index].step(forCall: -1).index == 0)
    }

    @Test func decisionDescriptions_ForTheJournal() {
        #expect(ScenarioDecision.approve.description == "approve (no rule)")
        #expect(ScenarioDecision(outcome: .httpError(status: 503, body: nil, headers: [:]), delay: .milliseconds(1500), ruleIndex: 1,
                                 stepIndex: 0, fromSequence: true).description
                == "http_error 503 (rule 1, step 0), delay 1.5 seconds")
        // An inline outcome has no steps worth naming.
        #expect(ScenarioDecision(outcome: .reject(reason: nil), ruleIndex: 0, stepIndex: 0).description == "reject (rule 0)")
    }

    @Test func programmaticRules() throws {
        let scenario = Scenario(name: "code", description: "built in code", rules: [
            ScenarioRule(operation: .klarnaPaymentsCreateOrder,
                         conditions: [ScenarioCondition(.header("X-A"), .matches(try ScenarioPattern("^b")))],
                         outcome: .mismatchedFields(["billing_address.postal_code"]), delay: .seconds(1)),
        ])
        #expect(scenario.decide(.klarnaPaymentsCreateOrder, body: nil, headers: ["x-a": "bc"], callIndex: 0)
                == ScenarioDecision(outcome: .mismatchedFields(["billing_address.postal_code"]), delay: .seconds(1), ruleIndex: 0, stepIndex: 0))
        #expect(scenario.decide(.klarnaPaymentsCreateOrder, body: nil, headers: ["x-a": "cb"], callIndex: 0) == .approve)
    }
}
