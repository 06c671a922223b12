// SPDX-License-Identifier: MIT
import Foundation

/// Makes the ids the fakes hand out (session ids, tokens, order ids, correlation ids). Injected so
/// tests can get predictable ids.
public protocol IDGenerator: Sendable {
    /// A lower-case UUID string, the shape of Klarna's and Swedbank Pay's ids.
    func uuid() -> String
}

public struct RandomIDGenerator: IDGenerator {
    public init() {}
    public func uuid() -> String { UUID().uuidString.lowercased() }
}

/// 00000000-0000-4000-8000-000000000001, ...2, ...: for tests that assert on ids.
public final class SequentialIDGenerator: IDGenerator {
    private let counter = Locked(0)
    public init() {}
    public func uuid() -> String {
        let next = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let digits = String(next, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}
