// SPDX-License-Identifier: MIT
import Foundation

/// What the consumer does on the hosted page, also callable without a browser:
/// `POST /__sandbox/klarna/hpp/sessions/{session_id}/{pay|cancel|back|reject}` (no auth; empty or JSON body).
/// HPP normally drives this itself, so the sandbox needs its own entry points (klarna-api.md §2.4, design).
enum HPPConsumerAction: String, CaseIterable, Sendable {
    case pay, cancel, back
    /// Sandbox control: the consumer is declined (FAILED), whatever the scenario says.
    case reject
}

/// Runs consumer actions: the outcome of `pay` follows the linked KP session's scenario for
/// `klarna.payments.authorize` (the `klarna.hpp.*` operations have no consumer outcomes of their own).
struct HPPConsumerFlow: Sendable {
    let store: KlarnaHPPStore
    let payments: KlarnaPaymentsStore
    let orders: KlarnaOrderManagementStore
    let play: ScenarioPlayer<KlarnaErrorFormat>
    let callbacks: HPPStatusCallbacks

    /// The answer for the browser's form post or an API client: 303 to the outcome's merchant URL (with
    /// `{"status", "location"}` for API clients), else the result page (browser) or `{"status"}` (API).
    func perform(_ action: HPPConsumerAction, sessionID: String, _ request: HTTPRequest) -> HTTPReply {
        let browser = Self.isBrowser(request)
        guard let located = store.consumerContext(sessionID) else {
            return HTTPReply(browser ? Self.page(.notFound, sessionID: sessionID) : KlarnaError.hppSessionNotFound.response(for: request, ids: store.ids))
        }
        // Every answer names the session's namespace for the journal: the browser's call names none.
        let namespace = located.namespace
        let context: HPPConsumerContext
        do {
            let opened: HPPStatusChange?
            (context, opened) = try store.beginAction(namespace, sessionID)
            if let opened { callbacks.send(opened) }
        } catch {
            if browser, let reason = Self.unavailableReason(located) {
                var response = Self.page(reason, sessionID: sessionID)
                if !located.expired { response.status = .conflict }
                return HTTPReply(response, note: NamespaceNote(namespace))
            }
            return HTTPReply(error.response(for: request, ids: store.ids), note: NamespaceNote(namespace))
        }
        switch action {
        case .back:
            return finish(context, .back, location: context.merchantURLs.back, request: request, browser: browser, note: "back")
        case .cancel:
            // "In eCommerce a cancel URL is treated as back, so the session is not cancelled" (klarna-api.md §4.1).
            // CANCELLED is for "non-eCommerce flows only" (§4.2): here, a session the merchant distributed by
            // SMS, e-mail or token (inferred).
            return finish(context, context.distributed ? .cancelled : .back, location: context.merchantURLs.cancel, request: request, browser: browser,
                          note: context.distributed ? "cancel (distributed session)" : "cancel, treated as back (eCommerce)")
        case .reject:
            return finish(context, .failed, location: context.merchantURLs.failure, request: request, browser: browser, note: "reject (sandbox control)")
        case .pay:
            return pay(context, request, browser: browser)
        }
    }

    // MARK: Pay

    private func pay(_ context: HPPConsumerContext, _ request: HTTPRequest, browser: Bool) -> HTTPReply {
        let namespace = context.namespace, kpSessionID = context.paymentSessionID
        // The KP session as the consumer authorizes it: what scenario conditions look at, as for the SDK's authorize.
        let view = payments.customerView(namespace, sessionID: kpSessionID, data: nil)
        let decided: PlayedDecision
        do {
            decided = try play.decide(.klarnaPaymentsAuthorize, request, in: namespace, subject: .some(view.map { JSONNode($0.fields.json) }),
                                      object: kpSessionID, sticky: view?.scenario)
        } catch {
            _ = store.endAction(namespace, context.sessionID, status: nil)
            return HTTPReply(KlarnaError.unknownScenario(error).response(for: request, ids: store.ids), note: NamespaceNote(namespace))
        }
        let note = "scenario=\(decided.note.scenario ?? "-") \(ScenarioOperation.klarnaPaymentsAuthorize.rawValue) (hosted page pay): \(decided.note.decision)"
        // Every outcome is the consumer's payment (an http_error too: an error while paying); commit_then_drop pays as
        // for approve and the page's answer is lost (the browser's connection closes).
        return play.play(decided, request, operationAnswersAll: true, Payment(flow: self, context: context, request: request, browser: browser, note: note))
    }

    /// The payment after the decision's delay: ``authorize(_:outcome:_:browser:note:)``.
    private struct Payment: PlayedOperation {
        let flow: HPPConsumerFlow
        let context: HPPConsumerContext
        let request: HTTPRequest
        let browser: Bool
        let note: String
        func perform(_ outcome: ScenarioOutcome) -> HTTPReply {
            flow.authorize(context, outcome: outcome, request, browser: browser, note: note)
        }
    }

    /// Klarna authorizes in the hosted page; the scenario's outcome decides how:
    /// - approve: a KP authorization token; PLACE_ORDER / CAPTURE_ORDER then place the order (§4.1).
    /// - finalize_required: HPP hosts the whole consumer flow, so it finalizes itself: approved (inferred).
    /// - reject, show_form_false: FAILED (declined), to `failure`. With `payment_fallback` Klarna first tries
    ///   the session's other categories; a scenario decides per session, so the result is the same (inferred).
    /// - cancel (the consumer closed Klarna's form): BACK, to `back` (inferred).
    /// - invalid_client_token, http_error, drop_connection: an error while paying: ERROR, to `error`, else `failure`
    ///   (§4.1: "if error is empty, failure is used").
    fileprivate func authorize(_ context: HPPConsumerContext, outcome: ScenarioOutcome, _ request: HTTPRequest, browser: Bool,
                           note: String) -> HTTPReply {
        let namespace = context.namespace, kpSessionID = context.paymentSessionID
        let urls = context.merchantURLs
        let errorURL = urls.error ?? urls.failure
        switch outcome.klarna {
        case .approve?, .finalizeRequired?:
            var result = payments.authorize(namespace, sessionID: kpSessionID, data: nil, outcome: outcome)
            if outcome.klarna == .finalizeRequired {
                result = payments.authorize(namespace, sessionID: kpSessionID, data: nil, outcome: .approve, call: .finalize)
            }
            guard let token = result.authorizationToken else {
                // The KP session is no longer usable (completed or cancelled elsewhere).
                let reason = result.error?.name ?? "not approved"
                return finish(context, .error, location: errorURL, request: request, browser: browser, note: note + " -> KP authorize: \(reason)")
            }
            guard context.options.placeOrderMode != .none else {
                return finish(context, .completed, location: urls.success, request: request, browser: browser, note: note, authorizationToken: token)
            }
            return placeOrder(context, token: token, request, browser: browser, note: note)
        case .reject?, .showFormFalse?:
            _ = payments.authorize(namespace, sessionID: kpSessionID, data: nil, outcome: outcome)
            return finish(context, .failed, location: urls.failure, request: request, browser: browser, note: note)
        case .cancel?:
            return finish(context, .back, location: urls.back, request: request, browser: browser, note: note)
        default:
            return finish(context, .error, location: errorURL, request: request, browser: browser, note: note)
        }
    }

    /// PLACE_ORDER: "HPP create[s] the KP order and return[s] an order_id"; CAPTURE_ORDER: it places "and
    /// captures" it (klarna-api.md §4.1, §5). The order is the KP session's cart as authorized. KP create-order
    /// also places it in Order Management (captured with auto_capture). `authorization_token` is shown for
    /// NONE only (klarna-api.md §4.2).
    private func placeOrder(_ context: HPPConsumerContext, token: String, _ request: HTTPRequest, browser: Bool,
                            note: String) -> HTTPReply {
        let namespace = context.namespace
        let urls = context.merchantURLs
        guard let fields = payments.customerView(namespace, sessionID: context.paymentSessionID, data: nil)?.fields else {
            return finish(context, .error, location: urls.error ?? urls.failure, request: request, browser: browser, note: note + " -> KP session gone")
        }
        var order = KlarnaCreateOrderRequest()
        order.purchaseCountry = fields.purchaseCountry; order.purchaseCurrency = fields.purchaseCurrency; order.locale = fields.locale
        order.orderAmount = fields.orderAmount; order.orderTaxAmount = fields.orderTaxAmount; order.orderLines = fields.orderLines
        order.billingAddress = fields.billingAddress; order.shippingAddress = fields.shippingAddress; order.customer = fields.customer
        order.merchantUrls = fields.merchantUrls; order.merchantReference1 = fields.merchantReference1
        order.merchantReference2 = fields.merchantReference2; order.merchantData = fields.merchantData
        order.customPaymentMethodIds = fields.customPaymentMethodIds
        order.autoCapture = context.options.placeOrderMode == .captureOrder ? true : nil
        do {
            let placed = try payments.createOrder(namespace, token: token, order, redirectBase: request.publicOrigin, outcome: .approve)
            return finish(context, .completed, location: urls.success, request: request, browser: browser, note: note + " -> order \(placed.orderId)",
                          orderID: placed.orderId, klarnaReference: klarnaReference(namespace, orderID: placed.orderId))
        } catch {
            return finish(context, .error, location: urls.error ?? urls.failure, request: request, browser: browser,
                          note: note + " -> KP create order: \(error.code) \(error.messages.joined(separator: "; "))")
        }
    }

    /// The order's `klarna_reference` as Order Management shows it (HPP's GET shows one beside `order_id`,
    /// klarna-api.md §4.2); derived from the order id if Order Management does not have the order.
    private func klarnaReference(_ namespace: Namespace, orderID: String) -> String {
        (try? orders.readOrder(namespace, orderID).klarnaReference) ?? String(orderID.filter(\.isHexDigit).suffix(8)).lowercased()
    }

    // MARK: Answers

    /// Ends the action with `status`, sends its callback, and answers: 303 to `location` (placeholders
    /// filled) or, without one, the generic result page (§4.1: "if success/cancel/failure are empty, HPP
    /// shows a generic page").
    private func finish(_ context: HPPConsumerContext, _ status: KlarnaHPPStatus, location template: String?, request: HTTPRequest,
                        browser: Bool, note: String, authorizationToken: String? = nil, orderID: String? = nil,
                        klarnaReference: String? = nil) -> HTTPReply {
        let change = store.endAction(context.namespace, context.sessionID, status: status, authorizationToken: authorizationToken,
                                     orderID: orderID, klarnaReference: klarnaReference)
        let callback = change.flatMap { callbacks.send($0) }
        // nil change: a DELETE came first; the answer shows the status that stays.
        let session = change?.session ?? (try? store.read(context.namespace, context.sessionID)) ?? context.read
        var response: HTTPResponse
        var note = "HPP session \(context.sessionID): \(note) -> \(session.status.rawValue)"
        var trip: PlayedDecision?
        if let template, !template.isEmpty {
            let location = Self.headerSafe(HPPPlaceholders.fill(template, session))
            trip = returnTrip(context, request)
            if let trip { note += "; \(trip.note)" }
            if trip?.outcome.klarna == .redirectLost {
                response = browser ? Self.htmlPage(HostedPage.result(sessionID: context.sessionID, session: session))
                    : .json(JSONText.object([("status", .string(session.status.rawValue))]).data)
            } else {
                response = .json(JSONText.object([("status", .string(session.status.rawValue)), ("location", .string(location))]).data,
                                 status: .seeOther)
                response.headers.set(name: "Location", value: location)
            }
        } else if browser {
            response = Self.htmlPage(HostedPage.result(sessionID: context.sessionID, session: session))
        } else {
            response = .json(JSONText.object([("status", .string(session.status.rawValue))]).data)
        }
        response.headers.set(name: "Cache-Control", value: "no-store")
        var reply = HTTPReply(response, note: NamespaceNote(context.namespace, note))
        // The redirect's universal outcomes: the action has taken effect; only the answer is an error, lost or late.
        if let trip { reply = play.settle(trip, request, reply: reply) }
        // A scenario's callback_before_redirect: the answer waits for the callback's first call.
        return callback.beforeRedirect(reply)
    }

    /// The return trip to the merchant (`klarna.hpp.redirect`), decided after the action took effect, for the HPP
    /// session (sequences count per session) under its KP session's scenario; nil when no rule of it matched (the
    /// redirect as always, nothing added to the note). What an app sees in real life:
    /// - redirect_lost: the session is final on Klarna's side (status callback sent), but the web view stays on
    ///   the hosted page, which shows the result with no way back; `myapp://...` never opens, so the app must read
    ///   the session (GET /hpp/v1/sessions/{id}) itself, e.g. when the payer closes the web view.
    /// - redirect_late (or any outcome's `delay_ms`): the web view keeps loading while the session is already
    ///   final and the callback sent; the redirect arrives `delay_ms` later.
    private func returnTrip(_ context: HPPConsumerContext, _ request: HTTPRequest) -> PlayedDecision? {
        let sticky = payments.scenarioOf(context.namespace, sessionID: context.paymentSessionID)
        guard let decided = try? play.decide(.klarnaHPPRedirect, request, in: context.namespace, subject: .some(nil), object: context.sessionID,
                                             sticky: sticky), decided.matchedRule else { return nil }
        return decided
    }

    /// A form post from the page (or a client that asks for HTML) gets pages; everything else JSON.
    static func isBrowser(_ request: HTTPRequest) -> Bool {
        if let type = request.headers["Content-Type"]?.lowercased(), type.hasPrefix("application/x-www-form-urlencoded") { return true }
        guard let accept = request.headers["Accept"]?.lowercased() else { return false }
        return accept.contains("text/html") && !accept.contains("application/json")
    }

    static func unavailableReason(_ context: HPPConsumerContext) -> HostedPage.Unavailable? {
        if context.expired { return .expired }
        switch context.status {
        case .disabled: return .disabled
        case .cancelled: return .cancelled
        case .completed: return .completed
        default: return nil
        }
    }

    static func page(_ reason: HostedPage.Unavailable, sessionID: String) -> HTTPResponse {
        var response = htmlPage(HostedPage.unavailable(reason, sessionID: sessionID))
        response.status = reason.status
        return response
    }

    /// An HTML page that can run nothing: no scripts, no external loads (defence in depth on top of escaping).
    /// No `form-action` limit: the 303 after a form post may go to any merchant URL, custom schemes included.
    static func htmlPage(_ html: String) -> HTTPResponse {
        var response = HTTPResponse.html(html)
        response.headers.set(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
        response.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }

    /// A merchant URL as a header value: controls, spaces and non-ASCII are percent-encoded, so a URL can
    /// neither break the header nor add one.
    static func headerSafe(_ url: String) -> String {
        guard url.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return url }
        var out = ""
        for byte in url.utf8 {
            if byte > 0x20 && byte < 0x7F {
                out.append(Character(UnicodeScalar(byte)))
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// `action=pay` of the page's form (application/x-www-form-urlencoded), or `{"action": "pay"}`.
    static func action(from request: HTTPRequest) -> HPPConsumerAction? {
        if let node = try? JSONDocument.parse(request.body), let name = node["action"]?.stringValue {
            return HPPConsumerAction(rawValue: name)
        }
        let text = String(decoding: request.body, as: UTF8.self)
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "action" else { continue }
            let value = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            return HPPConsumerAction(rawValue: value)
        }
        return nil
    }
}
