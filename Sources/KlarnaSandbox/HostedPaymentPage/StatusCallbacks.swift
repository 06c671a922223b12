// SPDX-License-Identifier: MIT
import Foundation

/// Sends HPP's `status_update` callbacks (klarna-api.md §4.5): `POST <merchant_urls.status_update>` with
/// `{"event_id": "<uuid>", "session": <the GET session object>}` on every status change, through the shared
/// ``CallbackSender``.
///
/// "HPP makes calls to the status_update URL without waiting for a response": each callback runs in its own
/// task, never on the event loop. A 2xx ends it; no answer within ``KlarnaHPPConfiguration/callbackTimeout``
/// or any other status is a failure (inferred), retried after ``KlarnaHPPConfiguration/callbackRetryDelay``
/// of the namespace's sandbox clock, up to ``KlarnaHPPConfiguration/callbackAttempts`` calls in all. Retries
/// reuse the event id (inferred: it is there for de-duplication). Every attempt goes into the journal as
/// `CALLBACK <url> <status or 0>`. The URL's scheme is not checked: Klarna requires HTTPS, the sandbox
/// allows http for local listeners (inferred).
///
/// Each callback is kept in the outbox (`/__sandbox/callbacks`, object: the HPP session id) and played as
/// `klarna.hpp.status_callback` under the linked KP session's scenario, else the namespace default; field
/// conditions look at the body (`session.status`), sequences count the session's callbacks.
final class HPPStatusCallbacks: Sendable {
    private let store: KlarnaHPPStore
    private let sender: CallbackSender
    private let scenarios: ScenarioEngine?
    private let sticky: @Sendable (Namespace, String) -> String?

    init(store: KlarnaHPPStore, journal: Journal, outbox: CallbackOutbox? = nil, scenarios: ScenarioEngine? = nil,
         sticky: @escaping @Sendable (Namespace, String) -> String? = { _, _ in nil }) {
        self.store = store
        self.scenarios = scenarios
        self.sticky = sticky
        sender = CallbackSender(registry: store.registry, journal: journal, outbox: outbox, timeout: store.configuration.callbackTimeout,
                                clockPollInterval: store.configuration.callbackClockPollInterval) { store.generation($0) }
    }

    /// Starts delivering `change` if its session has a status_update URL; returns at once. The delivery lets the
    /// consumer's redirect wait for it (``CallbackDelivery/beforeRedirect(_:)``).
    @discardableResult
    func send(_ change: HPPStatusChange) -> CallbackDelivery? {
        guard let target = change.statusUpdateURL else { return nil }
        let eventID = store.ids.uuid()
        let sessionID = change.session.sessionID
        let body = JSONText.object([("event_id", .string(eventID)), ("session", change.session.json)]).data
        let plan = scenarios?.planCallback(.klarnaHPPStatusCallback, namespace: change.namespace, body: body, object: sessionID,
                                           sticky: sticky(change.namespace, sessionID)) ?? .normal
        let note = "status_update \(change.session.status.rawValue) of HPP session \(sessionID), event_id \(eventID)"
        // A failed call is retried after a delay, a fixed number of calls in all (klarna-api.md §4.5).
        return sender.send(Callback(namespace: change.namespace, url: target, body: body, note: note, requestID: eventID,
                                    object: sessionID, operation: ScenarioOperation.klarnaHPPStatusCallback.rawValue),
                           retrying: .afterEachFailure(delay: store.configuration.callbackRetryDelay,
                                                       calls: store.configuration.callbackAttempts),
                           plan: plan)
    }
}

extension Optional where Wrapped == CallbackDelivery {
    /// `reply`, after the callback's first call when its scenario says the redirect waits for it.
    func beforeRedirect(_ reply: HTTPReply) -> HTTPReply { self?.beforeRedirect(reply) ?? reply }
}
