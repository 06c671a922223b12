// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP

/// Counts events as they happen (a callback reaching a listener) and wakes whoever waits for a count: a test waits
/// for the event itself, not for a clock. The backstop (`limit`) is far past what a loaded machine delays an event
/// by (CI has seen 30 s at the start of a parallel run); it only ends a wait that would never end.
final class EventCount: Sendable {
    private struct Waiter {
        var target: Int
        var continuation: CheckedContinuation<Bool, Never>
        var backstop: Task<Void, Never>?
    }

    private let state = Locked<(count: Int, waiters: [UUID: Waiter])>((0, [:]))

    /// The events so far.
    var count: Int { state.withLock { $0.count } }

    /// Counts one event; wakes the waits it completes.
    func add() {
        let done = state.withLock { state -> [Waiter] in
            state.count += 1
            let reached = state.waiters.filter { $0.value.target <= state.count }
            for id in reached.keys { state.waiters[id] = nil }
            return Array(reached.values)
        }
        for waiter in done {
            waiter.backstop?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// True once `target` events have happened; false when `limit` passed first.
    func wait(for target: Int, limit: Duration = .seconds(120)) async -> Bool {
        let id = UUID()
        return await withCheckedContinuation { continuation in
            let waiting = state.withLock { state -> Bool in
                guard state.count < target else { return false }
                state.waiters[id] = Waiter(target: target, continuation: continuation)
                return true
            }
            guard waiting else { return continuation.resume(returning: true) }
            let backstop = Task { [weak self] in
                try? await Task.sleep(for: limit)
                if !Task.isCancelled { self?.expire(id) }
            }
            // The event may have come meanwhile: then the waiter is gone and the backstop has nothing to do.
            let kept = state.withLock { state -> Bool in
                guard state.waiters[id] != nil else { return false }
                state.waiters[id]?.backstop = backstop
                return true
            }
            if !kept { backstop.cancel() }
        }
    }

    private func expire(_ id: UUID) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
    }
}
