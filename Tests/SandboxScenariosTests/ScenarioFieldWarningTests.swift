// SPDX-License-Identifier: MIT
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

/// A condition's `field` its operation's request cannot have loads, with a warning naming the nearest keys.
@Suite struct ScenarioFieldWarningTests {
    static func scenario(_ rules: String...) throws -> Scenario {
        let text = "{\"name\": \"t\", \"description\": \"t\", \"rules\": [\n" + rules.joined(separator: ",\n") + "\n]}"
        return try Scenario.parse(text, file: "t.json", vocabulary: .sandbox).get()
    }

    @Test func misspelledKey_Loads_WithAWarningNamingTheOperationAndTheNearestKeys() throws {
        let scenario = try Self.scenario(
            #"{"operation": "klarna.payments.authorize", "when": [{"field": "billing_adress.country", "equals": "SE"}], "outcome": "reject"}"#)
        #expect(scenario.rules.count == 1)
        #expect(scenario.warnings.map(\.description) == [
            #"t.json:2:63: $.rules[0].when[0].field: warning: "billing_adress.country" cannot occur in the request of klarna.payments.authorize: the request has no key "billing_adress" (nearest known keys: billing_address, shipping_address, intent)"#,
        ])
    }

    @Test func pathsLeavingTheShape_Warn_KnownPathsDoNot() throws {
        let scenario = try Self.scenario(
            #"{"operation": "klarna.payments.create_order", "when": [{"field": "order_lines.name", "exists": true}], "outcome": "rejected"}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"field": "billing_address.email[0]", "exists": true}], "outcome": "rejected"}"#,
            #"{"operation": "klarna.payments.create_order", "when": [{"field": "order_lines[0].subscription.interval", "exists": true}], "outcome": "rejected"}"#,
            #"{"operation": "klarna.payments.create_session", "when": [{"field": "options.any_key.below", "exists": true}], "outcome": "approve"}"#,
            #"{"operation": "klarna.payments.authorize", "when": [{"header": "X-Anything", "exists": true}], "outcome": "reject"}"#)
        #expect(scenario.warnings.map(\.message) == [
            #"warning: "order_lines.name" cannot occur in the request of klarna.payments.create_order: "order_lines" is an array, with no key "name""#,
            #"warning: "billing_address.email[0]" cannot occur in the request of klarna.payments.create_order: "billing_address.email" is a single value, with no element [0]"#,
        ])
    }

    @Test func operationWithoutADeclaredShape_NeverWarns() throws {
        let scenario = try Self.scenario(
            #"{"operation": "swedbankpay.paymentorders.capture", "when": [{"field": "no.such.field", "exists": true}], "outcome": "refused"}"#)
        #expect(scenario.warnings.isEmpty)
        #expect(ScenarioVocabulary.sandbox.operation(.swedbankPayCapture)?.request == nil)
    }

    @Test func decisionSubject_KnowsItsTopLevel_AndLeavesTheOrderFree() throws {
        let scenario = try Self.scenario(
            #"{"operation": "swedbankpay.swish.sale", "when": [{"field": "paymentorders.amount", "equals": 900361}], "outcome": "swish_declined"}"#,
            #"{"operation": "swedbankpay.card.authorize", "when": [{"field": "paymentorder.amount", "equals": 900361}, {"field": "card.maskedPan", "exists": true}], "outcome": "card_declined"}"#)
        #expect(scenario.warnings.map(\.message) == [
            #"warning: "paymentorders.amount" cannot occur in the request of swedbankpay.swish.sale: the request has no key "paymentorders" (nearest known keys: paymentorder, paymentMethod, card)"#,
        ])
    }

    @Test func bundledScenarios_HaveNoWarnings() throws {
        let library = try ScenarioLibrary.load(directories: [ScenarioBundledTests.directory], vocabulary: .sandbox).get()
        #expect(library.warnings.map(\.description) == [])
    }

    @Test func validate_ReportsWarningsOfTheGivenFilesOnly_AndNoProblems() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("field-warning-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try #"{"name": "w", "description": "w", "rules": [{"operation": "klarna.payments.load", "when": [{"field": "locale_", "exists": true}], "outcome": "reject"}]}"#
            .write(to: directory.appendingPathComponent("w.json"), atomically: true, encoding: .utf8)
        let checked = ScenarioLibrary.validate(files: [directory], after: [ScenarioBundledTests.directory], vocabulary: .sandbox)
        #expect(checked.problems.isEmpty)
        #expect(checked.fileCount == 1)
        #expect(checked.warnings.map(\.path) == ["$.rules[0].when[0].field"])
        #expect(checked.warnings.first?.message.contains("(nearest known keys: locale,") == true)
    }

    @Test func nearestKeys_ByEditDistance_ThenAlphabetically() {
        #expect(ScenarioRequestShape.editDistance("kitten", "sitting") == 3)
        #expect(ScenarioRequestShape.editDistance("", "abc") == 3)
        #expect(ScenarioRequestShape.editDistance("abc", "") == 3)
        #expect(ScenarioRequestShape.nearest("cat", in: ["dog", "cart", "bat", "cast", "cat"]) == ["cat", "bat", "cart"])
    }
}
