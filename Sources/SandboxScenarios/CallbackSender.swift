// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One callback to a merchant: `POST <url>` with `body` as `Content-Type: application/json`, no auth.
package struct Callback: Sendable {
    package let namespace: Namespace
    package let url: String
    package let body: Data
    /// What the callback is, the start of each attempt's journal note.
    package let note: String
    /// The journal's request id of each attempt ("" for none).
    package let requestID: String

    package init(namespace: Namespace, url: String, body: Data, note: String, requestID: String = "") {
        self.namespace = namespace
        self.url = url
        self.body = body
        self.note = note
        self.requestID = requestID
    }
}

/// When a callback that got no 2xx is called again, on the namespace's sandbox clock.
package enum CallbackRetrySchedule: Sendable {
    /// `delay` after each failed call, `calls` calls in all. Notes say "attempt n/m".
    case afterEachFailure(delay: TimeInterval, calls: Int)
    /// At each offset after the first call's start, one call per offset after the first. Notes say "call n/m".
    case afterFirstCall(offsets: [TimeInterval])

    var calls: Int {
        switch self {
        case .afterEachFailure(_, let calls): max(1, calls)
        case .afterFirstCall(let offsets): offsets.count + 1
        }
    }
}

/// Delivers the providers' callbacks: every callback passes through ``send(_:retrying:)``. Each runs in its own
/// task, never on the event loop. A 2xx ends it; any other status, or no answer within `timeout`, is a failure,
/// retried by the caller's ``CallbackRetrySchedule``. Every call goes into the journal as
/// `CALLBACK <url> <status or 0>` with the body and a note (the callback's, the call's number, what went wrong
/// and when the retry is due). A namespace reset (a new `generation`) drops pending retries. The URL's scheme is
/// not checked (local listeners use http).
package final class CallbackSender: Sendable {
    private let registry: NamespaceRegistry
    private let journal: Journal?
    private let timeout: TimeInterval
    private let clockPollInterval: Duration
    private let generation: @Sendable (Namespace) -> Int
    /// Made on the first callback: most sandboxes never send one, and each URLSession holds descriptors.
    private let urlSession = Locked<URLSession?>(nil)

    /// `timeout`: how long a call waits for an answer; `clockPollInterval`: how often a waiting retry looks at the
    /// sandbox clock; `generation`: the namespace's reset count; `journal`: where calls are recorded (nil: not).
    package init(registry: NamespaceRegistry, journal: Journal?, timeout: TimeInterval, clockPollInterval: Duration,
                generation: @escaping @Sendable (Namespace) -> Int) {
        self.registry = registry
        self.journal = journal
        self.timeout = timeout
        self.clockPollInterval = clockPollInterval
        self.generation = generation
    }

    deinit { urlSession.withLock { $0?.invalidateAndCancel() } }

    private var session: URLSession {
        urlSession.withLock { session in
            if let session { return session }
            let settings = URLSessionConfiguration.ephemeral
            settings.timeoutIntervalForRequest = timeout
            settings.timeoutIntervalForResource = timeout
            settings.requestCachePolicy = .reloadIgnoringLocalCacheData
            let made = URLSession(configuration: settings)
            session = made
            return made
        }
    }

    /// Starts delivering `callback`; returns at once.
    package func send(_ callback: Callback, retrying schedule: CallbackRetrySchedule) {
        let generation = self.generation(callback.namespace)
        // The task holds the sender only during a call and a clock check, never while it sleeps: a stopped,
        // released sandbox ends its pending retries.
        Task { [weak self] in
            var firstCall: Date?
            for number in 1...schedule.calls {
                guard let outcome = await self?.attempt(callback, number: number, schedule: schedule, firstCall: firstCall)
                else { return }
                firstCall = firstCall ?? outcome.started
                guard let due = outcome.retryDue else { return }
                while true {
                    guard let wait = self?.pollInterval(until: due, callback.namespace, generation: generation) else { return }
                    if wait == .zero { break }
                    do { try await Task.sleep(for: wait) } catch { return }
                }
            }
        }
    }

    /// One call and its journal entry: when it started on the sandbox clock and, when it got no 2xx and a retry
    /// is left, when the retry is due, fixed before the journal shows the call (a test that reads the journal,
    /// then moves the clock, sees it).
    private func attempt(_ callback: Callback, number: Int, schedule: CallbackRetrySchedule,
                         firstCall: Date?) async -> (started: Date, retryDue: Date?) {
        let startedAt = registry.now(callback.namespace)
        let started = ContinuousClock.now
        let (status, problem) = await post(callback.body, to: callback.url)
        let elapsed = ContinuousClock.now - started
        let delivered = (200..<300).contains(status)
        let calls = schedule.calls
        var retryDue: Date?
        var note: String
        switch schedule {
        case .afterEachFailure(let delay, _):
            note = "\(callback.note), attempt \(number)/\(calls)"
            if let problem { note += ": \(problem)" } else if !delivered { note += ": answered \(status)" }
            if !delivered {
                note += number < calls ? "; retry in \(Int(delay)) s (sandbox clock)" : "; giving up"
                if number < calls { retryDue = registry.now(callback.namespace) + delay }
            }
        case .afterFirstCall(let offsets):
            note = "\(callback.note), call \(number)/\(calls)"
            if let problem { note += ": \(problem)" } else if !delivered { note += ": answered \(status)" }
            if !delivered {
                note += number < calls ? "; retry \(Int(offsets[number - 1])) s after the first call (sandbox clock)" : "; giving up"
                if number < calls { retryDue = (firstCall ?? startedAt) + offsets[number - 1] }
            }
        }
        journal?.record(callback.namespace, method: "CALLBACK", path: callback.url, status: status, note: note,
                        body: callback.body, requestID: callback.requestID, durationSeconds: elapsed / .seconds(1))
        return (startedAt, retryDue)
    }

    /// How long to sleep before looking at the clock again: `.zero` once `due` has come, nil when the namespace
    /// was reset meanwhile (the retry is dropped).
    private func pollInterval(until due: Date, _ namespace: Namespace, generation: Int) -> Duration? {
        guard self.generation(namespace) == generation else { return nil }
        return registry.now(namespace) >= due ? .zero : clockPollInterval
    }

    /// One call: the answer's status (0 when none came) and what went wrong, if anything.
    private func post(_ body: Data, to target: String) async -> (status: Int, problem: String?) {
        guard let url = URL(string: target), url.scheme != nil else { return (0, "not a URL: \(target)") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        do {
            let (_, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return (0, "no HTTP answer") }
            return (http.statusCode, nil)
        } catch let error as URLError where error.code == .timedOut {
            return (0, "no answer within \(timeout) s")
        } catch {
            return (0, "\(error.localizedDescription)")
        }
    }
}
