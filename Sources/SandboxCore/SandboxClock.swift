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

/// The times a namespace's clock may be set or moved to through `/__sandbox/clock`: from the Unix epoch to the
/// start of year 9999. Before 1970, Unix timestamps (JWT `exp`/`iat`, epoch-second fields) go negative; after
/// 9999, ISO 8601's four-digit year no longer holds and the dates the sandbox writes stop parsing in most clients.
/// The last year is headroom: real time keeps running on top of the offset, and the sandbox writes dates ahead of
/// its clock. The furthest by default is an Order Management order extended on the last allowed day,
/// `expires_at` = purchase + 180 days (`maximumAuthorizationAge`) + 28 days (`authorizationLifetime`), 208
/// days; the others are 48 h (KP sessions, retention) or less. Configured lifetimes beyond a year can still pass 9999.
public enum SandboxClockRange {
    /// 1970-01-01T00:00:00Z.
    public static let earliest = Date(timeIntervalSince1970: 0)
    /// 9999-01-01T00:00:00Z.
    public static let latest = Date(timeIntervalSince1970: 253_370_764_800)

    public static func contains(_ date: Date) -> Bool { (earliest...latest).contains(date) }

    /// How the range reads in an error message.
    public static let description = "1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z"
}
