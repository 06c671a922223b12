// SPDX-License-Identifier: MIT
// The state file's part of the scenario engine: namespace defaults and the rules' sequence counters go on after a
// restart; names that are no longer loaded are dropped.
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

@Suite struct ScenarioEngineSavedStateTests {
    static func engine() throws -> ScenarioEngine {
        let scenario = try Scenario.parse(#"""
            {"name": "flaky", "description": "t", "rules": [{"operation": "klarna.payments.create_order", "sequence": [
              {"outcome": "http_error", "status": 503}, {"outcome": "http_error", "status": 500}, {"outcome": "approve"}]}]}
            """#, file: "flaky.json", vocabulary: .sandbox).get()
        return ScenarioEngine(library: ScenarioLibrary(scenarios: [scenario]), vocabulary: .sandbox)
    }

    static func decide(_ engine: ScenarioEngine, _ namespace: String) throws -> ScenarioDecision {
        let request = try HTTPRequest(method: .post, target: "/payments/v1/authorizations/t/order", headers: ["Sandbox-Namespace": namespace])
        return try engine.decide(.klarnaPaymentsCreateOrder, request: request, namespace: Namespace(namespace), subject: nil, object: "t",
                                 sticky: nil).decision
    }

    @Test func defaultsAndCounters_GoOnInANewEngine() throws {
        let before = try Self.engine()
        try before.setDefault("flaky", for: Namespace("a"))
        #expect(try Self.decide(before, "a").outcome == .httpError(status: 503, body: nil, headers: [:]))
        let saved = try JSONDecoder().decode(ScenarioEngine.SavedState.self, from: JSONEncoder().encode(before.savedState))

        let after = try Self.engine()
        after.restore(saved)
        #expect(after.defaultScenario(for: Namespace("a")) == "flaky")
        // The second call of the sequence, not the first again.
        #expect(try Self.decide(after, "a").outcome == .httpError(status: 500, body: nil, headers: [:]))
        #expect(try Self.decide(after, "a").outcome == .approve)
    }

    @Test func aScenarioNoLongerLoaded_IsDropped() throws {
        let saved = ScenarioEngine.SavedState(defaults: ["a": "gone"], counters: [])
        let engine = try Self.engine()
        engine.restore(saved)
        #expect(engine.defaultScenario(for: Namespace("a")) == nil)
    }
}
