// SPDX-License-Identifier: MIT
import Foundation
import Testing
import KlarnaSandbox
import PaymentSandbox
import SwedbankPaySandbox
@testable import SandboxScenarios

@Suite struct ScenarioValidationTests {
    static let file = "scenarios/klarna/test.json"

    /// The problems' descriptions for `text`, or [] when it is valid.
    static func problems(_ text: String) -> [String] {
        switch Scenario.parse(text, file: file, vocabulary: .sandbox) {
        case .success: []
        case .failure(let failure): failure.problems.map(\.description)
        }
    }

    static func scenario(_ text: String) throws -> Scenario {
        try Scenario.parse(text, file: file, vocabulary: .sandbox).get()
    }

    /// A scenario with these rules (one per line, starting on line 5, column 5).
    static func withRules(_ rules: String...) -> String {
        """
        {
          "$schema": "../scenario.schema.json",
          "name": "test",
          "description": "A test.",
          "rules": [
            \(rules.joined(separator: ",\n    "))
          ]
        }
        """
    }

    // MARK: Valid files

    @Test func theBriefsExample_Parses() throws {
        let scenario = try Self.scenario("""
        {
          "$schema": "../scenario.schema.json",
          "name": "reject",
          "description": "The customer is rejected when the SDK authorizes the session.",
          "rules": [
            { "operation": "klarna.payments.authorize", "when": [{ "field": "billing_address.email", "contains": "+denied" }], "outcome": "reject" },
            { "operation": "klarna.payments.create_order", "sequence": [ { "outcome": "http_error", "status": 503 }, { "outcome": "approve" } ] },
            { "operation": "klarna.payments.create_session", "outcome": "approve", "delay_ms": 1500 }
          ]
        }
        """)
        #expect(scenario.name == "reject")
        #expect(scenario.description == "The customer is rejected when the SDK authorizes the session.")
        #expect(scenario.file == Self.file)
        #expect(scenario.namePosition == JSONPosition(line: 3, column: 11))
        #expect(scenario.rules.count == 3)
        let reject = scenario.rules[0]
        #expect(reject.operation == .klarnaPaymentsAuthorize)
        #expect(reject.conditions == [ScenarioCondition(.field(try #require(ScenarioFieldPath("billing_address.email"))), .contains("+denied"))])
        #expect(reject.steps == [ScenarioStep(.reject(reason: nil))])
        #expect(!reject.isSequence)
        #expect(reject.position == JSONPosition(line: 6, column: 5))
        let sequence = scenario.rules[1]
        #expect(sequence.isSequence)
        #expect(sequence.steps == [ScenarioStep(.httpError(status: 503, body: nil, headers: [:])), ScenarioStep(.approve)])
        #expect(scenario.rules[2].steps == [ScenarioStep(.approve, delay: .milliseconds(1500))])
    }

    @Test func everyOutcomeAndParameter_Parses() throws {
        let scenario = try Self.scenario(Self.withRules(
            #"{"operation": "klarna.payments.authorize", "outcome": "reject", "reason": "high_risk"}"#,
            #"{"operation": "klarna.payments.authorize", "outcome": "cancel"}"#,
            #"{"operation": "klarna.payments.authorize", "outcome": "finalize_required"}"#,
            #"{"operation": "klarna.payments.load", "outcome": "show_form_false"}"#,
            #"{"operation": "klarna.payments.finalize", "outcome": "invalid_client_token"}"#,
            #"{"operation": "klarna.payments.cancel_authorization", "outcome": "expire_token"}"#,
            #"{"operation": "klarna.payments.create_customer_token", "outcome": "mismatched_fields", "fields": ["a", "b.c"]}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "cart_changed", "expected": 2, "actual": 3}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "cart_changed"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "rejected"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "fraud_pending"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "fraud_rejected"}"#,
            #"{"operation": "klarna.payments.read_session", "outcome": "http_error", "status": 418, "body": {"x": [1]}, "headers": {"Retry-After": "2"}, "delay_ms": 0}"#,
            #"{"operation": "klarna.payments.cancel_session", "outcome": "drop_connection"}"#,
            #"{"operation": "klarna.payments.update_session", "when": [], "sequence": [{"outcome": "approve", "delay_ms": 60000}]}"#,
            #"{"operation": "klarna.ordermanagement.capture", "outcome": "refused"}"#,
            #"{"operation": "swedbankpay.swish.sale", "outcome": "swish_declined"}"#,
            #"{"operation": "swedbankpay.swish.sale", "outcome": "swish_timeout"}"#,
            #"{"operation": "swedbankpay.swish.sale", "outcome": "bankid_cancelled"}"#,
            #"{"operation": "swedbankpay.swish.sale", "outcome": "client_app_launch_failed"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "frictionless"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "three_ds_declined"}"#,
            #"{"operation": "swedbankpay.card.authorize", "outcome": "card_declined"}"#,
            #"{"operation": "swedbankpay.card.authorize", "outcome": "insufficient_funds"}"#,
            #"{"operation": "swedbankpay.card.authorize", "outcome": "card_expired"}"#,
            #"{"operation": "swedbankpay.paymentsession.read", "outcome": "session_end_reached"}"#,
            #"{"operation": "swedbankpay.paymentsession.abort_payment", "outcome": "not_allowed"}"#,
            #"{"operation": "swedbankpay.swish.sale", "outcome": "payer_aborts", "delay_ms": 30000}"#,
            #"{"operation": "swedbankpay.card.authorize", "outcome": "fail_attempt", "problem_type": "creditcard/3DSECUREERROR", "status": 400, "title": "T", "detail": "D", "original_detail": "O"}"#,
            #"{"operation": "swedbankpay.web.pay", "outcome": "fail_attempt", "problem_type": "swishdeclined"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "commit_then_drop", "delay_ms": 10}"#,
            #"{"operation": "klarna.hpp.redirect", "outcome": "redirect_lost"}"#,
            #"{"operation": "swedbankpay.checkout.redirect", "outcome": "redirect_late", "delay_ms": 100}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_empty_method_url"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_slow_acs"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_slow_acs", "acs_delay_ms": 2500}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_cres_posted"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_abandoned"}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_abandoned", "after_ms": 60000}"#,
            #"{"operation": "klarna.hpp.status_callback", "outcome": "callback_not_sent"}"#,
            #"{"operation": "klarna.hpp.status_callback", "outcome": "callback_late", "seconds": 90}"#,
            #"{"operation": "swedbankpay.paymentorders.callback", "outcome": "callback_twice"}"#,
            #"{"operation": "swedbankpay.paymentorders.callback", "outcome": "callback_before_redirect"}"#,
            #"{"operation": "swedbankpay.paymentorders.callback", "outcome": "callback_failing", "status": 503, "failures": 2}"#
        ))
        let outcomes = scenario.rules.map { $0.steps[0].outcome }
        let expected: [ScenarioOutcome] = [
            .reject(reason: "high_risk"), .cancel, .finalizeRequired, .showFormFalse, .invalidClientToken, .expireToken,
            .mismatchedFields(["a", "b.c"]), .cartChanged(expected: 2, actual: 3), .cartChanged(expected: nil, actual: nil),
            .rejected, .fraudPending, .fraudRejected,
            .httpError(status: 418, body: try JSONDocument.parse(#"{"x": [1]}"#), headers: ["Retry-After": "2"]),
            .dropConnection, .approve, .refused,
            .swishDeclined, .swishTimeout, .bankidCancelled, .clientAppLaunchFailed, .frictionless, .challenge, .threeDSDeclined,
            .cardDeclined, .insufficientFunds, .cardExpired, .sessionEndReached, .notAllowed, .payerAborts,
            .failAttempt(SwedbankPayAttemptFailure(problemType: "creditcard/3dsecureerror", status: 400, title: "T", detail: "D", originalDetail: "O")),
            .failAttempt(SwedbankPayAttemptFailure(problemType: "swishdeclined")),
            .commitThenDrop, .klarna(.redirectLost), .swedbankPay(.redirectLate),
            .swedbankPay(.challengeEmptyMethodURL), .swedbankPay(.challengeSlowACS(.seconds(12))), .swedbankPay(.challengeSlowACS(.milliseconds(2500))),
            .swedbankPay(.challengeCresPosted), .swedbankPay(.challengeAbandoned(.zero)), .swedbankPay(.challengeAbandoned(.seconds(60))),
            .provider(CallbackOutcome.notSent), .provider(CallbackOutcome.late(seconds: 90)), .provider(CallbackOutcome.twice),
            .provider(CallbackOutcome.beforeRedirect), .provider(CallbackOutcome.failing(status: 503, failures: 2)),
        ]
        #expect(outcomes == expected)
        #expect(scenario.rules[12].steps[0].delay == .zero)
        #expect(scenario.rules[14].isSequence && scenario.rules[14].steps[0].delay == .seconds(60))
        #expect(scenario.rules[28].steps[0].delay == .seconds(30))
        #expect(Set(outcomes.map(\.name)) == Set(ScenarioVocabulary.sandbox.outcomeNames))
    }

    @Test func emptyRules_IsValid() throws {
        #expect(try Self.scenario(#"{"name": "a", "description": "b", "rules": []}"#).rules.isEmpty)
    }

    @Test func everyConditionKind_Parses() throws {
        let scenario = try Self.scenario(Self.withRules(#"""
        {"operation": "klarna.payments.create_order", "outcome": "approve", "when": [
              {"field": "order_lines[0].quantity", "equals": 2},
              {"field": "billing_address.email", "contains": "+x"},
              {"field": "locale", "matches": "^en-"},
              {"field": "customer", "exists": false},
              {"header": "X-Test", "equals": "yes"},
              {"header": "x-test", "contains": "y"},
              {"header": "X-Test", "matches": "(?i)^Y"},
              {"header": "X-Other", "exists": true}]}
        """#))
        let conditions = scenario.rules[0].conditions
        #expect(conditions.count == 8)
        #expect(conditions[0] == ScenarioCondition(.field(try #require(ScenarioFieldPath("order_lines[0].quantity"))), .equals(try JSONDocument.parse("2"))))
        #expect(conditions[2].test == .matches(try ScenarioPattern("^en-")))
        #expect(conditions[3].test == .exists(false))
        #expect(conditions[5].subject == .header("x-test"))
    }

    // MARK: Problems, one kind at a time

    @Test func syntaxError_IsOneProblemAtDollar() {
        #expect(Self.problems("{\n  \"name\": \"a\",\n}") == ["scenarios/klarna/test.json:2:14: $: trailing comma before '}'"])
        #expect(Self.problems("") == ["scenarios/klarna/test.json:1:1: $: empty document: expected a JSON value"])
    }

    @Test func topLevel_Problems() {
        #expect(Self.problems("[]") == ["scenarios/klarna/test.json:1:1: $: expected an object, found an array"])
        #expect(Self.problems("{}") == [
            #"scenarios/klarna/test.json:1:1: $: missing required key "name""#,
            #"scenarios/klarna/test.json:1:1: $: missing required key "description""#,
            #"scenarios/klarna/test.json:1:1: $: missing required key "rules""#,
        ])
        #expect(Self.problems(#"{"name": "Bad Name", "description": " ", "rules": {}, "version": 1, "$schema": 2}"#) == [
            #"scenarios/klarna/test.json:1:10: $.name: "Bad Name" is not a valid scenario name (1 to 64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit)"#,
            #"scenarios/klarna/test.json:1:37: $.description: must not be empty"#,
            #"scenarios/klarna/test.json:1:51: $.rules: expected an array of rules, found an object"#,
            #"scenarios/klarna/test.json:1:55: $.version: unknown key "version" (expected one of: $schema, name, description, rules)"#,
            #"scenarios/klarna/test.json:1:80: $.$schema: expected a string, found a number (2)"#,
        ])
        #expect(Self.problems(#"{"name": 7, "description": null, "rules": []}"#) == [
            #"scenarios/klarna/test.json:1:10: $.name: expected a string, found a number (7)"#,
            #"scenarios/klarna/test.json:1:28: $.description: expected a string, found null"#,
        ])
    }

    @Test(arguments: ["a", "0", "reject", "klarna-playground", "a.b_c-d", String(repeating: "x", count: 64)])
    func validNames(name: String) { #expect(Scenario.isValidName(name)) }

    @Test(arguments: ["", "A", "-a", ".a", "_a", "a b", "ä", "a/b", String(repeating: "x", count: 65)])
    func invalidNames(name: String) { #expect(!Scenario.isValidName(name)) }

    @Test func duplicateKeys_AreReportedAtTheSecondKey() {
        #expect(Self.problems("{\"name\": \"a\", \"description\": \"b\", \"rules\": [],\n \"name\": \"c\"}") == [
            #"scenarios/klarna/test.json:2:2: $.name: duplicate key "name" (first at line 1, column 2)"#,
        ])
        #expect(Self.problems(Self.withRules(#"{"operation": "klarna.payments.load", "outcome": "approve", "outcome": "reject"}"#)) == [
            #"scenarios/klarna/test.json:6:65: $.rules[0].outcome: duplicate key "outcome" (first at line 6, column 43)"#,
        ])
    }

    @Test func unknownOutcome_ListsTheOutcomesAllowedThere() {
        #expect(Self.problems(Self.withRules(#"{"operation": "klarna.payments.authorize", "outcome": "rejekt"}"#)) == [
            #"scenarios/klarna/test.json:6:59: $.rules[0].outcome: unknown outcome "rejekt": did you mean "reject"?"#,
        ])
    }

    @Test func unknownOperation() {
        #expect(Self.problems(Self.withRules(#"{"operation": "klarna.payments.authorise", "outcome": "approve"}"#)) == [
            #"scenarios/klarna/test.json:6:19: $.rules[0].operation: unknown operation "klarna.payments.authorise": did you mean "klarna.payments.authorize"?"#,
        ])
    }

    @Test func outcomeNotAllowedForOperation() {
        #expect(Self.problems(Self.withRules(
            #"{"operation": "klarna.payments.create_session", "outcome": "reject"}"#,
            #"{"operation": "klarna.payments.load", "sequence": [{"outcome": "approve"}, {"outcome": "expire_token"}]}"#
        )) == [
            #"scenarios/klarna/test.json:6:64: $.rules[0].outcome: outcome "reject" is not allowed for klarna.payments.create_session (allowed: approve, http_error, drop_connection, commit_then_drop)"#,
            #"scenarios/klarna/test.json:7:92: $.rules[1].sequence[1].outcome: outcome "expire_token" is not allowed for klarna.payments.load (allowed: approve, reject, show_form_false, invalid_client_token, http_error, drop_connection, commit_then_drop)"#,
        ])
    }

    @Test func outcomeAndSequenceShape_Problems() {
        #expect(Self.problems(Self.withRules(
            #"{"operation": "klarna.payments.load", "outcome": "approve", "sequence": [{"outcome": "approve"}]}"#,
            #"{"operation": "klarna.payments.load"}"#,
            #"{"operation": "klarna.payments.load", "sequence": []}"#,
            #"{"operation": "klarna.payments.load", "sequence": {"outcome": "approve"}}"#,
            #"{"operation": "klarna.payments.load", "sequence": [{"delay_ms": 1}, "approve"], "delay_ms": 5}"#,
            #""rule""#
        )) == [
            #"scenarios/klarna/test.json:6:5: $.rules[0]: a rule has either "outcome" or "sequence", not both"#,
            #"scenarios/klarna/test.json:7:5: $.rules[1]: missing "outcome" or "sequence""#,
            #"scenarios/klarna/test.json:8:55: $.rules[2].sequence: must not be empty (give at least one outcome object)"#,
            #"scenarios/klarna/test.json:9:55: $.rules[3].sequence: expected an array of outcome objects, found an object"#,
            #"scenarios/klarna/test.json:10:56: $.rules[4].sequence[0]: missing required key "outcome""#,
            #"scenarios/klarna/test.json:10:73: $.rules[4].sequence[1]: expected an outcome object, found a string ("approve")"#,
            #"scenarios/klarna/test.json:10:85: $.rules[4].delay_ms: unknown key "delay_ms" (expected one of: operation, when, sequence)"#,
            #"scenarios/klarna/test.json:11:5: $.rules[5]: expected a rule object, found a string ("rule")"#,
        ])
    }

    @Test func missingOperation() {
        #expect(Self.problems(Self.withRules(#"{"outcome": "approve"}"#)) == [
            #"scenarios/klarna/test.json:6:5: $.rules[0]: missing required key "operation""#,
        ])
    }

    @Test func parameters_MissingExtraAndWrongTypes() {
        #expect(Self.problems(Self.withRules(
            #"{"operation": "klarna.payments.load", "outcome": "http_error"}"#,
            #"{"operation": "klarna.payments.load", "outcome": "http_error", "status": 600}"#,
            #"{"operation": "klarna.payments.load", "outcome": "http_error", "status": "500"}"#,
            #"{"operation": "klarna.payments.authorize", "outcome": "reject", "status": 500}"#,
            #"{"operation": "klarna.payments.authorize", "outcome": "reject", "reason": "because"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "mismatched_fields"}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "mismatched_fields", "fields": []}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "mismatched_fields", "fields": ["a", 1, "a", ""]}"#,
            #"{"operation": "klarna.payments.create_order", "outcome": "cart_changed", "expected": -1, "actual": 2.5}"#,
            #"{"operation": "klarna.payments.load", "outcome": "approve", "delay_ms": 60001}"#,
            #"{"operation": "klarna.payments.load", "outcome": "approve", "delay_ms": "5"}"#
        )) == [
            #"scenarios/klarna/test.json:6:5: $.rules[0]: missing required key "status" for outcome "http_error""#,
            #"scenarios/klarna/test.json:7:78: $.rules[1].status: expected an integer from 200 to 599, found 600"#,
            #"scenarios/klarna/test.json:8:78: $.rules[2].status: expected an integer from 200 to 599, found a string ("500")"#,
            #"scenarios/klarna/test.json:9:69: $.rules[3].status: unknown key "status" for outcome "reject" (expected one of: operation, when, outcome, reason, delay_ms)"#,
            #"scenarios/klarna/test.json:10:79: $.rules[4].reason: unknown reject reason "because" (expected one of: other, could_not_establish_identity, credit_limit_exceeded, customer_not_fulfilling_previous_engagements, external_hard_reject, high_risk, legal_restraints, technical_error, internal_block, low_credit_rating, under_age, denied)"#,
            #"scenarios/klarna/test.json:11:5: $.rules[5]: missing required key "fields" for outcome "mismatched_fields""#,
            #"scenarios/klarna/test.json:12:93: $.rules[6].fields: must not be empty (name at least one field, e.g. "billing_address.postal_code")"#,
            #"scenarios/klarna/test.json:13:99: $.rules[7].fields[1]: expected a string, found a number (1)"#,
            #"scenarios/klarna/test.json:13:102: $.rules[7].fields[2]: "a" is listed twice"#,
            #"scenarios/klarna/test.json:13:107: $.rules[7].fields[3]: must not be empty"#,
            #"scenarios/klarna/test.json:14:90: $.rules[8].expected: expected an integer of at least 0, found -1"#,
            #"scenarios/klarna/test.json:14:104: $.rules[8].actual: expected an integer of at least 0, found 2.5"#,
            #"scenarios/klarna/test.json:15:77: $.rules[9].delay_ms: expected an integer from 0 to 60000, found 60001"#,
            #"scenarios/klarna/test.json:16:77: $.rules[10].delay_ms: expected an integer from 0 to 60000, found a string ("5")"#,
        ])
    }

    @Test func httpErrorHeaders_Problems() {
        #expect(Self.problems(Self.withRules(
            #"{"operation": "klarna.payments.load", "outcome": "http_error", "status": 500, "headers": {"Content-Length": "1", "Bad Name": "x", "X-A": "a\r\nb", "X-B": 1, "x-a": "c"}}"#,
            #"{"operation": "klarna.payments.load", "outcome": "http_error", "status": 500, "headers": ["X-A"]}"#
        )) == [
            #"scenarios/klarna/test.json:6:95: $.rules[0].headers["Content-Length"]: header "Content-Length" is set by the server and cannot be given"#,
            #"scenarios/klarna/test.json:6:118: $.rules[0].headers["Bad Name"]: "Bad Name" is not a valid header name"#,
            #"scenarios/klarna/test.json:6:142: $.rules[0].headers["X-A"]: a header value must not contain CR, LF or NUL"#,
            #"scenarios/klarna/test.json:6:159: $.rules[0].headers["X-B"]: expected a string, found a number (1)"#,
            #"scenarios/klarna/test.json:6:162: $.rules[0].headers["x-a"]: header "x-a" repeats "X-A" (header names are case-insensitive)"#,
            #"scenarios/klarna/test.json:7:94: $.rules[1].headers: expected an object of header names to string values, found an array"#,
        ])
    }

    @Test func condition_Problems() {
        #expect(Self.problems(Self.withRules(#"""
        {"operation": "klarna.payments.load", "outcome": "approve", "when": [
              {"field": "a", "header": "b", "exists": true},
              {"equals": 1},
              {"field": "a"},
              {"field": "a", "equals": 1, "exists": true},
              {"field": "a..b", "exists": true},
              {"header": "X Y", "exists": true},
              {"header": "X-A", "equals": 1},
              {"field": "a", "contains": ""},
              {"field": "a", "contains": 1},
              {"field": "a", "matches": "("},
              {"field": "a", "exists": "yes"},
              {"field": "a", "exists": true, "ignore_case": true},
              "x"]}
        """#, #"{"operation": "klarna.payments.load", "outcome": "approve", "when": {}}"#)) == [
            #"scenarios/klarna/test.json:7:7: $.rules[0].when[0]: a condition has either "field" or "header", not both"#,
            #"scenarios/klarna/test.json:8:7: $.rules[0].when[1]: missing "field" (a path into the JSON body) or "header" (a request header name)"#,
            #"scenarios/klarna/test.json:9:7: $.rules[0].when[2]: missing a test: one of "equals", "contains", "matches", "exists""#,
            #"scenarios/klarna/test.json:10:7: $.rules[0].when[3]: a condition has exactly one test, found "equals" and "exists""#,
            #"scenarios/klarna/test.json:11:17: $.rules[0].when[4].field: "a..b" is not a field path (names joined by '.', with [index] for array elements, e.g. "order_lines[0].name")"#,
            #"scenarios/klarna/test.json:12:18: $.rules[0].when[5].header: "X Y" is not a valid header name"#,
            #"scenarios/klarna/test.json:13:35: $.rules[0].when[6].equals: a header is compared with a string, found a number (1)"#,
            #"scenarios/klarna/test.json:14:34: $.rules[0].when[7].contains: must not be empty"#,
            #"scenarios/klarna/test.json:15:34: $.rules[0].when[8].contains: expected a string, found a number (1)"#,
            #"scenarios/klarna/test.json:16:33: $.rules[0].when[9].matches: invalid regular expression "(""#,
            #"scenarios/klarna/test.json:17:32: $.rules[0].when[10].exists: expected true or false, found a string ("yes")"#,
            #"scenarios/klarna/test.json:18:38: $.rules[0].when[11].ignore_case: unknown key "ignore_case" (expected one of: field, header, equals, contains, matches, exists)"#,
            #"scenarios/klarna/test.json:19:7: $.rules[0].when[12]: expected a condition object, found a string ("x")"#,
            #"scenarios/klarna/test.json:20:73: $.rules[1].when: expected an array of conditions, found an object"#,
        ])
    }

    @Test(arguments: ["a", "a.b", "order_lines[0].name", "a[1][2].b[10]", "with space.x", "$weird-key"])
    func validFieldPaths(path: String) { #expect(ScenarioFieldPath(path) != nil) }

    @Test(arguments: ["", ".a", "a.", "a..b", "[0]", "a[", "a[]", "a[01]", "a[-1]", "a[x]", "a]b", "a[0]b", "a[99999999999999999999]"])
    func invalidFieldPaths(path: String) { #expect(ScenarioFieldPath(path) == nil) }

    @Test func fieldPath_Components() throws {
        #expect(try #require(ScenarioFieldPath("order_lines[0][2].name")).components == [.key("order_lines"), .index(0), .index(2), .key("name")])
    }

    @Test func allProblemsInAFile_AreCollected_EvenAfterABadRule() {
        let problems = Self.problems("""
        {
          "name": "Bad",
          "description": "",
          "rules": [
            {"operation": "nope", "outcome": "approve"},
            {"operation": "klarna.payments.load", "outcome": "nope"},
            {"operation": "klarna.payments.load", "outcome": "approve", "delay_ms": -1},
            {"operation": "klarna.payments.load", "outcome": "approve"},
            {"operation": "klarna.payments.load", "outcome": "approve", "when": [{"field": "x"}]}
          ],
          "extra": true
        }
        """)
        #expect(problems.count == 7)
        #expect(problems.map { $0.split(separator: ":")[1] } == ["2", "3", "5", "6", "7", "9", "11"])
    }

    @Test func problemsAreSortedByLineThenColumn() {
        // The validator finds the unknown key before it looks at "name"; the problems come in file order.
        let problems = Self.problems(#"{"name": "A", "zzz": 1, "description": "d", "rules": []}"#)
        #expect(problems.map { $0.split(separator: ":")[2] } == ["10", "15"])
    }

    @Test func problemDescription_Format() {
        let problem = ScenarioProblem(file: "scenarios/klarna/reject.json", line: 7, column: 19, path: "$.rules[0].outcome",
                                      message: #"unknown outcome "rejekt""#)
        #expect(problem.description == #"scenarios/klarna/reject.json:7:19: $.rules[0].outcome: unknown outcome "rejekt""#)
        let fileProblem = ScenarioProblem(file: "missing-dir", line: 0, column: 0, path: "", message: "no such file or directory")
        #expect(fileProblem.description == "missing-dir: no such file or directory")
    }

    // MARK: The operation table

    @Test func everyOperation_AllowsTheUniversalOutcomes() {
        let vocabulary = ScenarioVocabulary.sandbox
        for operation in vocabulary.operations {
            let allowed = Set(vocabulary.allowedOutcomes(operation.name) ?? [])
            #expect(allowed.isSuperset(of: ScenarioOutcome.universal), "\(operation.name)")
        }
        #expect(vocabulary.allowedOutcomes(ScenarioOperation("klarna.hpp.pay")) == nil)
        #expect(vocabulary.allowedOutcomes(.klarnaOMCapture) == ["approve", "refused", "http_error", "drop_connection", "commit_then_drop"])
        #expect(vocabulary.allowedOutcomes(.klarnaPaymentsCreateOrder) == [
            "approve", "expire_token", "mismatched_fields", "cart_changed", "rejected", "fraud_pending", "fraud_rejected", "http_error",
            "drop_connection", "commit_then_drop",
        ])
    }

    /// The 3-D Secure variants of card.authenticate: their parameters' ranges, and only card.authenticate takes them.
    @Test func threeDSVariants_ParameterProblems() {
        #expect(Self.problems(Self.withRules(
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_slow_acs", "acs_delay_ms": 0}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_abandoned", "after_ms": 3600001}"#,
            #"{"operation": "swedbankpay.card.authenticate", "outcome": "challenge_cres_posted", "after_ms": 5}"#,
            #"{"operation": "swedbankpay.card.authorize", "outcome": "challenge_abandoned"}"#
        )) == [
            #"scenarios/klarna/test.json:6:101: $.rules[0].acs_delay_ms: expected an integer from 1 to 60000, found 0"#,
            #"scenarios/klarna/test.json:7:98: $.rules[1].after_ms: expected an integer from 0 to 3600000, found 3600001"#,
            #"scenarios/klarna/test.json:8:88: $.rules[2].after_ms: unknown key "after_ms" for outcome "challenge_cres_posted" (expected one of: operation, when, outcome, delay_ms)"#,
            #"scenarios/klarna/test.json:9:60: $.rules[3].outcome: outcome "challenge_abandoned" is not allowed for swedbankpay.card.authorize (allowed: approve, card_declined, insufficient_funds, card_expired, fail_attempt, http_error, drop_connection, commit_then_drop)"#,
        ])
    }

    @Test func outcomeDescriptions() {
        #expect(ScenarioOutcome.httpError(status: 503, body: nil, headers: [:]).description == "http_error 503")
        #expect(ScenarioOutcome.reject(reason: "high_risk").description == "reject high_risk")
        #expect(ScenarioOutcome.reject(reason: nil).description == "reject")
        #expect(ScenarioOutcome.mismatchedFields(["a", "b"]).description == "mismatched_fields [a, b]")
        #expect(ScenarioOutcome.fraudPending.description == "fraud_pending")
    }
}
