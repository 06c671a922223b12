// SPDX-License-Identifier: MIT
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

/// `commit_then_drop` is universal: every operation of every provider's vocabulary accepts it, with `delay_ms`.
@Suite struct CommitThenDropValidationTests {
    @Test func everyOperation_AcceptsCommitThenDrop_WithDelay() throws {
        let vocabulary = ScenarioVocabulary.sandbox
        #expect(vocabulary.operations.count > 40)
        for operation in vocabulary.operations {
            let text = ScenarioValidationTests.withRules(
                #"{"operation": "\#(operation.name.rawValue)", "outcome": "commit_then_drop", "delay_ms": 250}"#)
            let scenario = try #require(try? Scenario.parse(text, file: ScenarioValidationTests.file, vocabulary: vocabulary).get(),
                                        "\(operation.name): \(ScenarioValidationTests.problems(text))")
            #expect(scenario.rules.first?.steps.first?.outcome == .commitThenDrop, "\(operation.name)")
            #expect(scenario.rules.first?.steps.first?.delay == .milliseconds(250), "\(operation.name)")
        }
    }

    @Test func commitThenDrop_TakesNoParameters() {
        let text = ScenarioValidationTests.withRules(
            #"{"operation": "klarna.payments.create_order", "outcome": "commit_then_drop", "status": 503}"#)
        #expect(ScenarioValidationTests.problems(text).count == 1)
        #expect(ScenarioValidationTests.problems(text).first?.contains(#"for outcome "commit_then_drop""#) == true,
                "\(ScenarioValidationTests.problems(text))")
    }
}

/// The return trip's `redirect_late` says how late with `delay_ms`, which it requires.
@Suite struct ReturnTripValidationTests {
    @Test func redirectLate_RequiresDelay() {
        for operation in ["klarna.hpp.redirect", "swedbankpay.checkout.redirect"] {
            let problems = ScenarioValidationTests.problems(ScenarioValidationTests.withRules(
                #"{"operation": "\#(operation)", "outcome": "redirect_late"}"#))
            #expect(problems.count == 1 && problems.first?.contains(#"missing required key "delay_ms" for outcome "redirect_late""#) == true,
                    "\(operation): \(problems)")
        }
    }

    @Test func redirectOutcomes_OnlyOnTheRedirectOperations() {
        let problems = ScenarioValidationTests.problems(ScenarioValidationTests.withRules(
            #"{"operation": "klarna.hpp.create_session", "outcome": "redirect_lost"}"#))
        #expect(problems.first?.contains(#"outcome "redirect_lost" is not allowed for klarna.hpp.create_session"#) == true, "\(problems)")
    }
}
