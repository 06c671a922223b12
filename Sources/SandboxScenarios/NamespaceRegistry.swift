// SPDX-License-Identifier: MIT
import Foundation

/// Per-namespace settings shared by every provider: the clock offset (set through `/__sandbox/clock`).
/// Providers keep their own objects per namespace and reset them through ``NamespacedState``.
package final class NamespaceRegistry: Sendable {
    package let baseClock: any SandboxClock
    private let offsets = Locked<[Namespace: TimeInterval]>([:])
    private let clockObservers = Locked<[@Sendable () -> Void]>([])

    package init(clock: any SandboxClock) { baseClock = clock }

    /// Calls `observer`, outside any lock, after every move of a namespace's clock (advance, set, reset, restore):
    /// callbacks waiting for a time on a namespace's clock look again then, rather than polling it.
    package func onClockMove(_ observer: @escaping @Sendable () -> Void) { clockObservers.withLock { $0.append(observer) } }

    private func clockMoved() { for observer in clockObservers.withLock({ $0 }) { observer() } }

    /// The namespace's time: the base clock plus whatever `/__sandbox/clock` moved it by.
    package func now(_ namespace: Namespace) -> Date {
        baseClock.now().addingTimeInterval(offsets.withLock { $0[namespace] ?? 0 })
    }

    /// Moves the namespace's clock forward (or back) by `seconds`.
    package func advance(_ namespace: Namespace, by seconds: TimeInterval) {
        offsets.withLock { $0[namespace, default: 0] += seconds }
        clockMoved()
    }

    /// Moves the namespace's clock by `seconds` only when it then lies within ``SandboxClockRange``, checked and
    /// moved under one lock (two moves racing cannot both pass the check). Returns the time before the move and
    /// whether it moved.
    package func advanceWithinRange(_ namespace: Namespace, by seconds: TimeInterval) -> (from: Date, moved: Bool) {
        let result = offsets.withLock { offsets -> (from: Date, moved: Bool) in
            let from = baseClock.now().addingTimeInterval(offsets[namespace] ?? 0)
            guard seconds.isFinite, SandboxClockRange.contains(from.addingTimeInterval(seconds)) else { return (from, false) }
            offsets[namespace, default: 0] += seconds
            return (from, true)
        }
        if result.moved { clockMoved() }
        return result
    }

    /// Sets the namespace's clock to `date`; it keeps running from there.
    package func set(_ namespace: Namespace, to date: Date) {
        let offset = date.timeIntervalSince(baseClock.now())
        offsets.withLock { $0[namespace] = offset }
        clockMoved()
    }

    package func offset(_ namespace: Namespace) -> TimeInterval { offsets.withLock { $0[namespace] ?? 0 } }

    package func reset(_ namespace: Namespace) {
        offsets.withLock { $0[namespace] = nil }
        clockMoved()
    }

    /// The namespaces whose clock was moved (for the control page's list).
    package var namespacesWithOffset: [Namespace] { offsets.withLock { Array($0.keys) } }
    /// Every namespace's clock offset (the state file's `clocks`).
    package var allOffsets: [Namespace: TimeInterval] { offsets.withLock { $0 } }

    /// Whether a clock moved by `offset` from the base clock lies within ``SandboxClockRange`` now: what
    /// `POST /__sandbox/clock` allows, asked of the offsets a state file kept before ``restore(offsets:)``.
    package func allowsOffset(_ offset: TimeInterval) -> Bool {
        offset.isFinite && SandboxClockRange.contains(baseClock.now().addingTimeInterval(offset))
    }

    /// Sets the offsets a state file kept (each one ``allowsOffset(_:)``).
    package func restore(offsets restored: [Namespace: TimeInterval]) {
        offsets.withLock { $0.merge(restored) { _, new in new } }
        clockMoved()
    }
}

/// A provider's state that lives per namespace: `/__sandbox/reset` clears it, `/__sandbox/state` shows it.
package protocol NamespacedState: Sendable {
    /// The key under which ``snapshot(_:)`` appears in `/__sandbox/state` (e.g. "<provider>_payments").
    var stateName: String { get }
    func reset(_ namespace: Namespace) async
    func snapshot(_ namespace: Namespace) async -> JSONText
    /// The namespace's objects, one summary each, oldest first (the control page, `/__sandbox/ui`).
    func objects(_ namespace: Namespace) -> [SandboxObjectSummary]
    /// The namespaces that hold objects now.
    var namespacesWithState: [Namespace] { get }
    /// Every namespace's objects for the state file (`SavedState.swift`); nil: the store keeps nothing across a
    /// restart (the default).
    func savedSection() throws -> SavedStoreSection?
    /// Fills the store from the section ``savedSection()`` wrote, on start before any request.
    func restoreSection(from decoder: any Decoder) throws
    /// What it holds that counts toward the server's bound on objects, for counting after a restore
    /// (``ObjectRetention/retain(_:)``, once every store is restored); none by default.
    func heldObjects() -> [HeldObject]
}

extension NamespacedState {
    package func heldObjects() -> [HeldObject] { [] }
}
