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
/// own task, never on the event loop. A 2xx ends it; any other status (a 3xx too: redirects are not followed), or no
/// whole answer within `timeout` (one deadline for the call, see ``CallbackHTTPClient``), is a failure, retried by the
/// caller's ``CallbackRetrySchedule``. Every call goes into the journal as `CALLBACK <url> <status or 0>` with the
/// body and a note (the callback's, the call's number, what went wrong and when the retry is due), and every callback
/// into the ``CallbackOutbox`` with its calls. A callback waiting for a late first call or a retry waits on
/// ``CallbackTimers`` (no CPU until it is due); a namespace reset (a new `generation`) drops it, and so do a delivery
/// by hand and the callback's leaving the outbox (evicted). The URL's scheme is not checked (local listeners use http).
package final class CallbackSender: Sendable {
    private let registry: NamespaceRegistry
    private let journal: Journal?
    private let outbox: CallbackOutbox?
    private let generation: @Sendable (Namespace) -> Int
    private let client: CallbackHTTPClient
    private let timers: CallbackTimers

    /// `timeout`: the deadline of one call, answer included; `clockPollInterval`: how often the waiting callbacks'
    /// one timer looks at a base clock other than the system's (a test's `ManualClock`; namespace clock moves are
    /// seen at once); `generation`: the namespace's reset count; `journal`: where calls are recorded (nil: not);
    /// `outbox`: where callbacks are kept (nil: not).
    package init(registry: NamespaceRegistry, journal: Journal?, outbox: CallbackOutbox? = nil, timeout: TimeInterval,
                clockPollInterval: Duration, generation: @escaping @Sendable (Namespace) -> Int) {
        self.registry = registry
        self.journal = journal
        self.outbox = outbox
        self.generation = generation
        client = CallbackHTTPClient(timeout: timeout)
        let timers = CallbackTimers(registry: registry, pollInterval: clockPollInterval, generation: generation) { [weak outbox] namespace, id in
            outbox.map { $0.entry(namespace, id) != nil } ?? false
        }
        self.timers = timers
        outbox?.onRemoval { [weak timers] ids in timers?.cancel(outboxIDs: ids) }
    }

    deinit { timers.cancelAll() }

    /// Callbacks waiting for a late first call or a retry (tests).
    package var waitingCallbacks: Int { timers.waiting }

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
            let timers = self.timers
            // The task holds the sender only during a call, never while it waits: a stopped, released sandbox ends
            // its waiting callbacks (the sender's deinit cancels their waits).
            Task { [weak self] in
                defer { gate.open() }
                /// Waits until `due` on the namespace's clock; false when the sandbox is gone, the namespace was reset
                /// or the callback left the outbox.
                func wait(until due: Date) async -> Bool {
                    await timers.wait(until: due, callback.namespace, generation: generation, outboxID: id)
                }
                if let delay = plan.delay {
                    do { try await Task.sleep(for: delay) } catch { return }
                }
                if let lateDue, await !wait(until: lateDue) { return }
                var firstCall: Date?
                for number in 1...schedule.calls {
                    // Delivered by hand meanwhile (during a late first call's wait or a retry's), or evicted: nothing left to do.
                    if let id, self?.outbox?.isDeliveredOrGone(callback.namespace, id) ?? true { return }
                    let simulated = plan.simulatedFailures.map { number <= $0 } ?? true
                    guard let outcome = await self?.attempt(callback, id: id, number: number, schedule: schedule, firstCall: firstCall,
                                                            simulating: simulated ? plan.simulatedStatus : nil, simulated: simulated)
                    else { return }
                    gate.open()
                    firstCall = firstCall ?? outcome.started
                    guard outcome.kept, let due = outcome.retryDue else { return }
                    if await !wait(until: due) { return }
                }
            }
        }
        return CallbackDelivery(ids: ids, holdsRedirect: plan.holdsRedirect, firstAnswers: gates)
    }

    /// One call and its journal entry: when it started on the sandbox clock, whether the outbox still keeps the
    /// callback and, when it got no 2xx and a retry is left, when the retry is due, fixed before the journal shows
    /// the call (a test that reads the journal, then moves the clock, sees it). `simulated`: the call is not made;
    /// it fails with `simulating` (a status, nil for no answer).
    private func attempt(_ callback: Callback, id: String?, number: Int, schedule: CallbackRetrySchedule, firstCall: Date?,
                         simulating: Int?, simulated: Bool) async -> (started: Date, retryDue: Date?, kept: Bool) {
        let startedAt = registry.now(callback.namespace)
        let started = ContinuousClock.now
        let answer: CallbackAnswer
        if simulated {
            answer = CallbackAnswer(status: simulating ?? 0, problem: simulating == nil ? "no answer (simulated by the scenario)" : nil)
        } else {
            answer = await client.post(callback.body, to: callback.url)
        }
        let (status, problem) = (answer.status, answer.problem)
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
        var kept = true
        if let id, let outbox {
            kept = outbox.record(callback.namespace, id,
                                 CallbackOutbox.Attempt(time: startedAt, url: callback.url, status: status == 0 ? nil : status, error: problem,
                                                        simulated: simulated, durationSeconds: elapsed / .seconds(1), answer: answer.answerText),
                                 state: delivered ? .delivered : (retryDue == nil ? .failed : .pending), due: retryDue)
        }
        journal?.record(callback.namespace, method: "CALLBACK", path: callback.url, status: status, note: note,
                        body: callback.body, requestID: callback.requestID, durationSeconds: elapsed / .seconds(1))
        return (startedAt, retryDue, kept)
    }
}

/// What one call of a callback got.
package struct CallbackAnswer: Sendable {
    /// The answer's status; 0 when none came (in time).
    package var status: Int
    /// What went wrong without an answer.
    package var problem: String?
    /// The start of the answer's body, at most ``CallbackHTTPClient/answerPrefixBytes``.
    package var answer: Data?

    package init(status: Int, problem: String?, answer: Data? = nil) {
        self.status = status
        self.problem = problem
        self.answer = answer
    }

    /// The body's start as text (invalid UTF-8 replaced), for the outbox; nil when no answer came.
    package var answerText: String? { answer.map { String(decoding: $0, as: UTF8.self) } }
}

/// POSTs callbacks. One deadline (`timeout`) covers a whole call, enforced by the sandbox: resolving, connecting,
/// sending and the answer. Of the answer only the status and the first ``answerPrefixBytes`` of the body are read;
/// then the connection is dropped. Redirects are not followed: a 3xx is the answer (a failed call).
/// - `http://`: ``BoundedHTTPClient``, a connection per call, so a slow endpoint holds only its own.
/// - `https://`: URLSession (libcurl: the only TLS here), one session made on the first such call, with as many
///   connections per host as calls underway; a delegate keeps the answer's prefix and cancels the task once it has
///   it. On Linux, swift-corelibs-foundation neither pauses nor stops a transfer at once: what arrives before the
///   cancel (or the deadline) takes effect is read and dropped, not kept.
package final class CallbackHTTPClient: Sendable {
    /// How much of an answer's body is read and kept.
    package static let answerPrefixBytes = 4 * 1024
    private let timeout: TimeInterval
    private let secure = Locked<SecureCalls?>(nil)

    package init(timeout: TimeInterval) { self.timeout = timeout }

    deinit { secure.withLock { $0?.invalidate() } }

    /// One call.
    package func post(_ body: Data, to target: String) async -> CallbackAnswer {
        guard let url = URL(string: target), let scheme = url.scheme?.lowercased() else {
            return CallbackAnswer(status: 0, problem: "not a URL: \(target.prefix(200))")
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(max(0, timeout) * 1000))
        switch scheme {
        case "http":
            switch await BoundedHTTPClient.post(body, headers: Callback.headers, to: target, deadline: deadline, bodyPrefix: Self.answerPrefixBytes) {
            case .success(let answer): return CallbackAnswer(status: answer.status, problem: nil, answer: answer.body)
            case .failure(.timedOut(let what)): return CallbackAnswer(status: 0, problem: "no whole answer within \(Self.seconds(timeout)) s: \(what)")
            case .failure(let failure): return CallbackAnswer(status: 0, problem: failure.description)
            }
        case "https":
            let calls = secure.withLock { calls in
                if let calls { return calls }
                let made = SecureCalls(timeout: timeout)
                calls = made
                return made
            }
            return await calls.post(body, to: url, deadline: deadline, timeout: timeout)
        default:
            return CallbackAnswer(status: 0, problem: "unsupported URL scheme \(scheme): (only http and https)")
        }
    }

    static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// `https` callbacks through one URLSession. Its delegate refuses redirects, keeps the first
/// ``CallbackHTTPClient/answerPrefixBytes`` of an answer's body and then cancels the task; the deadline answers at
/// once and cancels the task too. Nothing is cached (no URLCache: it would keep bodies).
final class SecureCalls: NSObject, URLSessionDataDelegate, Sendable {
    private struct Call {
        var continuation: CheckedContinuation<CallbackAnswer, Never>
        var status: Int?
        var body = Data()
        var deadlineText: String
    }

    private let calls = Locked<[Int: Call]>([:])
    private let urlSession = Locked<URLSession?>(nil)
    private static let deadlineQueue = DispatchQueue(label: "sandbox.callback-deadlines")

    init(timeout: TimeInterval) {
        super.init()
        let settings = URLSessionConfiguration.ephemeral
        settings.timeoutIntervalForRequest = timeout
        settings.timeoutIntervalForResource = timeout
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        settings.urlCache = nil
        settings.httpCookieStorage = nil
        settings.httpShouldSetCookies = false
        // libcurl's per-host cap would let a few slow calls to one host hold the connections every other call to it
        // queues for; each call has its own deadline instead.
        settings.httpMaximumConnectionsPerHost = 10_000
        let session = URLSession(configuration: settings, delegate: self, delegateQueue: nil)
        urlSession.withLock { $0 = session }
    }

    /// Ends the session (which holds its delegate, this, until then).
    func invalidate() { urlSession.withLock { $0?.invalidateAndCancel(); $0 = nil } }

    func post(_ body: Data, to url: URL, deadline: ContinuousClock.Instant, timeout: TimeInterval) async -> CallbackAnswer {
        guard let session = urlSession.withLock({ $0 }) else { return CallbackAnswer(status: 0, problem: "the sandbox is stopping") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for header in Callback.headers { request.setValue(header.value, forHTTPHeaderField: header.name) }
        request.httpBody = body
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        let remaining = deadline - .now
        let nanoseconds = max(0, remaining.components.seconds * 1_000_000_000 + remaining.components.attoseconds / 1_000_000_000)
        let text = "no whole answer within \(CallbackHTTPClient.seconds(timeout)) s"
        return await withCheckedContinuation { continuation in
            calls.withLock { $0[id] = Call(continuation: continuation, deadlineText: text) }
            task.resume()
            Self.deadlineQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds))) { [weak self] in
                guard let self, let call = self.finish(id) else { return }
                task.cancel()
                call.continuation.resume(returning: CallbackAnswer(status: 0, problem: call.status.map { "\(call.deadlineText) (status \($0) came)" } ?? call.deadlineText))
            }
        }
    }

    /// Takes the call out: whoever gets it answers it (the delegate or the deadline).
    private func finish(_ id: Int) -> Call? { calls.withLock { $0.removeValue(forKey: id) } }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)   // the 3xx is the answer
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let status = (response as? HTTPURLResponse)?.statusCode
        calls.withLock { $0[dataTask.taskIdentifier]?.status = status }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let limit = CallbackHTTPClient.answerPrefixBytes
        let full = calls.withLock { calls -> Call? in
            guard var call = calls[dataTask.taskIdentifier] else { return nil }
            call.body.append(data.prefix(limit - call.body.count))
            guard call.body.count >= limit else {
                calls[dataTask.taskIdentifier] = call
                return nil
            }
            calls[dataTask.taskIdentifier] = nil
            return call
        }
        guard let full else { return }
        dataTask.cancel()
        let status = full.status ?? (dataTask.response as? HTTPURLResponse)?.statusCode ?? 0
        full.continuation.resume(returning: CallbackAnswer(status: status, problem: status == 0 ? "no HTTP answer" : nil, answer: full.body))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let call = finish(task.taskIdentifier) else { return }
        if let error {
            let problem = (error as? URLError)?.code == .timedOut ? call.deadlineText : error.localizedDescription
            call.continuation.resume(returning: CallbackAnswer(status: 0, problem: problem))
            return
        }
        guard let status = call.status ?? (task.response as? HTTPURLResponse)?.statusCode else {
            call.continuation.resume(returning: CallbackAnswer(status: 0, problem: "no HTTP answer"))
            return
        }
        call.continuation.resume(returning: CallbackAnswer(status: status, problem: nil, answer: call.body))
    }
}
