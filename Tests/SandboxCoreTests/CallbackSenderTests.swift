// SPDX-License-Identifier: MIT
import Foundation
import SandboxCore
import Testing

/// The one sender every provider callback passes through: the journal entry of each call, worded by the caller's
/// retry schedule; callbacks waiting for their time on one timer. A URL without a scheme fails at once, without the
/// network.
@Suite("Callback sender")
struct CallbackSenderTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    /// The notes of the namespace's CALLBACK entries once there are `count` of them: each entry is waited for as it is
    /// journaled (``Journal/waitForEntry(_:after:timeout:where:)``), 120 s at most (a busy machine under
    /// ThreadSanitizer has kept a send task from starting for over 30 s).
    func notes(_ journal: Journal, _ namespace: Namespace, count: Int) async throws -> [String] {
        var after = 0
        for _ in 0..<count {
            guard let entry = await journal.waitForEntry(namespace, after: after, timeout: .seconds(120), where: { $0.method == "CALLBACK" }) else {
                Issue.record("fewer than \(count) CALLBACK entries")
                return []
            }
            after = entry.sequence
        }
        return journal.entries(namespace, .init()).filter { $0.method == "CALLBACK" }.map(\.note)
    }

    @Test("each schedule words its calls: attempt n/m and retry in s, or call n/m and the offset after the first call")
    func journalNotesPerSchedule() async throws {
        let journal = Journal(capacity: 16, registry: registry)
        let sender = CallbackSender(registry: registry, journal: journal, timeout: 1, clockPollInterval: .milliseconds(5)) { _ in 0 }
        let cases: [(CallbackRetrySchedule, String)] = [
            (.afterEachFailure(delay: 10, calls: 3), "status_update, attempt 1/3: not a URL: nowhere; retry in 10 s (sandbox clock)"),
            (.afterEachFailure(delay: 10, calls: 1), "status_update, attempt 1/1: not a URL: nowhere; giving up"),
            (.afterFirstCall(offsets: [30, 60]), "payment order, call 1/3: not a URL: nowhere; retry 30 s after the first call (sandbox clock)"),
            (.afterFirstCall(offsets: []), "payment order, call 1/1: not a URL: nowhere; giving up"),
        ]
        for (index, (schedule, note)) in cases.enumerated() {
            let namespace = Namespace("callbacks-\(index)")
            let label = note.prefix { $0 != "," }
            sender.send(Callback(namespace: namespace, url: "nowhere", body: Data("{}".utf8), note: String(label), requestID: "r\(index)"),
                        retrying: schedule)
            #expect(try await notes(journal, namespace, count: 1) == [note])
            let entry = try #require(journal.entries(namespace, .init()).first)
            #expect(entry.status == 0 && entry.requestID == "r\(index)" && entry.path == "nowhere")
        }
    }

    /// Until `done` holds (120 s at most, for the reason above).
    func eventually(_ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !done() {
            guard ContinuousClock.now < deadline else {
                Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func callback(_ namespace: Namespace, _ note: String) -> Callback {
        Callback(namespace: namespace, url: "nowhere", body: Data("{}".utf8), note: note)
    }

    static var late: CallbackPlan {
        var plan = CallbackPlan()
        plan.lateSeconds = 300
        return plan
    }

    @Test("late callbacks wait on the timer; those evicted from the outbox stop waiting; the kept ones are called when the clock gets there")
    func lateCallbacks_EvictedOnesStopWaiting() async throws {
        let journal = Journal(capacity: 256, registry: registry)
        let outbox = CallbackOutbox(registry: registry, capacity: 10)
        let sender = CallbackSender(registry: registry, journal: journal, outbox: outbox, timeout: 1, clockPollInterval: .milliseconds(5)) { _ in 0 }
        let namespace = Namespace("late-evicted")
        for index in 0..<50 {
            sender.send(callback(namespace, "late \(index)"), retrying: .afterEachFailure(delay: 10, calls: 1), plan: Self.late)
        }
        try await eventually("10 callbacks waiting") { sender.waitingCallbacks == 10 }
        #expect(outbox.evicted == 40 && outbox.entries(namespace).map(\.description) == (40..<50).map { "late \($0)" })
        #expect(journal.entries(namespace, .init()).isEmpty, "nothing is due yet")
        registry.advance(namespace, by: 300)
        let notes = try await notes(journal, namespace, count: 10)
        #expect(Set(notes.map { String($0.prefix { $0 != "," }) }) == Set((40..<50).map { "late \($0)" }), "\(notes)")
        try await eventually("no callback waiting") { sender.waitingCallbacks == 0 }
        #expect(outbox.entries(namespace).allSatisfy { $0.state == .failed && $0.attemptCount == 1 })
    }

    @Test("on the system clock a waiting callback is woken by a move of its namespace's clock, not by polling; a reset of the outbox's namespace ends its wait")
    func systemClock_WokenByAClockMove_ResetEndsTheWait() async throws {
        let registry = NamespaceRegistry(clock: SystemClock())
        let journal = Journal(capacity: 16, registry: registry)
        let outbox = CallbackOutbox(registry: registry)
        // An hour between looks at the clock: only the move can wake it within the test.
        let sender = CallbackSender(registry: registry, journal: journal, outbox: outbox, timeout: 1, clockPollInterval: .seconds(3600)) { _ in 0 }
        let moved = Namespace("system-moved"), reset = Namespace("system-reset")
        sender.send(callback(moved, "moved"), retrying: .afterEachFailure(delay: 10, calls: 1), plan: Self.late)
        sender.send(callback(reset, "reset"), retrying: .afterEachFailure(delay: 10, calls: 1), plan: Self.late)
        try await eventually("2 callbacks waiting") { sender.waitingCallbacks == 2 }
        registry.advance(moved, by: 299)
        registry.advance(moved, by: 1)
        #expect(try await notes(journal, moved, count: 1) == ["moved, attempt 1/1: not a URL: nowhere; giving up"])
        outbox.reset(reset)
        try await eventually("the reset namespace's callback stops waiting") { sender.waitingCallbacks == 0 }
        #expect(journal.entries(reset, .init()).isEmpty)
    }

    @Test("a base clock that moves by itself (ManualClock) is looked at every clockPollInterval: the callback comes when it gets there")
    func manualBaseClock_IsPolled() async throws {
        let clock = ManualClock()
        let registry = NamespaceRegistry(clock: clock)
        let journal = Journal(capacity: 16, registry: registry)
        let sender = CallbackSender(registry: registry, journal: journal, timeout: 1, clockPollInterval: .milliseconds(20)) { _ in 0 }
        let namespace = Namespace("manual-base")
        sender.send(callback(namespace, "polled"), retrying: .afterEachFailure(delay: 10, calls: 2), plan: Self.late)
        try await eventually("1 callback waiting") { sender.waitingCallbacks == 1 }
        clock.advance(by: 300)
        #expect(try await notes(journal, namespace, count: 1) == ["polled, attempt 1/2: not a URL: nowhere; retry in 10 s (sandbox clock)"])
        clock.advance(by: 10)
        #expect(try await notes(journal, namespace, count: 2).last == "polled, attempt 2/2: not a URL: nowhere; giving up")
    }

    @Test("a released sender ends the waits of its callbacks")
    func releasedSender_EndsTheWaits() async throws {
        let namespace = Namespace("released")
        var sender: CallbackSender? = CallbackSender(registry: registry, journal: nil, timeout: 1, clockPollInterval: .seconds(3600)) { _ in 0 }
        let delivery = try #require(sender).send(callback(namespace, "orphan"), retrying: .afterEachFailure(delay: 10, calls: 1), plan: Self.late)
        try await eventually("1 callback waiting") { sender?.waitingCallbacks == 1 }
        sender = nil
        let ended = Locked(false)
        Task {
            await delivery.firstCallAnswered()
            ended.withLock { $0 = true }
        }
        try await eventually("the callback's task ends") { ended.withLock { $0 } }
    }
}
