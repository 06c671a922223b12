// SPDX-License-Identifier: MIT
import Foundation

/// Where the sandbox reads the time. Injected so lifetimes (48 h sessions, 60 min tokens) are
/// deterministic in tests; each namespace also has its own offset on top (``NamespaceRegistry``).
public protocol SandboxClock: Sendable {
    func now() -> Date
}

/// The machine's wall clock.
public struct SystemClock: SandboxClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to: for unit tests.
public final class ManualClock: SandboxClock {
    private let current: Locked<Date>
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
    public func set(_ date: Date) { current.withLock { $0 = date } }
}
