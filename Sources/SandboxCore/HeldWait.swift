// SPDX-License-Identifier: MIT
import Foundation

/// One held wait for a value (a journal entry, a callback): it ends once, with the value when it comes, or with nil
/// on its timeout or when its task is cancelled (the server gave up on the request: stop, handler timeout). A
/// suspended task, not a thread: many may wait at once.
package final class HeldWait<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value?, Never>)
        case done(Value?)
    }

    private let state = Locked<State>(.idle)

    package init() {}

    /// Ends the wait with `value` (nil: nothing came); a wait already ended stays as it ended.
    package func finish(_ value: Value?) {
        let continuation = state.withLock { state -> CheckedContinuation<Value?, Never>? in
            switch state {
            case .idle:
                state = .done(value)
                return nil
            case .waiting(let continuation):
                state = .done(value)
                return continuation
            case .done:
                return nil
            }
        }
        continuation?.resume(returning: value)
    }

    /// The value, once ``finish(_:)`` gives it; nil after `timeout` or when the task is cancelled.
    package func value(timeout: Duration) async -> Value? {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            finish(nil)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let ended = state.withLock { state -> Value?? in
                    if case .done(let value) = state { return .some(value) }
                    state = .waiting(continuation)
                    return .none
                }
                if let ended { continuation.resume(returning: ended) }
            }
        } onCancel: {
            finish(nil)
        }
    }
}
