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
        let vocabulary = ScenarioVocabulary(operations: [.init(ScenarioOperation("test.undeclared"), "No request shape.")], outcomes: [])
        let text = #"{"name": "t", "description": "t", "rules": [{"operation": "test.undeclared", "when": [{"field": "no.such.field", "exists": true}], "outcome": "approve"}]}"#
        let scenario = try Scenario.parse(text, file: "t.json", vocabulary: vocabulary).get()
        #expect(scenario.rules.count == 1)
        #expect(scenario.warnings.isEmpty)
    }

    @Test func everyBundledOperation_DeclaresItsRequestShape() {
        #expect(ScenarioVocabulary.sandbox.operations.filter { $0.request == nil }.map(\.name.rawValue) == [])
    }

    /// The rules' indexes whose condition warned, for rules of one condition each.
    static func warnedRules(_ scenario: Scenario) -> [Int] {
        scenario.warnings.compactMap { warning in
            warning.path.split(separator: "[").dropFirst().first.flatMap { Int($0.prefix { $0.isNumber }) }
        }
    }

    static func rule(_ operation: String, _ field: String) -> String {
        #"{"operation": "\#(operation)", "when": [{"field": "\#(field)", "exists": true}], "outcome": "approve"}"#
    }

    @Test func klarnaOrderManagement_TypoWarns_DocumentedFieldsDoNot() throws {
        let om = "klarna.ordermanagement."
        let scenario = try Self.scenario(
            Self.rule(om + "capture", "captured_amount"),
            Self.rule(om + "capture", "shipping_info[0].tracking_number"),
            Self.rule(om + "capture", "order_lines[0].product_identifiers.brand"),
            Self.rule(om + "refund", "refunded_amount"),
            Self.rule(om + "update_authorization", "order_lines[1].total_amount"),
            Self.rule(om + "update_merchant_references", "merchant_reference2"),
            Self.rule(om + "update_customer_details", "shipping_address.postal_code"),
            Self.rule(om + "update_capture_customer_details", "billing_address.email"),
            Self.rule(om + "add_shipping_info", "shipping_info[0].shipping_method"),
            Self.rule(om + "extend_due_date", "number_of_days"),
            Self.rule(om + "capture", "captured_amout"),
            Self.rule(om + "refund", "refund_amount"),
            Self.rule(om + "add_shipping_info", "shipping_info.tracking_number"))
        #expect(Self.warnedRules(scenario) == [10, 11, 12])
        #expect(scenario.warnings.first?.message ==
            #"warning: "captured_amout" cannot occur in the request of klarna.ordermanagement.capture: the request has no key "captured_amout" (nearest known keys: captured_amount, description, order_lines)"#)
    }

    @Test func klarnaHPPAndCustomerToken_TypoWarns_DocumentedFieldsDoNot() throws {
        let scenario = try Self.scenario(
            Self.rule("klarna.hpp.create_session", "payment_session_url"),
            Self.rule("klarna.hpp.create_session", "options.place_order_mode"),
            Self.rule("klarna.hpp.create_session", "merchant_urls.status_update"),
            Self.rule("klarna.hpp.distribute_session", "contact_information.phone_country"),
            Self.rule("klarna.customertoken.create_order", "order_lines[0].subscription.interval"),
            Self.rule("klarna.customertoken.create_order", "attachment.body"),
            Self.rule("klarna.customertoken.update_status", "status"),
            Self.rule("klarna.payments.create_customer_token", "intended_use"),
            Self.rule("klarna.hpp.create_session", "options.place_order_mod"),
            Self.rule("klarna.hpp.distribute_session", "contact_info.email"),
            Self.rule("klarna.customertoken.update_status", "state"),
            Self.rule("klarna.payments.create_customer_token", "billing_adress.email"))
        #expect(Self.warnedRules(scenario) == [8, 9, 10, 11])
    }

    @Test func operationsWithoutABody_WarnOnEveryField_NotOnHeaders() throws {
        let scenario = try Self.scenario(
            Self.rule("klarna.ordermanagement.read_order", "order_id"),
            Self.rule("klarna.payments.cancel_authorization", "x"),
            Self.rule("klarna.ordermanagement.cancel_order", "reason"),
            Self.rule("swedbankpay.paymentorders.read", "paymentorder.amount"),
            Self.rule("swedbankpay.paymentsession.event_logging", "event.action"),
            #"{"operation": "klarna.ordermanagement.read_order", "when": [{"header": "Klarna-Integrator", "exists": true}], "outcome": "approve"}"#)
        #expect(Self.warnedRules(scenario) == [0, 1, 2, 3, 4])
        #expect(scenario.warnings.first?.message ==
            #"warning: "order_id" cannot occur in the request of klarna.ordermanagement.read_order: its conditions see no request body, so no field can occur (a header can)"#)
    }

    @Test func swedbankPayPaymentOrders_TypoWarns_DocumentedFieldsDoNot() throws {
        let po = "swedbankpay.paymentorders."
        let scenario = try Self.scenario(
            Self.rule(po + "create", "paymentorder.payer.payerReference"),
            Self.rule(po + "create", "paymentOrder.amount"),
            Self.rule(po + "update_order", "paymentorder.orderItems[0].vatPercent"),
            Self.rule(po + "abort", "paymentorder.abortReason"),
            Self.rule(po + "capture", "transaction.amount"),
            Self.rule(po + "reversal", "transaction.orderItems[0].reference"),
            Self.rule(po + "cancel", "transaction.payeeReference"),
            Self.rule(po + "delete_token", "comment"),
            Self.rule(po + "create", "payment_order.amount"),
            Self.rule(po + "capture", "transactions.amount"),
            Self.rule(po + "capture", "transaction.ammount"),
            Self.rule(po + "update_order", "paymentorder.orderItems[0].vatPercentage"))
        #expect(Self.warnedRules(scenario) == [8, 9, 10, 11])
        #expect(scenario.warnings[2].message ==
            #"warning: "transaction.ammount" cannot occur in the request of swedbankpay.paymentorders.capture: "transaction" has no key "ammount" (nearest known keys: amount, vatAmount, orderItems)"#)
    }

    @Test func swedbankPayPaymentSessions_TypoWarns_SDKFieldsDoNot() throws {
        let ps = "swedbankpay.paymentsession."
        let scenario = try Self.scenario(
            Self.rule(ps + "prepare_payment", "service.version"),
            Self.rule(ps + "prepare_payment", "client.anyKey"),
            Self.rule(ps + "customize_payment", "restrictToPaymentMethods[0]"),
            Self.rule(ps + "expand_method", "paymentMethod"),
            Self.rule(ps + "start_payment_attempt", "msisdn"),
            Self.rule(ps + "create_authentication", "methodCompletionIndicator"),
            Self.rule(ps + "complete_authentication", "cRes"),
            Self.rule(ps + "attempt_payload", "paymentPayload"),
            Self.rule(ps + "fail_payment_attempt", "problemType"),
            Self.rule(ps + "start_payment_attempt", "msidsn"),
            Self.rule(ps + "complete_authentication", "cres"),
            Self.rule(ps + "abort_payment", "reason"))
        #expect(Self.warnedRules(scenario) == [9, 10, 11])
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
