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
    /// The id of the object it is about (an HPP session, a payment order), for the outbox.
    package let object: String
    /// The scenario operation that plays it, for the outbox.
    package let operation: String

    package init(namespace: Namespace, url: String, body: Data, note: String, requestID: String = "", object: String = "",
                operation: String = "") {
        self.namespace = namespace
        self.url = url
        self.body = body
        self.note = note
        self.requestID = requestID
        self.object = object
        self.operation = operation
    }

    /// The headers every callback is sent with.
    package static let headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
}

/// What a scenario makes of one callback (``CallbackOutcome``): the plain delivery is ``normal``.
package struct CallbackPlan: Sendable {
    /// Not sent: kept in the outbox as `held`, delivered only by hand.
    package var held = false
    /// Real time to wait before the first call (a step's `delay_ms`).
    package var delay: Duration?
    /// Seconds of the namespace's sandbox clock to wait before the first call.
    package var lateSeconds: TimeInterval?
    /// How many times the callback is sent (each copy its own outbox entry and retries).
    package var copies = 1
    /// How many calls fail without calling the merchant (nil: every call of the schedule).
    package var simulatedFailures: Int? = 0
    /// The status those calls pretend the merchant answered; nil: no answer.
    package var simulatedStatus: Int? = 500
    /// The payer's redirect waits until the first call has its answer (see ``CallbackDelivery``).
    package var holdsRedirect = false
    /// The scenario decision, when a rule matched (outbox and journal show it).
    package var scenario: String?

    package init() {}

    package static let normal = CallbackPlan()
}

/// A callback underway: lets the payer's redirect wait until the first call got its answer
/// (``CallbackPlan/holdsRedirect``).
package struct CallbackDelivery: Sendable {
    /// The outbox ids of its copies (empty without an outbox).
    package let ids: [String]
    package let holdsRedirect: Bool
    let firstAnswers: [CallbackGate]

    /// Returns once every copy's first call has its answer (or will never be made).
    package func firstCallAnswered() async {
        for gate in firstAnswers { await gate.wait() }
    }

    /// `reply`, or when the redirect waits for the callback, `reply` once the first call has its answer.
    package func beforeRedirect(_ reply: HTTPReply) -> HTTPReply {
        guard holdsRedirect else { return reply }
        return .later(note: reply.note) {
            await firstCallAnswered()
            return reply
        }
    }
}

/// Opens once; every waiter then returns.
final class CallbackGate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
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

/// Delivers the providers' callbacks: every callback passes through ``send(_:retrying:plan:)``. Each runs in its
/// own task, never on the event loop. A 2xx ends it; any other status, or no answer within `timeout`, is a failure,
/// retried by the caller's ``CallbackRetrySchedule``. Every call goes into the journal as
/// `CALLBACK <url> <status or 0>` with the body and a note (the callback's, the call's number, what went wrong
/// and when the retry is due), and every callback into the ``CallbackOutbox`` with its calls. A namespace reset
/// (a new `generation`) drops pending retries, and so does a delivery by hand. The URL's scheme is not checked
/// (local listeners use http).
package final class CallbackSender: Sendable {
    private let registry: NamespaceRegistry
    private let journal: Journal?
    private let outbox: CallbackOutbox?
    private let clockPollInterval: Duration
    private let generation: @Sendable (Namespace) -> Int
    private let client: CallbackHTTPClient

    /// `timeout`: how long a call waits for an answer; `clockPollInterval`: how often a waiting retry looks at the
    /// sandbox clock; `generation`: the namespace's reset count; `journal`: where calls are recorded (nil: not);
    /// `outbox`: where callbacks are kept (nil: not).
    package init(registry: NamespaceRegistry, journal: Journal?, outbox: CallbackOutbox? = nil, timeout: TimeInterval,
                clockPollInterval: Duration, generation: @escaping @Sendable (Namespace) -> Int) {
        self.registry = registry
        self.journal = journal
        self.outbox = outbox
        self.clockPollInterval = clockPollInterval
        self.generation = generation
        client = CallbackHTTPClient(timeout: timeout)
    }

    /// Starts delivering `callback` as `plan` says; returns at once.
    @discardableResult
    package func send(_ callback: Callback, retrying schedule: CallbackRetrySchedule, plan: CallbackPlan = .normal) -> CallbackDelivery {
        let generation = self.generation(callback.namespace)
        var ids: [String] = [], gates: [CallbackGate] = []
        for copy in 1...max(1, plan.copies) {
            var callback = callback
            if plan.copies > 1 {
                callback = Callback(namespace: callback.namespace, url: callback.url, body: callback.body,
                                    note: callback.note + " (copy \(copy)/\(plan.copies))", requestID: callback.requestID,
                                    object: callback.object, operation: callback.operation)
            }
            let lateDue = plan.lateSeconds.map { registry.now(callback.namespace) + $0 }
            let id = outbox?.add(callback.namespace, object: callback.object, operation: callback.operation, description: callback.note,
                                 url: callback.url, headers: Callback.headers, body: callback.body,
                                 state: plan.held ? .held : .pending, due: lateDue, scenario: plan.scenario)
            // The journal's notes name the scenario decision too.
            if let scenario = plan.scenario {
                callback = Callback(namespace: callback.namespace, url: callback.url, body: callback.body, note: "\(callback.note) (\(scenario))",
                                    requestID: callback.requestID, object: callback.object, operation: callback.operation)
            }
            if let id { ids.append(id) }
            if plan.held {
                journal?.record(callback.namespace, method: "CALLBACK", path: callback.url, status: 0,
                                note: "\(callback.note): not sent (held in the outbox\(id.map { " as \($0)" } ?? ""))",
                                body: callback.body, requestID: callback.requestID)
                continue
            }
            let gate = CallbackGate()
            gates.append(gate)
            // The task holds the sender only during a call and a clock check, never while it sleeps: a stopped,
            // released sandbox ends its pending retries.
            Task { [weak self] in
                defer { gate.open() }
                /// Sleeps until `due` on the namespace's clock; false when the sandbox is gone or the namespace was reset.
                func wait(until due: Date) async -> Bool {
                    while true {
                        guard let wait = self?.pollInterval(until: due, callback.namespace, generation: generation) else { return false }
                        if wait == .zero { return true }
                        do { try await Task.sleep(for: wait) } catch { return false }
                    }
                }
                if let delay = plan.delay {
                    do { try await Task.sleep(for: delay) } catch { return }
                }
                if let lateDue, await !wait(until: lateDue) { return }
                var firstCall: Date?
                for number in 1...schedule.calls {
                    // Delivered by hand meanwhile (during a late first call's wait or a retry's): nothing left to do.
                    if let id, self?.outbox?.isDelivered(callback.namespace, id) ?? true { return }
                    let simulated = plan.simulatedFailures.map { number <= $0 } ?? true
                    guard let outcome = await self?.attempt(callback, id: id, number: number, schedule: schedule, firstCall: firstCall,
                                                            simulating: simulated ? plan.simulatedStatus : nil, simulated: simulated)
                    else { return }
                    gate.open()
                    firstCall = firstCall ?? outcome.started
                    guard let due = outcome.retryDue else { return }
                    if await !wait(until: due) { return }
                }
            }
        }
        return CallbackDelivery(ids: ids, holdsRedirect: plan.holdsRedirect, firstAnswers: gates)
    }

    /// One call and its journal entry: when it started on the sandbox clock and, when it got no 2xx and a retry
    /// is left, when the retry is due, fixed before the journal shows the call (a test that reads the journal,
    /// then moves the clock, sees it). `simulated`: the call is not made; it fails with `simulating` (a status,
    /// nil for no answer).
    private func attempt(_ callback: Callback, id: String?, number: Int, schedule: CallbackRetrySchedule, firstCall: Date?,
                         simulating: Int?, simulated: Bool) async -> (started: Date, retryDue: Date?) {
        let startedAt = registry.now(callback.namespace)
        let started = ContinuousClock.now
        var (status, problem): (Int, String?)
        if simulated {
            (status, problem) = (simulating ?? 0, simulating == nil ? "no answer (simulated by the scenario)" : nil)
        } else {
            (status, problem) = await client.post(callback.body, to: callback.url)
        }
        let elapsed = ContinuousClock.now - started
        let delivered = (200..<300).contains(status)
        let calls = schedule.calls
        var retryDue: Date?
        var note: String
        switch schedule {
        case .afterEachFailure(let delay, _):
            note = "\(callback.note), attempt \(number)/\(calls)"
            if let problem { note += ": \(problem)" } else if !delivered { note += ": answered \(status)" }
            if simulated, simulating != nil { note += " (simulated by the scenario)" }
            if !delivered {
                note += number < calls ? "; retry in \(Int(delay)) s (sandbox clock)" : "; giving up"
                if number < calls { retryDue = registry.now(callback.namespace) + delay }
            }
        case .afterFirstCall(let offsets):
            note = "\(callback.note), call \(number)/\(calls)"
            if let problem { note += ": \(problem)" } else if !delivered { note += ": answered \(status)" }
            if simulated, simulating != nil { note += " (simulated by the scenario)" }
            if !delivered {
                note += number < calls ? "; retry \(Int(offsets[number - 1])) s after the first call (sandbox clock)" : "; giving up"
                if number < calls { retryDue = (firstCall ?? startedAt) + offsets[number - 1] }
            }
        }
        if let id {
            outbox?.record(callback.namespace, id,
                           CallbackOutbox.Attempt(time: startedAt, url: callback.url, status: status == 0 ? nil : status, error: problem,
                                                  simulated: simulated, durationSeconds: elapsed / .seconds(1)),
                           state: delivered ? .delivered : (retryDue == nil ? .failed : .pending), due: retryDue)
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
}

/// POSTs callbacks: a URLSession made on the first call (most sandboxes never send one, and each URLSession
/// holds descriptors).
package final class CallbackHTTPClient: Sendable {
    private let timeout: TimeInterval
    private let urlSession = Locked<URLSession?>(nil)

    package init(timeout: TimeInterval) { self.timeout = timeout }

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

    /// One call: the answer's status (0 when none came) and what went wrong, if anything.
    package func post(_ body: Data, to target: String) async -> (status: Int, problem: String?) {
        guard let url = URL(string: target), url.scheme != nil else { return (0, "not a URL: \(target)") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for header in Callback.headers { request.setValue(header.value, forHTTPHeaderField: header.name) }
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
