// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends HPP's `status_update` callbacks (klarna-api.md §4.5): `POST <merchant_urls.status_update>` with
/// `{"event_id": "<uuid>", "session": <the GET session object>}` on every status change.
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
    private let journal: Journal
    /// Made on the first callback: most sandboxes never send one, and each URLSession holds descriptors.
    private let urlSession = Locked<URLSession?>(nil)

    init(store: KlarnaHPPStore, journal: Journal) {
        self.store = store
        self.journal = journal
    }

    deinit { urlSession.withLock { $0?.invalidateAndCancel() } }

    private var session: URLSession {
        urlSession.withLock { session in
            if let session { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = store.configuration.callbackTimeout
            configuration.timeoutIntervalForResource = store.configuration.callbackTimeout
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            let made = URLSession(configuration: configuration)
            session = made
            return made
        }
    }

    /// Starts delivering `change` if its session has a status_update URL; returns at once.
    func send(_ change: HPPStatusChange) {
        guard let target = change.statusUpdateURL else { return }
        let eventID = store.ids.uuid()
        let body = JSONText.object([("event_id", .string(eventID)), ("session", change.session.json)]).data
        let generation = store.generation(change.namespace)
        let namespace = change.namespace
        let attempts = max(1, store.configuration.callbackAttempts)
        // The task holds the sender only during an attempt and a clock check, never while it sleeps: a
        // stopped, released sandbox ends its pending retries.
        Task { [weak self] in
            for attempt in 1...attempts {
                guard let outcome = await self?.attempt(change, to: target, eventID: eventID, body: body,
                                                        number: attempt, of: attempts) else { return }
                guard let due = outcome.retryDue, attempt < attempts else { return }
                while true {
                    guard let wait = self?.pollInterval(until: due, namespace, generation: generation) else { return }
                    if wait == .zero { break }
                    do { try await Task.sleep(for: wait) } catch { return }
                }
            }
        }
    }

    /// One call and its journal entry; when it got no 2xx, the time of the retry on the sandbox clock, fixed
    /// before the journal shows the attempt (a test that reads the journal, then moves the clock, sees it).
    private func attempt(_ change: HPPStatusChange, to target: String, eventID: String, body: Data, number: Int,
                         of attempts: Int) async -> (delivered: Bool, retryDue: Date?) {
        let started = ContinuousClock.now
        let (status, problem) = await post(body, to: target)
        let elapsed = ContinuousClock.now - started
        let delivered = (200..<300).contains(status)
        var note = "status_update \(change.session.status.rawValue) of HPP session \(change.session.sessionID), "
            + "event_id \(eventID), attempt \(number)/\(attempts)"
        if let problem { note += ": \(problem)" } else if !delivered { note += ": answered \(status)" }
        if !delivered {
            note += number < attempts ? "; retry in \(Int(store.configuration.callbackRetryDelay)) s (sandbox clock)" : "; giving up"
        }
        let retryDue = delivered ? nil : self.retryDue(change.namespace)
        journal.record(change.namespace, method: "CALLBACK", path: target, status: status, note: note, body: body, requestID: eventID,
                       durationSeconds: elapsed / .seconds(1))
        return (delivered, retryDue)
    }

    /// When the next retry is due on the namespace's sandbox clock.
    private func retryDue(_ namespace: Namespace) -> Date { store.registry.now(namespace) + store.configuration.callbackRetryDelay }

    /// How long to sleep before looking at the clock again: `.zero` once `due` has come, nil when the
    /// namespace was reset meanwhile (the retry is dropped).
    private func pollInterval(until due: Date, _ namespace: Namespace, generation: Int) -> Duration? {
        guard store.generation(namespace) == generation else { return nil }
        return store.registry.now(namespace) >= due ? .zero : store.configuration.callbackClockPollInterval
    }

    /// One call: the answer's status (0 when none came) and what went wrong, if anything.
    private func post(_ body: Data, to target: String) async -> (status: Int, problem: String?) {
        guard let url = URL(string: target), url.scheme != nil else { return (0, "not a URL: \(target)") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: store.configuration.callbackTimeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return (0, "no HTTP answer") }
            return (http.statusCode, nil)
        } catch let error as URLError where error.code == .timedOut {
            return (0, "no answer within \(store.configuration.callbackTimeout) s")
        } catch {
            return (0, "\(error.localizedDescription)")
        }
    }
}
