// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One callback to deliver: `POST <urls.callbackUrl>` with `body` (swedbankpay-api.md §1.8).
struct SwedbankPayCallbackEvent: Sendable {
    let namespace: Namespace
    let url: String
    let body: Data
    let note: String
}

/// Sends payment-order callbacks (swedbankpay-api.md §1.8), as Klarna HPP's status callbacks do: each in its own
/// task, never on the event loop, `Content-Type: application/json`, no auth. A 2xx ends it (the docs say "expects
/// 200 OK"; any 2xx is inferred leniency); anything else, or no answer within ``SwedbankPayConfiguration/callbackTimeout``,
/// is retried at ``SwedbankPayConfiguration/callbackRetryOffsets`` after the first call on the namespace's sandbox
/// clock (§1.8: 30, 60, 360, 432, 864, 1265 s). Every call is journaled as `CALLBACK <url> <status or 0>`. A namespace
/// reset drops pending retries.
final class SwedbankPayCallbacks: Sendable {
    private let registry: NamespaceRegistry
    private let configuration: SwedbankPayConfiguration
    private let journal: Journal?
    private let generation: @Sendable (Namespace) -> Int
    /// Made on the first callback: most sandboxes never send one, and each URLSession holds descriptors.
    private let urlSession = Locked<URLSession?>(nil)

    init(registry: NamespaceRegistry, configuration: SwedbankPayConfiguration, journal: Journal?,
         generation: @escaping @Sendable (Namespace) -> Int) {
        self.registry = registry
        self.configuration = configuration
        self.journal = journal
        self.generation = generation
    }

    deinit { urlSession.withLock { $0?.invalidateAndCancel() } }

    private var session: URLSession {
        urlSession.withLock { session in
            if let session { return session }
            let settings = URLSessionConfiguration.ephemeral
            settings.timeoutIntervalForRequest = configuration.callbackTimeout
            settings.timeoutIntervalForResource = configuration.callbackTimeout
            settings.requestCachePolicy = .reloadIgnoringLocalCacheData
            let made = URLSession(configuration: settings)
            session = made
            return made
        }
    }

    /// Starts delivering `event`; returns at once.
    func send(_ event: SwedbankPayCallbackEvent) {
        let generation = self.generation(event.namespace)
        let offsets = configuration.callbackRetryOffsets
        // The task holds the sender only during a call and a clock check, never while it sleeps: a stopped,
        // released sandbox ends its pending retries.
        Task { [weak self] in
            var first: Date?
            for number in 0...offsets.count {
                guard let started = await self?.attempt(event, number: number, of: offsets.count + 1) else { return }
                if started.delivered { return }
                let firstCall = first ?? started.at
                first = firstCall
                guard number < offsets.count else { return }
                let due = firstCall + offsets[number]
                while true {
                    guard let wait = self?.pollInterval(until: due, event.namespace, generation: generation) else { return }
                    if wait == .zero { break }
                    do { try await Task.sleep(for: wait) } catch { return }
                }
            }
        }
    }

    /// One call and its journal entry: whether it was delivered and when it started on the sandbox clock.
    private func attempt(_ event: SwedbankPayCallbackEvent, number: Int, of calls: Int) async -> (delivered: Bool, at: Date) {
        let at = registry.now(event.namespace)
        let started = ContinuousClock.now
        let (status, problem) = await post(event.body, to: event.url)
        let elapsed = ContinuousClock.now - started
        let delivered = (200..<300).contains(status)
        var note = "\(event.note), call \(number + 1)/\(calls)"
        if let problem { note += ": \(problem)" } else if !delivered { note += ": answered \(status)" }
        if !delivered {
            note += number + 1 < calls
                ? "; retry \(Int(configuration.callbackRetryOffsets[number])) s after the first call (sandbox clock)" : "; giving up"
        }
        journal?.record(event.namespace, method: "CALLBACK", path: event.url, status: status, note: note, body: event.body,
                        durationSeconds: elapsed / .seconds(1))
        return (delivered, at)
    }

    /// `.zero` once `due` has come on the namespace clock, nil when the namespace was reset meanwhile.
    private func pollInterval(until due: Date, _ namespace: Namespace, generation: Int) -> Duration? {
        guard self.generation(namespace) == generation else { return nil }
        return registry.now(namespace) >= due ? .zero : configuration.callbackClockPollInterval
    }

    private func post(_ body: Data, to target: String) async -> (status: Int, problem: String?) {
        guard let url = URL(string: target), url.scheme != nil else { return (0, "not a URL: \(target)") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: configuration.callbackTimeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return (0, "no HTTP answer") }
            return (http.statusCode, nil)
        } catch let error as URLError where error.code == .timedOut {
            return (0, "no answer within \(configuration.callbackTimeout) s")
        } catch {
            return (0, "\(error.localizedDescription)")
        }
    }
}
