// SPDX-License-Identifier: MIT
import Foundation

/// Compact JSON written straight into bytes, byte for byte as ``JSONText`` writes the same value (its escaping, no
/// spaces), without building a tree first: for large answers on the request path.
/// A comma goes before a key, an element or a value unless it opens its object or array or follows its key.
package struct JSONWriter: ~Copyable {
    private var buffer: JSONByteBuffer
    /// Whether the last thing written was a whole value (a comma goes before the next key, element or value).
    private var afterValue = false

    package init(capacity: Int = 2048) { buffer = JSONByteBuffer(capacity: capacity) }

    /// What has been written.
    package var bytes: [UInt8] { buffer.bytes }
    package var string: String { buffer.string }
    package var data: Data { buffer.data }

    package mutating func beginObject() {
        separate()
        buffer.append(UInt8(ascii: "{"))
    }

    package mutating func endObject() {
        buffer.append(UInt8(ascii: "}"))
        afterValue = true
    }

    package mutating func beginArray() {
        separate()
        buffer.append(UInt8(ascii: "["))
    }

    package mutating func endArray() {
        buffer.append(UInt8(ascii: "]"))
        afterValue = true
    }

    package mutating func key(_ key: String) {
        separate()
        JSONText.writeString(key, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
    }

    package mutating func member(_ key: String, _ value: String) {
        self.key(key)
        element(value)
    }

    /// A member whose string value is the three parts joined.
    package mutating func member(_ key: String, _ first: String, _ second: String, _ third: String) {
        self.key(key)
        buffer.append(UInt8(ascii: "\""))
        escape(first)
        escape(second)
        escape(third)
        buffer.append(UInt8(ascii: "\""))
        afterValue = true
    }

    /// A member whose string value is `parts` joined.
    package mutating func member(_ key: String, _ parts: String...) {
        self.key(key)
        buffer.append(UInt8(ascii: "\""))
        for part in parts { escape(part) }
        buffer.append(UInt8(ascii: "\""))
        afterValue = true
    }

    package mutating func member(_ key: String, int value: Int) {
        self.key(key)
        JSONText.writeInt(value, to: &buffer)
        afterValue = true
    }

    package mutating func member(_ key: String, bool value: Bool) {
        self.key(key)
        literal(value ? "true" : "false")
    }

    /// A string element of an array (or a member's value, after ``key(_:)``).
    package mutating func element(_ value: String) {
        separate()
        JSONText.writeString(value, to: &buffer)
        afterValue = true
    }

    /// A value built as ``JSONText``.
    package mutating func value(_ value: JSONText) {
        separate()
        value.write(to: &buffer)
        afterValue = true
    }

    /// A value written as it is: `null`, `true`, `false` or a number's JSON text.
    package mutating func literal(_ text: String) {
        separate()
        var text = text
        text.withUTF8 { buffer.append($0) }
        afterValue = true
    }

    private mutating func separate() {
        if afterValue { buffer.append(UInt8(ascii: ",")) }
        afterValue = false
    }

    private mutating func escape(_ part: String) {
        if part.utf8.withContiguousStorageIfAvailable({ JSONText.writeEscaped($0, to: &buffer) }) == nil {
            var part = part  // not stored as UTF-8: made so, once
            part.withUTF8 { JSONText.writeEscaped($0, to: &buffer) }
        }
    }
}
