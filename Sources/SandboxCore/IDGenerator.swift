// SPDX-License-Identifier: MIT
import Foundation

/// Makes the ids the fakes hand out (session ids, tokens, order ids, correlation ids). Injected so
/// tests can get predictable ids.
public protocol IDGenerator: Sendable {
    /// A lower-case UUID string, the shape of the providers' ids.
    func uuid() -> String
    /// The id of an error answer (a correlation id, the parts of a problem's `instance`), UUID
    /// shaped. A stream of its own where that matters: errors do not shift the object ids of a sequential generator.
    func errorID() -> String
    /// Where a counting generator stands, for the state file (`--state-file`), so that its ids do not repeat
    /// after a restart; nil (the default) for one with nothing to keep, such as random ids.
    func savedPosition() -> [String: Int]?
    /// Goes on from a position ``savedPosition()`` gave (never back).
    func restorePosition(_ position: [String: Int])
}

extension IDGenerator {
    public func errorID() -> String { uuid() }
    public func savedPosition() -> [String: Int]? { nil }
    public func restorePosition(_ position: [String: Int]) {}
}

/// Random version 4 UUIDs. Not Foundation's `UUID()`: on Linux that opens /dev/urandom for every id
/// under a process-wide lock (a file open, a read and a close per id, and lock waits between event
/// loops). Ids here need to be unique and unguessable by accident, not secret: a xoshiro256** generator
/// seeded from the system's random source gives 122 random bits per id at the cost of a few
/// multiplications.
public final class RandomIDGenerator: IDGenerator {
    private let state: Locked<Xoshiro256StarStar>

    public init() {
        var seed = SystemRandomNumberGenerator()
        state = Locked(Xoshiro256StarStar(seed: &seed))
    }

    /// For ids that need no injection (an error's correlation id): the same generator, shared.
    public static let shared = RandomIDGenerator()

    public func uuid() -> String {
        let (high, low) = state.withLock { ($0.next(), $0.next()) }
        // RFC 9562 §5.4: version 4 in the high nibble of byte 6, variant 0b10 in the top bits of byte 8.
        let versioned = (high & ~0xF000) | 0x4000
        let varianted = (low & ~(0xC000 << 48)) | (0x8000 << 48)
        return Self.format(versioned, varianted)
    }

    static func format(_ high: UInt64, _ low: UInt64) -> String {
        // 8-4-4-4-12 hex digits: the 32 nibbles from the most significant, a dash before the 9th, 13th, 17th and 21st.
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &bytes) { buffer in
            let hex: StaticString = "0123456789abcdef"
            var index = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 { buffer[index] = UInt8(ascii: "-"); index += 1 }
                let word = nibble < 16 ? high : low
                buffer[index] = hex.utf8Start[Int((word >> UInt64(60 - (nibble % 16) * 4)) & 0xF)]
                index += 1
            }
            return String(decoding: UnsafeRawBufferPointer(rebasing: buffer[..<36]), as: UTF8.self)
        }
    }
}

/// xoshiro256** (Blackman and Vigna, 2018): a small, fast generator with 256 bits of state.
struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    init(seed: inout some RandomNumberGenerator) {
        repeat {
            s = (seed.next(), seed.next(), seed.next(), seed.next())
        } while s == (0, 0, 0, 0)
    }

    mutating func next() -> UInt64 {
        let result = rotate(s.1 &* 5, 7) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = rotate(s.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}

/// 00000000-0000-4000-8000-000000000001, ...2, ...: for tests that assert on ids. Error ids count on their own:
/// 00000000-0000-4000-9000-000000000001, ...2, ...
public final class SequentialIDGenerator: IDGenerator {
    private let counter = Locked(0)
    private let errorCounter = Locked(0)
    public init() {}
    public func uuid() -> String { Self.next(counter, variantGroup: "8000") }
    public func errorID() -> String { Self.next(errorCounter, variantGroup: "9000") }
    public func savedPosition() -> [String: Int]? {
        ["ids": counter.withLock { $0 }, "error_ids": errorCounter.withLock { $0 }]
    }
    public func restorePosition(_ position: [String: Int]) {
        if let ids = position["ids"] { counter.withLock { $0 = max($0, ids) } }
        if let errors = position["error_ids"] { errorCounter.withLock { $0 = max($0, errors) } }
    }

    private static func next(_ counter: Locked<Int>, variantGroup: String) -> String {
        let next = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let digits = String(next, radix: 16)
        return "00000000-0000-4000-\(variantGroup)-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}
