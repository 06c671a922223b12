// SPDX-License-Identifier: MIT
import Foundation

/// Writes `Encodable` values as JSON straight into its byte buffer, as `JSONEncoder` with its default options writes
/// them (dates as seconds since 2001-01-01, `Data` as Base64, `URL` as its absolute string, `Decimal` as a number,
/// nil members left out, a non-finite number refused), without the tree `JSONEncoder` builds first: the state file's
/// objects, a million of them in a large sandbox, are written this way. Members come in the order the value encodes
/// them; strings escape what JSON must (`"`, `\` and controls), nothing else.
///
/// Values are written as they are encoded, so a container must be finished before its parent takes the next value,
/// as synthesized `Codable` (and every conformance in this package) does. A value that writes to a container after
/// a sibling was begun, or asks for a `superEncoder`, is written by `JSONEncoder` instead. A value that is
/// ``SavedStateDirectEncodable`` (the models a large sandbox holds most of) writes its own bytes, the same ones.
package final class SavedStateEncoder: Encoder {
    /// The JSON text written so far: a buffer of its own, written through pointers (an `Array`'s appends check
    /// uniqueness and capacity at every byte). Its fields and the frames' are unchecked for exclusivity: every
    /// access is the encoder's own, on one thread, none overlapping (the checks took a third of a large write's time).
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    /// Bytes written so far.
    @exclusivity(unchecked) package private(set) var count = 0

    /// Whether ``SavedStateDirectEncodable`` values write themselves (false: through `encode(to:)`, for the tests that
    /// compare the two).
    @exclusivity(unchecked) package var writesDirectly = true

    package init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// The text written so far, as an array (a copy).
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: count)) }

    /// Runs `body` with the text written so far.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Forgets the text written (the buffer stays).
    package func removeAll() { count = 0 }

    /// Makes room for `more` bytes.
    @inline(__always) package func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        grow(count + more)
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        larger.update(from: storage, count: count)
        storage.deallocate()
        storage = larger
        capacity = newCapacity
    }

    @inline(__always) package func put(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    @inline(__always) package func put(_ source: UnsafeRawPointer, _ length: Int) {
        guard length > 0 else { return }
        reserve(length)
        (storage + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: length)
        count += length
    }

    /// Appends text that is JSON already (or a piece of it: punctuation, a key).
    package func append(_ text: String) {
        var text = text
        text.withUTF8 { put($0.baseAddress!, $0.count) }
    }

    /// Appends bytes of JSON text.
    package func append(bytes: some Collection<UInt8>) {
        let copied: Void? = bytes.withContiguousStorageIfAvailable { buffer -> Void in
            if let base = buffer.baseAddress { put(base, buffer.count) }
        }
        if copied == nil {
            reserve(bytes.count)
            for byte in bytes { put(byte) }
        }
    }

    /// Appends bytes of JSON text.
    package func append(raw: UnsafeRawBufferPointer) {
        if let base = raw.baseAddress { put(base, raw.count) }
    }

    /// Appends `value`; on a throw, the text is as it was.
    package func encode<T: Encodable>(_ value: T) throws {
        let start = count
        frames.removeAll(keepingCapacity: true)
        valueBase = 0
        unsupported = false
        do {
            try encodeValue(value)
            closeAll()
        } catch {
            count = start
            throw error
        }
        if unsupported {
            count = start
            append(bytes: try JSONEncoder().encode(value))
        }
    }

    /// Appends `string` as a JSON string.
    package func append(string: String) { writeString(string) }

    /// Appends an integer.
    package func append(integer: some FixedWidthInteger) { writeInteger(integer) }

    struct Frame {
        var isObject: Bool
        var count: Int
        var id: Int
    }

    @exclusivity(unchecked) var frames: [Frame] = []
    @exclusivity(unchecked) var nextFrameID = 0
    /// The frame index at which the value being encoded opens its container (frames below belong to its parents).
    @exclusivity(unchecked) var valueBase = 0
    @exclusivity(unchecked) var unsupported = false

    package var codingPath: [any CodingKey] { [] }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    // MARK: Frames

    /// Closes the frames from `index` up.
    func close(from index: Int) {
        while frames.count > index {
            put(frames.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    func closeAll() { close(from: 0) }

    func open(isObject: Bool) -> (index: Int, id: Int) {
        put(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        nextFrameID += 1
        frames.append(Frame(isObject: isObject, count: 0, id: nextFrameID))
        return (frames.count - 1, nextFrameID)
    }

    /// Makes the frame at `index` (which must still be `id`) the innermost, closing what a finished child left open,
    /// and writes the separator before its next member. False when the frame was closed already (interleaved writes).
    func beginMember(_ index: Int, _ id: Int) -> Bool {
        guard index < frames.count, frames[index].id == id else {
            unsupported = true
            return false
        }
        close(from: index + 1)
        if frames[index].count > 0 { put(UInt8(ascii: ",")) }
        frames[index].count += 1
        return true
    }

    /// The frame of the value being encoded: the one it opened, or a new one.
    func frameForValue(isObject: Bool) -> (index: Int, id: Int) {
        if frames.count > valueBase {
            let frame = frames[valueBase]
            if frame.isObject != isObject { unsupported = true }
            return (valueBase, frame.id)
        }
        return open(isObject: isObject)
    }

    // MARK: Encoder

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (index, id) = frameForValue(isObject: true)
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, index: index, id: id))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (index, id) = frameForValue(isObject: false)
        return UnkeyedContainer(encoder: self, index: index, id: id)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self, base: valueBase, start: count)
    }

    // MARK: Values

    package func encodeValue<T: Encodable>(_ value: T) throws {
        if T.self == Date.self {
            try writeDouble(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate)
        } else if T.self == String.self {
            writeString(unsafeBitCast(value, to: String.self))
        } else if T.self == Data.self, let data = value as? Data {
            writeString(data.base64EncodedString())
        } else if T.self == URL.self, let url = value as? URL {
            writeString(url.absoluteString)
        } else if T.self == Decimal.self, let decimal = value as? Decimal {
            append(decimal.description)
        } else if writesDirectly, let direct = value as? any SavedStateDirectEncodable {
            try direct.write(to: self)
        } else {
            let outerBase = valueBase
            let start = count
            valueBase = frames.count
            defer { valueBase = outerBase }
            try value.encode(to: self)
            close(from: valueBase)
            if count == start { append("{}") }
        }
    }

    package func writeString(_ string: String) {
        // A native string's bytes are read where they are (no copy of the string, no reference counted).
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { writeString(utf8: $0) }
        if written == nil {
            var string = string
            string.withUTF8 { writeString(utf8: $0) }
        }
    }

    /// Writes UTF-8 text as a JSON string: the runs that need no escape copied whole, eight bytes checked at a time.
    private func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        guard let base = utf8.baseAddress else {
            append("\"\"")
            return
        }
        let length = utf8.count
        reserve(length + 2)
        put(UInt8(ascii: "\""))
        var clean = 0
        var offset = 0
        while offset < length {
            if offset + 8 <= length, !Self.needsEscape(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) {
                offset += 8
                continue
            }
            let byte = base[offset]
            offset += 1
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            put(base + clean, offset - 1 - clean)
            clean = offset
            writeEscape(byte)
        }
        put(base + clean, length - clean)
        put(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes is a control character, a quote or a backslash, without a branch per byte: a
    /// byte below 0x20 sets its high bit when 0x20 is taken from it (and it had none), a byte equal to 0x22 or 0x5C is
    /// zero after the XOR, and a zero byte sets its high bit when 1 is taken from it. No false answer either way.
    @inline(__always) private static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let equal = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highs
        return below | equal != 0
    }

    /// A backslash and what stands for `byte` after it.
    private func writeEscape(_ byte: UInt8) {
        put(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
        case 0x0A: put(UInt8(ascii: "n"))
        case 0x0D: put(UInt8(ascii: "r"))
        case 0x09: put(UInt8(ascii: "t"))
        default:
            let hex = Array("0123456789abcdef".utf8)
            append("u00")
            put(hex[Int(byte >> 4)])
            put(hex[Int(byte & 0xF)])
        }
    }

    package func writeDouble(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        append(text)
    }

    package func writeInteger<T: FixedWidthInteger>(_ value: T) {
        guard value != 0 else { put(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { put(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // room for 32 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            while magnitude > 0 {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            put(buffer.baseAddress! + index, buffer.count - index)
        }
    }

    func writeKey(_ key: some CodingKey) {
        writeString(key.stringValue)
        put(UInt8(ascii: ":"))
    }

    // MARK: Containers

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: SavedStateEncoder
        let index: Int
        let id: Int
        var codingPath: [any CodingKey] { [] }

        func member(_ key: Key) -> Bool {
            guard encoder.beginMember(index, id) else { return false }
            encoder.writeKey(key)
            return true
        }

        mutating func encodeNil(forKey key: Key) throws { if member(key) { encoder.append("null") } }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            if member(key) { encoder.append(value ? "true" : "false") }
        }
        mutating func encode(_ value: String, forKey key: Key) throws { if member(key) { encoder.writeString(value) } }
        mutating func encode(_ value: Double, forKey key: Key) throws { if member(key) { try encoder.writeDouble(value) } }
        mutating func encode(_ value: Float, forKey key: Key) throws { if member(key) { try encoder.writeDouble(Double(value)) } }
        mutating func encode(_ value: Int, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int8, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int16, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int32, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int64, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { if member(key) { encoder.writeInteger(value) } }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { if member(key) { try encoder.encodeValue(value) } }

        // Nil members are left out (as JSONEncoder does). Implemented here: the protocol's default goes through
        // `Optional<T>`'s metadata, looked up at run time on every call.
        mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { if let value { try encode(value, forKey: key) } }
        mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
            if let value { try encode(value, forKey: key) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            _ = member(key)
            let (index, id) = encoder.open(isObject: true)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, index: index, id: id))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            _ = member(key)
            let (index, id) = encoder.open(isObject: false)
            return UnkeyedContainer(encoder: encoder, index: index, id: id)
        }

        mutating func superEncoder() -> any Encoder { encoder.unsupported = true; return encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.unsupported = true; return encoder }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: SavedStateEncoder
        let index: Int
        let id: Int
        var codingPath: [any CodingKey] { [] }
        var count: Int { index < encoder.frames.count && encoder.frames[index].id == id ? encoder.frames[index].count : 0 }

        func element() -> Bool { encoder.beginMember(index, id) }

        mutating func encodeNil() throws { if element() { encoder.append("null") } }
        mutating func encode(_ value: Bool) throws { if element() { encoder.append(value ? "true" : "false") } }
        mutating func encode(_ value: String) throws { if element() { encoder.writeString(value) } }
        mutating func encode(_ value: Double) throws { if element() { try encoder.writeDouble(value) } }
        mutating func encode(_ value: Float) throws { if element() { try encoder.writeDouble(Double(value)) } }
        mutating func encode(_ value: Int) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int8) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int16) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int32) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int64) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt8) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt16) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt32) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt64) throws { if element() { encoder.writeInteger(value) } }
        mutating func encode<T: Encodable>(_ value: T) throws { if element() { try encoder.encodeValue(value) } }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            _ = element()
            let (index, id) = encoder.open(isObject: true)
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, index: index, id: id))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            _ = element()
            let (index, id) = encoder.open(isObject: false)
            return UnkeyedContainer(encoder: encoder, index: index, id: id)
        }

        mutating func superEncoder() -> any Encoder { encoder.unsupported = true; return encoder }
    }

    /// One value, written at once. A second value for the same slot, or one after the value opened a container, is
    /// refused.
    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: SavedStateEncoder
        let base: Int
        let start: Int
        var codingPath: [any CodingKey] { [] }

        func slot() -> Bool {
            guard encoder.count == start, encoder.frames.count == base else {
                encoder.unsupported = true
                return false
            }
            return true
        }

        mutating func encodeNil() throws { if slot() { encoder.append("null") } }
        mutating func encode(_ value: Bool) throws { if slot() { encoder.append(value ? "true" : "false") } }
        mutating func encode(_ value: String) throws { if slot() { encoder.writeString(value) } }
        mutating func encode(_ value: Double) throws { if slot() { try encoder.writeDouble(value) } }
        mutating func encode(_ value: Float) throws { if slot() { try encoder.writeDouble(Double(value)) } }
        mutating func encode(_ value: Int) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int8) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int16) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int32) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: Int64) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt8) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt16) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt32) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode(_ value: UInt64) throws { if slot() { encoder.writeInteger(value) } }
        mutating func encode<T: Encodable>(_ value: T) throws { if slot() { try encoder.encodeValue(value) } }
    }
}
