// SPDX-License-Identifier: MIT
import Foundation

// Swedbank Pay's scenario vocabulary: the operations a scenario may steer and the outcomes beyond the universal
// ones (approve, http_error, drop_connection) that Swedbank Pay's fakes answer with.

extension ScenarioOperation {
    package static let swedbankPayCreatePaymentOrder = ScenarioOperation("swedbankpay.paymentorders.create")
    package static let swedbankPayReadPaymentOrder = ScenarioOperation("swedbankpay.paymentorders.read")
    package static let swedbankPayUpdatePaymentOrder = ScenarioOperation("swedbankpay.paymentorders.update_order")
    package static let swedbankPayAbortPaymentOrder = ScenarioOperation("swedbankpay.paymentorders.abort")
    package static let swedbankPayAbortPaymentAttempt = ScenarioOperation("swedbankpay.paymentorders.abort_payment_attempt")
    package static let swedbankPayCapture = ScenarioOperation("swedbankpay.paymentorders.capture")
    package static let swedbankPayCancel = ScenarioOperation("swedbankpay.paymentorders.cancel")
    package static let swedbankPayReversal = ScenarioOperation("swedbankpay.paymentorders.reversal")
    /// `PATCH /psp/paymentorders/{recurrenceTokens|unscheduledTokens|paymentTokens}/<token>` `{"state": "Deleted"}`.
    package static let swedbankPayDeleteToken = ScenarioOperation("swedbankpay.paymentorders.delete_token")
    // The payment-session API the Mobile SDKs follow (swedbankpay-api.md §3), played per route.
    package static let swedbankPaySessionRead = ScenarioOperation("swedbankpay.paymentsession.read")
    package static let swedbankPaySessionPreparePayment = ScenarioOperation("swedbankpay.paymentsession.prepare_payment")
    package static let swedbankPaySessionCustomizePayment = ScenarioOperation("swedbankpay.paymentsession.customize_payment")
    package static let swedbankPaySessionExpandMethod = ScenarioOperation("swedbankpay.paymentsession.expand_method")
    package static let swedbankPaySessionStartPaymentAttempt = ScenarioOperation("swedbankpay.paymentsession.start_payment_attempt")
    package static let swedbankPaySessionCreateAuthentication = ScenarioOperation("swedbankpay.paymentsession.create_authentication")
    package static let swedbankPaySessionCompleteAuthentication = ScenarioOperation("swedbankpay.paymentsession.complete_authentication")
    package static let swedbankPaySessionAttemptPayload = ScenarioOperation("swedbankpay.paymentsession.attempt_payload")
    package static let swedbankPaySessionFailPaymentAttempt = ScenarioOperation("swedbankpay.paymentsession.fail_payment_attempt")
    package static let swedbankPaySessionAcknowledgeFailedAttempt = ScenarioOperation("swedbankpay.paymentsession.acknowledge_failed_attempt")
    package static let swedbankPaySessionAbortPayment = ScenarioOperation("swedbankpay.paymentsession.abort_payment")
    package static let swedbankPaySessionEventLogging = ScenarioOperation("swedbankpay.paymentsession.event_logging")
    /// The business outcome of a Swish attempt: decided at start-payment-attempt, shown when the payer would have answered.
    package static let swedbankPaySwishSale = ScenarioOperation("swedbankpay.swish.sale")
    /// 3-D Secure for a card: frictionless or a challenge (subject `card.number`).
    package static let swedbankPayCardAuthenticate = ScenarioOperation("swedbankpay.card.authenticate")
    /// The acquirer's answer for a card, Apple Pay or Google Pay payment.
    package static let swedbankPayCardAuthorize = ScenarioOperation("swedbankpay.card.authorize")
    /// Pay with a web-based instrument on the payment menu (invoice, Trustly, ...).
    package static let swedbankPayWebPay = ScenarioOperation("swedbankpay.web.pay")
    /// The payment order's `redirect-checkout` page (the payment menu, `/checkout/<token>`).
    package static let swedbankPayCheckoutPage = ScenarioOperation("swedbankpay.checkout.page")
    /// The payment order's `view-checkout` script, also the SDKs' `view-payment` (`/checkout/client/<token>`).
    package static let swedbankPayCheckoutScript = ScenarioOperation("swedbankpay.checkout.script")
}

/// What a Swedbank Pay operation does instead of (or as) its normal answer: a step's outcome as Swedbank Pay reads it.
package enum SwedbankPayOutcome: ScenarioOutcomeValue, Equatable {
    /// The normal, successful answer.
    case approve
    /// Capture, cancel or reversal is refused: 403 forbidden.
    case refused
    /// Swish: the payer's bank declined (RF07), `swishdeclined` 403.
    case swishDeclined
    /// Swish: the payer did not answer in time (TM01), `swishtimeout` 403.
    case swishTimeout
    /// Swish: the payer cancelled BankID signing (BANKIDCL), `bankidcancelled` 409.
    case bankidCancelled
    /// Swish: the Swish app could not be launched, `paymentorders/clientapplaunchfailed`.
    case clientAppLaunchFailed
    /// Card: 3-D Secure without a challenge.
    case frictionless
    /// Card: 3-D Secure with a challenge (the ACS page).
    case challenge
    /// Card: 3-D Secure is declined, even when the payer approves, `creditcard/3dsecuredeclined`.
    case threeDSDeclined
    /// Card: `creditcard/carddeclined` 403.
    case cardDeclined
    /// Card: `creditcard/acquirerinsufficientfunds` 403.
    case insufficientFunds
    /// Card: `creditcard/acquirercardexpired` 403.
    case cardExpired
    /// Payment session: the session ends (order Failed); the SDKs report PaymentSessionEndReached.
    case sessionEndReached
    /// Payment session: 409 `paymentsessions/operationnotallowed`.
    case notAllowed
    /// Instead of paying, the payer aborts the payment (in the Swish app, at 3-D Secure, on the page):
    /// the order is Aborted and the session redirects to `cancelUrl`.
    case payerAborts
    /// The attempt fails with this problem (`problem_type` is the part after `.../errordetail/`).
    case failAttempt(SwedbankPayAttemptFailure)

    package var name: String {
        switch self {
        case .approve: "approve"
        case .refused: "refused"
        case .swishDeclined: "swish_declined"
        case .swishTimeout: "swish_timeout"
        case .bankidCancelled: "bankid_cancelled"
        case .clientAppLaunchFailed: "client_app_launch_failed"
        case .frictionless: "frictionless"
        case .challenge: "challenge"
        case .threeDSDeclined: "three_ds_declined"
        case .cardDeclined: "card_declined"
        case .insufficientFunds: "insufficient_funds"
        case .cardExpired: "card_expired"
        case .sessionEndReached: "session_end_reached"
        case .notAllowed: "not_allowed"
        case .payerAborts: "payer_aborts"
        case .failAttempt: "fail_attempt"
        }
    }

    /// The name, with the parameters for `fail_attempt`: `fail_attempt creditcard/acquirererror 403`.
    package var description: String {
        if case .failAttempt(let failure) = self { return "fail_attempt \(failure.problemType) \(failure.status)" }
        return name
    }
}

/// The parameters of `fail_attempt`: the problem an attempt fails with.
package struct SwedbankPayAttemptFailure: Sendable, Equatable {
    /// The part after `https://api.payex.com/psp/errordetail/`, lower-cased: `creditcard/acquirererror`.
    package var problemType: String
    package var status: Int
    package var title: String?
    package var detail: String?
    package var originalDetail: String?

    package init(problemType: String, status: Int = 403, title: String? = nil, detail: String? = nil, originalDetail: String? = nil) {
        self.problemType = problemType
        self.status = status
        self.title = title
        self.detail = detail
        self.originalDetail = originalDetail
    }

    /// `^[a-z0-9_/]+$` after lower-casing (the reference's `3DSECUREERROR` casing is accepted).
    package static func isValidProblemType(_ text: String) -> Bool {
        !text.isEmpty && text.lowercased().utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "/"): true
            default: false
            }
        }
    }

    /// `status` range (a problem may carry any error status).
    package static let statusRange = 100...599

    /// Reads `fail_attempt`'s parameters.
    static func read(_ reader: inout ScenarioOutcomeReader) -> SwedbankPayAttemptFailure? {
        var ok = true
        var problemType: String?
        if let node = reader.require("problem_type"), let text = reader.string(node, reader.path / "problem_type") {
            if isValidProblemType(text) {
                problemType = text.lowercased()
            } else {
                reader.report(reader.path / "problem_type", at: node.position,
                              "\(JSONNode.quoted(text)) is not a problem type (the part after .../errordetail/, e.g. \"creditcard/acquirererror\")")
            }
        }
        var status = 403
        if let node = reader["status"] {
            if let value = reader.integer(node, reader.path / "status", in: statusRange) { status = value } else { ok = false }
        }
        var texts: [String: String] = [:]
        for key in ["title", "detail", "original_detail"] {
            guard let node = reader[key] else { continue }
            if let text = reader.string(node, reader.path / key, nonEmpty: true) { texts[key] = text } else { ok = false }
        }
        guard ok, let problemType else { return nil }
        return SwedbankPayAttemptFailure(problemType: problemType, status: status, title: texts["title"], detail: texts["detail"],
                                         originalDetail: texts["original_detail"])
    }
}

extension ScenarioOutcome {
    /// A Swedbank Pay outcome as a scenario step carries it (`.approve` is the engine's own).
    package static func swedbankPay(_ outcome: SwedbankPayOutcome) -> ScenarioOutcome {
        outcome == .approve ? .approve : .provider(outcome)
    }

    /// The outcome as a Swedbank Pay operation reads it; nil for `http_error` and `drop_connection` (the
    /// scenario player answers those itself) and for another provider's outcome.
    package var swedbankPay: SwedbankPayOutcome? {
        if case .approve = self { return .approve }
        return value(as: SwedbankPayOutcome.self)
    }
}

extension ScenarioVocabulary {
    /// Every Swedbank Pay operation and outcome a scenario may name.
    package static let swedbankPay = ScenarioVocabulary(operations: SwedbankPayScenarioVocabulary.operations,
                                                       outcomes: SwedbankPayScenarioVocabulary.outcomes)
}

enum SwedbankPayScenarioVocabulary {
    static let operations: [ScenarioVocabulary.Operation] = [
        .init(.swedbankPayCreatePaymentOrder, "POST /psp/paymentorders: create a Swedbank Pay payment order.", request: SwedbankPayScenarioVocabulary.createPaymentOrder),
        .init(.swedbankPayReadPaymentOrder, "GET /psp/paymentorders/{id} (and its sub-resources).", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPayUpdatePaymentOrder, "PATCH /psp/paymentorders/{id} with operation UpdateOrder.", request: SwedbankPayScenarioVocabulary.updateOrder),
        .init(.swedbankPayAbortPaymentOrder, "PATCH /psp/paymentorders/{id} with operation Abort.", request: SwedbankPayScenarioVocabulary.abort),
        .init(.swedbankPayAbortPaymentAttempt, "PATCH /psp/paymentorders/{id} with operation AbortPaymentAttempt.", request: SwedbankPayScenarioVocabulary.abort),
        .init(.swedbankPayCapture, outcomes: ["refused"],
              "POST /psp/paymentorders/{id}/captures.", request: SwedbankPayScenarioVocabulary.transaction),
        .init(.swedbankPayCancel, outcomes: ["refused"],
              "POST /psp/paymentorders/{id}/cancellations.", request: SwedbankPayScenarioVocabulary.transaction),
        .init(.swedbankPayReversal, outcomes: ["refused"],
              "POST /psp/paymentorders/{id}/reversals.", request: SwedbankPayScenarioVocabulary.transaction),
        .init(.swedbankPayDeleteToken, "PATCH /psp/paymentorders/{recurrenceTokens|unscheduledTokens|paymentTokens}/{token} {\"state\": \"Deleted\"}: delete a stored-card token.", request: SwedbankPayScenarioVocabulary.deleteToken),
        .init(.swedbankPaySessionRead, outcomes: ["session_end_reached"],
              "GET of the payment session (the view-paymentsession href, get-payment, the SDK's recovery GET).", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPaySessionPreparePayment, outcomes: ["session_end_reached"],
              "POST prepare-payment of the payment session.", request: SwedbankPayScenarioVocabulary.preparePayment),
        .init(.swedbankPaySessionCustomizePayment, outcomes: ["session_end_reached"],
              "POST customize-payment (instrument mode, restricted menu) of the payment session.", request: SwedbankPayScenarioVocabulary.customizePayment),
        .init(.swedbankPaySessionExpandMethod, outcomes: ["session_end_reached"],
              "POST expand-method of the payment session.", request: SwedbankPayScenarioVocabulary.expandMethod),
        .init(.swedbankPaySessionStartPaymentAttempt, outcomes: ["session_end_reached"],
              "POST start-payment-attempt (Swish, saved card, Apple Pay, Google Pay) of the payment session.", request: SwedbankPayScenarioVocabulary.startPaymentAttempt),
        .init(.swedbankPaySessionCreateAuthentication, outcomes: ["session_end_reached"],
              "POST create-authentication (3-D Secure method step) of the payment session.", request: SwedbankPayScenarioVocabulary.createAuthentication),
        .init(.swedbankPaySessionCompleteAuthentication, outcomes: ["session_end_reached"],
              "POST complete-authentication (3-D Secure challenge result) of the payment session.", request: SwedbankPayScenarioVocabulary.completeAuthentication),
        .init(.swedbankPaySessionAttemptPayload, outcomes: ["session_end_reached"],
              "POST attempt-payload (Apple Pay, Google Pay) of the payment session.", request: SwedbankPayScenarioVocabulary.attemptPayload),
        .init(.swedbankPaySessionFailPaymentAttempt, outcomes: ["session_end_reached"],
              "POST fail-payment-attempt (the SDK reports UserCancelled, TechnicalError, ClientAppLaunchFailed).", request: SwedbankPayScenarioVocabulary.failPaymentAttempt),
        .init(.swedbankPaySessionAcknowledgeFailedAttempt, outcomes: ["session_end_reached"],
              "POST acknowledge-failed-attempt of the payment session.", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPaySessionAbortPayment, outcomes: ["session_end_reached", "not_allowed"],
              "POST abort-payment of the payment session: the payer aborts.", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPaySessionEventLogging, "POST event-logging of the payment session (204).", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPaySwishSale, outcomes: ["swish_declined", "swish_timeout", "bankid_cancelled", "client_app_launch_failed", "payer_aborts", "fail_attempt"],
              "The outcome of a Swish payment: decided at start-payment-attempt, shown when the payer would have answered in the Swish app.", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayCardAuthenticate, outcomes: ["frictionless", "challenge", "three_ds_declined", "payer_aborts", "fail_attempt"],
              "3-D Secure for a card (field card.number): frictionless, or a challenge on the ACS page.", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayCardAuthorize, outcomes: ["card_declined", "insufficient_funds", "card_expired", "fail_attempt"],
              "The acquirer's answer for a card, Apple Pay or Google Pay payment (field paymentorder.amount for magic amounts).", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayWebPay, outcomes: ["payer_aborts", "fail_attempt"],
              "Pay with a web-based instrument (invoice, Trustly, ...) on the payment menu page.", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayCheckoutPage, "The payment order's redirect-checkout page: the payment menu at /checkout/<token>.", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPayCheckoutScript, "The payment order's view-checkout script, also the SDKs' view-payment: /checkout/client/<token>.", request: SwedbankPayScenarioVocabulary.noBody),
    ]

    static let outcomes: [ScenarioVocabulary.Outcome] = [
        .init(SwedbankPayOutcome.refused, "Swedbank Pay capture, cancel and reversal: 403 forbidden."),
        .init(SwedbankPayOutcome.swishDeclined, "Swedbank Pay swish.sale. The payer's bank declined (RF07): problem swishdeclined 403, the attempt Failed."),
        .init(SwedbankPayOutcome.swishTimeout, "Swedbank Pay swish.sale. The payer did not answer in time (TM01): problem swishtimeout 403."),
        .init(SwedbankPayOutcome.bankidCancelled, "Swedbank Pay swish.sale. The payer cancelled BankID signing (BANKIDCL): problem bankidcancelled 409, the attempt Aborted."),
        .init(SwedbankPayOutcome.clientAppLaunchFailed, "Swedbank Pay swish.sale. The Swish app could not be launched: problem paymentorders/clientapplaunchfailed on the next call."),
        .init(SwedbankPayOutcome.frictionless, "Swedbank Pay card.authenticate. 3-D Secure without a challenge; card.authorize decides."),
        .init(SwedbankPayOutcome.challenge, "Swedbank Pay card.authenticate. 3-D Secure with a challenge: the 3DS method step, then the ACS page with Approve and Cancel."),
        .init(SwedbankPayOutcome.threeDSDeclined, "Swedbank Pay card.authenticate. A challenge whose result is declined even when the payer approves: problem creditcard/3dsecuredeclined 403."),
        .init(SwedbankPayOutcome.cardDeclined, "Swedbank Pay card.authorize. Problem creditcard/carddeclined 403 (response code 05)."),
        .init(SwedbankPayOutcome.insufficientFunds, "Swedbank Pay card.authorize. Problem creditcard/acquirerinsufficientfunds 403 (response code 61)."),
        .init(SwedbankPayOutcome.cardExpired, "Swedbank Pay card.authorize. Problem creditcard/acquirercardexpired 403 (response code 54)."),
        .init(SwedbankPayOutcome.sessionEndReached, "Swedbank Pay payment-session operations. The session ends: the order becomes Failed and the answer's redirect-payer is neither completeUrl nor cancelUrl, so the SDKs report PaymentSessionEndReached."),
        .init(SwedbankPayOutcome.notAllowed, "Swedbank Pay abort_payment. 409 paymentsessions/operationnotallowed: the SDKs report abortPaymentNotAllowed."),
        .init(SwedbankPayOutcome.payerAborts, "swish.sale, card.authenticate, web.pay. Instead of paying, the payer aborts the payment (in the Swish app, at 3-D Secure, on the page): the order is Aborted (\"Payment aborted by payer\") and the session's redirect-payer goes to cancelUrl."),
        .init("fail_attempt", "Swedbank Pay swish.sale, card.authenticate, card.authorize, web.pay. The attempt fails with the problem \"problem_type\" (required, the part after .../errordetail/, e.g. creditcard/acquirererror), optional \"status\" (default 403), \"title\", \"detail\", \"original_detail\".",
              parameters: [
                  .init("problem_type", .string(pattern: "^[a-zA-Z0-9_/]+$"), required: true,
                        "The problem type after https://api.payex.com/psp/errordetail/, e.g. creditcard/acquirererror or swishdeclined (upper case is lowered)."),
                  .init("status", .integer(SwedbankPayAttemptFailure.statusRange), "The problem's status. Default 403."),
                  .init("title", .string(nonEmpty: true), "The problem's title. Default \"Operation failed\"."),
                  .init("detail", .string(nonEmpty: true), "The problem's detail. Default: Unable to complete Authorization transaction, look at problem node!"),
                  .init("original_detail", .string(nonEmpty: true), "The acquirer's or bank's own text, shown as originalDetail in the session and as the ExternalResponse problem of the failed attempt."),
              ]) { reader in
            SwedbankPayAttemptFailure.read(&reader).map(SwedbankPayOutcome.failAttempt)
        },
    ]
}

// A Swish attempt keeps its decided outcome in the state file (`--state-file`).
extension SwedbankPayOutcome: Codable {}
extension SwedbankPayAttemptFailure: Codable {}
