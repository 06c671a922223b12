// SPDX-License-Identifier: MIT
import Foundation

/// A small typed JSON value with ordered object keys, written without JSONEncoder.
/// For hot paths (health) and error bodies whose key order should read like the real API's.
/// Not `indirect`: every payload is a word or two (arrays hold the nesting), so a value costs no allocation of its own.
package enum JSONText: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONText])
    case object([(String, JSONText)])

    package var data: Data { Data(bytes) }

    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out)
        return out
    }

    package func write(into out: inout [UInt8]) {
        switch self {
        case .null: JSONText.append("null", to: &out)
        case .bool(let value): JSONText.append(value ? "true" : "false", to: &out)
        case .int(let value): JSONText.writeInt(value, into: &out)
        case .double(let value):
            out.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .string(let value): JSONText.writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for index in values.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                values[index].write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.writeString(members[index].0, into: &out)
                out.append(UInt8(ascii: ":"))
                members[index].1.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A literal's bytes without going through an iterator.
    @inline(__always)
    static func append(_ literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Decimal digits without making a String first.
    static func writeInt(_ value: Int, into out: inout [UInt8]) {
        if value == 0 { out.append(UInt8(ascii: "0")); return }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in  // the 20 digits of UInt64.max
            var index = digits.count
            while magnitude > 0 {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// RFC 8259 §7 string escaping: `"` `\\` and the controls (and DEL) escaped, everything else as its UTF-8.
    package static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, into: &out) }) == nil {
            var string = string  // not stored as UTF-8: made so, once
            string.withUTF8 { writeEscaped($0, into: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// One pass: runs that need no escape are copied in one go, eight bytes are checked at a time.
    static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0, index = 0
        while index < count {
            if count - index >= 8,
               !JSONText.mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = base[index]
            index += 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F else { continue }
            out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - 1 - runStart))
            appendEscape(byte, to: &out)
            runStart = index
        }
        out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
    }

    /// Whether any of the eight bytes is below 0x20, `"`, `\\` or DEL (false means none is; true may be wrong).
    @inline(__always)
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let below0x20 = (word &- ones &* 0x20) & ~word & highs
        return below0x20 | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C))
            | hasZeroByte(word ^ (ones &* 0x7F)) != 0
    }

    static func appendEscape(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(0x5C); out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C); out.append(0x5C)
        case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
        case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            JSONText.append("\\u00", to: &out)
            out.append(hex.utf8Start[Int(byte >> 4)])
            out.append(hex.utf8Start[Int(byte & 0xF)])
        }
    }

    package static func == (lhs: JSONText, rhs: JSONText) -> Bool { lhs.bytes == rhs.bytes }
}

/// In the state file: null, booleans, integers and strings as themselves; a double as `{"double": x}`, an
/// array as `{"array": [...]}` and an object as `{"object": [[key, value], ...]}`, so the kind of every number
/// and the order of members survive. A double that is not finite is kept as null, as ``write(into:)`` writes it.
extension JSONText: Codable {
    private enum Tag: String, CodingKey { case double, array, object }

    private struct Member: Codable {
        var key: String
        var value: JSONText
        init(_ key: String, _ value: JSONText) { self.key = key; self.value = value }
        init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            key = try pair.decode(String.self)
            value = try pair.decode(JSONText.self)
        }
        func encode(to encoder: any Encoder) throws {
            var pair = encoder.unkeyedContainer()
            try pair.encode(key)
            try pair.encode(value)
        }
    }

    package init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() { self = .null; return }
            if let bool = try? single.decode(Bool.self) { self = .bool(bool); return }
            if let int = try? single.decode(Int.self) { self = .int(int); return }
            if let string = try? single.decode(String.self) { self = .string(string); return }
        }
        let tagged = try decoder.container(keyedBy: Tag.self)
        if let double = try tagged.decodeIfPresent(Double.self, forKey: .double) {
            self = .double(double)
        } else if let array = try tagged.decodeIfPresent([JSONText].self, forKey: .array) {
            self = .array(array)
        } else {
            self = .object(try tagged.decode([Member].self, forKey: .object).map { ($0.key, $0.value) })
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .int(let int):
            var single = encoder.singleValueContainer()
            try single.encode(int)
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .double(let double) where !double.isFinite:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .double(let double):
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(double, forKey: .double)
        case .array(let array):
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(array, forKey: .array)
        case .object(let members):
            var tagged = encoder.container(keyedBy: Tag.self)
            try tagged.encode(members.map { Member($0.0, $0.1) }, forKey: .object)
        }
    }
}
