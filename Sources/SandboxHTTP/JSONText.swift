// SPDX-License-Identifier: MIT
import Foundation

/// A small typed JSON value with ordered object keys, written without JSONEncoder.
/// For hot paths (health) and error bodies whose key order should read like the real API's.
package indirect enum JSONText: Sendable, Equatable {
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
        out.reserveCapacity(512)
        write(into: &out)
        return out
    }

    package func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): JSONText.writeInt(value, into: &out)
        case .double(let value):
            out.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .string(let value): JSONText.writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Decimal digits without making a String first.
    static func writeInt(_ value: Int, into out: inout [UInt8]) {
        if value == 0 { out.append(UInt8(ascii: "0")); return }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for the 20 digits of UInt64.max
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            while magnitude > 0 {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            out.append(contentsOf: buffer[index...])
        }
    }

    /// RFC 8259 §7 string escaping.
    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copied in one go.
        if string.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            out.append(contentsOf: string.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
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
