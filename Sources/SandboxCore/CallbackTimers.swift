// SPDX-License-Identifier: MIT
import Dispatch
import Foundation

/// The waits of one sender's callbacks for a time on their namespace's sandbox clock (a late first call, a retry),
/// all on one timer: a waiting callback costs no CPU until it is due, however many wait.
///
/// The timer fires at the earliest due time. Due times are on namespace clocks, which `POST /__sandbox/clock` moves:
/// every move (``NamespaceRegistry/onClockMove(_:)``) makes it look again at once. On the system clock it sleeps on
/// the wall clock until then; on another base clock (a test's `ManualClock`, which moves without telling anyone) it
/// also looks every `pollInterval` while anything waits: one look for all the waiting callbacks, not one each.
/// A wait ends early, with false, when its callback leaves the outbox (``cancel(outboxIDs:)``: evicted, or the
/// namespace reset) or the sender goes (``cancelAll()``); at its time, with false when the namespace was reset meanwhile.
final class CallbackTimers: Sendable {
    private struct Waiter {
        var namespace: Namespace
        var generation: Int
        var outboxID: String?
        var continuation: CheckedContinuation<Bool, Never>
        /// Due on the namespace's clock.
        var due: Date
        /// The same on the base clock (minus the namespace's offset when it was worked out).
        var baseDue: Date
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var tokensByOutboxID: [String: Int] = [:]
        /// Each waiter's due time on the base clock (its namespace's time minus the namespace's offset), earliest
        /// first; a token whose waiter is gone is skipped when it comes up.
        var queue = DueQueue()
        var nextToken = 0
        /// The base-clock time the pending fire is for, and its number (an older fire finds another number and does nothing).
        var armedFor: Date?
        var armNumber = 0
        var stopped = false

        /// Rebuilds the queue from the live waiters once tokens of waiters gone outnumber them (cancelled waits leave
        /// theirs behind until they come up).
        mutating func compactIfNeeded() {
            guard queue.count > 2 * waiters.count + 64 else { return }
            queue = DueQueue(waiters.map { ($0.value.baseDue, $0.key) })
        }
    }

    private let registry: NamespaceRegistry
    private let generation: @Sendable (Namespace) -> Int
    /// Whether the outbox still keeps an entry: one evicted before its wait began does not wait.
    private let isKept: @Sendable (Namespace, String) -> Bool
    private let pollInterval: Duration
    /// The system clock tells time itself (wall-clock timers follow it); any other base clock is looked at.
    private let polls: Bool
    private let state = Locked(State())
    private let dispatchQueue = DispatchQueue(label: "sandbox.callback-timers")

    init(registry: NamespaceRegistry, pollInterval: Duration, generation: @escaping @Sendable (Namespace) -> Int,
         isKept: @escaping @Sendable (Namespace, String) -> Bool) {
        self.registry = registry
        self.generation = generation
        self.isKept = isKept
        self.pollInterval = max(pollInterval, .milliseconds(1))
        polls = !(registry.baseClock is SystemClock)
        // Off the mover's thread (an event loop, for POST /__sandbox/clock): the look goes through every waiter.
        let queue = dispatchQueue
        // Nothing at all when nothing waits (no thread is woken).
        registry.onClockMove { [weak self] in
            guard let self, self.waiting > 0 else { return }
            queue.async { [weak self] in self?.clockMoved() }
        }
    }

    /// Waiting callbacks, for tests.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Returns true once `due` has come on the namespace's clock, false when the wait was cancelled, the callback is
    /// no longer in the outbox, or the namespace was reset (its generation changed) meanwhile.
    func wait(until due: Date, _ namespace: Namespace, generation: Int, outboxID: String?) async -> Bool {
        if registry.now(namespace) >= due { return self.generation(namespace) == generation }
        return await withCheckedContinuation { continuation in
            let (refused, arm) = state.withLock { state -> (Bool, Arm?) in
                // Checked under this lock: an eviction either came before (and the entry is gone) or finds the waiter.
                guard !state.stopped, outboxID.map({ isKept(namespace, $0) }) ?? true else { return (true, nil) }
                // Under the lock, so a clock move cannot fall between reading the offset and queueing the waiter.
                let baseDue = due.addingTimeInterval(-registry.offset(namespace))
                let token = state.nextToken
                state.nextToken += 1
                state.waiters[token] = Waiter(namespace: namespace, generation: generation, outboxID: outboxID,
                                              continuation: continuation, due: due, baseDue: baseDue)
                if let outboxID { state.tokensByOutboxID[outboxID] = token }
                state.queue.insert(baseDue, token)
                return (false, self.arm(&state))
            }
            if refused { continuation.resume(returning: false) }
            if let arm { schedule(arm) }
        }
    }

    /// Ends the waits of these outbox entries (evicted, or their namespace reset): each returns false.
    func cancel(outboxIDs: [String]) {
        let cancelled = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            let cancelled = outboxIDs.compactMap { id -> CheckedContinuation<Bool, Never>? in
                guard let token = state.tokensByOutboxID.removeValue(forKey: id) else { return nil }
                return state.waiters.removeValue(forKey: token)?.continuation
            }
            state.compactIfNeeded()
            return cancelled
        }
        for continuation in cancelled { continuation.resume(returning: false) }
    }

    /// Ends every wait, now and later (the sender is gone).
    func cancelAll() {
        let cancelled = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.stopped = true
            state.armNumber += 1
            state.armedFor = nil
            defer { state = State(stopped: true) }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in cancelled { continuation.resume(returning: false) }
    }

    // MARK: The timer

    private struct Arm {
        var number: Int
        var at: Date
    }

    /// Sets the timer for the earliest waiter (or the next look, when polling), unless it is already set for no
    /// later than that. Under the lock; the caller schedules the returned fire outside it.
    private func arm(_ state: inout State) -> Arm? {
        while let top = state.queue.first, state.waiters[top.token] == nil { state.queue.removeFirst() }
        guard var at = state.queue.first?.due else {
            state.armedFor = nil
            return nil
        }
        if polls { at = min(at, registry.baseClock.now().addingTimeInterval(pollInterval / .seconds(1))) }
        if let armed = state.armedFor, armed <= at { return nil }
        state.armNumber += 1
        state.armedFor = at
        return Arm(number: state.armNumber, at: at)
    }

    private func schedule(_ arm: Arm) {
        let fire: @Sendable () -> Void = { [weak self] in self?.fire(arm.number) }
        if polls {
            let seconds = max(0, arm.at.timeIntervalSince(registry.baseClock.now()))
            dispatchQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(seconds, 86_400) * 1e9)), execute: fire)
        } else {
            // On the wall clock, as the system clock (Date) is.
            let since1970 = max(0, arm.at.timeIntervalSince1970)
            let whole = since1970.rounded(.down)
            let time = timespec(tv_sec: Int(whole), tv_nsec: Int((since1970 - whole) * 1e9))
            dispatchQueue.asyncAfter(wallDeadline: DispatchWallTime(timespec: time), execute: fire)
        }
    }

    /// Resumes every waiter whose time has come, then sets the timer for the next.
    private func fire(_ number: Int) {
        let (due, arm) = state.withLock { state -> ([Waiter], Arm?) in
            guard number == state.armNumber, !state.stopped else { return ([], nil) }
            state.armedFor = nil
            let now = registry.baseClock.now()
            var due: [Waiter] = []
            var early: [(Date, Int)] = []
            while let top = state.queue.first, top.due <= now {
                state.queue.removeFirst()
                guard let waiter = state.waiters[top.token] else { continue }
                // Checked on the namespace's clock too; a waiter not due there after all goes back in line.
                let namespaceNow = now.addingTimeInterval(registry.offset(waiter.namespace))
                if namespaceNow < waiter.due {
                    let baseDue = waiter.due.addingTimeInterval(-registry.offset(waiter.namespace))
                    state.waiters[top.token]!.baseDue = baseDue
                    early.append((baseDue, top.token))
                    continue
                }
                state.waiters[top.token] = nil
                if let id = waiter.outboxID { state.tokensByOutboxID[id] = nil }
                due.append(waiter)
            }
            for (baseDue, token) in early { state.queue.insert(baseDue, token) }
            state.compactIfNeeded()
            return (due, self.arm(&state))
        }
        if let arm { schedule(arm) }
        // The reset check calls into the provider's store: outside this lock.
        for waiter in due { waiter.continuation.resume(returning: generation(waiter.namespace) == waiter.generation) }
    }

    /// A namespace's clock moved: every base-clock due time is worked out again, and the timer looks now.
    private func clockMoved() {
        let arm = state.withLock { state -> Arm? in
            guard !state.stopped, !state.waiters.isEmpty else { return nil }
            var offsets: [Namespace: TimeInterval] = [:]
            for token in Array(state.waiters.keys) {
                let namespace = state.waiters[token]!.namespace
                let offset = offsets[namespace] ?? registry.offset(namespace)
                offsets[namespace] = offset
                state.waiters[token]!.baseDue = state.waiters[token]!.due.addingTimeInterval(-offset)
            }
            state.queue = DueQueue(state.waiters.map { ($0.value.baseDue, $0.key) })
            state.armNumber += 1
            state.armedFor = nil
            return self.arm(&state)
        }
        if let arm { schedule(arm) }
    }
}

/// Due times and their tokens, earliest first: a binary min-heap.
struct DueQueue {
    private var heap: [(due: Date, token: Int)] = []

    init() {}

    init(_ items: [(Date, Int)]) {
        heap = items.map { (due: $0.0, token: $0.1) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    var first: (due: Date, token: Int)? { heap.first }
    var count: Int { heap.count }

    mutating func insert(_ due: Date, _ token: Int) {
        heap.append((due, token))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(0)
    }

    private static func before(_ a: (due: Date, token: Int), _ b: (due: Date, token: Int)) -> Bool {
        a.due < b.due || (a.due == b.due && a.token < b.token)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, Self.before(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
