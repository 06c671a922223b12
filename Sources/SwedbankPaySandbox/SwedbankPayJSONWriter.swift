// SPDX-License-Identifier: MIT

/// Compact JSON written straight into bytes, byte for byte as ``JSONText`` writes the same value (its escaping, no
/// spaces), without building a tree first: the payment order document is the largest answer on the order path.
/// A comma goes before a key, an element or a value unless it opens its object or array or follows its key.
struct SwedbankPayJSONWriter {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(2048) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
    }

    mutating func endObject() { bytes.append(UInt8(ascii: "}")) }

    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
    }

    mutating func endArray() { bytes.append(UInt8(ascii: "]")) }

    mutating func key(_ key: String) {
        separate()
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    /// A member whose string value is `parts` joined.
    mutating func member(_ key: String, _ parts: String...) {
        self.key(key)
        bytes.append(UInt8(ascii: "\""))
        for part in parts { escape(part) }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func member(_ key: String, int value: Int) {
        self.key(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func member(_ key: String, bool value: Bool) {
        self.key(key)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A string element of an array.
    mutating func element(_ value: String) {
        separate()
        string(value)
    }

    /// A value built as ``JSONText``.
    mutating func value(_ value: JSONText) {
        separate()
        value.write(into: &bytes)
    }

    /// `node` as ``JSONNode/description`` writes it: numbers as written, members in order, duplicates kept.
    mutating func node(_ node: JSONNode) {
        switch node.value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(_, let text): bytes.append(contentsOf: text.utf8)
        case .string(let value): string(value)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                self.node(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                string(member.key)
                bytes.append(UInt8(ascii: ":"))
                self.node(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// ``JSONNode/description`` of `node`, written with ``node(_:)``.
    static func compactText(_ node: JSONNode) -> String {
        var writer = SwedbankPayJSONWriter()
        writer.node(node)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private mutating func separate() {
        if let last = bytes.last, last != UInt8(ascii: "{"), last != UInt8(ascii: "["), last != UInt8(ascii: ":") {
            bytes.append(UInt8(ascii: ","))
        }
    }

    private mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        escape(value)
        bytes.append(UInt8(ascii: "\""))
    }

    /// RFC 8259 §7 escaping as ``JSONText`` does it: `\"`, `\\`, `\n`, `\r`, `\t`, `\u00xx` for the other control
    /// bytes and DEL; every other byte as it is.
    private mutating func escape(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            let first = Self.firstToEscape(utf8)
            guard first < utf8.count else {
                bytes.append(contentsOf: utf8)
                return
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<first]))
            for byte in utf8[first...] {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                case 0..<0x20, 0x7F:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
                default: bytes.append(byte)
                }
            }
        }
    }

    /// The index of the first byte ``escape(_:)`` escapes (the count when none): eight bytes a step while none of
    /// them is below 0x20, `"`, `\\` or DEL (bit tricks on a 64-bit word: a byte below n, a byte equal to 0).
    private static func firstToEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        if let base = utf8.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= utf8.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let below = (word &- ones &* 0x20) & ~word
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C), delete = word ^ (ones &* 0x7F)
                let equal = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)
                if (below | equal) & highs != 0 { break }
                index += 8
            }
        }
        while index < utf8.count, !needsEscape(utf8[index]) { index += 1 }
        return index
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
