// SPDX-License-Identifier: MIT
import Foundation

/// A value that writes itself into the state file without `Codable`'s containers: the objects a large sandbox holds
/// most of, written a million times in one snapshot. ``write(to:)`` must write exactly the bytes its `encode(to:)`
/// writes through ``SavedStateEncoder`` (and `JSONEncoder` with default options): members in the synthesized
/// `CodingKeys` order, nil members left out. Its `Codable` conformance stays, for reading and for `JSONEncoder`.
package protocol SavedStateDirectEncodable: Encodable {
    func write(to encoder: SavedStateEncoder) throws
}

extension Shared: SavedStateDirectEncodable where Value: Encodable {
    /// As `encode(to:)`: the value itself.
    package func write(to encoder: SavedStateEncoder) throws { try encoder.encodeValue(wrappedValue) }
}

extension SavedStateEncoder {
    /// Writes an object's members, then its `}` (``end()``): `"key":value`, separated by commas, nil ones left out.
    package struct ObjectWriter {
        /// The encoder written to (strong: a reference loaded from an unowned one is counted at every use).
        package let encoder: SavedStateEncoder
        var empty = true

        init(encoder: SavedStateEncoder) { self.encoder = encoder }

        /// Writes `"key":` (after a comma unless it is the first member). `key` needs no escaping.
        @inline(__always) package mutating func key(_ key: StaticString) {
            let length = key.utf8CodeUnitCount
            encoder.reserve(length + 4)
            if !empty { encoder.put(UInt8(ascii: ",")) }
            empty = false
            encoder.put(UInt8(ascii: "\""))
            encoder.put(UnsafeRawPointer(key.utf8Start), length)
            encoder.put(UInt8(ascii: "\""))
            encoder.put(UInt8(ascii: ":"))
        }

        @inline(__always) package mutating func string(_ key: StaticString, _ value: String?) {
            guard let value else { return }
            self.key(key)
            encoder.writeString(value)
        }

        @inline(__always) package mutating func integer(_ key: StaticString, _ value: Int?) {
            guard let value else { return }
            self.key(key)
            encoder.writeInteger(value)
        }

        @inline(__always) package mutating func bool(_ key: StaticString, _ value: Bool?) {
            guard let value else { return }
            self.key(key)
            encoder.append(value ? "true" : "false")
        }

        /// A date as `JSONEncoder`'s default strategy writes it: seconds since 2001-01-01.
        @inline(__always) package mutating func date(_ key: StaticString, _ value: Date?) throws {
            guard let value else { return }
            self.key(key)
            try encoder.writeDouble(value.timeIntervalSinceReferenceDate)
        }

        /// An array of strings.
        package mutating func strings(_ key: StaticString, _ values: [String]?) {
            guard let values else { return }
            self.key(key)
            encoder.put(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { encoder.put(UInt8(ascii: ",")) }
                encoder.writeString(value)
            }
            encoder.put(UInt8(ascii: "]"))
        }

        /// Integers by string keys, in the dictionary's order (as `Dictionary`'s `encode(to:)` writes them).
        package mutating func integers(_ key: StaticString, _ values: [String: Int]?) {
            guard let values else { return }
            self.key(key)
            encoder.put(UInt8(ascii: "{"))
            var first = true
            for (name, value) in values {
                if !first { encoder.put(UInt8(ascii: ",")) }
                first = false
                encoder.writeString(name)
                encoder.put(UInt8(ascii: ":"))
                encoder.writeInteger(value)
            }
            encoder.put(UInt8(ascii: "}"))
        }

        // A value that writes itself is written by the models' module (`value(_:_:)` there): generic code here runs
        // unspecialized in that module, looking up `Optional<Model>`'s metadata at every call.

        /// Any other value, through its `encode(to:)`.
        package mutating func encodable(_ key: StaticString, _ value: (some Encodable)?) throws {
            guard let value else { return }
            self.key(key)
            try encoder.encodeValue(value)
        }

        /// Writes the `}`.
        @inline(__always) package func end() { encoder.put(UInt8(ascii: "}")) }
    }

    /// Writes `{` and returns the writer of the object's members.
    @inline(__always) package func beginObject() -> ObjectWriter {
        put(UInt8(ascii: "{"))
        return ObjectWriter(encoder: self)
    }
}
