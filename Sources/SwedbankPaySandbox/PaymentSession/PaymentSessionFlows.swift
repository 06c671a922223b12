// SPDX-License-Identifier: MIT
import Foundation

/// The operations of the session API (swedbankpay-api.md §3.4) and the per-instrument flows (§3.6).
extension SwedbankPayPaymentSessionStore {
    /// GET of the session URL, get-payment and the SDK's recovery GET: the current document (swedbankpay-api.md §3.2, §3.4).
    func read(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        try transition(token, rel: "get-payment", call) { _ in }
    }

    /// prepare-payment: `initial` → `idle`; again in idle: unchanged (inferred).
    func prepare(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        let body = call.body
        return try transition(token, rel: "prepare-payment", call) { step in
            if !step.record.prepared {
                step.record.prepared = true
                // "ApplePay;ClickToPay" (iOS) / "GooglePay;ClickToPay" (Android) (swedbankpay-api.md §3.4).
                let wallets = body?["deviceAcceptedWallets"]?.stringValue ?? ""
                step.record.deviceAcceptedWallets = Set(wallets.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
                orders.setIntegration(step.record.namespace, orderID: step.record.orderID, body?["integration"]?.stringValue ?? "App")
                if !step.record.paymentLoaded {
                    step.record.paymentLoaded = true
                    orders.addHistory(step.record.namespace, orderID: step.record.orderID, name: "PaymentLoaded", instrument: nil)  // inferred
                }
            }
        }
    }

    /// customize-payment: instrument mode, a restricted menu, or a reset (swedbankpay-api.md §3.4).
    func customize(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        let body = call.body
        return try transition(token, rel: "customize-payment", call) { step in
            guard case .idle = step.record.phase else { throw SwedbankPayProblem.operationNotAllowed("customize-payment") }
            let document = PaymentSessionDocument(view: step.view, record: step.record, base: call.base, savedCards: step.cards)
            if let method = body?["paymentMethod"]?.stringValue {
                // Not a 409: the SDKs answer a 409 with a recovery GET and then send the same customize-payment again,
                // in a loop (swedbankpay-api.md §3.2); any other 4xx ends in paymentSessionAPIRequestFailed (inferred).
                guard document.deviceMethods.contains(method) else {
                    throw SwedbankPayProblem.sessionInput("PaymentMethod", "\(method) is not available for this payment order.")
                }
                step.record.instrumentMode = method
                step.record.restriction = nil
                step.record.hideStoredPaymentOptions = body?["hideStoredPaymentOptions"]?.boolValue ?? false
                step.record.showConsentAffirmation = body?["showConsentAffirmation"]?.boolValue ?? false
            } else if let restriction = body?["restrictToPaymentMethods"]?.elements {
                step.record.instrumentMode = nil
                step.record.restriction = restriction.compactMap(\.stringValue)
                step.record.hideStoredPaymentOptions = false
            } else {
                // The reset body (swedbankpay-api.md §3.4): the menu, even for an order created in instrument mode; the
                // SDKs send it when instrumentModePaymentMethod is not what the app chose, and would loop otherwise (§3.5 step 4).
                step.record.instrumentMode = nil
                step.record.restriction = nil
                step.record.hideStoredPaymentOptions = false
                step.record.showConsentAffirmation = false
            }
        }
    }

    /// expand-method: never offered; the idle document unchanged (inferred).
    func expandMethod(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        try transition(token, rel: "expand-method", call) { step in
            guard step.record.prepared, case .idle = step.record.phase else { throw SwedbankPayProblem.operationNotAllowed("expand-method") }
        }
    }

    /// start-payment-attempt on one method (swedbankpay-api.md §3.6 A, B, C, E, F). An unacknowledged problem is dropped (inferred).
    func startAttempt(_ token: String, method: SessionMethod, _ call: Call) throws -> SessionResult<JSONText> {
        let body = call.body
        return try transition(token, rel: "start-payment-attempt", call) { step in
            let document = PaymentSessionDocument(view: step.view, record: step.record, base: call.base, savedCards: step.cards)
            guard step.record.prepared, case .idle = step.record.phase, document.shownMethods.contains(method.rawValue) else {
                throw SwedbankPayProblem.operationNotAllowed("start-payment-attempt")
            }
            switch method {
            case .swish: try startSwish(&step, body: body)
            case .creditCard: try startSavedCard(&step, body: body)
            case .applePay, .googlePay:
                step.record.problem = nil
                let attempt = try orders.beginAttempt(step.record.namespace, orderID: step.record.orderID, instrument: method.rawValue, prefill: false)
                step.record.phase = .wallet(WalletAttempt(attempt: attempt, method: method))
            }
        }
    }

    /// Swish: local start (`msisdn: null`) or by MSISDN; the outcome is decided now and shown at `due`: after the
    /// rule's `delay_ms` (how long the payer takes in the Swish app), else ``SwedbankPayPaymentSessionSettings/swishPendingSeconds``
    /// (swedbankpay-api.md §3.6 A, B).
    func startSwish(_ step: inout Step, body: JSONNode?) throws {
        let msisdn = body?["msisdn"]?.stringValue
        guard step.view.currency == "SEK" else { throw SwedbankPayProblem.operationNotAllowed("start-payment-attempt") }
        guard let decided = try decision(.swedbankPaySwishSale, &step, methodName: SessionMethod.swish.rawValue, msisdn: msisdn) else { return }
        var outcome = decided.committed.swedbankPay ?? .approve
        if decided.dropAfterCommit { step.dropsAnswer = true }
        // By MSISDN the payer's Swish app opens on another device: there is no app for this one to fail to launch
        // (inferred), so `client_app_launch_failed` applies to local starts only and a by-number payment goes through.
        if msisdn != nil, case .clientAppLaunchFailed = outcome { outcome = .approve }
        step.record.problem = nil
        let attempt = try orders.beginAttempt(step.record.namespace, orderID: step.record.orderID, instrument: SessionMethod.swish.rawValue,
                                              prefill: false)
        // `+`, country code, no spaces (swedbankpay-api.md §5); otherwise Swish's inputerror "Msisdn is invalid." (§2.2).
        if let msisdn, msisdn.range(of: #"^\+[1-9][0-9]{7,14}$"#, options: .regularExpression) == nil {
            fail(&step.record, attempt, AttemptFailure(
                problem: SwedbankPayProblem("inputerror", status: .badRequest, title: "Error in input data", detail: "Msisdn is invalid."),
                originalDetail: nil, status: .failed))
            return
        }
        var due = step.now.addingTimeInterval(decided.delay.map(Self.seconds) ?? settings.swishPendingSeconds)
        if case .clientAppLaunchFailed = outcome { due = step.now }  // shown on the very next call (swedbankpay-api.md §3.6 A4, inferred)
        let payerMsisdn = step.view.payer?.msisdn.flatMap { $0.isEmpty ? nil : $0 }
        step.record.phase = .swish(SwishAttempt(
            attempt: attempt, localStart: msisdn == nil, launchToken: SwedbankPayASCII.removingDashes(orders.ids.uuid()),
            msisdn: msisdn ?? payerMsisdn ?? "+46739000001", due: due, outcome: outcome))
        orders.setSwishPending(step.record.namespace, orderID: step.record.orderID, true)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// A saved card from the SDK (swedbankpay-api.md §3.6 C).
    private func startSavedCard(_ step: inout Step, body: JSONNode?) throws {
        let paymentToken = body?["paymentToken"]?.stringValue
        try startCardAttempt(&step, card: step.cards.first { $0.paymentToken == paymentToken }, saved: true, page: nil)
    }

    /// A card attempt, from the SDK (`page` nil) or the checkout page: card.authenticate decides a frictionless
    /// payment, 3-D Secure (the SDK runs the 3DS method step first; the page goes straight to the ACS challenge),
    /// the payer's abort or a failure. A nil card is a saved-card token that is not this payer's.
    func startCardAttempt(_ step: inout Step, card: SavedCard?, saved: Bool, page: CheckoutPageMode?) throws {
        var outcome: SwedbankPayOutcome?
        if let card {
            guard let decided = try decide(.swedbankPayCardAuthenticate, &step, method: .creditCard, card: (card.pan, card.cardBrand)) else { return }
            outcome = decided
        }
        step.record.problem = nil
        let attempt = try orders.beginAttempt(step.record.namespace, orderID: step.record.orderID,
                                              instrument: SessionMethod.creditCard.rawValue, prefill: saved)
        guard let card, let outcome else {
            // Not one of this session's prefills (swedbankpay-api.md §2.2 card list, inferred).
            fail(&step.record, attempt, AttemptFailure(
                problem: SwedbankPayProblem("creditcard/paymenttokenerror", status: .forbidden, title: "Operation failed",
                                            detail: "The payment token is not valid for this payer."),
                originalDetail: nil, status: .failed))
            return
        }
        switch outcome {
        case .challenge, .threeDSDeclined, .challengeEmptyMethodURL, .challengeSlowACS, .challengeCresPosted, .challengeAbandoned:
            let cardAttempt = CardAttempt(attempt: attempt, card: card, threeDSServerTransID: orders.ids.uuid(), acsTransID: orders.ids.uuid(),
                                          forcedDecline: outcome == .threeDSDeclined, page: page, variant: ThreeDSVariant(outcome))
            step.record.phase = page == nil ? .threeDSMethod(cardAttempt) : .threeDSChallenge(cardAttempt)
        case .payerAborts:
            try payerAborts(&step)
        default:
            if let failure = Self.attemptFailure(outcome) {
                fail(&step.record, attempt, failure)
            } else {
                try authorize(&step, attempt, card: (card.pan, card.cardBrand), maskedPan: card.maskedPan, method: .creditCard,
                              acquirerTransactionType: "STANDARD")
            }
        }
    }

    /// A scenario's `payer_aborts`: the order is Aborted as by abort-payment, its open attempt with it (swedbankpay-api.md
    /// §3.6 G); the session's next answer redirects to cancelUrl.
    func payerAborts(_ step: inout Step) throws {
        try orders.abortByPayer(step.record.namespace, orderID: step.record.orderID)
        step.record.phase = .idle
    }

    /// card.authorize, then Paid (Authorization) or the acquirer's problem (swedbankpay-api.md §3.6 C, E).
    func authorize(_ step: inout Step, _ attempt: SwedbankPayAttemptID, card: (number: String, brand: String), maskedPan: String?,
                           method: SessionMethod, acquirerTransactionType: String) throws {
        guard let outcome = try decide(.swedbankPayCardAuthorize, &step, method: method, card: card) else { return }
        if let failure = Self.attemptFailure(outcome) {
            fail(&step.record, attempt, failure)
            return
        }
        step.record.phase = .idle
        var details: [(String, JSONText)] = [("cardBrand", .string(card.brand))]
        if let maskedPan { details.append(("maskedPan", .string(maskedPan))) }
        details.append(("acquirerTransactionType", .string(acquirerTransactionType)))
        orders.attemptPaid(step.record.namespace, orderID: step.record.orderID, attempt, transactionType: .authorization, details: .object(details))
    }

    /// create-authentication: the 3DS method step is done; the challenge follows (swedbankpay-api.md §3.6 C3, C4).
    func createAuthentication(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        try transition(token, rel: "create-authentication", call) { step in
            guard case .threeDSMethod(let card) = step.record.phase else { throw SwedbankPayProblem.operationNotAllowed("create-authentication") }
            step.record.phase = .threeDSChallenge(card)
        }
    }

    /// complete-authentication `{cRes}`: Y → card.authorize; N → 3dsecuredeclined; anything else → 3dsecureerror (swedbankpay-api.md §3.6 C6).
    func completeAuthentication(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        let body = call.body
        return try transition(token, rel: "complete-authentication", call) { step in
            guard case .threeDSChallenge(let card) = step.record.phase, card.page == nil else {
                throw SwedbankPayProblem.operationNotAllowed("complete-authentication")
            }
            try finishChallenge(&step, card, cres: body?["cRes"]?.stringValue)
        }
    }

    /// The ACS's answer: Y → card.authorize; N → 3dsecuredeclined; undecodable or another attempt's → 3dsecureerror.
    func finishChallenge(_ step: inout Step, _ card: CardAttempt, cres text: String?) throws {
        let cres = text.flatMap(Base64URL.decodeJSON)
        guard let cres, cres["acsTransID"]?.stringValue == card.acsTransID, let status = cres["transStatus"]?.stringValue else {
            fail(&step.record, card.attempt, AttemptFailure(
                problem: SwedbankPayProblem("creditcard/3dsecureerror", status: .badRequest, title: "Operation failed",
                                            detail: Self.authenticationDetail),
                originalDetail: "Invalid CRes", status: .failed))
            return
        }
        if status != "Y" {
            fail(&step.record, card.attempt, Self.threeDSDeclined)
        } else if card.forcedDecline {
            // The payer approved, the scenario has the issuer reject the authentication: not a cancellation.
            fail(&step.record, card.attempt, Self.threeDSRejectedByIssuer)
        } else {
            try authorize(&step, card.attempt, card: (card.card.pan, card.card.cardBrand), maskedPan: card.card.maskedPan,
                          method: .creditCard, acquirerTransactionType: "3DSECURE")
        }
    }

    /// attempt-payload: the wallet sheet's token; card.authorize decides (swedbankpay-api.md §3.6 E4). Never repeats the wallet-sdk task.
    func attemptPayload(_ token: String, method: SessionMethod, _ call: Call) throws -> SessionResult<JSONText> {
        let body = call.body
        return try transition(token, rel: "attempt-payload", call) { step in
            guard case .wallet(let wallet) = step.record.phase, wallet.method == method else {
                throw SwedbankPayProblem.operationNotAllowed("attempt-payload")
            }
            // An empty payload is accepted: Apple Pay on the iOS Simulator hands the SDK an empty `paymentData`, and
            // Swedbank Pay's test environment is where those apps are tried (inferred; the real server decrypts it).
            guard let payload = body?["paymentPayload"]?.stringValue, Data(base64Encoded: payload) != nil else {
                fail(&step.record, wallet.attempt, AttemptFailure(
                    problem: SwedbankPayProblem("creditcard/badrequest", status: .badRequest, title: "Bad request",
                                                detail: "The payment payload is missing or not base64."),
                    originalDetail: nil, status: .failed))
                return
            }
            try authorize(&step, wallet.attempt, card: ("", "Visa"), maskedPan: nil, method: method, acquirerTransactionType: "WALLET")
        }
    }

    /// fail-payment-attempt: the SDK reports UserCancelled, TechnicalError or ClientAppLaunchFailed (swedbankpay-api.md §3.4, §3.6 H).
    func failAttempt(_ token: String, method: SessionMethod, _ call: Call) throws -> SessionResult<JSONText> {
        let body = call.body
        let problemType = body?["problemType"]?.stringValue
        let errorCode = body?["errorCode"]?.stringValue
        let failure: AttemptFailure
        switch problemType {
        case "ClientAppLaunchFailed": failure = Self.clientAppLaunchFailed(errorCode)
        case "UserCancelled":
            failure = AttemptFailure(problem: SwedbankPayProblem("usercancelled", status: .forbidden, title: "User cancelled",
                                                                 detail: "The payer cancelled the payment."),
                                     originalDetail: errorCode, status: .aborted)
        case "TechnicalError":
            failure = AttemptFailure(problem: SwedbankPayProblem("systemerror", status: .internalServerError, title: "System error",
                                                                 detail: "The payer's device reported a technical error: \(errorCode ?? "unknown")."),
                                     originalDetail: errorCode, status: .failed)
        default:
            throw SwedbankPayProblem.sessionInput("ProblemType", "problemType must be UserCancelled, TechnicalError or ClientAppLaunchFailed.")
        }
        return try transition(token, rel: "fail-payment-attempt", call) { step in
            guard step.record.prepared else { throw SwedbankPayProblem.operationNotAllowed("fail-payment-attempt") }
            // No attempt in progress (it already ended, e.g. a scenario failed the Swish launch before the SDK reported
            // it): nothing more to fail, the document as it is. A second problem would be a second failed attempt.
            guard let attempt = step.record.phase.attempt else { return }
            if case .swish = step.record.phase { orders.setSwishPending(step.record.namespace, orderID: step.record.orderID, false) }
            fail(&step.record, attempt, failure)
        }
    }

    /// acknowledge-failed-attempt: the problem goes and never comes back; repeats are idempotent, unknown numbers 409
    /// (swedbankpay-api.md §3.6 H3, inferred). The route answers 204 without this document (PaymentSessionRoutes).
    func acknowledge(_ token: String, number: Int, _ call: Call) throws -> SessionResult<JSONText> {
        try transition(token, rel: "acknowledge-failed-attempt", call) { step in
            if step.record.problem?.number == number {
                step.record.problem = nil
            } else if number < 1 || number > step.record.failedAttempts {
                throw SwedbankPayProblem.operationNotAllowed("acknowledge-failed-attempt")
            }
        }
    }

    /// abort-payment: the order becomes Aborted and the cancelled document redirects to cancelUrl (swedbankpay-api.md §3.6 G).
    /// 409 while Swish waits for the payer or once the order has ended (§3.8 sample 13).
    func abort(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        try transition(token, rel: "abort-payment", call, onTerminalOrder: .notAllowed) { step in
            if case .swish = step.record.phase { throw SwedbankPayProblem.operationNotAllowed("abort-payment") }
            try payerAborts(&step)
            step.record.problem = nil
        }
    }

    /// A scenario's `session_end_reached`: the order fails, and the ended document makes the SDKs report
    /// PaymentSessionEndReached (inferred problem).
    func endSession(_ token: String, _ call: Call) throws -> SessionResult<JSONText> {
        try transition(token, rel: "get-payment", call) { step in
            if case .swish = step.record.phase { orders.setSwishPending(step.record.namespace, orderID: step.record.orderID, false) }
            step.record.phase = .idle
            orders.failOrder(step.record.namespace, orderID: step.record.orderID, problem: SwedbankPayProblem(
                "systemerror", status: .internalServerError, title: "Payment session ended",
                detail: "Sandbox scenario: the payment session end state was reached."))
        }
    }
}
