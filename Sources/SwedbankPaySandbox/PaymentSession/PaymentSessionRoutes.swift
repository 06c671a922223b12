// SPDX-License-Identifier: MIT
import Foundation

/// The payment-session API the Mobile SDKs follow from `view-paymentsession` (swedbankpay-api.md §3), with the
/// 3-D Secure trampoline; the pages and the ACS emulator are in Pages/. The app sends no auth and no namespace (§3.2): the token
/// says which order, and so which namespace and sticky scenario.
package struct SwedbankPayPaymentSessionRoutes: Sendable {
    package let orders: SwedbankPayOrderStore
    package let scenarios: ScenarioEngine
    package let journal: Journal
    /// The session state machine; a ``NamespacedState`` for `/__sandbox/reset` and `/__sandbox/state`.
    package let sessions: SwedbankPayPaymentSessionStore
    private let play: SwedbankPayScenarioPlayer

    /// `sessions`: made over `orders` (the sandbox owns both).
    package init(orders: SwedbankPayOrderStore, sessions: SwedbankPayPaymentSessionStore, scenarios: ScenarioEngine, journal: Journal) {
        self.orders = orders
        self.sessions = sessions
        self.scenarios = scenarios
        self.journal = journal
        play = SwedbankPayScenarioPlayer(engine: scenarios, ids: orders.ids)
    }

    static let prefix = "/psp/paymentsessions/"

    package func add(to router: inout Router) {
        router.addImmediate("GET /psp/paymentsessions/:token") { try read($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/preparepayment") { try prepare($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/customizepayment") { try customize($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/abortpayment") { try abort($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/methods/:method/expandmethod") { try expandMethod($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/methods/:method/startpaymentattempt") { try startAttempt($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/methods/:method/failpaymentattempt") { try failAttempt($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/methods/:method/attemptpayload") { try attemptPayload($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/methods/creditcard/createauthentication") { try createAuthentication($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/methods/creditcard/completeauthentication") { try completeAuthentication($0) }
        router.addImmediate("POST /psp/paymentsessions/:token/failedattempts/:number/acknowledge") { try acknowledge($0) }
        // Beacons: 204 and no body, otherwise the SDKs queue them again (swedbankpay-api.md §3.2). Any body, even invalid JSON.
        router.addImmediate("POST /psp/paymentsessions/:token/eventlogging") { try eventLogging($0) }
        // The 3-D Secure trampoline: the ACS page posts cres here; 303 to the address Android watches for, with cres in
        // the query (swedbankpay-api.md §3.6 C5 [INF]). iOS reads cres from this POST's body itself.
        router.addImmediate("POST /psp/paymentsessions/:token/methods/creditcard/notification") { notification($0) }
        // Where an ended session redirects (neither completeUrl nor cancelUrl: the SDKs report the end state, §3.5 step 13).
        router.addImmediate("GET /psp/paymentsessions/:token/ended") { ended($0) }

        SwedbankPayCheckoutRoutes(sessions: sessions, orders: orders, journal: journal).add(to: &router)
    }

    private func base(_ request: HTTPRequest) -> String { publicBaseURL(request, configured: orders.configuration.publicBaseURL) }
    private func call(_ request: HTTPRequest) -> SwedbankPayPaymentSessionStore.Call { .init(request, base: base(request)) }

    /// Plays `operation` for the token's order, then answers the document `body` builds (200, swedbankpay-api.md §3.2),
    /// as the player settles the business decisions it took (their delay; the player's own answer to an `http_error` or
    /// `drop_connection`). `session_end_reached` ends the session; `not_allowed` is the 409 of sample 13.
    /// `answer` turns the document into the response (the document itself, except for acknowledge-failed-attempt).
    private func session(_ operation: ScenarioOperation, rel: String, _ request: HTTPRequest,
                         answer: @escaping @Sendable (JSONText) -> HTTPResponse = Self.document,
                         _ body: @escaping @Sendable (String, SwedbankPayPaymentSessionStore.Call) throws -> SessionResult<JSONText>)
        throws -> HTTPReply {
        let token = try request.parameters.require("token")
        let context = try sessions.context(token)
        return play(operation, request, context.namespace, object: token, sticky: context.view.scenario) { outcome in
            try Self.requireJSONObjectBody(request)
            switch outcome.swedbankPay {
            case .sessionEndReached?: return try sessions.endSession(token, call(request)).reply(play, request, Self.document)
            case .notAllowed?: throw SwedbankPayProblem.operationNotAllowed(rel)
            default:
                let result = try body(token, call(request))
                let reply = result.reply(play, request, answer)
                // callback_before_redirect: the answer after the order's callback waits for its first call (a call a
                // decision answered took no effect: no callback).
                guard result.answeredBy == nil else { return reply }
                return orders.callbacks.beforeRedirect(context.namespace, orderID: context.orderID, reply)
            }
        }
    }

    /// The journal's note naming the namespace of the request's token (the app sends none, §3.2); nil for an unknown token.
    private func tokensNamespace(_ request: HTTPRequest) -> NamespaceNote? {
        request.parameters["token"].flatMap { orders.lookup(token: $0) }.map { NamespaceNote($0.namespace) }
    }

    /// `body`'s reply; a problem it throws before the call plays (a path that names no method) is answered in the
    /// token's namespace, for the journal.
    private func inTokensNamespace(_ request: HTTPRequest, _ body: () throws -> HTTPReply) throws -> HTTPReply {
        do {
            return try body()
        } catch let problem as SwedbankPayProblem {
            return HTTPReply(play.format.render(problem, for: request), note: tokensNamespace(request))
        }
    }

    private func method(_ request: HTTPRequest) throws -> SessionMethod {
        guard let method = SessionMethod(segment: try request.parameters.require("method")) else { throw SwedbankPayProblem.paymentSessionNotFound }
        return method
    }

    // MARK: The session's operations

    private func read(_ request: HTTPRequest) throws -> HTTPReply {
        try session(.swedbankPaySessionRead, rel: "get-payment", request) { try sessions.read($0, $1) }
    }

    private func prepare(_ request: HTTPRequest) throws -> HTTPReply {
        try session(.swedbankPaySessionPreparePayment, rel: "prepare-payment", request) { try sessions.prepare($0, $1) }
    }

    private func customize(_ request: HTTPRequest) throws -> HTTPReply {
        try session(.swedbankPaySessionCustomizePayment, rel: "customize-payment", request) {
            try sessions.customize($0, $1)
        }
    }

    private func abort(_ request: HTTPRequest) throws -> HTTPReply {
        try session(.swedbankPaySessionAbortPayment, rel: "abort-payment", request) { try sessions.abort($0, $1) }
    }

    private func expandMethod(_ request: HTTPRequest) throws -> HTTPReply {
        try inTokensNamespace(request) {
            _ = try method(request)
            return try session(.swedbankPaySessionExpandMethod, rel: "expand-method", request) {
                try sessions.expandMethod($0, $1)
            }
        }
    }

    private func startAttempt(_ request: HTTPRequest) throws -> HTTPReply {
        try inTokensNamespace(request) {
            let method = try method(request)
            return try session(.swedbankPaySessionStartPaymentAttempt, rel: "start-payment-attempt", request) {
                try sessions.startAttempt($0, method: method, $1)
            }
        }
    }

    private func failAttempt(_ request: HTTPRequest) throws -> HTTPReply {
        try inTokensNamespace(request) {
            let method = try method(request)
            return try session(.swedbankPaySessionFailPaymentAttempt, rel: "fail-payment-attempt", request) {
                try sessions.failAttempt($0, method: method, $1)
            }
        }
    }

    private func attemptPayload(_ request: HTTPRequest) throws -> HTTPReply {
        try inTokensNamespace(request) {
            let method = try method(request)
            guard method == .applePay || method == .googlePay else { throw SwedbankPayProblem.paymentSessionNotFound }
            return try session(.swedbankPaySessionAttemptPayload, rel: "attempt-payload", request) {
                try sessions.attemptPayload($0, method: method, $1)
            }
        }
    }

    private func createAuthentication(_ request: HTTPRequest) throws -> HTTPReply {
        try session(.swedbankPaySessionCreateAuthentication, rel: "create-authentication", request) {
            try sessions.createAuthentication($0, $1)
        }
    }

    private func completeAuthentication(_ request: HTTPRequest) throws -> HTTPReply {
        try session(.swedbankPaySessionCompleteAuthentication, rel: "complete-authentication", request) {
            try sessions.completeAuthentication($0, $1)
        }
    }

    private func acknowledge(_ request: HTTPRequest) throws -> HTTPReply {
        try inTokensNamespace(request) {
            guard let number = Int(try request.parameters.require("number")) else { throw SwedbankPayProblem.paymentSessionNotFound }
            // 204 and no body. Both SDKs ignore it then: iOS decodes every 200–204 answer as a PaymentOutputModel and
            // drops one that does not decode (SwedbankPay/swedbank-pay-sdk-ios: SwedbankPaySDK/Classes/Api/
            // SwedbankPayAPIEndpointRouter.swift makeRequest); Android posts the ack on the side and counted only
            // HTTP_NO_CONTENT as success (SwedbankPay/swedbank-pay-sdk-android: PaymentSessionAPIClient.kt
            // postFailedAttemptRequest). A document here would go through iOS's sessionOperationHandling a second
            // time, without the problem: idle, instruments already shown, it ends in paymentSessionEndStateReached
            // (SwedbankPayPaymentSession.swift) and the app would end the session after the first decline.
            return try session(.swedbankPaySessionAcknowledgeFailedAttempt, rel: "acknowledge-failed-attempt", request,
                               answer: { _ in HTTPResponse(status: .noContent) }) {
                try sessions.acknowledge($0, number: number, $1)
            }
        }
    }

    // MARK: Beacons, the 3-D Secure trampoline, the end

    private func eventLogging(_ request: HTTPRequest) throws -> HTTPReply {
        let token = try request.parameters.require("token")
        let context = try sessions.context(token)
        return play(.swedbankPaySessionEventLogging, request, context.namespace, subject: .some(nil), object: token,
                    sticky: context.view.scenario) { _ in HTTPResponse(status: .noContent) }
    }

    private func notification(_ request: HTTPRequest) -> HTTPReply {
        let cres = FormFields.parse(request.body)["cres"] ?? ""
        // challenge_cres_posted: the answer goes on as a form POST with cres in the body, as some 3DS servers pass it
        // on (the real server's way is unknown, swedbankpay-api.md §6.2). iOS has already read cres from this POST;
        // Android only reads the query of a navigation to fake.payex.com/notification (ScaRedirectFragment.kt), and
        // WebViewClient.shouldOverrideUrlLoading is not called for POSTs: it never gets the cres.
        if let token = request.parameters["token"], sessions.postsChallengeAnswer(token, call(request)) {
            return HTTPReply(SwedbankPayCheckoutRoutes.html(CheckoutPage.postOn(action: "https://fake.payex.com/notification", fields: [("cres", cres)])),
                             note: tokensNamespace(request))
        }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        let encoded = cres.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return HTTPReply(HTTPResponse(status: HTTPStatus(code: 303), headers: ["Location": "https://fake.payex.com/notification?cres=\(encoded)"]),
                         note: tokensNamespace(request))
    }

    private func ended(_ request: HTTPRequest) -> HTTPReply {
        HTTPReply(.html(#"<!doctype html><html><head><meta charset="utf-8"><title>Payment session ended</title></head>"#
            + #"<body><main id="swedbankpay-session-ended"><p>The payment session has ended.</p></main></body></html>"#),
                  note: tokensNamespace(request))
    }

    /// Every success of the session API: 200 with the document (swedbankpay-api.md §3.9.1).
    static func document(_ json: JSONText) -> HTTPResponse {
        .json(json.data, status: .ok, contentType: "application/json; charset=utf-8")
    }

    /// The SDKs send JSON objects, or nothing (acknowledge-failed-attempt, abort-payment, GET) (swedbankpay-api.md §3.4);
    /// any other body is refused with a 400 problem before it can start anything (inferred).
    static func requireJSONObjectBody(_ request: HTTPRequest) throws(SwedbankPayProblem) {
        guard request.body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return }
        guard let document = try? JSONDocument.parse(request.body), document.members != nil else {
            throw .sessionInput("Body", "The request body is not a JSON object.")
        }
    }
}

extension SwedbankPayPaymentSessionStore.Call {
    /// The store's view of `request`: its body parsed once, its links on `base`.
    init(_ request: HTTPRequest, base: String) {
        self.init(base: base, body: ScenarioEngine.subject(request.body), facts: ScenarioRequestFacts(request))
    }
}
