// SPDX-License-Identifier: MIT
import Foundation

/// `/hpp/v1/...` (klarna-api.md §4), the hosted page behind `redirect_url`, and the sandbox's consumer
/// actions under `/__sandbox/klarna/hpp/...`.
package struct KlarnaHPPRoutes: Sendable {
    package let store: KlarnaHPPStore
    package let payments: KlarnaPaymentsStore
    package let orders: KlarnaOrderManagementStore
    package let scenarios: ScenarioEngine
    package let journal: Journal
    package let outbox: CallbackOutbox?

    private let play: ScenarioPlayer<KlarnaErrorFormat>
    private let callbacks: HPPStatusCallbacks
    private let flow: HPPConsumerFlow

    package init(store: KlarnaHPPStore, payments: KlarnaPaymentsStore, orders: KlarnaOrderManagementStore,
                scenarios: ScenarioEngine, journal: Journal, outbox: CallbackOutbox? = nil) {
        self.store = store
        self.payments = payments
        self.orders = orders
        self.scenarios = scenarios
        self.journal = journal
        self.outbox = outbox
        play = ScenarioPlayer(engine: scenarios, ids: store.ids)
        callbacks = HPPStatusCallbacks(store: store, journal: journal, outbox: outbox, scenarios: scenarios,
                                       sticky: { namespace, id in Self.sticky(namespace, id, store: store, payments: payments) })
        flow = HPPConsumerFlow(store: store, payments: payments, orders: orders, play: play, callbacks: callbacks)
    }

    package func add(to router: inout Router) {
        router.addImmediate("POST /hpp/v1/sessions") { try createSession($0) }
        router.addImmediate("GET /hpp/v1/sessions/:session_id") { try readSession($0) }
        router.addImmediate("DELETE /hpp/v1/sessions/:session_id") { try disableSession($0) }
        router.addImmediate("POST /hpp/v1/sessions/:session_id/distribution") { try distribute($0) }
        // The consumer's page (no auth: the browser follows redirect_url). Opening it moves the session to IN_PROGRESS.
        router.addImmediate("GET /hpp/payments/:session_id") { try consumerPage($0) }
        // The page's buttons (formaction) and backend tests without a browser.
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/pay") { try consumerAction(.pay, $0) }
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/cancel") { try consumerAction(.cancel, $0) }
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/back") { try consumerAction(.back, $0) }
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/reject") { try consumerAction(.reject, $0) }
        // The form's own action, for a browser that ignores formaction: the `action` field decides.
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id") { try formAction($0) }
    }

    /// Scenarios stick to the linked KP session (its scenario decides the HPP session's calls too).
    private static func sticky(_ namespace: Namespace, _ id: String, store: KlarnaHPPStore, payments: KlarnaPaymentsStore) -> String? {
        store.paymentSessionID(namespace, id).flatMap { payments.scenarioOf(namespace, sessionID: $0) }
    }

    private func sticky(_ namespace: Namespace, _ id: String) -> String? {
        Self.sticky(namespace, id, store: store, payments: payments)
    }

    // MARK: The API (§4)

    /// §4.1 create: 201 SessionCreationResponseV1.
    private func createSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, payments.configuration)
        let body = KlarnaJSON.parsedBody(request)
        let linked = (try? body.get())?["payment_session_url"]?.stringValue.flatMap(KlarnaHPPCreateRequest.paymentSessionID(in:))
        return play(.klarnaHPPCreateSession, request, namespace, subject: try? body.get(), object: "new-hpp-session",
                    sticky: linked.flatMap { payments.scenarioOf(namespace, sessionID: $0) }) { [store, payments] _ in
            let create = try KlarnaJSON.decode(KlarnaHPPCreateRequest.self, from: body.get())
            let (paymentSessionID, paymentSession) = try Self.payableSession(create, namespace, payments: payments)
            let created = try store.create(namespace, create, paymentSessionID: paymentSessionID,
                                           paymentSessionExpiresAt: paymentSession.expiresAt,
                                           baseURL: request.publicOrigin ?? "http://localhost")
            return .klarna(created, status: .created)
        }
    }

    /// The KP session a create request links to (its id and the session), when an HPP session may be made for it: its
    /// URL names a live, open session of this namespace that offers every category asked for.
    private static func payableSession(_ create: KlarnaHPPCreateRequest, _ namespace: Namespace,
                                       payments: KlarnaPaymentsStore) throws(KlarnaError) -> (String, KlarnaSessionRead) {
        guard let url = create.paymentSessionURL, !url.isEmpty else { throw KlarnaError.hppBadCreate("Bad value: payment_session_url") }
        guard let paymentSessionID = KlarnaHPPCreateRequest.paymentSessionID(in: url) else {
            throw KlarnaError.hppBadCreate("Bad value: payment_session_url (expected https://<host>/payments/v1/sessions/<session_id>)")
        }
        // The KP session of this namespace; unknown or expired: 404 "Payment session has expired." (klarna-api.md §3.3).
        guard let paymentSession = try? payments.readSession(namespace, paymentSessionID) else {
            throw KlarnaError.hppPaymentSessionExpired
        }
        // A completed KP session cannot be paid again: it ends its HPP sessions too (§4.2), so none is made (inferred).
        guard paymentSession.status != "complete" else { throw KlarnaError.hppPaymentSessionExpired }
        // "has to be one of the payment categories sent back by KP API"; otherwise 400 (inferred).
        let offered = Set(paymentSession.paymentMethodCategories.map { $0.identifier.uppercased() })
        if let wanted = create.options.paymentMethodCategories, let missing = wanted.first(where: { !offered.contains($0) }) {
            throw KlarnaError.hppBadCreate("Bad value: \(create.options.paymentMethodCategoriesPath ?? "options") "
                + "(\(missing) is not offered by the payment session, which offers \(offered.sorted().joined(separator: ", ")))")
        }
        return (paymentSessionID, paymentSession)
    }

    /// §4.2 read.
    private func readSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, payments.configuration)
        let id = try request.parameters.require("session_id")
        return play(.klarnaHPPReadSession, request, namespace, object: id, sticky: sticky(namespace, id)) { [store] _ in
            .klarna(try store.read(namespace, id))
        }
    }

    /// §4.4 disable: 204, DISABLED.
    private func disableSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, payments.configuration)
        let id = try request.parameters.require("session_id")
        return play(.klarnaHPPDisableSession, request, namespace, object: id, sticky: sticky(namespace, id)) { [store, callbacks] _ in
            if let change = try store.disable(namespace, id) { callbacks.send(change) }
            return HTTPResponse(status: .noContent)
        }
    }

    /// §4.3 distribute: 201, empty. Nothing is sent; the distribution is recorded (state and journal).
    private func distribute(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, payments.configuration)
        let id = try request.parameters.require("session_id")
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaHPPDistributeSession, request, namespace, subject: try? body.get(), object: id,
                    sticky: sticky(namespace, id)) { [store, journal] _ in
            guard (try? store.read(namespace, id)) != nil else { throw KlarnaError.hppDistributionNotFound }
            let distribution = try KlarnaJSON.decode(KlarnaHPPDistributionRequest.self, from: body.get()).distribution
            let recorded = try store.distribute(namespace, id, distribution)
            let link = "\(request.publicOrigin ?? "http://localhost")/hpp/payments/\(id)"
            journal.record(namespace, method: "DISTRIBUTION", path: link, status: 0,
                           note: "\(recorded.method) to \(recorded.recipient) for HPP session \(id): not sent (the sandbox sends no messages)",
                           body: request.body, requestID: request.id)
            return HTTPResponse(status: .created)
        }
    }

    // MARK: The consumer's page and its actions

    /// The hosted page; opening it (not a HEAD) moves the session to IN_PROGRESS.
    private func consumerPage(_ request: HTTPRequest) throws -> HTTPReply {
        let id = try request.parameters.require("session_id")
        guard let context = store.consumerContext(id) else { return HTTPReply(HPPConsumerFlow.page(.notFound, sessionID: id)) }
        // The browser names no namespace: every answer names the session's, for the journal.
        let inNamespace = NamespaceNote(context.namespace)
        if let reason = HPPConsumerFlow.unavailableReason(context) { return HTTPReply(HPPConsumerFlow.page(reason, sessionID: id), note: inNamespace) }
        // "When a Payment Session is being completed, canceled or expires, it is also the case for the HPP Session" (§4.2).
        guard let paymentSession = try? payments.readSession(context.namespace, context.paymentSessionID),
              paymentSession.status != "complete" else { return HTTPReply(HPPConsumerFlow.page(.ended, sessionID: id), note: inNamespace) }
        var status = context.status
        if request.method != .head, let change = store.open(context.namespace, id) {
            callbacks.send(change)
            status = change.session.status
        }
        let cart = Self.cart(paymentSession, wanted: context.options.paymentMethodCategories)
        let response = HPPConsumerFlow.htmlPage(HostedPage.payment(sessionID: id, status: status, title: context.options.pageTitle,
                                                                   cart: cart))
        return HTTPReply(response, note: NamespaceNote(context.namespace, "HPP session \(id): page opened -> \(status.rawValue)"))
    }

    /// What the page shows of the KP session: its lines and amount, and the categories asked for (named as the
    /// session names them), else every category the session offers.
    private static func cart(_ paymentSession: KlarnaSessionRead, wanted: [String]?) -> HostedPage.Cart {
        let fields = paymentSession.fields
        let offered = paymentSession.paymentMethodCategories
        let categories: [HostedPage.Category] = wanted.map { wanted in
            wanted.map { code in
                let match = offered.first { $0.identifier.uppercased() == code }
                return HostedPage.Category(identifier: match?.identifier ?? code.lowercased(),
                                           name: match?.name ?? code.replacingOccurrences(of: "_", with: " ").capitalized)
            }
        } ?? offered.map { HostedPage.Category(identifier: $0.identifier, name: $0.name) }
        return HostedPage.Cart(lines: fields.orderLines ?? [], orderAmount: fields.orderAmount, currency: fields.purchaseCurrency,
                               categories: categories)
    }

    /// A button of the page (its formaction), or a backend test without a browser.
    private func consumerAction(_ action: HPPConsumerAction, _ request: HTTPRequest) throws -> HTTPReply {
        flow.perform(action, sessionID: try request.parameters.require("session_id"), request)
    }

    /// The form's own action: the `action` field names the button.
    private func formAction(_ request: HTTPRequest) throws -> HTTPReply {
        let id = try request.parameters.require("session_id")
        guard let action = HPPConsumerFlow.action(from: request) else {
            let error = KlarnaError(.badRequest, code: "BAD_VALUE", messages: ["Bad value: action (pay, cancel, back or reject)"])
            // Journaled in the session's namespace, as its actions are.
            return HTTPReply(error.response(for: request, ids: store.ids), note: store.namespace(ofSession: id).map { NamespaceNote($0) })
        }
        return flow.perform(action, sessionID: id, request)
    }
}
