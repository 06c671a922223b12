// SPDX-License-Identifier: MIT
import Foundation
import Testing
import KlarnaSandbox
import PaymentSandbox
import SwedbankPaySandbox
@testable import SandboxScenarios

/// The scenarios shipped in the repository's `scenarios/` directory, and the schema beside them.
@Suite struct ScenarioBundledTests {
    /// <repo>/scenarios, found from this file's path (Tests/SandboxScenariosTests/ScenarioBundledTests.swift).
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scenarios")

    static let bundledNames = [
        "approve", "reject", "cancel", "expire-token", "mismatched-fields", "cart-changed", "rejected-at-order",
        "fraud-pending", "invalid-client-token", "finalize-required", "server-error", "slow", "capture-refused",
        "commit-then-drop", "hpp-redirect-lost", "hpp-redirect-late",
        "callback-not-sent", "callback-late", "callback-twice", "callback-before-redirect", "callback-failing",
    ]

    /// scenarios/swedbankpay/<file>.json, named `swedbankpay-<file>` (names are unique across directories).
    static let swedbankPayFiles = [
        "approve", "swish-declined", "swish-timeout", "bankid-cancelled", "swish-app-launch-failed", "3ds-approved", "3ds-declined",
        "card-declined", "insufficient-funds", "card-expired", "retry-other-instrument", "payer-aborts", "abort-not-allowed",
        "session-end-reached", "server-error", "flaky", "slow", "testdata", "capture-refused",
        "commit-then-drop", "redirect-lost", "redirect-late", "swish-app-not-reopened",
        "3ds-empty-method-url", "3ds-slow-acs", "3ds-cres-posted", "3ds-abandoned",
        "callback-not-sent", "callback-late", "callback-twice", "callback-before-redirect", "callback-failing",
    ]

    static func library() throws -> ScenarioLibrary {
        switch ScenarioLibrary.load(directories: [directory], vocabulary: .sandbox) {
        case .success(let library): return library
        case .failure(let failure):
            Issue.record("bundled scenarios are invalid:\n\(failure)")
            throw failure
        }
    }

    @Test func bundledDirectory_IsValid_AndHasEveryScenario() throws {
        #expect(ScenarioLibrary.validate(files: [Self.directory], vocabulary: .sandbox).isEmpty)
        let library = try Self.library()
        #expect(Set(library.names) == Set(Self.bundledNames + ["klarna-playground"] + Self.swedbankPayFiles.map { "swedbankpay-\($0)" }))
        for file in Self.swedbankPayFiles {
            let scenario = try #require(library.scenario(named: "swedbankpay-\(file)"))
            #expect(scenario.file.hasSuffix("/swedbankpay/\(file).json"), "\(file) is in \(scenario.file)")
            #expect(scenario.description.count > 40, "\(file) says what a test sees")
        }
        for name in Self.bundledNames {
            let scenario = try #require(library.scenario(named: name))
            #expect(scenario.file.hasSuffix("/klarna/\(name).json"), "\(name) is in \(scenario.file)")
            #expect(scenario.description.count > 40, "\(name) says what a test sees")
        }
    }

    static func decide(_ name: String, _ operation: ScenarioOperation, body: String? = nil, call: Int = 0) throws -> ScenarioOutcome {
        let scenario = try #require(try library().scenario(named: name))
        return scenario.decide(operation, body: try body.map { try JSONDocument.parse($0) }, headers: [:], callIndex: call).outcome
    }

    @Test func bundledScenarios_DoWhatTheirNamesSay() throws {
        #expect(try Self.decide("approve", .klarnaPaymentsAuthorize) == .approve)
        #expect(try Self.decide("reject", .klarnaPaymentsAuthorize) == .reject(reason: nil))
        #expect(try Self.decide("cancel", .klarnaPaymentsAuthorize) == .cancel)
        #expect(try Self.decide("expire-token", .klarnaPaymentsCreateOrder) == .expireToken)
        #expect(try Self.decide("mismatched-fields", .klarnaPaymentsCreateOrder) == .mismatchedFields(["billing_address.postal_code"]))
        #expect(try Self.decide("cart-changed", .klarnaPaymentsCreateOrder) == .cartChanged(expected: nil, actual: nil))
        #expect(try Self.decide("rejected-at-order", .klarnaPaymentsCreateOrder) == .rejected)
        #expect(try Self.decide("fraud-pending", .klarnaPaymentsCreateOrder) == .fraudPending)
        #expect(try Self.decide("invalid-client-token", .klarnaPaymentsLoad) == .invalidClientToken)
        #expect(try Self.decide("finalize-required", .klarnaPaymentsAuthorize) == .finalizeRequired)
        #expect(try Self.decide("finalize-required", .klarnaPaymentsFinalize) == .approve)
        #expect(try Self.decide("server-error", .klarnaPaymentsCreateOrder) == .httpError(status: 500, body: nil, headers: [:]))
        #expect(try Self.decide("server-error", .klarnaPaymentsCreateSession) == .approve)
        #expect(try Self.decide("swedbankpay-swish-declined", .swedbankPaySwishSale) == .swishDeclined)
        #expect(try Self.decide("swedbankpay-3ds-approved", .swedbankPayCardAuthenticate) == .challenge)
        #expect(try Self.decide("swedbankpay-abort-not-allowed", .swedbankPaySessionAbortPayment) == .notAllowed)
        #expect(try Self.decide("swedbankpay-testdata", .swedbankPayCardAuthorize, body: #"{"paymentorder": {"amount": 900313}}"#)
                == .failAttempt(SwedbankPayAttemptFailure(problemType: "creditcard/acquirerinvalidamount",
                                                       originalDetail: "REJECTED_BY_ACQUIRER_INVALID_AMOUNT, response-code: 13")))
        #expect(try Self.decide("swedbankpay-testdata", .swedbankPayCardAuthenticate, body: #"{"card": {"number": "4761739001010416"}}"#)
                == .challenge)
        #expect(try Self.decide("swedbankpay-testdata", .swedbankPaySwishSale, body: #"{"paymentorder": {"description": "TM01"}}"#)
                == .swishTimeout)
        let slow = try #require(try Self.library().scenario(named: "slow"))
        for operation in [ScenarioOperation.klarnaPaymentsCreateSession, .klarnaPaymentsAuthorize, .klarnaPaymentsCreateOrder] {
            #expect(slow.decide(operation, body: nil, headers: [:], callIndex: 0) == ScenarioDecision(
                outcome: .approve, delay: .seconds(2), ruleIndex: slow.rules.firstIndex { $0.operation == operation }, stepIndex: 0))
        }
    }

    @Test func playground_FollowsKlarnasTestData() throws {
        func authorize(email: String, phone: String = "+13106683312") throws -> ScenarioOutcome {
            try Self.decide("klarna-playground", .klarnaPaymentsAuthorize,
                            body: #"{"billing_address": {"email": "\#(email)", "phone": "\#(phone)"}}"#)
        }
        #expect(try authorize(email: "customer@email.us") == .approve)
        #expect(try authorize(email: "customer+denied@email.us") == .reject(reason: nil))
        #expect(try authorize(email: "customer+se+denied@klarna.com") == .reject(reason: nil))
        #expect(try authorize(email: "customer+reject_reason_high_risk@email.us") == .reject(reason: "high_risk"))
        #expect(try authorize(email: "email+reject_reason_HIGH_RISK@email.com") == .reject(reason: "high_risk"))
        #expect(try authorize(email: "customer+reject_reason_denied@email.us") == .reject(reason: "denied"))
        #expect(try authorize(email: "customer+reject_reason_something_new@email.us") == .reject(reason: nil))
        #expect(try authorize(email: "customer@email.us", phone: "+13106354386") == .reject(reason: nil))
        #expect(try authorize(email: "customer@email.uk", phone: "+447355505530") == .reject(reason: nil))
        #expect(try authorize(email: "customer+red@email.us") == .showFormFalse)
        #expect(try Self.decide("klarna-playground", .klarnaPaymentsLoad, body: #"{"billing_address": {"email": "customer+red@email.us"}}"#)
                == .showFormFalse)
        #expect(try Self.decide("klarna-playground", .klarnaPaymentsLoad, body: #"{"billing_address": {"email": "customer@email.us"}}"#)
                == .approve)
        for tag in ["+pend-accept-05", "+pend-reject-10"] {
            #expect(try Self.decide("klarna-playground", .klarnaPaymentsCreateOrder,
                                    body: #"{"billing_address": {"email": "customer\#(tag)@email.us"}}"#) == .fraudPending)
        }
        #expect(try Self.decide("klarna-playground", .klarnaPaymentsCreateOrder, body: #"{"billing_address": {"email": "customer@email.us"}}"#)
                == .approve)
    }

    // MARK: The schema agrees with the Swift validator

    static func schema() throws -> JSONNode {
        try JSONDocument.parse(Data(contentsOf: directory.appendingPathComponent("scenario.schema.json")))
    }

    /// The committed schema is what the registered vocabulary generates (regenerate it with
    /// `swift run payment-sandbox schema > scenarios/scenario.schema.json`).
    @Test func schemaFile_IsWhatTheVocabularyGenerates() throws {
        let committed = try String(contentsOf: Self.directory.appendingPathComponent("scenario.schema.json"), encoding: .utf8)
        #expect(committed == ScenarioSchema.text(for: .sandbox),
                "scenarios/scenario.schema.json is stale: swift run payment-sandbox schema > scenarios/scenario.schema.json")
    }

    @Test func schema_ListsTheVocabularysOperationsOutcomesAndParameters() throws {
        let schema = try JSONDocument.parse(Data(ScenarioSchema.text(for: .sandbox).utf8))
        let defs = try #require(schema["$defs"])
        let vocabulary = ScenarioVocabulary.sandbox
        #expect(defs["operation"]?["enum"]?.elements?.compactMap(\.stringValue) == vocabulary.operations.map(\.name.rawValue))
        #expect(defs["outcome"]?["enum"]?.elements?.compactMap(\.stringValue) == vocabulary.outcomeNames)
        let allowed = defs["rule"]?["allOf"]?.elements?.first { $0["if"]?["properties"]?["operation"]?["const"]?.stringValue == "klarna.ordermanagement.capture" }
        #expect(allowed?["then"]?["properties"]?["outcome"]?["enum"]?.elements?.compactMap(\.stringValue)
                == ["approve", "refused", "http_error", "drop_connection", "commit_then_drop"])
        let reasons = defs["outcomeFields"]?["allOf"]?[0]?["then"]?["properties"]?["reason"]?["enum"]?.elements?.compactMap(\.stringValue)
        #expect(reasons == KlarnaOutcome.rejectReasons)
        #expect(schema["properties"]?["name"]?["pattern"]?.stringValue == "^[a-z0-9][a-z0-9._-]{0,63}$")
        let delay = defs["delay_ms"]
        #expect(delay?["minimum"]?.intValue == ScenarioOutcome.delayRange.lowerBound)
        #expect(delay?["maximum"]?.intValue == ScenarioOutcome.delayRange.upperBound)
    }

    @Test func schemaFile_IsSkippedByTheLoader_AndIsStrictJSON() throws {
        _ = try Self.schema()
        #expect(try !ScenarioLibrary.scenarioFiles(in: Self.directory).contains { $0.lastPathComponent == ScenarioLibrary.schemaFileName })
    }
}
