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
    // The return trip (docs/scenarios.md, "Failures apps must survive").
    /// The checkout page's redirect of the payer to `completeUrl` once the order is paid on the page.
    package static let swedbankPayCheckoutRedirect = ScenarioOperation("swedbankpay.checkout.redirect")
    /// The Swish app stand-in's return to the app through `paymentUrl` once the payer has paid in Swish.
    package static let swedbankPaySwishAppReturn = ScenarioOperation("swedbankpay.swish.app_return")
    /// The callback to the order's `urls.callbackUrl` (swedbankpay-api.md §1.8).
    package static let swedbankPayPaymentOrderCallback = ScenarioOperation("swedbankpay.paymentorders.callback")
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
    // The return trip (swedbankpay.checkout.redirect).
    /// The order is paid, but the redirect to `completeUrl` never comes.
    case redirectLost
    /// The order is paid at once; the redirect to `completeUrl` comes `delay_ms` later.
    case redirectLate
    // 3-D Secure variants the SDKs have had bugs with (card.authenticate; docs/swedbankpay.md, the scenario table): each a challenge as `challenge`,
    // with one step done the other way.
    /// The 3DS method step has an empty method URL (the `sca-method-request` task's href is "").
    case challengeEmptyMethodURL
    /// The ACS page answers its first load of each challenge only after this long.
    case challengeSlowACS(Duration)
    /// The challenge answer is POSTed on (an auto-submitting form) instead of redirected with a GET.
    case challengeCresPosted
    /// The payer closes the challenge without answering; the ACS gives up this long after it was shown (namespace clock).
    case challengeAbandoned(Duration)

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
        case .redirectLost: "redirect_lost"
        case .redirectLate: "redirect_late"
        case .challengeEmptyMethodURL: "challenge_empty_method_url"
        case .challengeSlowACS: "challenge_slow_acs"
        case .challengeCresPosted: "challenge_cres_posted"
        case .challengeAbandoned: "challenge_abandoned"
        }
    }

    /// The name, with the parameters for `fail_attempt`: `fail_attempt creditcard/acquirererror 403`.
    package var description: String {
        if case .failAttempt(let failure) = self { return "fail_attempt \(failure.problemType) \(failure.status)" }
        if case .challengeSlowACS(let delay) = self { return "\(name) acs_delay_ms \(SwedbankPayThreeDSVariants.milliseconds(delay))" }
        if case .challengeAbandoned(let after) = self { return "\(name) after_ms \(SwedbankPayThreeDSVariants.milliseconds(after))" }
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
        .init(.swedbankPayCardAuthenticate, outcomes: ["frictionless", "challenge", "three_ds_declined", "payer_aborts", "fail_attempt"]
                + SwedbankPayThreeDSVariants.outcomeNames,
              "3-D Secure for a card (field card.number): frictionless, or a challenge on the ACS page.", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayCardAuthorize, outcomes: ["card_declined", "insufficient_funds", "card_expired", "fail_attempt"],
              "The acquirer's answer for a card, Apple Pay or Google Pay payment (field paymentorder.amount for magic amounts).", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayWebPay, outcomes: ["payer_aborts", "fail_attempt"],
              "Pay with a web-based instrument (invoice, Trustly, ...) on the payment menu page.", request: SwedbankPayScenarioVocabulary.decision),
        .init(.swedbankPayCheckoutPage, "The payment order's redirect-checkout page: the payment menu at /checkout/<token>.", request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPayCheckoutScript, "The payment order's view-checkout script, also the SDKs' view-payment: /checkout/client/<token>.", request: SwedbankPayScenarioVocabulary.noBody),
        // The return trip (docs/scenarios.md, "Failures apps must survive").
        .init(.swedbankPayCheckoutRedirect, outcomes: ["redirect_lost", "redirect_late"],
              "The checkout page's redirect to completeUrl once the payer has paid on it (card, Swish by phone number, web-based instruments); delay_ms delays the redirect, not the payment.",
              request: SwedbankPayScenarioVocabulary.noBody),
        .init(.swedbankPaySwishAppReturn, outcomes: ["redirect_lost", "redirect_late"],
              "The Swish app stand-in (GET /swish/paymentrequest?token=...&callbackurl=..., the launch-client-app href with http://<sandbox>/swish/ for swish://) reopening the app through callbackurl (paymentUrl) once paid; delay_ms delays the reopening, not the payment.",
              request: SwedbankPayScenarioVocabulary.noBody),
        // Callbacks: one decision per callback of the order (swedbankpay-api.md §1.8).
        .init(.swedbankPayPaymentOrderCallback, outcomes: CallbackOutcome.names,
              "The payment order's callback to urls.callbackUrl, one per payment, failed attempt, abort and post-purchase transaction (kept in /__sandbox/callbacks).",
              request: SwedbankPayScenarioVocabulary.paymentOrderCallback),
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
        // The return trip (docs/scenarios.md, "Failures apps must survive").
        .init(SwedbankPayOutcome.redirectLost, "Swedbank Pay checkout.redirect, swish.app_return. The order is Paid (callback sent), but the way back never comes: the checkout page shows the payment as completed with no link and tells no view-checkout script; the Swish app stand-in shows it paid and never opens paymentUrl."),
        .init("redirect_late", "Swedbank Pay checkout.redirect, swish.app_return. The order is Paid at once (callback sent); the redirect to completeUrl, or the Swish app's reopening of paymentUrl, comes \"delay_ms\" (required) later.") { reader in
            reader.require("delay_ms") == nil ? nil : SwedbankPayOutcome.redirectLate
        }
    ] + SwedbankPayThreeDSVariants.outcomes + callbackOutcomes

    /// paymentorders.callback's outcomes; retried at fixed offsets after the first call (swedbankpay-api.md §1.8).
    static let callbackOutcomes = CallbackOutcome.declarations(schedule: "Swedbank Pay: 30, 60, 360, 432, 864 and 1265 s after the first call")
}

/// The 3-D Secure variants of card.authenticate (docs/swedbankpay.md, the scenario table): each is a challenge as `challenge` is (the 3DS method
/// step, then the ACS page), with one step done the way some issuers and ACSs do it, which the SDKs have stumbled on.
enum SwedbankPayThreeDSVariants {
    /// Android's challenge web view gives up after 10 s (SwedbankPay/swedbank-pay-sdk-android:
    /// paymentsession/sca/ScaRedirectFragment.kt, PaymentSession3DSecureFragmentLoadFailed with a retry); iOS waits
    /// 30 s (SwedbankPay/swedbank-pay-sdk-ios: SwedbankPayAPIConstants.swift creditCardTimoutInterval).
    static let defaultACSDelayMilliseconds = 12_000
    static let acsDelayRange = 1...60_000
    /// Namespace-clock milliseconds (an hour at most): the clock is moved with `POST /__sandbox/clock`.
    static let abandonRange = 0...3_600_000

    static let outcomeNames = ["challenge_empty_method_url", "challenge_slow_acs", "challenge_cres_posted", "challenge_abandoned"]

    static let outcomes: [ScenarioVocabulary.Outcome] = [
        .init(SwedbankPayOutcome.challengeEmptyMethodURL,
              "Swedbank Pay card.authenticate. A challenge whose 3DS method URL is empty: the sca-method-request task's href is \"\" "
              + "(methodCompletionIndicator U in expects). Android sends U without loading anything, iOS N after failing to load \"\"; "
              + "both go on to the ACS page."),
        .init("challenge_slow_acs", "Swedbank Pay card.authenticate. A challenge whose ACS page answers its first load only after "
              + "\"acs_delay_ms\" (default 12000: past Android's 10 s, which reports PaymentSession3DSecureFragmentLoadFailed with a retry; "
              + "within iOS's 30 s). A retry, or a second load, answers at once.",
              parameters: [.init("acs_delay_ms", .integer(acsDelayRange), "How long the ACS page's first load takes. Default 12000.")]) { reader in
            var delay = defaultACSDelayMilliseconds
            if let node = reader["acs_delay_ms"] {
                guard let value = reader.integer(node, reader.path / "acs_delay_ms", in: acsDelayRange) else { return nil }
                delay = value
            }
            return SwedbankPayOutcome.challengeSlowACS(.milliseconds(delay))
        },
        .init(SwedbankPayOutcome.challengeCresPosted,
              "Swedbank Pay card.authenticate. A challenge whose answer is POSTed on instead of redirected: NotificationUrl answers "
              + "an auto-submitting form that posts cres to https://fake.payex.com/notification (no 303 with cres in the query), and "
              + "a card paid on the checkout page posts to completeUrl / cancelUrl instead of a 303. iOS reads cres from the first "
              + "POST and completes; Android never sees cres and stays on the challenge."),
        .init("challenge_abandoned", "Swedbank Pay card.authenticate. The payer closes the challenge without answering: "
              + "\"after_ms\" (namespace clock, default 0) after the ACS page was first shown, the ACS gives up and the session reports "
              + "the attempt failed, problem creditcard/3dsecureusercancelled 403, in an idle session (a new attempt may start); "
              + "a cres that comes later is refused 409.",
              parameters: [.init("after_ms", .integer(abandonRange), "How long (namespace clock) after the ACS page was first shown the ACS gives up. Default 0.")]) { reader in
            var after = 0
            if let node = reader["after_ms"] {
                guard let value = reader.integer(node, reader.path / "after_ms", in: abandonRange) else { return nil }
                after = value
            }
            return SwedbankPayOutcome.challengeAbandoned(.milliseconds(after))
        },
    ]

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

// A Swish attempt keeps its decided outcome in the state file (`--state-file`).
extension SwedbankPayOutcome: Codable {}
extension SwedbankPayAttemptFailure: Codable {}
