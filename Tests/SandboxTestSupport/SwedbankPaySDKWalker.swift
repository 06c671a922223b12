// SPDX-License-Identifier: MIT
// A stand-in for the Swedbank Pay Mobile SDKs' session loop: it picks the next step from each answer the way
// swedbankpay-api.md §3.5 says iOS (SwedbankPayPaymentSession.sessionOperationHandling) and Android
// (SessionOperationHandler.getNextStep) do, and a driver that performs the steps through a
// SandboxClient, decoding every answer with the strict mirrors and checking the invariants of §3.5, §3.6, §3.9.
// iOS runs its decision logic on every answer it can decode, the acknowledge-failed-attempt answer included (a
// second pass in which no new problem was shown); Android stops at the ack and sends it again on the retry.
import Foundation
import Testing

package enum SwedbankPayPlatform: String, CaseIterable, Sendable { case iOS, android }

/// What the app asked the SDK to pay with.
package enum SwedbankPayInstrument: Equatable, Sendable {
    case swish(msisdn: String?)
    case savedCard(rank: Int)
    case applePay
    case googlePay
    case webBased(String)
    case newCard

    package var methodName: String {
        switch self {
        case .swish: "Swish"
        case .savedCard, .newCard: "CreditCard"
        case .applePay: "ApplePay"
        case .googlePay: "GooglePay"
        case .webBased(let name): name
        }
    }
}

/// How the SDK ends (or stops) a session.
package enum SwedbankPaySessionEnd: Equatable, Sendable {
    case complete, canceled, endStateReached
    /// Idle after a problem was shown: iOS in the pass that showed it, Android once it acknowledged it and waits for
    /// the app (swedbankpay-api.md §3.6 H4).
    case idleAfterProblem
    /// The SDK opened its web view on view-payment (new card, web-based instruments, §3.6 D).
    case webView(String)
    /// abort-payment answered 409 operationnotallowed (§3.2).
    case abortNotAllowed
}

/// One step the SDK would take now.
package enum SwedbankPayWalkerStep: Sendable {
    case acknowledge(href: String, problemType: String)
    /// Android, on a problem whose ack it already sent: POSTs the ack again on the side and goes on (SwedbankPay/
    /// swedbank-pay-sdk-android: SessionOperationHandler.kt `ProblemOccurred(problem, false)`, PaymentSession.kt).
    case reacknowledge(href: String)
    case post(href: String, body: String)
    case poll(href: String)
    case launchApp(url: String)
    case methodRequest(href: String, fields: [(String, String)])
    case challenge(href: String, creq: String, notificationURL: String)
    case presentWallet(attemptPayload: String, method: String)
    case instrumentsShown([String])
    case end(SwedbankPaySessionEnd)
}

package struct SwedbankPaySDKWalker {
    package let platform: SwedbankPayPlatform
    /// The instrument the app picks once the SDK has shown the instruments (paymentSessionFetched).
    package var choice: SwedbankPayInstrument?
    /// The instrument the SDK is working on (set from ``choice`` after the instruments were shown).
    package var instrument: SwedbankPayInstrument?
    package var instrumentsShown = false
    /// iOS's `hasShowedError`: true only in the pass (one answer's sessionOperationHandling) that showed a new problem
    /// (SwedbankPay/swedbank-pay-sdk-ios: SwedbankPaySDK/Classes/SwedbankPayPaymentSession.swift).
    package var hasShowedErrorThisPass = false
    package var seenAcks: Set<String> = []
    /// Android's silent re-acks, once per href and document (``beginPass`` clears it).
    package var reacknowledged: Set<String> = []
    package var launched: Set<String> = []
    package var methodDone: Set<String> = []
    package var shownCreqs: Set<String> = []
    /// The cres the ACS delivered for the current challenge.
    package var cres: String?
    package var notificationURL: String?
    package var methodCompletionIndicator: String?
    package var walletsPresented = 0

    package init(platform: SwedbankPayPlatform, choice: SwedbankPayInstrument?) {
        self.platform = platform
        self.choice = choice
    }

    /// The app calls startPaymentAttempt(instrument) (again, e.g. after a failed attempt).
    package mutating func choose(_ instrument: SwedbankPayInstrument) { self.instrument = instrument }

    /// A new answer arrived: iOS runs sessionOperationHandling on it afresh, `hasShowedError` false.
    package mutating func beginPass() {
        hasShowedErrorThisPass = false
        reacknowledged = []
    }

    package var prepareBody: String {
        platform == .iOS
            ? #"{"integration":"App","deviceAcceptedWallets":"ApplePay;ClickToPay","client":{"userAgent":"SwedbankPaySDK-iOS/5.0.2","screenHeight":"2532","screenWidth":"1170","screenColorDepth":"24"},"browser":{"acceptHeader":"text/html","timeZoneOffset":"120","javascriptEnabled":true,"language":"sv-SE"},"service":{"name":"SwedbankPaySDK-iOS","version":"5.0.2"},"presentationSdk":{"name":"iOS","version":"5.0.2"}}"#
            : #"{"integration":"App","deviceAcceptedWallets":"GooglePay;ClickToPay","client":{"userAgent":"SwedbankPaySDK-Android/5.0.4","screenHeight":2400,"screenWidth":1080,"screenColorDepth":24},"browser":{"acceptHeader":"text/html","timeZoneOffset":120,"javascriptEnabled":true,"language":"sv-SE"},"service":{"name":"SwedbankPaySDK-Android","version":"5.0.4"},"presentationSdk":{"name":"Android","version":"5.0.4"}}"#
    }

    /// "Prioritised operations": known rels (the mirror rejects unknown ones); with `next: true` iOS keeps all
    /// of them, Android only the first (swedbankpay-api.md §3.5).
    package func prioritised(_ document: PaymentOutputModel) -> [OperationOutputModel] {
        let all = document.allOperations
        let next = all.filter { $0.next == true }
        if next.isEmpty { return all }
        return platform == .iOS ? next : [next[0]]
    }

    package mutating func next(_ document: PaymentOutputModel) -> SwedbankPayWalkerStep {
        let ops = prioritised(document)
        func op(_ rel: OperationOutputModel.Rel) -> OperationOutputModel? { ops.first { $0.rel == rel } }
        let methods = document.paymentSession.methods ?? []
        func methodOp(_ name: String, _ rel: OperationOutputModel.Rel) -> OperationOutputModel? {
            methods.first { $0.paymentMethod == name }?.operations.first { $0.rel == rel }
        }
        // 1. A problem with an unseen ack href: report it and acknowledge. iOS goes on with this answer in the same
        //    pass; Android stops here (ProblemOccurred waits for the app) and the driver models that. An ack already
        //    sent: iOS does nothing, Android sends it again and goes on.
        if let problem = document.problem, let ack = problem.operation, ack.rel == .acknowledgeFailedAttempt, let href = ack.href {
            if !seenAcks.contains(href) {
                seenAcks.insert(href)
                hasShowedErrorThisPass = true
                return .acknowledge(href: href, problemType: problem.type)
            }
            if platform == .android, !reacknowledged.contains(href) {
                reacknowledged.insert(href)
                return .reacknowledge(href: href)
            }
        }
        // 2. prepare-payment.
        if let prepare = op(.preparePayment), let href = prepare.href { return .post(href: href, body: prepareBody) }
        // 3. Apple Pay sheet (iOS): attempt-payload with a wallet-sdk task and the ApplePay method has fail-payment-attempt.
        if platform == .iOS, let wallet = walletStep(ops, methodOp) { return wallet }
        // 4.–6. Instrument mode and the web view.
        // 4. Instrument mode for another method, or one whose methods lack the chosen instrument: reset.
        let mode = document.paymentSession.instrumentModePaymentMethod
        if let instrument, let mode, mode != instrument.methodName || !methods.contains(where: { $0.paymentMethod == instrument.methodName }),
           let customize = document.topLevel(.customizePayment)?.href {
            return .post(href: customize, body: #"{"paymentMethod":null,"restrictToPaymentMethods":null}"#)
        }
        if let instrument, case .newCard = instrument {
            if mode != "CreditCard", let customize = document.topLevel(.customizePayment)?.href {
                return .post(href: customize,
                             body: #"{"paymentMethod":"CreditCard","restrictToPaymentMethods":null,"hideStoredPaymentOptions":true,"showConsentAffirmation":false}"#)
            }
            if let view = document.topLevel(.viewPayment)?.href { return .end(.webView(view)) }
        }
        if let instrument, case .webBased(let name) = instrument {
            if mode != name, let customize = document.topLevel(.customizePayment)?.href {
                return .post(href: customize, body: #"{"paymentMethod":"\#(name)","restrictToPaymentMethods":null}"#)
            }
            if let view = document.topLevel(.viewPayment)?.href { return .end(.webView(view)) }
        }
        // 7. start-payment-attempt for the chosen instrument.
        if let instrument, ops.contains(where: { $0.rel == .startPaymentAttempt }),
           let start = methodOp(instrument.methodName, .startPaymentAttempt)?.href {
            self.instrument = nil
            return .post(href: start, body: startBody(instrument, document))
        }
        // 8. Launch the Swish app once per href (Android: only the swish scheme).
        if let task = ops.flatMap({ $0.tasks ?? [] }).first(where: { $0.rel == .launchClientApp }), let href = task.href,
           !launched.contains(href), methodOp("Swish", .failPaymentAttempt) != nil {
            launched.insert(href)
            return .launchApp(url: href)
        }
        // 9. The 3DS method request in a hidden web view.
        if let task = ops.flatMap({ $0.tasks ?? [] }).first(where: { $0.rel == .scaMethodRequest }), let href = task.href, !href.isEmpty,
           !methodDone.contains(href) {
            methodDone.insert(href)
            let fields = (task.expects ?? []).compactMap { expect in expect.stringValue.map { (expect.name, $0) } }
            return .methodRequest(href: href, fields: fields)
        }
        // 10. create-authentication.
        if let create = op(.createAuthentication), let href = create.href, let notification = create.expectation("NotificationUrl")?.stringValue {
            notificationURL = notification
            let indicator = methodCompletionIndicator ?? create.expectation("methodCompletionIndicator")?.stringValue ?? "U"
            return .post(href: href, body: #"{"methodCompletionIndicator":"\#(indicator)","notificationUrl":"\#(notification)","requestWindowSize":"FULLSCREEN","client":{"userAgent":"SDK"},"browser":{"language":"sv-SE"}}"#)
        }
        // 11. The challenge, once per creq.
        if let task = ops.flatMap({ $0.tasks ?? [] }).first(where: { $0.rel == .scaRedirect }), let href = task.href,
           let creq = task.expectation("creq")?.stringValue, !shownCreqs.contains(creq) {
            shownCreqs.insert(creq)
            cres = nil
            return .challenge(href: href, creq: creq, notificationURL: notificationURL ?? "")
        }
        // 12. complete-authentication with the cres.
        if let complete = op(.completeAuthentication), let href = complete.href, let cres {
            self.cres = nil
            return .post(href: href, body: #"{"cRes":"\#(cres)","client":{"userAgent":"SDK"}}"#)
        }
        // Android: Google Pay after the 3DS steps, without an "already presented" guard.
        if platform == .android, let wallet = walletStep(ops, methodOp) { return wallet }
        // 13. redirect-payer ends the session.
        if let redirect = op(.redirectPayer) {
            let urls = document.paymentSession.urls
            if redirect.href != nil && redirect.href == urls?.cancelUrl?.string { return .end(.canceled) }
            if redirect.href != nil && redirect.href == urls?.completeUrl?.string { return .end(.complete) }
            return .end(.endStateReached)
        }
        // 14. The chosen instrument's own expand-method, start-payment-attempt, or (iOS) get-payment.
        if let instrument, let method = methods.first(where: { $0.paymentMethod == instrument.methodName }) {
            if let expand = method.operations.first(where: { $0.rel == .expandMethod })?.href {
                return .post(href: expand, body: #"{"paymentMethod":"\#(instrument.methodName)"}"#)
            }
            if let start = method.operations.first(where: { $0.rel == .startPaymentAttempt })?.href {
                self.instrument = nil
                return .post(href: start, body: startBody(instrument, document))
            }
            if platform == .iOS, let poll = method.operations.first(where: { $0.rel == .getPayment })?.href { return .poll(href: poll) }
        }
        // 15/16: Android shows instruments before polling.
        if platform == .android, !instrumentsShown {
            instrumentsShown = true
            instrument = choice
            return .instrumentsShown(methods.map(\.paymentMethod))
        }
        if let poll = op(.getPayment), let href = poll.href { return .poll(href: href) }
        if !instrumentsShown {
            instrumentsShown = true
            instrument = choice
            return .instrumentsShown(methods.map(\.paymentMethod))
        }
        // 17. iOS: "if no problem was shown" means in this pass; Android: StepNotFound ends the session whatever came before.
        return .end(platform == .iOS && hasShowedErrorThisPass ? .idleAfterProblem : .endStateReached)
    }

    private mutating func walletStep(_ ops: [OperationOutputModel],
                                     _ methodOp: (String, OperationOutputModel.Rel) -> OperationOutputModel?) -> SwedbankPayWalkerStep? {
        let name = platform == .iOS ? "ApplePay" : "GooglePay"
        let candidate = platform == .iOS ? ops.first { $0.rel == .attemptPayload } : methodOp(name, .attemptPayload)
        guard let payload = candidate, payload.tasks?.contains(where: { $0.rel == .walletSdk }) == true, let href = payload.href,
              methodOp(name, .failPaymentAttempt) != nil else { return nil }
        walletsPresented += 1
        return .presentWallet(attemptPayload: href, method: name)
    }

    package func startBody(_ instrument: SwedbankPayInstrument, _ document: PaymentOutputModel) -> String {
        let culture = document.paymentSession.culture ?? "sv-SE"
        let client = #""client":{"userAgent":"SDK","clientType":"Native"}"#
        switch instrument {
        case .swish(let msisdn):
            return #"{"culture":"\#(culture)","msisdn":\#(msisdn.map { "\"\($0)\"" } ?? "null"),\#(client)}"#
        case .savedCard(let rank):
            let token = document.method("CreditCard")?.prefills?.compactMap { prefill -> String? in
                if case .card(let card) = prefill, card.rank == rank { return card.paymentToken }
                return nil
            }.first ?? "unknown-token"
            return #"{"culture":"\#(culture)","paymentToken":"\#(token)",\#(client)}"#
        default:
            return #"{"culture":"\#(culture)",\#(client)}"#
        }
    }
}
