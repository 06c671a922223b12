// SPDX-License-Identifier: MIT
import Foundation

/// The checkout pages' actions on the same session state machine the SDKs drive: a payment made in
/// the page is what the app's next GET of the session shows (swedbankpay-api.md §3.6 D, §3.7). Each answers the
/// session as it is afterwards; the page routes turn that into HTML, a 303 or the ACS challenge.
extension SwedbankPayPaymentSessionStore {
    /// A card typed into the new-card form (already checked: Luhn, expiry, CVC).
    struct TypedCard: Sendable {
        var pan: String
        var brand: String
    }

    /// `GET /checkout/<token>`: history `PaymentLoaded` once; `integration` is `Redirect` for a top-level load and
    /// `HostedView` inside the view-checkout iframe unless the app already said `App` (inferred).
    func loadCheckout(_ token: String, mode: CheckoutPageMode?, _ call: Call) throws -> PaymentSessionDocument {
        try transition(token, rel: "redirect-checkout", call, { step in
            if let mode, !step.record.prepared {
                orders.setIntegration(step.record.namespace, orderID: step.record.orderID, mode == .embedded ? "HostedView" : "Redirect")
            }
            if !step.record.paymentLoaded {
                step.record.paymentLoaded = true
                orders.addHistory(step.record.namespace, orderID: step.record.orderID, name: "PaymentLoaded", instrument: nil)
            }
        }, render: { $0 }).value
    }

    /// A card from the page (saved one by `paymentToken`, or typed): card.authenticate decides a frictionless
    /// payment or the ACS challenge page (swedbankpay-api.md §3.6 C without the 3DS method step the SDK runs).
    func payByCard(_ token: String, paymentToken: String?, typed: TypedCard?, mode: CheckoutPageMode,
                   _ call: Call, known: Context? = nil) throws -> SessionResult<PaymentSessionDocument> {
        try transition(token, rel: "start-payment-attempt", call, known: known, { step in
            try requirePageMethod(step, SessionMethod.creditCard.rawValue)
            let saved = paymentToken.flatMap { paymentToken in step.cards.first { $0.paymentToken == paymentToken } }
            let card = saved ?? typed.map { typed in
                SavedCard(paymentToken: "", cardBrand: typed.brand, maskedPan: String(typed.pan.prefix(6)) + "******" + String(typed.pan.suffix(4)),
                          expiryDate: "", pan: typed.pan)
            }
            try startCardAttempt(&step, card: card, saved: saved != nil, page: mode)
        }, render: { $0 })
    }

    /// The ACS page's answer for a card paid on the page (`/checkout/<token>/card/cres`). Also answers the mode
    /// the page was in and the challenge's 3-D Secure variant, for the outcome's delivery.
    func finishPageChallenge(_ token: String, cres: String?, _ call: Call)
    throws -> (document: SessionResult<PaymentSessionDocument>, mode: CheckoutPageMode?, variant: ThreeDSVariant?) {
        var mode: CheckoutPageMode?
        var variant: ThreeDSVariant?
        let document = try transition(token, rel: "complete-authentication", call, { step in
            guard case .threeDSChallenge(let card) = step.record.phase, let page = card.page else {
                throw SwedbankPayProblem.operationNotAllowed("complete-authentication")
            }
            mode = page
            variant = card.variant
            try finishChallenge(&step, card, cres: cres)
        }, render: { $0 })
        return (document, mode, variant)
    }

    /// Swish from the page, by the phone number the payer typed (swedbankpay-api.md §3.6 B). A second submit while
    /// the first waits changes nothing.
    func payBySwish(_ token: String, msisdn: String, _ call: Call) throws -> SessionResult<PaymentSessionDocument> {
        try transition(token, rel: "start-payment-attempt", call, { step in
            if case .swish = step.record.phase { return }
            try requirePageMethod(step, SessionMethod.swish.rawValue)
            try startSwish(&step, body: JSONNode(.object([("msisdn", .string(msisdn))])))
        }, render: { $0 })
    }

    /// The session as it is now (a Swish outcome that came due is applied): the waiting page's refresh.
    func checkoutStatus(_ token: String, _ call: Call) throws -> PaymentSessionDocument {
        try transition(token, rel: "get-payment", call, { _ in }, render: { $0 }).value
    }

    /// A web-based instrument (invoice, Trustly, …): swedbankpay.web.pay decides. Invoice-like instruments are
    /// authorized, Trustly is a sale (swedbankpay-api.md §1.3).
    func payOnWeb(_ token: String, method: String, _ call: Call) throws -> SessionResult<PaymentSessionDocument> {
        try transition(token, rel: "start-payment-attempt", call, { step in
            guard SessionMethod(rawValue: method) == nil else { throw SwedbankPayProblem.operationNotAllowed("start-payment-attempt") }
            try requirePageMethod(step, method)
            guard let outcome = try decide(.swedbankPayWebPay, &step, methodName: method) else { return }
            step.record.problem = nil
            let attempt = try orders.beginAttempt(step.record.namespace, orderID: step.record.orderID, instrument: method, prefill: false)
            step.record.phase = .idle
            if case .payerAborts = outcome {
                try payerAborts(&step)
            } else if let failure = Self.attemptFailure(outcome) {
                fail(&step.record, attempt, failure)
            } else {
                orders.attemptPaid(step.record.namespace, orderID: step.record.orderID, attempt,
                                   transactionType: method == "Trustly" ? .sale : .authorization, details: .object([]))
            }
        }, render: { $0 })
    }

    /// The page's cancel button: the order is Aborted as by abort-payment (swedbankpay-api.md §3.6 G). A second press
    /// (double submit) answers the order as it is: the same redirect.
    func abortOnPage(_ token: String, _ call: Call) throws -> PaymentSessionDocument {
        try transition(token, rel: "abort-payment", call, { step in
            if case .swish = step.record.phase { throw SwedbankPayProblem.operationNotAllowed("abort-payment") }
            try payerAborts(&step)
            step.record.problem = nil
        }, render: { $0 }).value
    }

    /// The Swish app stand-in opened with a launch token: the payer answers in Swish now, so the outcome
    /// swedbankpay.swish.sale decided shows at once (swedbankpay-api.md §3.6 A). nil: no Swish payment waits for it.
    func answerInSwishApp(launchToken: String, _ call: Call) throws -> PaymentSessionDocument? {
        guard let token = token(ofSwishLaunch: launchToken) else { return nil }
        _ = try transition(token, rel: "get-payment", call, { step in
            guard case .swish(var swish) = step.record.phase, swish.launchToken == launchToken else { return }
            swish.due = min(swish.due, step.now)
            step.record.phase = .swish(swish)
        }, render: { _ in () })
        return try checkoutStatus(token, call)
    }

    /// The page offers `method` and no Swish payment is waiting for the payer.
    private func requirePageMethod(_ step: Step, _ method: String) throws {
        let document = PaymentSessionDocument(view: step.view, record: step.record, base: "", savedCards: step.cards)
        if case .swish = step.record.phase { throw SwedbankPayProblem.operationNotAllowed("start-payment-attempt") }
        guard document.pageMethods.contains(method) else { throw SwedbankPayProblem.operationNotAllowed("start-payment-attempt") }
    }
}

extension PaymentSessionDocument {
    /// The methods the checkout page offers: the order's instruments narrowed like the app's menu (swedbankpay-api.md §3.4, §3.5),
    /// without the wallets, which need the device's own sheet (inferred).
    var pageMethods: [String] {
        let methods = view.availableInstruments.filter { $0 != SessionMethod.applePay.rawValue && $0 != SessionMethod.googlePay.rawValue }
        if let mode = record.instrumentMode { return methods.filter { $0 == mode } }
        if let restriction = record.restriction { return methods.filter(restriction.contains) }
        return methods
    }
}
