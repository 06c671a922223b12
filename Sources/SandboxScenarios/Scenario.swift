// SPDX-License-Identifier: MIT
import Foundation

// The scenario file format, version 1: one scenario per `*.json` file.
//
//     {
//       "$schema": "../scenario.schema.json",
//       "name": "reject",
//       "description": "The customer is rejected when the SDK authorizes the session.",
//       "rules": [
//         { "operation": "klarna.payments.authorize",
//           "when": [{ "field": "billing_address.email", "contains": "+denied" }],
//           "outcome": "reject" },
//         { "operation": "klarna.payments.create_order",
//           "sequence": [{ "outcome": "http_error", "status": 503 }, { "outcome": "approve" }] }
//       ]
//     }
//
// The rules for one operation are tried in file order; the first whose conditions all hold decides the
// outcome; no matching rule means approve. A rule names its outcome inline (`outcome` plus that outcome's
// parameters, optional `delay_ms`) or as a `sequence` of such outcome objects: the n-th call gets element n
// and the last one repeats. `scenarios/scenario.schema.json` describes the same format for editors.

/// A named, validated scenario: what the sandbox answers for each operation.
public struct Scenario: Sendable {
    public var name: String
    public var description: String
    public var rules: [ScenarioRule]
    /// The file it was read from, as shown in problems ("scenarios/klarna/reject.json"); empty when built in code.
    public var file: String
    /// Where `name` is in that file (for the duplicate-name problem).
    public var namePosition: JSONPosition

    public init(name: String, description: String, rules: [ScenarioRule], file: String = "",
                namePosition: JSONPosition = JSONPosition(line: 1, column: 1)) {
        self.name = name
        self.description = description
        self.rules = rules
        self.file = file
        self.namePosition = namePosition
    }

    /// Scenario names: `^[a-z0-9][a-z0-9._-]{0,63}$`.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        for (offset, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                if offset == 0 { return false }
            default: return false
            }
        }
        return true
    }
}

/// One rule: for `operation`, when every condition holds, answer `steps[min(call, steps.count - 1)]`.
public struct ScenarioRule: Sendable, Equatable {
    public var operation: ScenarioOperation
    public var conditions: [ScenarioCondition]
    /// One step for an inline outcome; the `sequence` elements otherwise (never empty).
    public var steps: [ScenarioStep]
    /// Whether the file wrote a `sequence` (even of one element) rather than an inline outcome.
    public var isSequence: Bool
    /// Where the rule object starts in its file.
    public var position: JSONPosition

    public init(operation: ScenarioOperation, conditions: [ScenarioCondition] = [], steps: [ScenarioStep],
                isSequence: Bool? = nil, position: JSONPosition = JSONPosition(line: 1, column: 1)) {
        precondition(!steps.isEmpty, "a rule needs at least one step")
        self.operation = operation
        self.conditions = conditions
        self.steps = steps
        self.isSequence = isSequence ?? (steps.count > 1)
        self.position = position
    }

    public init(operation: ScenarioOperation, conditions: [ScenarioCondition] = [], outcome: ScenarioOutcome,
                delay: Duration? = nil) {
        self.init(operation: operation, conditions: conditions, steps: [ScenarioStep(outcome, delay: delay)], isSequence: false)
    }
}

/// What to answer, and how long to wait before answering.
public struct ScenarioStep: Sendable, Equatable {
    public var outcome: ScenarioOutcome
    /// `delay_ms`; nil when the file gave none.
    public var delay: Duration?
    public init(_ outcome: ScenarioOutcome, delay: Duration? = nil) {
        self.outcome = outcome
        self.delay = delay
    }
}

// MARK: - Operations

/// An API operation a scenario can steer, named `provider.api.operation`.
public struct ScenarioOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public static let klarnaPaymentsCreateSession = ScenarioOperation("klarna.payments.create_session")
    public static let klarnaPaymentsReadSession = ScenarioOperation("klarna.payments.read_session")
    public static let klarnaPaymentsUpdateSession = ScenarioOperation("klarna.payments.update_session")
    public static let klarnaPaymentsCancelSession = ScenarioOperation("klarna.payments.cancel_session")
    /// The SDK's `load` (the sandbox's `.../load` stand-in).
    public static let klarnaPaymentsLoad = ScenarioOperation("klarna.payments.load")
    /// The SDK's `authorize` (the sandbox's `.../authorize` stand-in).
    public static let klarnaPaymentsAuthorize = ScenarioOperation("klarna.payments.authorize")
    /// The SDK's `finalize` (the sandbox's `.../finalize` stand-in).
    public static let klarnaPaymentsFinalize = ScenarioOperation("klarna.payments.finalize")
    public static let klarnaPaymentsCreateOrder = ScenarioOperation("klarna.payments.create_order")
    public static let klarnaPaymentsCancelAuthorization = ScenarioOperation("klarna.payments.cancel_authorization")
    public static let klarnaPaymentsCreateCustomerToken = ScenarioOperation("klarna.payments.create_customer_token")

    public static let klarnaHPPCreateSession = ScenarioOperation("klarna.hpp.create_session")
    public static let klarnaHPPReadSession = ScenarioOperation("klarna.hpp.read_session")
    public static let klarnaHPPDistributeSession = ScenarioOperation("klarna.hpp.distribute_session")
    public static let klarnaHPPDisableSession = ScenarioOperation("klarna.hpp.disable_session")

    public static let klarnaOMReadOrder = ScenarioOperation("klarna.ordermanagement.read_order")
    public static let klarnaOMCapture = ScenarioOperation("klarna.ordermanagement.capture")
    public static let klarnaOMRefund = ScenarioOperation("klarna.ordermanagement.refund")
    public static let klarnaOMCancelOrder = ScenarioOperation("klarna.ordermanagement.cancel_order")
    public static let klarnaOMAcknowledgeOrder = ScenarioOperation("klarna.ordermanagement.acknowledge_order")
    public static let klarnaOMReleaseRemainingAuthorization = ScenarioOperation("klarna.ordermanagement.release_remaining_authorization")
    public static let klarnaOMExtendAuthorizationTime = ScenarioOperation("klarna.ordermanagement.extend_authorization_time")
    public static let klarnaOMUpdateAuthorization = ScenarioOperation("klarna.ordermanagement.update_authorization")
    public static let klarnaOMUpdateMerchantReferences = ScenarioOperation("klarna.ordermanagement.update_merchant_references")
    public static let klarnaOMUpdateCustomerDetails = ScenarioOperation("klarna.ordermanagement.update_customer_details")
    public static let klarnaOMAddShippingInfo = ScenarioOperation("klarna.ordermanagement.add_shipping_info")
    public static let klarnaOMUpdateCaptureCustomerDetails = ScenarioOperation("klarna.ordermanagement.update_capture_customer_details")
    public static let klarnaOMTriggerSendOut = ScenarioOperation("klarna.ordermanagement.trigger_send_out")
    public static let klarnaOMExtendDueDate = ScenarioOperation("klarna.ordermanagement.extend_due_date")

    // The Customer Token API (klarna-api.md §5b).
    public static let klarnaCustomerTokenReadToken = ScenarioOperation("klarna.customertoken.read_token")
    public static let klarnaCustomerTokenCreateOrder = ScenarioOperation("klarna.customertoken.create_order")
    public static let klarnaCustomerTokenUpdateStatus = ScenarioOperation("klarna.customertoken.update_status")

    public static let swedbankPayCreatePaymentOrder = ScenarioOperation("swedbankpay.paymentorders.create")
    public static let swedbankPayReadPaymentOrder = ScenarioOperation("swedbankpay.paymentorders.read")
    public static let swedbankPayUpdatePaymentOrder = ScenarioOperation("swedbankpay.paymentorders.update_order")
    public static let swedbankPayAbortPaymentOrder = ScenarioOperation("swedbankpay.paymentorders.abort")
    public static let swedbankPayAbortPaymentAttempt = ScenarioOperation("swedbankpay.paymentorders.abort_payment_attempt")
    public static let swedbankPayCapture = ScenarioOperation("swedbankpay.paymentorders.capture")
    public static let swedbankPayCancel = ScenarioOperation("swedbankpay.paymentorders.cancel")
    public static let swedbankPayReversal = ScenarioOperation("swedbankpay.paymentorders.reversal")
    /// `PATCH /psp/paymentorders/{recurrenceTokens|unscheduledTokens|paymentTokens}/<token>` `{"state": "Deleted"}`.
    public static let swedbankPayDeleteToken = ScenarioOperation("swedbankpay.paymentorders.delete_token")

    // The payment-session API the Mobile SDKs follow (swedbankpay-api.md §3), played per route.
    public static let swedbankPaySessionRead = ScenarioOperation("swedbankpay.paymentsession.read")
    public static let swedbankPaySessionPreparePayment = ScenarioOperation("swedbankpay.paymentsession.prepare_payment")
    public static let swedbankPaySessionCustomizePayment = ScenarioOperation("swedbankpay.paymentsession.customize_payment")
    public static let swedbankPaySessionExpandMethod = ScenarioOperation("swedbankpay.paymentsession.expand_method")
    public static let swedbankPaySessionStartPaymentAttempt = ScenarioOperation("swedbankpay.paymentsession.start_payment_attempt")
    public static let swedbankPaySessionCreateAuthentication = ScenarioOperation("swedbankpay.paymentsession.create_authentication")
    public static let swedbankPaySessionCompleteAuthentication = ScenarioOperation("swedbankpay.paymentsession.complete_authentication")
    public static let swedbankPaySessionAttemptPayload = ScenarioOperation("swedbankpay.paymentsession.attempt_payload")
    public static let swedbankPaySessionFailPaymentAttempt = ScenarioOperation("swedbankpay.paymentsession.fail_payment_attempt")
    public static let swedbankPaySessionAcknowledgeFailedAttempt = ScenarioOperation("swedbankpay.paymentsession.acknowledge_failed_attempt")
    public static let swedbankPaySessionAbortPayment = ScenarioOperation("swedbankpay.paymentsession.abort_payment")
    public static let swedbankPaySessionEventLogging = ScenarioOperation("swedbankpay.paymentsession.event_logging")
    /// The business outcome of a Swish attempt: decided at start-payment-attempt, shown when the payer would have answered.
    public static let swedbankPaySwishSale = ScenarioOperation("swedbankpay.swish.sale")
    /// 3-D Secure for a card: frictionless or a challenge (subject `card.number`).
    public static let swedbankPayCardAuthenticate = ScenarioOperation("swedbankpay.card.authenticate")
    /// The acquirer's answer for a card, Apple Pay or Google Pay payment.
    public static let swedbankPayCardAuthorize = ScenarioOperation("swedbankpay.card.authorize")
    /// Pay with a web-based instrument on the payment menu (invoice, Trustly, ...).
    public static let swedbankPayWebPay = ScenarioOperation("swedbankpay.web.pay")
    /// The payment order's `redirect-checkout` page (the payment menu, `/checkout/<token>`).
    public static let swedbankPayCheckoutPage = ScenarioOperation("swedbankpay.checkout.page")
    /// The payment order's `view-checkout` script, also the SDKs' `view-payment` (`/checkout/client/<token>`).
    public static let swedbankPayCheckoutScript = ScenarioOperation("swedbankpay.checkout.script")

    /// THE table: every operation a scenario may name, with the outcomes it accepts beyond the ones every
    /// operation accepts (``ScenarioOutcome/Kind/universal``). Add HPP, Order Management and Swedbank Pay
    /// operations here; `scenarios/scenario.schema.json` must list the same (a test compares them).
    public static let catalogue: [(operation: ScenarioOperation, outcomes: [ScenarioOutcome.Kind])] = [
        (.klarnaPaymentsCreateSession, []),
        (.klarnaPaymentsReadSession, []),
        (.klarnaPaymentsUpdateSession, []),
        (.klarnaPaymentsCancelSession, []),
        (.klarnaPaymentsLoad, [.reject, .showFormFalse, .invalidClientToken]),
        (.klarnaPaymentsAuthorize, [.reject, .cancel, .finalizeRequired, .showFormFalse, .invalidClientToken]),
        (.klarnaPaymentsFinalize, [.reject, .cancel, .invalidClientToken]),
        (.klarnaPaymentsCreateOrder, [.expireToken, .mismatchedFields, .cartChanged, .rejected, .fraudPending, .fraudRejected]),
        (.klarnaPaymentsCancelAuthorization, [.expireToken]),
        (.klarnaPaymentsCreateCustomerToken, [.expireToken, .mismatchedFields]),
        // The hosted page's consumer outcomes follow the linked KP session's klarna.payments.authorize rules.
        (.klarnaHPPCreateSession, []),
        (.klarnaHPPReadSession, []),
        (.klarnaHPPDistributeSession, []),
        (.klarnaHPPDisableSession, []),
        (.klarnaOMReadOrder, []),
        (.klarnaOMCapture, [.refused]),
        (.klarnaOMRefund, [.refused]),
        (.klarnaOMCancelOrder, [.refused]),
        (.klarnaOMAcknowledgeOrder, [.refused]),
        (.klarnaOMReleaseRemainingAuthorization, [.refused]),
        (.klarnaOMExtendAuthorizationTime, [.refused]),
        (.klarnaOMUpdateAuthorization, [.refused]),
        (.klarnaOMUpdateMerchantReferences, [.refused]),
        (.klarnaOMUpdateCustomerDetails, [.refused]),
        (.klarnaOMAddShippingInfo, [.refused]),
        (.klarnaOMUpdateCaptureCustomerDetails, [.refused]),
        (.klarnaOMTriggerSendOut, [.refused]),
        (.klarnaOMExtendDueDate, [.refused]),
        (.klarnaCustomerTokenReadToken, []),
        (.klarnaCustomerTokenCreateOrder, [.rejected, .refused, .fraudPending, .fraudRejected]),
        (.klarnaCustomerTokenUpdateStatus, []),
        (.swedbankPayCreatePaymentOrder, []),
        (.swedbankPayReadPaymentOrder, []),
        (.swedbankPayUpdatePaymentOrder, []),
        (.swedbankPayAbortPaymentOrder, []),
        (.swedbankPayAbortPaymentAttempt, []),
        (.swedbankPayCapture, [.refused]),
        (.swedbankPayCancel, [.refused]),
        (.swedbankPayReversal, [.refused]),
        (.swedbankPayDeleteToken, []),
        (.swedbankPaySessionRead, [.sessionEndReached]),
        (.swedbankPaySessionPreparePayment, [.sessionEndReached]),
        (.swedbankPaySessionCustomizePayment, [.sessionEndReached]),
        (.swedbankPaySessionExpandMethod, [.sessionEndReached]),
        (.swedbankPaySessionStartPaymentAttempt, [.sessionEndReached]),
        (.swedbankPaySessionCreateAuthentication, [.sessionEndReached]),
        (.swedbankPaySessionCompleteAuthentication, [.sessionEndReached]),
        (.swedbankPaySessionAttemptPayload, [.sessionEndReached]),
        (.swedbankPaySessionFailPaymentAttempt, [.sessionEndReached]),
        (.swedbankPaySessionAcknowledgeFailedAttempt, [.sessionEndReached]),
        (.swedbankPaySessionAbortPayment, [.sessionEndReached, .notAllowed]),
        (.swedbankPaySessionEventLogging, []),
        (.swedbankPaySwishSale, [.swishDeclined, .swishTimeout, .bankidCancelled, .clientAppLaunchFailed, .payerAborts, .failAttempt]),
        (.swedbankPayCardAuthenticate, [.frictionless, .challenge, .threeDSDeclined, .payerAborts, .failAttempt]),
        (.swedbankPayCardAuthorize, [.cardDeclined, .insufficientFunds, .cardExpired, .failAttempt]),
        (.swedbankPayWebPay, [.payerAborts, .failAttempt]),
        (.swedbankPayCheckoutPage, []),
        (.swedbankPayCheckoutScript, []),
    ]

    public static var known: [ScenarioOperation] { catalogue.map(\.operation) }

    public var isKnown: Bool { ScenarioOperation.catalogue.contains { $0.operation == self } }

    /// Every outcome this operation accepts, in ``ScenarioOutcome/Kind`` declaration order; nil if unknown.
    public var allowedOutcomes: [ScenarioOutcome.Kind]? {
        guard let entry = ScenarioOperation.catalogue.first(where: { $0.operation == self }) else { return nil }
        let allowed = Set(entry.outcomes).union(ScenarioOutcome.Kind.universal)
        return ScenarioOutcome.Kind.allCases.filter(allowed.contains)
    }
}

// MARK: - Outcomes

/// What the provider does instead of (or as) its normal answer. The provider turns each into its own wire
/// format; the comments say what the Klarna Payments fake is expected to send.
public enum ScenarioOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The normal, successful answer.
    case approve
    /// SDK: `approved: false, show_form: false` (optionally with one of Klarna's playground reject reasons).
    case reject(reason: String?)
    /// SDK: the customer closed the form, `approved: false, show_form: true`.
    case cancel
    /// SDK authorize: `approved: false, finalize_required: true`; finalize then approves.
    case finalizeRequired
    /// SDK: the `ShowFormFalseError` error.
    case showFormFalse
    /// SDK: the `InvalidClientTokenError` error.
    case invalidClientToken
    /// The authorization token acts as if 60 minutes had passed: 404 NOT_FOUND "Invalid authorization token".
    case expireToken
    /// 409 BAD_VALUE "Not matching fields: [a, b]".
    case mismatchedFields([String])
    /// 409 BAD_VALUE "Not matching fields: [Incorrect number of items in the cart. Expected: E, Actual: A]";
    /// nil values are computed by the provider from the authorized and the sent cart.
    case cartChanged(expected: Int?, actual: Int?)
    /// 403 REJECTED "Rejected".
    case rejected
    /// The order is created with `fraud_status: PENDING`.
    case fraudPending
    /// The order is created with `fraud_status: REJECTED`.
    case fraudRejected
    /// Order Management refuses the change: 403 with the operation's code (`CAPTURE_NOT_ALLOWED`,
    /// `REFUND_NOT_ALLOWED`, `CANCEL_NOT_ALLOWED`, `NOT_ALLOWED`).
    case refused
    /// Swedbank Pay Swish: the payer's bank declined (RF07), `swishdeclined` 403.
    case swishDeclined
    /// Swedbank Pay Swish: the payer did not answer in time (TM01), `swishtimeout` 403.
    case swishTimeout
    /// Swedbank Pay Swish: the payer cancelled BankID signing (BANKIDCL), `bankidcancelled` 409.
    case bankidCancelled
    /// Swedbank Pay Swish: the Swish app could not be launched, `paymentorders/clientapplaunchfailed`.
    case clientAppLaunchFailed
    /// Swedbank Pay card: 3-D Secure without a challenge.
    case frictionless
    /// Swedbank Pay card: 3-D Secure with a challenge (the ACS page).
    case challenge
    /// Swedbank Pay card: 3-D Secure is declined, even when the payer approves, `creditcard/3dsecuredeclined`.
    case threeDSDeclined
    /// Swedbank Pay card: `creditcard/carddeclined` 403.
    case cardDeclined
    /// Swedbank Pay card: `creditcard/acquirerinsufficientfunds` 403.
    case insufficientFunds
    /// Swedbank Pay card: `creditcard/acquirercardexpired` 403.
    case cardExpired
    /// Swedbank Pay payment session: the session ends (order Failed); the SDKs report PaymentSessionEndReached.
    case sessionEndReached
    /// Swedbank Pay payment session: 409 `paymentsessions/operationnotallowed`.
    case notAllowed
    /// Swedbank Pay: instead of paying, the payer aborts the payment (in the Swish app, at 3-D Secure, on the page):
    /// the order is Aborted and the session redirects to `cancelUrl`.
    case payerAborts
    /// Swedbank Pay: the attempt fails with this problem (`problem_type` is the part after `.../errordetail/`).
    case failAttempt(ScenarioAttemptFailure)
    /// Any status; `body` is sent as is (nil: the provider's own error envelope for that status), `headers` added.
    case httpError(status: Int, body: JSONNode?, headers: HTTPHeaders)
    /// The connection is closed without an answer.
    case dropConnection

    /// The outcome names of the file format.
    public enum Kind: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
        case approve
        case reject
        case cancel
        case finalizeRequired = "finalize_required"
        case showFormFalse = "show_form_false"
        case invalidClientToken = "invalid_client_token"
        case expireToken = "expire_token"
        case mismatchedFields = "mismatched_fields"
        case cartChanged = "cart_changed"
        case rejected
        case fraudPending = "fraud_pending"
        case fraudRejected = "fraud_rejected"
        case refused
        case swishDeclined = "swish_declined"
        case swishTimeout = "swish_timeout"
        case bankidCancelled = "bankid_cancelled"
        case clientAppLaunchFailed = "client_app_launch_failed"
        case frictionless
        case challenge
        case threeDSDeclined = "three_ds_declined"
        case cardDeclined = "card_declined"
        case insufficientFunds = "insufficient_funds"
        case cardExpired = "card_expired"
        case sessionEndReached = "session_end_reached"
        case notAllowed = "not_allowed"
        case payerAborts = "payer_aborts"
        case failAttempt = "fail_attempt"
        case httpError = "http_error"
        case dropConnection = "drop_connection"

        public var description: String { rawValue }

        /// Allowed on every operation.
        public static let universal: Set<Kind> = [.approve, .httpError, .dropConnection]

        /// The keys an outcome object may carry for this outcome (besides `outcome` and `delay_ms`).
        public var parameters: [String] {
            switch self {
            case .reject: ["reason"]
            case .mismatchedFields: ["fields"]
            case .cartChanged: ["expected", "actual"]
            case .httpError: ["status", "body", "headers"]
            case .failAttempt: ["problem_type", "status", "title", "detail", "original_detail"]
            default: []
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .approve: .approve
        case .reject: .reject
        case .cancel: .cancel
        case .finalizeRequired: .finalizeRequired
        case .showFormFalse: .showFormFalse
        case .invalidClientToken: .invalidClientToken
        case .expireToken: .expireToken
        case .mismatchedFields: .mismatchedFields
        case .cartChanged: .cartChanged
        case .rejected: .rejected
        case .fraudPending: .fraudPending
        case .fraudRejected: .fraudRejected
        case .refused: .refused
        case .swishDeclined: .swishDeclined
        case .swishTimeout: .swishTimeout
        case .bankidCancelled: .bankidCancelled
        case .clientAppLaunchFailed: .clientAppLaunchFailed
        case .frictionless: .frictionless
        case .challenge: .challenge
        case .threeDSDeclined: .threeDSDeclined
        case .cardDeclined: .cardDeclined
        case .insufficientFunds: .insufficientFunds
        case .cardExpired: .cardExpired
        case .sessionEndReached: .sessionEndReached
        case .notAllowed: .notAllowed
        case .payerAborts: .payerAborts
        case .failAttempt: .failAttempt
        case .httpError: .httpError
        case .dropConnection: .dropConnection
        }
    }

    /// The outcome's name, with its parameters for the ones that have them: `http_error 503`.
    public var description: String {
        switch self {
        case .reject(let reason?): "reject \(reason)"
        case .mismatchedFields(let fields): "mismatched_fields [\(fields.joined(separator: ", "))]"
        case .cartChanged(let expected, let actual):
            "cart_changed expected \(expected.map(String.init) ?? "-") actual \(actual.map(String.init) ?? "-")"
        case .httpError(let status, _, _): "http_error \(status)"
        case .failAttempt(let failure): "fail_attempt \(failure.problemType) \(failure.status)"
        default: kind.rawValue
        }
    }

    /// Klarna's playground reject reasons (klarna-api.md §6), the values `reason` may take.
    public static let rejectReasons = [
        "other", "could_not_establish_identity", "credit_limit_exceeded", "customer_not_fulfilling_previous_engagements",
        "external_hard_reject", "high_risk", "legal_restraints", "technical_error", "internal_block",
        "low_credit_rating", "under_age", "denied",
    ]

    /// `delay_ms` range.
    public static let delayRange = 0...60_000
    /// `http_error` `status` range.
    /// A final answer: 1xx are interim responses a client would keep waiting after, so they are not allowed.
    public static let statusRange = 200...599
    /// Headers `http_error` may not set: the server frames the message itself.
    public static let reservedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]
    /// `fail_attempt` `status` range (a problem may carry any error status).
    public static let failAttemptStatusRange = 100...599
}

/// The parameters of `fail_attempt`: the problem a Swedbank Pay attempt fails with.
public struct ScenarioAttemptFailure: Sendable, Equatable {
    /// The part after `https://api.payex.com/psp/errordetail/`, lower-cased: `creditcard/acquirererror`.
    public var problemType: String
    public var status: Int
    public var title: String?
    public var detail: String?
    public var originalDetail: String?

    public init(problemType: String, status: Int = 403, title: String? = nil, detail: String? = nil, originalDetail: String? = nil) {
        self.problemType = problemType
        self.status = status
        self.title = title
        self.detail = detail
        self.originalDetail = originalDetail
    }

    /// `^[a-z0-9_/]+$` after lower-casing (the reference's `3DSECUREERROR` casing is accepted).
    public static func isValidProblemType(_ text: String) -> Bool {
        !text.isEmpty && text.lowercased().utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "/"): true
            default: false
            }
        }
    }
}

// MARK: - Conditions

/// One test on the request; a rule applies when all of its conditions hold.
public struct ScenarioCondition: Sendable, Equatable {
    public enum Subject: Sendable, Equatable {
        /// A value in the request's JSON body.
        case field(ScenarioFieldPath)
        /// A request header (name compared case-insensitively; with several fields of that name, any may match).
        case header(String)
    }

    public enum Test: Sendable, Equatable {
        /// JSON equality (numbers by value, object keys in any order); headers: the exact string.
        case equals(JSONNode)
        /// A string: contains the substring (case-sensitive). An array: has an element equal to the string.
        case contains(String)
        /// A string, or a number's source text: the regular expression matches somewhere in it (not anchored).
        case matches(ScenarioPattern)
        /// The field (any value, `null` included) or header is present (`true`) or absent (`false`).
        case exists(Bool)
    }

    public var subject: Subject
    public var test: Test

    public init(_ subject: Subject, _ test: Test) {
        self.subject = subject
        self.test = test
    }
}

/// A dot path into a JSON body with `[i]` for array elements: `billing_address.email`, `order_lines[0].name`.
/// Grammar: `name("[" index "]")*` segments joined by ".", where a name is one or more characters other
/// than `.`, `[` and `]`, and an index is a non-negative integer without leading zeros.
public struct ScenarioFieldPath: Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let components: [JSONPath.Component]

    public init?(_ text: String) {
        var components: [JSONPath.Component] = []
        for segment in text.split(separator: ".", omittingEmptySubsequences: false) {
            let bracket = segment.firstIndex(of: "[") ?? segment.endIndex
            let name = segment[..<bracket]
            guard !name.isEmpty, !name.contains("]") else { return nil }
            components.append(.key(String(name)))
            var rest = segment[bracket...]
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
                let digits = rest[rest.index(after: rest.startIndex)..<close]
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                      digits == "0" || digits.first != "0", let index = Int(digits)
                else { return nil }
                components.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
        }
        self.text = text
        self.components = components
    }

    public var description: String { text }

    /// The value at this path, or nil when any step is missing (a key that is not there, an index out of
    /// range, or a step into something that is not an object or array).
    public func resolve(in root: JSONNode?) -> JSONNode? {
        var node = root
        for component in components {
            switch component {
            case .key(let key): node = node?[key]
            case .index(let index): node = node?[index]
            }
        }
        return node
    }
}

/// A compiled `matches` regular expression (NSRegularExpression, ICU syntax). Equal when the patterns are.
public struct ScenarioPattern: Sendable, Equatable, CustomStringConvertible {
    public let pattern: String
    public let regex: NSRegularExpression

    public init(_ pattern: String) throws {
        self.pattern = pattern
        regex = try NSRegularExpression(pattern: pattern)
    }

    public func matches(_ string: String) -> Bool {
        regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }

    public var description: String { pattern }
    public static func == (lhs: ScenarioPattern, rhs: ScenarioPattern) -> Bool { lhs.pattern == rhs.pattern }
}

// MARK: - Problems

/// One thing wrong with a scenario file. Its description is `file:line:column: JSON path: what is wrong`,
/// e.g. `scenarios/klarna/reject.json:7:19: $.rules[0].outcome: unknown outcome "rejekt" (expected one of: ...)`.
/// Problems that are not about the JSON (a missing directory, an unreadable file) have line 0 and an
/// empty path and read `file: what is wrong`.
public struct ScenarioProblem: Sendable, Equatable, Comparable, CustomStringConvertible, Error {
    public var file: String
    public var line: Int
    public var column: Int
    public var path: String
    public var message: String

    public init(file: String, line: Int, column: Int, path: String, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    public var description: String {
        line == 0 ? "\(file): \(message)" : "\(file):\(line):\(column): \(path): \(message)"
    }

    /// By file, then line, then column.
    public static func < (lhs: ScenarioProblem, rhs: ScenarioProblem) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

// MARK: - Reading and validating

extension Scenario {
    /// Largest scenario file read (the format needs far less).
    public static let maxFileBytes = 1 << 20

    /// Parses and validates one scenario file's content. `file` is how problems name it. Every problem in
    /// the file is reported, not just the first; a syntax error is one problem with path `$`.
    public static func parse(_ data: Data, file: String) -> Result<Scenario, ScenarioLoadFailure> {
        let root: JSONNode
        do {
            root = try JSONDocument.parse(data, limits: JSONDocument.Limits(maxDepth: 64, maxBytes: maxFileBytes))
        } catch {
            return .failure(ScenarioLoadFailure([
                ScenarioProblem(file: file, line: error.line, column: error.column, path: "$", message: error.message),
            ]))
        }
        var validator = ScenarioValidator(file: file)
        let scenario = validator.scenario(root)
        if let scenario, validator.problems.isEmpty { return .success(scenario) }
        return .failure(ScenarioLoadFailure(validator.problems))
    }

    public static func parse(_ text: String, file: String) -> Result<Scenario, ScenarioLoadFailure> {
        parse(Data(text.utf8), file: file)
    }
}

/// Walks a parsed scenario document, building the model and collecting every problem.
struct ScenarioValidator {
    let file: String
    var problems: [ScenarioProblem] = []

    init(file: String) { self.file = file }

    mutating func report(_ path: JSONPath, at position: JSONPosition, _ message: String) {
        problems.append(ScenarioProblem(file: file, line: position.line, column: position.column,
                                        path: path.description, message: message))
    }

    static let topLevelKeys = ["$schema", "name", "description", "rules"]

    // MARK: Objects

    /// An object's members by key (first occurrence); later duplicates are reported.
    struct Object {
        var node: JSONNode
        var path: JSONPath
        var members: [JSONNode.Member]
        var byKey: [String: JSONNode.Member]
        subscript(key: String) -> JSONNode? { byKey[key]?.value }
        func has(_ key: String) -> Bool { byKey[key] != nil }
    }

    mutating func object(_ node: JSONNode, _ path: JSONPath, what: String = "an object") -> Object? {
        guard let members = node.members else {
            report(path, at: node.position, "expected \(what), found \(ScenarioValidator.found(node))")
            return nil
        }
        var byKey: [String: JSONNode.Member] = [:]
        var unique: [JSONNode.Member] = []
        for member in members {
            if let first = byKey[member.key] {
                report(path / member.key, at: member.keyPosition,
                       "duplicate key \(JSONNode.quoted(member.key)) (first at line \(first.keyPosition.line), column \(first.keyPosition.column))")
            } else {
                byKey[member.key] = member
                unique.append(member)
            }
        }
        return Object(node: node, path: path, members: unique, byKey: byKey)
    }

    /// Reports every key not in `allowed`.
    mutating func checkKeys(_ object: Object, allowed: [String], context: String = "") {
        for member in object.members where !allowed.contains(member.key) {
            report(object.path / member.key, at: member.keyPosition,
                   "unknown key \(JSONNode.quoted(member.key))\(context) (expected one of: \(allowed.joined(separator: ", ")))")
        }
    }

    mutating func require(_ object: Object, _ key: String, context: String = "") -> JSONNode? {
        if let value = object[key] { return value }
        report(object.path, at: object.node.position, "missing required key \(JSONNode.quoted(key))\(context)")
        return nil
    }

    /// "a number (3.5)", "a string (\"x\")", "an array": what was found, for type messages.
    static func found(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "null"
        case .bool(let value): return "a boolean (\(value))"
        case .number(_, let text): return "a number (\(text))"
        case .string(let string):
            let shown = string.count > 40 ? String(string.prefix(40)) + "..." : string
            return "a string (\(JSONNode.quoted(shown)))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    mutating func string(_ node: JSONNode, _ path: JSONPath, nonEmpty: Bool = false) -> String? {
        guard let string = node.stringValue else {
            report(path, at: node.position, "expected a string, found \(ScenarioValidator.found(node))")
            return nil
        }
        if nonEmpty && string.allSatisfy(\.isWhitespace) {
            report(path, at: node.position, "must not be empty")
            return nil
        }
        return string
    }

    mutating func integer(_ node: JSONNode, _ path: JSONPath, in range: ClosedRange<Int>?) -> Int? {
        let expected = range.map { $0.upperBound == Int.max ? "an integer of at least \($0.lowerBound)" : "an integer from \($0.lowerBound) to \($0.upperBound)" }
            ?? "an integer"
        guard let value = node.intValue, range?.contains(value) ?? true else {
            let found = node.doubleValue != nil ? node.description : ScenarioValidator.found(node)
            report(path, at: node.position, "expected \(expected), found \(found)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: JSONNode, _ path: JSONPath) -> Bool? {
        guard let value = node.boolValue else {
            report(path, at: node.position, "expected true or false, found \(ScenarioValidator.found(node))")
            return nil
        }
        return value
    }

    // MARK: Scenario

    mutating func scenario(_ root: JSONNode) -> Scenario? {
        let path = JSONPath.root
        guard let object = self.object(root, path) else { return nil }
        checkKeys(object, allowed: ScenarioValidator.topLevelKeys)
        if let schema = object["$schema"] { _ = string(schema, path / "$schema") }

        var name: String?
        if let node = require(object, "name"), let value = string(node, path / "name") {
            if Scenario.isValidName(value) {
                name = value
            } else {
                report(path / "name", at: node.position,
                       "\(JSONNode.quoted(value)) is not a valid scenario name (1 to 64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit)")
            }
        }
        var description: String?
        if let node = require(object, "description") { description = string(node, path / "description", nonEmpty: true) }

        var rules: [ScenarioRule] = []
        var rulesValid = true
        if let node = require(object, "rules") {
            if let elements = node.elements {
                for (index, element) in elements.enumerated() {
                    if let rule = rule(element, path / "rules" / index) { rules.append(rule) } else { rulesValid = false }
                }
            } else {
                report(path / "rules", at: node.position, "expected an array of rules, found \(ScenarioValidator.found(node))")
                rulesValid = false
            }
        } else {
            rulesValid = false
        }
        guard let name, let description, rulesValid else { return nil }
        return Scenario(name: name, description: description, rules: rules, file: file,
                        namePosition: object.byKey["name"]?.value.position ?? root.position)
    }

    // MARK: Rules

    mutating func rule(_ node: JSONNode, _ path: JSONPath) -> ScenarioRule? {
        guard let object = self.object(node, path, what: "a rule object") else { return nil }
        var valid = true

        var operation: ScenarioOperation?
        if let node = require(object, "operation") {
            if let raw = string(node, path / "operation") {
                let candidate = ScenarioOperation(raw)
                if candidate.isKnown {
                    operation = candidate
                } else {
                    report(path / "operation", at: node.position,
                           "unknown operation \(JSONNode.quoted(raw)) (expected one of: \(ScenarioOperation.known.map(\.rawValue).joined(separator: ", ")))")
                }
            }
        }
        if operation == nil { valid = false }

        var conditions: [ScenarioCondition] = []
        if let when = object["when"] {
            if let elements = when.elements {
                for (index, element) in elements.enumerated() {
                    if let condition = condition(element, path / "when" / index) { conditions.append(condition) } else { valid = false }
                }
            } else {
                report(path / "when", at: when.position, "expected an array of conditions, found \(ScenarioValidator.found(when))")
                valid = false
            }
        }

        let ruleKeys = ["operation", "when"]
        var steps: [ScenarioStep] = []
        let isSequence = object.has("sequence") && !object.has("outcome")
        if object.has("outcome") && object.has("sequence") {
            report(path, at: node.position, "a rule has either \"outcome\" or \"sequence\", not both")
            valid = false
            // Still check the inline outcome; "sequence" is not reported again as an unknown key.
            _ = step(object, path, operation: operation, ownKeys: ruleKeys + ["sequence"])
        } else if let sequence = object["sequence"] {
            checkKeys(object, allowed: ruleKeys + ["sequence"])
            if let elements = sequence.elements {
                if elements.isEmpty {
                    report(path / "sequence", at: sequence.position, "must not be empty (give at least one outcome object)")
                    valid = false
                }
                for (index, element) in elements.enumerated() {
                    let elementPath = path / "sequence" / index
                    if let elementObject = self.object(element, elementPath, what: "an outcome object"),
                       let step = step(elementObject, elementPath, operation: operation, ownKeys: []) {
                        steps.append(step)
                    } else {
                        valid = false
                    }
                }
            } else {
                report(path / "sequence", at: sequence.position, "expected an array of outcome objects, found \(ScenarioValidator.found(sequence))")
                valid = false
            }
        } else if object.has("outcome") {
            if let step = step(object, path, operation: operation, ownKeys: ruleKeys) { steps.append(step) } else { valid = false }
        } else {
            report(path, at: node.position, "missing \"outcome\" or \"sequence\"")
            checkKeys(object, allowed: ruleKeys + ["outcome", "sequence", "delay_ms"] + ScenarioValidator.allParameters)
            valid = false
        }

        guard valid, let operation, !steps.isEmpty else { return nil }
        return ScenarioRule(operation: operation, conditions: conditions, steps: steps, isSequence: isSequence, position: node.position)
    }

    static let allParameters: [String] = {
        var seen: [String] = []
        for kind in ScenarioOutcome.Kind.allCases { for key in kind.parameters where !seen.contains(key) { seen.append(key) } }
        return seen
    }()

    // MARK: Outcome objects

    /// An outcome object: `outcome`, that outcome's parameters, `delay_ms`, plus `ownKeys` of the enclosing
    /// rule when the outcome is written inline.
    mutating func step(_ object: Object, _ path: JSONPath, operation: ScenarioOperation?, ownKeys: [String]) -> ScenarioStep? {
        var valid = true
        var kind: ScenarioOutcome.Kind?
        if let node = require(object, "outcome"), let raw = string(node, path / "outcome") {
            if let known = ScenarioOutcome.Kind(rawValue: raw) {
                kind = known
                if let operation, let allowed = operation.allowedOutcomes, !allowed.contains(known) {
                    report(path / "outcome", at: node.position,
                           "outcome \(JSONNode.quoted(raw)) is not allowed for \(operation) (allowed: \(allowed.map(\.rawValue).joined(separator: ", ")))")
                    valid = false
                }
            } else {
                let expected = (operation?.allowedOutcomes ?? ScenarioOutcome.Kind.allCases).map(\.rawValue).joined(separator: ", ")
                report(path / "outcome", at: node.position, "unknown outcome \(JSONNode.quoted(raw)) (expected one of: \(expected))")
            }
        }

        var delay: Duration?
        if let node = object["delay_ms"] {
            if let ms = integer(node, path / "delay_ms", in: ScenarioOutcome.delayRange) { delay = .milliseconds(ms) } else { valid = false }
        }

        guard let kind else {
            // Unknown or missing outcome: its parameters cannot be checked; flag only keys no outcome has.
            checkKeys(object, allowed: ownKeys + ["outcome", "delay_ms"] + ScenarioValidator.allParameters)
            return nil
        }
        checkKeys(object, allowed: ownKeys + ["outcome"] + kind.parameters + ["delay_ms"],
                  context: " for outcome \(JSONNode.quoted(kind.rawValue))")

        let outcome: ScenarioOutcome?
        switch kind {
        case .approve: outcome = .approve
        case .cancel: outcome = .cancel
        case .finalizeRequired: outcome = .finalizeRequired
        case .showFormFalse: outcome = .showFormFalse
        case .invalidClientToken: outcome = .invalidClientToken
        case .expireToken: outcome = .expireToken
        case .rejected: outcome = .rejected
        case .fraudPending: outcome = .fraudPending
        case .fraudRejected: outcome = .fraudRejected
        case .refused: outcome = .refused
        case .swishDeclined: outcome = .swishDeclined
        case .swishTimeout: outcome = .swishTimeout
        case .bankidCancelled: outcome = .bankidCancelled
        case .clientAppLaunchFailed: outcome = .clientAppLaunchFailed
        case .frictionless: outcome = .frictionless
        case .challenge: outcome = .challenge
        case .threeDSDeclined: outcome = .threeDSDeclined
        case .cardDeclined: outcome = .cardDeclined
        case .insufficientFunds: outcome = .insufficientFunds
        case .cardExpired: outcome = .cardExpired
        case .sessionEndReached: outcome = .sessionEndReached
        case .notAllowed: outcome = .notAllowed
        case .payerAborts: outcome = .payerAborts
        case .failAttempt: outcome = attemptFailure(object, path).map(ScenarioOutcome.failAttempt)
        case .dropConnection: outcome = .dropConnection
        case .reject:
            if let node = object["reason"] {
                if let reason = string(node, path / "reason") {
                    if ScenarioOutcome.rejectReasons.contains(reason) {
                        outcome = .reject(reason: reason)
                    } else {
                        report(path / "reason", at: node.position,
                               "unknown reject reason \(JSONNode.quoted(reason)) (expected one of: \(ScenarioOutcome.rejectReasons.joined(separator: ", ")))")
                        outcome = nil
                    }
                } else {
                    outcome = nil
                }
            } else {
                outcome = .reject(reason: nil)
            }
        case .mismatchedFields:
            outcome = fields(object, path).map(ScenarioOutcome.mismatchedFields)
        case .cartChanged:
            var ok = true
            var counts: [String: Int] = [:]
            for key in ["expected", "actual"] {
                guard let node = object[key] else { continue }
                if let count = integer(node, path / key, in: 0...Int.max) { counts[key] = count } else { ok = false }
            }
            outcome = ok ? .cartChanged(expected: counts["expected"], actual: counts["actual"]) : nil
        case .httpError:
            outcome = httpError(object, path)
        }
        guard valid, let outcome else { return nil }
        return ScenarioStep(outcome, delay: delay)
    }

    mutating func fields(_ object: Object, _ path: JSONPath) -> [String]? {
        guard let node = require(object, "fields", context: " for outcome \"mismatched_fields\"") else { return nil }
        guard let elements = node.elements else {
            report(path / "fields", at: node.position, "expected an array of field names, found \(ScenarioValidator.found(node))")
            return nil
        }
        guard !elements.isEmpty else {
            report(path / "fields", at: node.position, "must not be empty (name at least one field, e.g. \"billing_address.postal_code\")")
            return nil
        }
        var fields: [String] = []
        var ok = true
        for (index, element) in elements.enumerated() {
            guard let field = string(element, path / "fields" / index, nonEmpty: true) else { ok = false; continue }
            if fields.contains(field) {
                report(path / "fields" / index, at: element.position, "\(JSONNode.quoted(field)) is listed twice")
                ok = false
            }
            fields.append(field)
        }
        return ok ? fields : nil
    }

    mutating func httpError(_ object: Object, _ path: JSONPath) -> ScenarioOutcome? {
        var ok = true
        var status: Int?
        if let node = require(object, "status", context: " for outcome \"http_error\"") {
            status = integer(node, path / "status", in: ScenarioOutcome.statusRange)
        }
        var headers = HTTPHeaders()
        if let node = object["headers"] {
            if let headerObject = self.object(node, path / "headers", what: "an object of header names to string values") {
                for member in headerObject.members {
                    let memberPath = path / "headers" / member.key
                    if !ScenarioValidator.isToken(member.key) {
                        report(memberPath, at: member.keyPosition, "\(JSONNode.quoted(member.key)) is not a valid header name")
                        ok = false
                    } else if ScenarioOutcome.reservedHeaders.contains(member.key.lowercased()) {
                        report(memberPath, at: member.keyPosition, "header \(JSONNode.quoted(member.key)) is set by the server and cannot be given")
                        ok = false
                    }
                    guard let value = string(member.value, memberPath) else { ok = false; continue }
                    if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                        report(memberPath, at: member.value.position, "a header value must not contain CR, LF or NUL")
                        ok = false
                    }
                    headers.add(name: member.key, value: value)
                }
                // Case-insensitive duplicates ("X-A" and "x-a") are different JSON keys but one header.
                var seen: [String: String] = [:]
                for member in headerObject.members {
                    let lower = member.key.lowercased()
                    if let first = seen[lower] {
                        report(path / "headers" / member.key, at: member.keyPosition,
                               "header \(JSONNode.quoted(member.key)) repeats \(JSONNode.quoted(first)) (header names are case-insensitive)")
                        ok = false
                    } else {
                        seen[lower] = member.key
                    }
                }
            } else {
                ok = false
            }
        }
        guard ok, let status else { return nil }
        return .httpError(status: status, body: object["body"], headers: headers)
    }

    mutating func attemptFailure(_ object: Object, _ path: JSONPath) -> ScenarioAttemptFailure? {
        var ok = true
        var problemType: String?
        if let node = require(object, "problem_type", context: " for outcome \"fail_attempt\""),
           let text = string(node, path / "problem_type") {
            if ScenarioAttemptFailure.isValidProblemType(text) {
                problemType = text.lowercased()
            } else {
                report(path / "problem_type", at: node.position,
                       "\(JSONNode.quoted(text)) is not a problem type (the part after .../errordetail/, e.g. \"creditcard/acquirererror\")")
            }
        }
        var status = 403
        if let node = object["status"] {
            if let value = integer(node, path / "status", in: ScenarioOutcome.failAttemptStatusRange) { status = value } else { ok = false }
        }
        var texts: [String: String] = [:]
        for key in ["title", "detail", "original_detail"] {
            guard let node = object[key] else { continue }
            if let text = string(node, path / key, nonEmpty: true) { texts[key] = text } else { ok = false }
        }
        guard ok, let problemType else { return nil }
        return ScenarioAttemptFailure(problemType: problemType, status: status, title: texts["title"], detail: texts["detail"],
                                      originalDetail: texts["original_detail"])
    }

    /// RFC 9110 §5.6.2 token.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    // MARK: Conditions

    static let tests = ["equals", "contains", "matches", "exists"]

    mutating func condition(_ node: JSONNode, _ path: JSONPath) -> ScenarioCondition? {
        guard let object = self.object(node, path, what: "a condition object") else { return nil }
        checkKeys(object, allowed: ["field", "header"] + ScenarioValidator.tests)
        var subject: ScenarioCondition.Subject?
        var valid = true
        switch (object["field"], object["header"]) {
        case (.some, .some):
            report(path, at: node.position, "a condition has either \"field\" or \"header\", not both")
            valid = false
        case (nil, nil):
            report(path, at: node.position, "missing \"field\" (a path into the JSON body) or \"header\" (a request header name)")
            valid = false
        case (let field?, nil):
            if let text = string(field, path / "field") {
                if let fieldPath = ScenarioFieldPath(text) {
                    subject = .field(fieldPath)
                } else {
                    report(path / "field", at: field.position,
                           "\(JSONNode.quoted(text)) is not a field path (names joined by '.', with [index] for array elements, e.g. \"order_lines[0].name\")")
                }
            }
        case (nil, let header?):
            if let name = string(header, path / "header") {
                if ScenarioValidator.isToken(name) {
                    subject = .header(name)
                } else {
                    report(path / "header", at: header.position, "\(JSONNode.quoted(name)) is not a valid header name")
                }
            }
        }

        let present = ScenarioValidator.tests.filter(object.has)
        guard present.count == 1, let key = present.first, let value = object[key] else {
            if present.isEmpty {
                report(path, at: node.position, "missing a test: one of \"equals\", \"contains\", \"matches\", \"exists\"")
            } else {
                report(path, at: node.position,
                       "a condition has exactly one test, found \(present.map { JSONNode.quoted($0) }.joined(separator: " and "))")
            }
            return nil
        }
        let testPath = path / key
        var test: ScenarioCondition.Test?
        switch key {
        case "equals":
            if case .header = subject, value.stringValue == nil {
                report(testPath, at: value.position, "a header is compared with a string, found \(ScenarioValidator.found(value))")
            } else {
                test = .equals(value)
            }
        case "contains":
            if let string = string(value, testPath) {
                if string.isEmpty { report(testPath, at: value.position, "must not be empty") } else { test = .contains(string) }
            }
        case "matches":
            if let pattern = string(value, testPath) {
                do {
                    test = .matches(try ScenarioPattern(pattern))
                } catch {
                    report(testPath, at: value.position, "invalid regular expression \(JSONNode.quoted(pattern))")
                }
            }
        default:
            if let flag = bool(value, testPath) { test = .exists(flag) }
        }
        guard valid, let subject, let test else { return nil }
        return ScenarioCondition(subject, test)
    }
}
