// SPDX-License-Identifier: MIT
import Foundation

/// Per-namespace settings shared by every provider: the clock offset (set through `/__sandbox/clock`).
/// Providers keep their own objects per namespace and reset them through ``NamespacedState``.
///
/// Only a moved clock is kept: a namespace whose clock was never moved (or moved back to an offset of exactly 0, or
/// reset) has no entry. At most ``maxNamespaces`` namespaces have a moved clock at a time: moving the clock of one
/// more is refused (``advanceWithinRange(_:by:)``, ``set(_:to:)``) until a reset frees one, so a client cannot grow
/// the map without end.
package final class NamespaceRegistry: Sendable {
    package let baseClock: any SandboxClock
    /// How many namespaces may have a moved clock at a time.
    package let maxNamespaces: Int
    package static let defaultMaxNamespaces = 100_000
    private let offsets = Locked<[Namespace: TimeInterval]>([:])
    private let clockObservers = Locked<[@Sendable () -> Void]>([])

    package init(clock: any SandboxClock, maxNamespaces: Int = NamespaceRegistry.defaultMaxNamespaces) {
        baseClock = clock
        self.maxNamespaces = max(1, maxNamespaces)
    }

    /// Calls `observer`, outside any lock, after every move of a namespace's clock (advance, set, reset, restore):
    /// callbacks waiting for a time on a namespace's clock look again then, rather than polling it.
    package func onClockMove(_ observer: @escaping @Sendable () -> Void) { clockObservers.withLock { $0.append(observer) } }

    private func clockMoved() { for observer in clockObservers.withLock({ $0 }) { observer() } }

    /// The namespace's time: the base clock plus whatever `/__sandbox/clock` moved it by.
    package func now(_ namespace: Namespace) -> Date {
        // Most sandboxes never move a clock: no namespace name hashed then.
        baseClock.now().addingTimeInterval(offsets.withLock { $0.isEmpty ? 0 : $0[namespace] ?? 0 })
    }

    /// Moves the namespace's clock forward (or back) by `seconds` (in-process callers: not bounded by
    /// ``maxNamespaces``).
    package func advance(_ namespace: Namespace, by seconds: TimeInterval) {
        offsets.withLock { Self.store(&$0, namespace, ($0[namespace] ?? 0) + seconds) }
        clockMoved()
    }

    /// Moves the namespace's clock by `seconds` only when it then lies within ``SandboxClockRange`` and the namespace
    /// may have a moved clock (``isFull(for:)``), checked and moved under one lock (two moves racing cannot both pass
    /// the check). Returns the time before the move and whether it moved.
    package func advanceWithinRange(_ namespace: Namespace, by seconds: TimeInterval) -> (from: Date, moved: Bool) {
        let result = offsets.withLock { offsets -> (from: Date, moved: Bool) in
            let from = baseClock.now().addingTimeInterval(offsets[namespace] ?? 0)
            guard seconds.isFinite, SandboxClockRange.contains(from.addingTimeInterval(seconds)),
                  offsets[namespace] != nil || offsets.count < maxNamespaces else { return (from, false) }
            Self.store(&offsets, namespace, (offsets[namespace] ?? 0) + seconds)
            return (from, true)
        }
        if result.moved { clockMoved() }
        return result
    }

    /// Sets the namespace's clock to `date`; it keeps running from there. False (nothing changed) when
    /// ``maxNamespaces`` other namespaces have a moved clock.
    @discardableResult
    package func set(_ namespace: Namespace, to date: Date) -> Bool {
        let offset = date.timeIntervalSince(baseClock.now())
        let moved = offsets.withLock { offsets in
            guard offsets[namespace] != nil || offsets.count < maxNamespaces else { return false }
            Self.store(&offsets, namespace, offset)
            return true
        }
        if moved { clockMoved() }
        return moved
    }

    /// An offset of 0 is no entry: a clock moved back where it was costs nothing.
    private static func store(_ offsets: inout [Namespace: TimeInterval], _ namespace: Namespace, _ offset: TimeInterval) {
        offsets[namespace] = offset == 0 ? nil : offset
    }

    /// Whether moving the clock of `namespace` is refused because ``maxNamespaces`` others have a moved clock.
    package func isFull(for namespace: Namespace) -> Bool {
        offsets.withLock { $0[namespace] == nil && $0.count >= maxNamespaces }
    }

    package func offset(_ namespace: Namespace) -> TimeInterval { offsets.withLock { $0[namespace] ?? 0 } }

    package func reset(_ namespace: Namespace) {
        offsets.withLock { $0[namespace] = nil }
        clockMoved()
    }

    /// The namespaces whose clock was moved (for the control page's list).
    package var namespacesWithOffset: [Namespace] { offsets.withLock { Array($0.keys) } }
    /// How many namespaces have a moved clock (at most ``maxNamespaces``, see there).
    package var namespacesWithOffsetCount: Int { offsets.withLock { $0.count } }
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
    /// How many ``objects(_:)`` would list (the namespaces overview); by default it counts them.
    func objectCount(_ namespace: Namespace) -> Int
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
    package func objectCount(_ namespace: Namespace) -> Int { objects(namespace).count }
}
