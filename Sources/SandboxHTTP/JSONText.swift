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

    package var data: Data {
        var buffer = JSONByteBuffer()
        write(to: &buffer)
        return buffer.data
    }

    package var bytes: [UInt8] {
        var buffer = JSONByteBuffer()
        write(to: &buffer)
        return buffer.bytes
    }

    package func write(into out: inout [UInt8]) {
        var buffer = JSONByteBuffer()
        write(to: &buffer)
        buffer.append(to: &out)
    }

    package func write(to buffer: inout JSONByteBuffer) {
        switch self {
        case .null: buffer.append("null")
        case .bool(let value): buffer.append(value ? "true" : "false")
        case .int(let value): JSONText.writeInt(value, to: &buffer)
        case .double(let value):
            var text = value.isFinite ? "\(value)" : "null"
            text.withUTF8 { buffer.append($0) }
        case .string(let value): JSONText.writeString(value, to: &buffer)
        case .array(let values):
            buffer.append(UInt8(ascii: "["))
            for index in values.indices {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                values[index].write(to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let members):
            buffer.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONText.writeString(members[index].0, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                members[index].1.write(to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    /// Decimal digits without making a String first.
    static func writeInt(_ value: Int, to buffer: inout JSONByteBuffer) {
        if value == 0 { buffer.append(UInt8(ascii: "0")); return }
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in  // the 20 digits of UInt64.max
            var index = digits.count
            while magnitude > 0 {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            buffer.append(UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// RFC 8259 §7 string escaping: `"` `\\` and the controls (and DEL) escaped, everything else as its UTF-8.
    package static func writeString(_ string: String, into out: inout [UInt8]) {
        var buffer = JSONByteBuffer(capacity: string.utf8.count + 16)
        writeString(string, to: &buffer)
        buffer.append(to: &out)
    }

    package static func writeString(_ string: String, to buffer: inout JSONByteBuffer) {
        buffer.append(UInt8(ascii: "\""))
        if string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, to: &buffer) }) == nil {
            var string = string  // not stored as UTF-8: made so, once
            string.withUTF8 { writeEscaped($0, to: &buffer) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// One pass: runs that need no escape are copied in one go, eight bytes are checked at a time.
    static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to buffer: inout JSONByteBuffer) {
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var runStart = 0, index = 0, tailChecked = false
        while index < count {
            if count - index >= 8 {
                if !JSONText.mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                    index += 8
                    continue
                }
            } else if !tailChecked {
                // Fewer than eight left: one word holds them all (the last eight bytes, or the string padded with spaces).
                tailChecked = true
                if !JSONText.mayNeedEscape(tailWord(base, count: count)) { break }
            }
            let byte = base[index]
            index += 1
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F else { continue }
            buffer.append(UnsafeBufferPointer(start: base + runStart, count: index - 1 - runStart))
            appendEscape(byte, to: &buffer)
            runStart = index
        }
        buffer.append(UnsafeBufferPointer(start: base + runStart, count: count - runStart))
    }

    /// The last eight bytes of a text, or all of a shorter one followed by spaces (which need no escape).
    @inline(__always)
    static func tailWord(_ base: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        if count >= 8 { return UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self) }
        var word: UInt64 = 0x2020_2020_2020_2020
        withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: count)) }
        return word
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

    static func appendEscape(_ byte: UInt8, to buffer: inout JSONByteBuffer) {
        switch byte {
        case UInt8(ascii: "\""): buffer.append(#"\""#)
        case UInt8(ascii: "\\"): buffer.append(#"\\"#)
        case 0x0A: buffer.append(#"\n"#)
        case 0x0D: buffer.append(#"\r"#)
        case 0x09: buffer.append(#"\t"#)
        default:
            let hex: StaticString = "0123456789abcdef"
            buffer.append(#"\u00"#)
            buffer.append(hex.utf8Start[Int(byte >> 4)])
            buffer.append(hex.utf8Start[Int(byte & 0xF)])
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

/// The bytes of a JSON text being written: appending is a capacity check and a copy, with none of an Array's
/// per-call bookkeeping (a response writes a few hundred runs). The memory is freed with the buffer.
package struct JSONByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    package private(set) var count = 0

    package init(capacity: Int = 1024) {
        self.capacity = Swift.max(capacity, 16)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toAtLeast: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let length = bytes.count
        if capacity - count < length { grow(toAtLeast: count + length) }
        if length <= 8 {
            for i in 0..<length { base[count + i] = source[i] }
        } else {
            (base + count).initialize(from: source, count: length)
        }
        count += length
    }

    @inline(__always)
    package mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func grow(toAtLeast needed: Int) {
        let newCapacity = Swift.max(capacity * 2, needed)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    package var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }
    package var data: Data { Data(bytes: base, count: count) }
    package var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
    package func append(to out: inout [UInt8]) { out.append(contentsOf: UnsafeBufferPointer(start: base, count: count)) }
}
