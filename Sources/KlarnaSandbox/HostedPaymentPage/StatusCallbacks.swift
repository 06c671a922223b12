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
final class HPPStatusCallbacks: Sendable {
    private let store: KlarnaHPPStore
    private let sender: CallbackSender

    init(store: KlarnaHPPStore, journal: Journal) {
        self.store = store
        sender = CallbackSender(registry: store.registry, journal: journal, timeout: store.configuration.callbackTimeout,
                                clockPollInterval: store.configuration.callbackClockPollInterval) { store.generation($0) }
    }

    /// Starts delivering `change` if its session has a status_update URL; returns at once.
    func send(_ change: HPPStatusChange) {
        guard let target = change.statusUpdateURL else { return }
        let eventID = store.ids.uuid()
        let body = JSONText.object([("event_id", .string(eventID)), ("session", change.session.json)]).data
        let note = "status_update \(change.session.status.rawValue) of HPP session \(change.session.sessionID), event_id \(eventID)"
        // A failed call is retried after a delay, a fixed number of calls in all (klarna-api.md §4.5).
        sender.send(Callback(namespace: change.namespace, url: target, body: body, note: note, requestID: eventID),
                    retrying: .afterEachFailure(delay: store.configuration.callbackRetryDelay,
                                                calls: store.configuration.callbackAttempts))
    }
}
