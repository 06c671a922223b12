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

    package init(store: KlarnaHPPStore, payments: KlarnaPaymentsStore, orders: KlarnaOrderManagementStore,
                scenarios: ScenarioEngine, journal: Journal, outbox: CallbackOutbox? = nil) {
        self.store = store
        self.payments = payments
        self.orders = orders
        self.scenarios = scenarios
        self.journal = journal
        self.outbox = outbox
    }

    package func add(to router: inout Router) {
        let store = self.store, payments = self.payments, journal = self.journal
        let play = ScenarioPlayer(engine: scenarios, ids: store.ids)
        /// Scenarios stick to the linked KP session (its scenario decides the HPP session's calls too).
        @Sendable func sticky(_ namespace: Namespace, _ id: String) -> String? {
            store.paymentSessionID(namespace, id).flatMap { payments.scenarioOf(namespace, sessionID: $0) }
        }

        let callbacks = HPPStatusCallbacks(store: store, journal: journal, outbox: outbox, scenarios: scenarios,
                                           sticky: { namespace, id in sticky(namespace, id) })
        let flow = HPPConsumerFlow(store: store, payments: payments, orders: orders, play: play, callbacks: callbacks)

        // §4.1 create: 201 SessionCreationResponseV1.
        router.addImmediate("POST /hpp/v1/sessions") { request in
            let namespace = try authenticate(request, payments.configuration)
            let body = KlarnaJSON.parsedBody(request)
            let linked = (try? body.get())?["payment_session_url"]?.stringValue.flatMap(KlarnaHPPCreateRequest.paymentSessionID(in:))
            return play(.klarnaHPPCreateSession, request, namespace, subject: try? body.get(), object: "new-hpp-session",
                        sticky: linked.flatMap { payments.scenarioOf(namespace, sessionID: $0) }) { _ in
                let create = try KlarnaJSON.decode(KlarnaHPPCreateRequest.self, from: body.get())
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
                let created = try store.create(namespace, create, paymentSessionID: paymentSessionID,
                                               paymentSessionExpiresAt: paymentSession.expiresAt,
                                               baseURL: request.publicOrigin ?? "http://localhost")
                return .klarna(created, status: .created)
            }
        }
        // §4.2 read.
        router.addImmediate("GET /hpp/v1/sessions/:session_id") { request in
            let namespace = try authenticate(request, payments.configuration)
            let id = try request.parameters.require("session_id")
            return play(.klarnaHPPReadSession, request, namespace, object: id, sticky: sticky(namespace, id)) { _ in
                .klarna(try store.read(namespace, id))
            }
        }
        // §4.4 disable: 204, DISABLED.
        router.addImmediate("DELETE /hpp/v1/sessions/:session_id") { request in
            let namespace = try authenticate(request, payments.configuration)
            let id = try request.parameters.require("session_id")
            return play(.klarnaHPPDisableSession, request, namespace, object: id, sticky: sticky(namespace, id)) { _ in
                if let change = try store.disable(namespace, id) { callbacks.send(change) }
                return HTTPResponse(status: .noContent)
            }
        }
        // §4.3 distribute: 201, empty. Nothing is sent; the distribution is recorded (state and journal).
        router.addImmediate("POST /hpp/v1/sessions/:session_id/distribution") { request in
            let namespace = try authenticate(request, payments.configuration)
            let id = try request.parameters.require("session_id")
            let body = KlarnaJSON.parsedBody(request)
            return play(.klarnaHPPDistributeSession, request, namespace, subject: try? body.get(), object: id,
                        sticky: sticky(namespace, id)) { _ in
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

        // The consumer's page (no auth: the browser follows redirect_url). Opening it moves the session to IN_PROGRESS.
        router.addImmediate("GET /hpp/payments/:session_id") { request in
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
            let fields = paymentSession.fields
            let offered = paymentSession.paymentMethodCategories
            let categories: [HostedPage.Category] = context.options.paymentMethodCategories.map { wanted in
                wanted.map { code in
                    let match = offered.first { $0.identifier.uppercased() == code }
                    return HostedPage.Category(identifier: match?.identifier ?? code.lowercased(),
                                               name: match?.name ?? code.replacingOccurrences(of: "_", with: " ").capitalized)
                }
            } ?? offered.map { HostedPage.Category(identifier: $0.identifier, name: $0.name) }
            let cart = HostedPage.Cart(lines: fields.orderLines ?? [], orderAmount: fields.orderAmount, currency: fields.purchaseCurrency,
                                       categories: categories)
            let response = HPPConsumerFlow.htmlPage(HostedPage.payment(sessionID: id, status: status, title: context.options.pageTitle,
                                                                       cart: cart))
            return HTTPReply(response, note: NamespaceNote(context.namespace, "HPP session \(id): page opened -> \(status.rawValue)"))
        }

        // The page's buttons (formaction) and backend tests without a browser.
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/pay") { request in
            flow.perform(.pay, sessionID: try request.parameters.require("session_id"), request)
        }
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/cancel") { request in
            flow.perform(.cancel, sessionID: try request.parameters.require("session_id"), request)
        }
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/back") { request in
            flow.perform(.back, sessionID: try request.parameters.require("session_id"), request)
        }
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id/reject") { request in
            flow.perform(.reject, sessionID: try request.parameters.require("session_id"), request)
        }
        // The form's own action, for a browser that ignores formaction: the `action` field decides.
        router.addImmediate("POST /__sandbox/klarna/hpp/sessions/:session_id") { request in
            let id = try request.parameters.require("session_id")
            guard let action = HPPConsumerFlow.action(from: request) else {
                let error = KlarnaError(.badRequest, code: "BAD_VALUE", messages: ["Bad value: action (pay, cancel, back or reject)"])
                // Journaled in the session's namespace, as its actions are.
                return HTTPReply(error.response(for: request, ids: store.ids), note: store.namespace(ofSession: id).map { NamespaceNote($0) })
            }
            return flow.perform(action, sessionID: id, request)
        }
    }
}
