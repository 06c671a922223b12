// SPDX-License-Identifier: MIT
import Foundation

/// The web side of a payment order (swedbankpay-api.md §3.7; the rest inferred): `redirect-checkout` (`/checkout/<token>`, the menu and the
/// new-card form, top-level or inside the view-checkout iframe with `?embed=1`), `view-checkout` / `view-payment`
/// (`/checkout/client/<token>`, the script), the page's actions under `/checkout/<token>/…`, and the ACS emulator
/// (`/acs/…`) for both the SDKs' native 3-D Secure and cards typed into the page.
struct SwedbankPayCheckoutRoutes: Sendable {
    let sessions: SwedbankPayPaymentSessionStore
    let orders: SwedbankPayOrderStore
    let journal: Journal
    // The payment order's own operations (view-checkout, redirect-checkout) play their scenario rules: errors and
    // slow answers as on the API. The script's errors are problems; the page's are HTML pages with the status.
    private let playScript: SwedbankPayScenarioPlayer
    private let playPage: ScenarioPlayer<SwedbankPayPageErrorFormat>

    init(sessions: SwedbankPayPaymentSessionStore, orders: SwedbankPayOrderStore, journal: Journal) {
        self.sessions = sessions
        self.orders = orders
        self.journal = journal
        playScript = sessions.play
        playPage = sessions.play.answering(in: SwedbankPayPageErrorFormat(ids: orders.ids))
    }

    func add(to router: inout Router) {
        router.addImmediate("GET /checkout/client/:token") { try script($0) }
        router.addImmediate("GET /checkout/:token") { try checkout($0) }
        router.addImmediate("POST /checkout/:token/card") { try payByCard($0) }
        router.addImmediate("POST /checkout/:token/card/cres") { try finishChallenge($0) }
        router.addImmediate("POST /checkout/:token/swish") { try payBySwish($0) }
        router.addImmediate("GET /checkout/:token/swish/status") { try swishStatus($0) }
        router.addImmediate("POST /checkout/:token/web/:method") { try payOnWeb($0) }
        router.addImmediate("POST /checkout/:token/abort") { try abort($0) }
        // The Swish app stand-in (swedbankpay-api.md §3.6 A): what a test opens for the launch-client-app href, `swish://`
        // replaced by `<sandbox>/swish/`.
        router.addImmediate("GET /swish/paymentrequest") { try swishApp($0) }
        // The ACS emulator (swedbankpay-api.md §3.6 C, §5).
        router.addImmediate("POST /acs/3dsmethod") { _ in Self.html(CheckoutPage.threeDSMethod) }
        router.addImmediate("GET /acs/3dsmethod") { _ in Self.html(CheckoutPage.threeDSMethod) }
        // threeDSMethodData's threeDSMethodNotificationURL: a real ACS posts its result here from the hidden frame.
        router.addImmediate("POST /acs/3dsmethod/done") { _ in Self.html(CheckoutPage.threeDSMethod) }
        router.addImmediate("POST /acs/challenge") { challenge($0) }
        router.addImmediate("GET /acs/challenge") { challenge($0) }
    }

    private func base(_ request: HTTPRequest) -> String { publicBaseURL(request, configured: orders.configuration.publicBaseURL) }
    private func call(_ request: HTTPRequest) -> SwedbankPayPaymentSessionStore.Call { .init(request, base: base(request)) }
    private func mode(_ request: HTTPRequest) -> CheckoutPageMode { request.queryValue("embed") == "1" ? .embedded : .redirect }

    /// A page action: problems become HTML pages with the problem's status (an unknown token: the not-found page).
    /// The page's player settles the business decisions: their `delay_ms` delays the answer; their `http_error` and
    /// `drop_connection` are answered as its own. The answer names the token's namespace for the journal (the
    /// browser names none), unless `played`: a call the page's player plays, whose note names it.
    /// `body` gets the token and its session's context as the call found it (nil: unknown token).
    private func page(_ request: HTTPRequest, played: Bool = false,
                      _ body: (String, SwedbankPayPaymentSessionStore.Context?) throws -> SessionResult<HTTPResponse>) throws -> HTTPReply {
        let token = try request.parameters.require("token")
        let order = orders.lookup(token: token)
        let context = try? sessions.context(token)
        var reply: HTTPReply
        do {
            let result = try body(token, context)
            if result.answeredBy != nil {
                // A decision answered the call, which took no effect: no return trip, no callback to wait for.
                reply = result.reply(playPage, request) { $0 }
                return played ? reply : reply.noted(order.map { NamespaceNote($0.namespace) })
            }
            // The action that paid the order (a card, the Swish waiting page's refresh, a web instrument): the return
            // trip. The status after: the transition's, else the order's now.
            if let context, context.view.status == .initialized,
               (result.orderStatus ?? (try? sessions.context(token))?.view.status) == .paid {
                reply = returnTrip(request, token, context, result)
            } else {
                reply = result.reply(playPage, request) { $0 }
            }
            // callback_before_redirect: the answer after the order's callback waits for its first call.
            if let order { reply = orders.callbacks.beforeRedirect(order.namespace, orderID: order.orderID, reply) }
        } catch let problem as SwedbankPayProblem {
            reply = problem == .paymentSessionNotFound ? HTTPReply(Self.html(CheckoutPage.unavailable(.notFound), status: .notFound))
                : HTTPReply(Self.html(CheckoutPage.error(problem), status: problem.status))
        }
        return played ? reply : reply.noted(order.map { NamespaceNote($0.namespace) })
    }

    /// `swedbankpay.checkout.redirect`, decided once the order is paid, per session token. What the app sees in real
    /// life: with `redirect_lost` the order is Paid (callback sent) but the web view stays on the page, which shows
    /// the payment as completed with no link and tells no view-checkout script, so the app never sees completeUrl
    /// and must read the order itself; with `redirect_late` (or any `delay_ms`) the web view keeps loading and the
    /// redirect comes late, while the order is already Paid.
    private func returnTrip(_ request: HTTPRequest, _ token: String, _ paid: SwedbankPayPaymentSessionStore.Context,
                            _ result: SessionResult<HTTPResponse>) -> HTTPReply {
        guard let decided = try? playPage.decide(.swedbankPayCheckoutRedirect, request, in: paid.namespace, subject: .some(nil), object: token,
                                                 sticky: paid.view.scenario),
              decided.matchedRule else { return result.reply(playPage, request) { $0 } }
        journal.record(paid.namespace, method: "DECISION", path: request.path, status: 0, event: decided.note)
        var result = result
        if decided.outcome.swedbankPay == .redirectLost {
            result.value = Self.html(CheckoutPage.result(.paid, orderID: paid.view.orderID, redirectURL: nil, tellsParent: false))
        }
        // Universal outcomes: the payment stands; only the answer is an error, dropped, or lost after the fact.
        return playPage.settle(decided, request, reply: result.reply(playPage, request) { $0 })
    }

    // MARK: view-checkout and redirect-checkout

    private func script(_ request: HTTPRequest) throws -> HTTPReply {
        let token = try request.parameters.require("token")
        guard let context = try? sessions.context(token) else {
            // 200 with a script that reports the error, so the merchant's page does not break (inferred).
            return HTTPReply(Self.scriptResponse(CheckoutPage.script(menuURL: nil, orderID: nil, completeURL: nil, cancelURL: nil)))
        }
        let culture = request.queryValue("culture").map { "&culture=\(Self.formEncode($0))" } ?? ""
        let script = CheckoutPage.script(menuURL: "\(base(request))/checkout/\(token)?embed=1\(culture)", orderID: context.orderID,
                                         completeURL: context.view.urls.completeUrl, cancelURL: context.view.urls.cancelUrl)
        return playScript(.swedbankPayCheckoutScript, request, context.namespace, subject: .some(nil), object: token,
                          sticky: context.view.scenario) { _ in Self.scriptResponse(script) }
    }

    private static func scriptResponse(_ script: String) -> HTTPResponse {
        var response = HTTPResponse.text(script, contentType: "application/javascript; charset=utf-8")
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }

    private func checkout(_ request: HTTPRequest) throws -> HTTPReply {
        let token = try request.parameters.require("token")
        guard let context = try? sessions.context(token) else { return HTTPReply(Self.html(CheckoutPage.unavailable(.notFound), status: .notFound)) }
        return playPage(.swedbankPayCheckoutPage, request, context.namespace, subject: .some(nil), object: token,
                        sticky: context.view.scenario) { _ in try checkoutPage(request) }
    }

    private func checkoutPage(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request, played: true) { token, _ in
            let mode = mode(request)
            let document = try sessions.loadCheckout(token, mode: mode, call(request))
            switch document.view.status {
            case .initialized:
                if case .swish = document.record.phase { return SessionResult(Self.html(CheckoutPage.swishWaiting(document, mode: mode))) }
                return SessionResult(Self.html(CheckoutPage.menu(document, mode: mode)))
            case .paid, .cancelled, .reversed: return SessionResult(Self.html(CheckoutPage.unavailable(.paid)))
            case .aborted: return SessionResult(Self.html(CheckoutPage.unavailable(.aborted)))
            case .failed: return SessionResult(Self.html(CheckoutPage.unavailable(.failed)))
            }
        }
    }

    // MARK: The page's actions

    private func payByCard(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request) { token, found in
            let mode = mode(request), fields = FormFields.parse(request.body), call = call(request)
            if let paymentToken = fields["payment_token"], !paymentToken.isEmpty {
                return try sessions.payByCard(token, paymentToken: paymentToken, typed: nil, mode: mode, call, known: found)
                    .map { Self.outcome($0, mode: mode, base: call.base) }
            }
            let context = try found ?? sessions.context(token)
            switch CardInput.check(fields, now: orders.registry.now(context.namespace)) {
            case .success(let card):
                return try sessions.payByCard(token, paymentToken: nil, typed: card, mode: mode, call, known: context)
                    .map { Self.outcome($0, mode: mode, base: call.base) }
            case .failure(let error):
                let document = try sessions.checkoutStatus(token, call)
                guard document.view.status == .initialized else { return SessionResult(Self.outcome(document, mode: mode, base: call.base)) }
                return SessionResult(Self.html(CheckoutPage.menu(document, mode: mode, cardError: error.message), status: .badRequest))
            }
        }
    }

    private func finishChallenge(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request) { token, _ in
            let cres = FormFields.parse(request.body)["cres"]
            let (document, pageMode, variant) = try sessions.finishPageChallenge(token, cres: cres, call(request))
            return document.map { document in
                let mode = pageMode ?? mode(request)
                // challenge_cres_posted: the end reaches the merchant as a form POST, not the 303 (GET) below.
                if variant == .cresPosted, mode == .redirect, let url = document.merchantRedirect {
                    return Self.html(CheckoutPage.postOn(action: url, fields: []))
                }
                return Self.outcome(document, mode: mode, base: base(request))
            }
        }
    }

    private func payBySwish(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request) { token, _ in
            let msisdn = CardInput.removingWhitespace(FormFields.parse(request.body)["msisdn"] ?? "")
            return try sessions.payBySwish(token, msisdn: msisdn, call(request))
                .map { Self.outcome($0, mode: mode(request), base: base(request)) }
        }
    }

    private func swishStatus(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request) { token, _ in
            SessionResult(Self.outcome(try sessions.checkoutStatus(token, call(request)), mode: mode(request),
                                       base: base(request)))
        }
    }

    private func payOnWeb(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request) { token, _ in
            let method = try request.parameters.require("method")
            return try sessions.payOnWeb(token, method: method, call(request))
                .map { Self.outcome($0, mode: mode(request), base: base(request)) }
        }
    }

    private func abort(_ request: HTTPRequest) throws -> HTTPReply {
        try page(request) { token, _ in
            SessionResult(Self.outcome(try sessions.abortOnPage(token, call(request)), mode: mode(request),
                                       base: base(request)))
        }
    }

    // MARK: The Swish app stand-in

    /// The payer answers in Swish at once (the outcome swish.sale decided); then Swish opens `callbackurl` (the SDKs
    /// set it to paymentUrl), which reopens the app, and the SDK reads the session again. swedbankpay.swish.app_return
    /// decides that return trip for a paid order. What the app sees in real life: `redirect_lost`: the order is Paid,
    /// but the app is never reopened through paymentUrl, so the SDK never reads the session again and the app waits
    /// until it looks for itself; `redirect_late`: reopened late.
    private func swishApp(_ request: HTTPRequest) throws -> HTTPReply {
        guard let document = try sessions.answerInSwishApp(launchToken: request.queryValue("token") ?? "", call(request)) else {
            return HTTPReply(Self.html(CheckoutPage.swishApp(nil), status: .notFound))
        }
        let view = document.view
        let result = Self.swishAppResult(document)
        let given = request.queryValue("callbackurl").flatMap { $0.isEmpty ? nil : $0 }
        // Into a Location header only as visible ASCII (percent-encoded otherwise), as the SDKs send it.
        if let given, given.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            return HTTPReply(Self.html(CheckoutPage.error(SwedbankPayProblem.sessionInput("callbackurl", "Not a URL.")), status: .badRequest))
        }
        guard let callback = given ?? document.nonEmpty(view.urls.paymentUrl) else { return HTTPReply(Self.html(CheckoutPage.swishApp(result))) }
        let reopen = HTTPReply(Self.seeOther(callback))
        guard result == .paid, let decided = try? playPage.decide(.swedbankPaySwishAppReturn, request, in: document.record.namespace,
                                                                 subject: .some(nil), object: document.record.token, sticky: view.scenario),
              decided.matchedRule else { return reopen }
        journal.record(document.record.namespace, method: "DECISION", path: request.path, status: 0, event: decided.note)
        return playPage.settle(decided, request, reply: decided.outcome.swedbankPay == .redirectLost ? HTTPReply(Self.html(CheckoutPage.swishApp(.paid))) : reopen)
    }

    /// What the Swish app shows once the payer answered; nil: nothing yet.
    private static func swishAppResult(_ document: PaymentSessionDocument) -> CheckoutPage.Result? {
        switch document.view.status {
        case .paid, .cancelled, .reversed: .paid
        case .aborted: .aborted
        case .failed: .failed
        case .initialized: document.record.problem == nil ? nil : .failed
        }
    }

    // MARK: The ACS emulator

    private func challenge(_ request: HTTPRequest) -> HTTPReply {
        let creq = FormFields.parse(request.body)["creq"] ?? request.queryValue("creq") ?? ""
        guard let message = Base64URL.decodeJSON(creq), let acsTransID = message["acsTransID"]?.stringValue else {
            return HTTPReply(Self.html(CheckoutPage.challengeError, status: .badRequest))
        }
        guard let (token, card, delay) = sessions.showChallenge(acsTransID, call(request)) else {
            // A challenge no longer shown: journaled in its session's namespace while the session still knows it.
            let known = sessions.token(ofChallenge: acsTransID).flatMap { orders.lookup(token: $0) }
            return HTTPReply(Self.html(CheckoutPage.challengeError, status: .badRequest), note: known.map { NamespaceNote($0.namespace) })
        }
        func cres(_ status: String) -> String {
            Base64URL.encode(.object([
                ("messageType", .string("CRes")), ("messageVersion", .string("2.2.0")),
                ("threeDSServerTransID", .string(card.threeDSServerTransID)), ("acsTransID", .string(acsTransID)),
                ("transStatus", .string(status)),
            ]))
        }
        // The SDK flow posts to its NotificationUrl (the trampoline, swedbankpay-api.md §3.6 C5); a card typed into the page
        // comes back to the page.
        let action = switch card.page {
        case nil: "\(base(request))\(SwedbankPayPaymentSessionRoutes.prefix)\(token)/methods/creditcard/notification"
        case let mode?: "\(base(request))/checkout/\(token)/card/cres\(CheckoutPage.query(mode))"
        }
        let context = try? sessions.context(token)
        // The browser names no namespace: the answer names the challenge's, for the journal.
        let reply = HTTPReply(Self.html(CheckoutPage.challenge(acsTransID: acsTransID, approve: cres("Y"), cancel: cres("N"), action: action,
                                                               view: context?.view, maskedPan: card.card.maskedPan)),
                              note: context.map { NamespaceNote($0.namespace) })
        return delay.map(reply.delayed(by:)) ?? reply  // challenge_slow_acs
    }

    /// After a page action: the menu again (a failed attempt shows its problem; a new attempt is allowed, §1.5),
    /// the Swish waiting page, the ACS challenge, or the end: 303 to completeUrl / cancelUrl at top level, the
    /// result page (which tells the view-checkout script) inside the iframe (inferred from swedbankpay-api.md §3.7).
    static func outcome(_ document: PaymentSessionDocument, mode: CheckoutPageMode, base: String) -> HTTPResponse {
        let view = document.view
        let result: CheckoutPage.Result
        switch view.status {
        case .initialized:
            switch document.record.phase {
            case .swish: return html(CheckoutPage.swishWaiting(document, mode: mode))
            case .threeDSChallenge(let card) where card.page != nil:
                return seeOther("\(base)/acs/challenge?creq=\(PaymentSessionDocument.creq(card))")
            default: return html(CheckoutPage.menu(document, mode: mode))
            }
        case .paid, .cancelled, .reversed: result = .paid
        case .aborted: result = .aborted
        case .failed: result = .failed
        }
        let redirect = result == .paid ? view.urls.completeUrl : result == .aborted ? document.nonEmpty(view.urls.cancelUrl) : nil
        if mode == .redirect, let redirect { return seeOther(redirect) }
        return html(CheckoutPage.result(result, orderID: view.orderID, redirectURL: redirect))
    }

    /// Pages may run their own inline script (the result page) and styles; nothing is loaded from elsewhere.
    /// No `form-action`: Chrome applies it to the 303 that follows a form to the merchant's completeUrl.
    static func html(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.html(text, status: status)
        response.headers.set(name: "Content-Security-Policy",
                             value: "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'")
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    static func seeOther(_ location: String) -> HTTPResponse {
        HTTPResponse(status: HTTPStatus(code: 303), headers: ["Location": location, "Cache-Control": "no-store"])
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// The new-card form's fields, checked as a card form would before anything is sent (inferred messages).
enum CardInput {
    struct Problem: Error { var message: String }

    static func check(_ fields: [String: String], now: Date) -> Result<SwedbankPayPaymentSessionStore.TypedCard, Problem> {
        let pan = removing(from: fields["pan"] ?? "", bytes: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "-") },
                           characters: { $0 == " " || $0 == "-" })
        // Only ASCII digits: a digit is then one Character and one byte.
        guard pan.utf8.allSatisfy(isASCIIDigit), (12...19).contains(pan.utf8.count), luhn(pan) else {
            return .failure(Problem(message: "The card number is not valid."))
        }
        guard let brand = brand(pan) else {
            return .failure(Problem(message: "This card brand is not accepted (\(acceptedBrands.joined(separator: ", "))))."))
        }
        let expiry = removingWhitespace(fields["expiry"] ?? "").split(separator: "/")
        let today = yearAndMonth(now)
        guard expiry.count == 2, let month = Int(expiry[0]), (1...12).contains(month), expiry[1].count == 2 || expiry[1].count == 4,
              var year = Int(expiry[1]) else {
            return .failure(Problem(message: "The expiry date must be MM/YY."))
        }
        if year < 100 { year += 2000 }
        guard (year, month) >= (today.year, today.month) else { return .failure(Problem(message: "The card has expired.")) }
        let cvc = fields["cvc"] ?? ""
        guard cvc.utf8.allSatisfy(isASCIIDigit), (3...4).contains(cvc.utf8.count) else {
            return .failure(Problem(message: "The CVC must be 3 or 4 digits."))
        }
        return .success(.init(pan: pan, brand: brand))
    }

    /// `text` without the characters `isRemoved` picks: on its bytes when `text` is ASCII (each byte is then one
    /// Character, or `\r\n` is one, removed or kept whole alike by both tests), else Character by Character.
    static func removing(from text: String, bytes isRemoved: (UInt8) -> Bool, characters isRemovedCharacter: (Character) -> Bool) -> String {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.filter { !isRemovedCharacter($0) } }
        return String(decoding: text.utf8.filter { !isRemoved($0) }, as: UTF8.self)
    }

    /// `text` without whitespace (`Character.isWhitespace`; of ASCII, tab to carriage return, and space).
    static func removingWhitespace(_ text: String) -> String {
        removing(from: text, bytes: { ($0 >= 0x09 && $0 <= 0x0D) || $0 == 0x20 }, characters: { $0.isWhitespace })
    }

    /// The UTC (Gregorian) year and month of `date`: by arithmetic from 1970 on (days to civil date), else by Calendar.
    static func yearAndMonth(_ date: Date) -> (year: Int, month: Int) {
        let seconds = date.timeIntervalSince1970
        guard seconds >= 0, seconds < 253_402_300_800 else {  // 1970-01-01 up to 9999-12-31
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let today = calendar.dateComponents([.year, .month], from: date)
            return (today.year ?? 0, today.month ?? 0)
        }
        let civil = SwedbankPayUTC.civilDate(daysSince1970: Int(seconds / 86_400))
        return (civil.year, civil.month)
    }

    static func luhn(_ digits: String) -> Bool {
        if digits.utf8.allSatisfy(isASCIIDigit) { return luhn(asciiDigits: digits.utf8) }
        var sum = 0
        for (index, character) in digits.reversed().enumerated() {
            guard var digit = character.wholeNumberValue else { return false }
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }

    private static func luhn(asciiDigits: String.UTF8View) -> Bool {
        var sum = 0
        for (index, byte) in asciiDigits.reversed().enumerated() {
            var digit = Int(byte - UInt8(ascii: "0"))
            if index % 2 == 1 {
                digit *= 2
                if digit > 9 { digit -= 9 }
            }
            sum += digit
        }
        return sum % 10 == 0
    }

    @inline(__always)
    private static func isASCIIDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The brands of Swedbank Pay's test cards (swedbankpay-api.md §5), also the CreditCard method's `cardBrands`.
    static let acceptedBrands = ["Visa", "MasterCard", "Amex", "Dankort", "Maestro", "Forbrugsforeningen"]

    /// By the number's prefix (the common IIN ranges; Visa/Dankort co-badged cards are Visa).
    static func brand(_ pan: String) -> String? {
        let two = Int(pan.prefix(2)) ?? 0, four = Int(pan.prefix(4)) ?? 0
        if pan.hasPrefix("4") { return "Visa" }
        if (51...55).contains(two) || (2221...2720).contains(four) { return "MasterCard" }
        if two == 34 || two == 37 { return "Amex" }
        if pan.hasPrefix("5019") { return "Dankort" }
        if pan.hasPrefix("600722") { return "Forbrugsforeningen" }
        let three = Int(pan.prefix(3)) ?? 0
        if pan.hasPrefix("6011") || two == 65 || (644...649).contains(three) { return nil }  // Discover: not accepted
        if two == 50 || (56...69).contains(two) { return "Maestro" }
        return nil
    }
}

