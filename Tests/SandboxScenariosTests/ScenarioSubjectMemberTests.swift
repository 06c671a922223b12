// SPDX-License-Identifier: MIT
// A content-rule scenario's decision with the subject made a top-level member at a time (subjectMember) against the
// same decision with the whole subject (lazySubject): same scenario, same rule, and only the members looked at made.
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

@Suite struct ScenarioSubjectMemberTests {
    static func engine() throws -> ScenarioEngine {
        ScenarioEngine(library: ScenarioLibrary(scenarios: [try scenario()]), vocabulary: .sandbox, contentRuleScenarios: ["content"])
    }

    static func scenario() throws -> Scenario {
        try Scenario.parse(#"""
            {"name": "content", "description": "t", "rules": [
              {"operation": "klarna.payments.authorize", "when": [{"field": "billing_address.email", "matches": "(?i)\\+reject"}], "outcome": "reject"},
              {"operation": "klarna.payments.authorize", "when": [{"field": "billing_address.phone", "equals": "+100"}], "outcome": "cancel"},
              {"operation": "klarna.payments.authorize", "when": [{"field": "customer.type", "exists": false}, {"field": "lines[1]", "exists": true}],
               "outcome": "finalize_required"},
              {"operation": "klarna.payments.create_order", "when": [{"field": "billing_address.email", "contains": "+pend"}], "outcome": "fraud_pending"}
            ]}
            """#, file: "content.json", vocabulary: .sandbox).get()
    }

    static let subjects = [
        #"{"billing_address": {"email": "a+REJECT@example.com"}}"#,
        #"{"billing_address": {"email": "a@example.com", "phone": "+100"}}"#,
        #"{"billing_address": {"phone": "+200"}, "lines": [1, 2]}"#,
        #"{"billing_address": {"phone": "+200"}, "lines": [1, 2], "customer": {"type": "person"}}"#,
        #"{"billing_address": {"phone": "+100"}, "billing_address": {"phone": "+200"}}"#,
        #"{"lines": [1]}"#,
        #"[1, 2]"#,
    ]

    @Test(arguments: subjects)
    func membersDecideAsTheWhole(_ text: String) throws {
        let whole = try JSONDocument.parse(Data(text.utf8))
        let facts = ScenarioRequestFacts(headers: [:], path: "/t")
        for operation in [ScenarioOperation.klarnaPaymentsAuthorize, .klarnaPaymentsCreateOrder] {
            let expected = try Self.engine().decide(operation, facts: facts, namespace: Namespace("a"), lazySubject: { whole }, object: "o",
                                                    sticky: nil)
            var asked: [String] = []
            let byMember = try Self.engine().decide(operation, facts: facts, namespace: Namespace("a"), subjectMember: { key in
                asked.append(key)
                return whole[key]
            }, object: "o", sticky: nil)
            #expect(byMember.scenario == expected.scenario, "\(operation) \(text)")
            #expect(byMember.decision == expected.decision, "\(operation) \(text)")
            #expect(Set(asked).count == asked.count, "each member asked once: \(asked)")
        }
    }

    /// The engine passes over a content rule whose required field is absent; the scenario's own decision tests every
    /// condition of every rule: both decide alike.
    @Test(arguments: subjects)
    func contentRulesDecideAsEveryConditionTested(_ text: String) throws {
        let whole = try JSONDocument.parse(Data(text.utf8))
        let scenario = try Self.scenario()
        for operation in [ScenarioOperation.klarnaPaymentsAuthorize, .klarnaPaymentsCreateOrder] {
            let decided = try Self.engine().decide(operation, facts: ScenarioRequestFacts(headers: [:], path: "/t"), namespace: Namespace("a"),
                                                   lazySubject: { whole }, object: "o", sticky: nil)
            #expect(decided.decision == scenario.decide(operation, body: whole, headers: [:], callIndex: 0), "\(operation) \(text)")
        }
    }

    @Test func noSubjectWithoutAContentRuleForTheOperation() throws {
        var made = false
        let decided = try Self.engine().decide(.klarnaPaymentsCreateSession, facts: ScenarioRequestFacts(headers: [:], path: "/t"),
                                               namespace: Namespace("a"), subjectMember: { _ in made = true; return nil }, object: "o", sticky: nil)
        #expect(decided.decision == .approve)
        #expect(!made)
    }
}
