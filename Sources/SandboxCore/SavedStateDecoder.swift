// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a state file is not JSON: the byte offset, what was found there, and the key path of the value it is in
/// (`stores.<store>.namespaces[0]`, when known).
package struct SavedStateSyntaxError: Error, Sendable, CustomStringConvertible {
    package var offset: Int
    package var message: String
    package var path = ""
    package init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }
    package var description: String { (path.isEmpty ? "" : "\(path): ") + "not valid JSON at byte \(offset): \(message)" }
}

/// One JSON value of a state file, parsed into a flat list of tokens (a "tape"): each value is an entry with its
/// kind and place in the text; an object's members are a key entry followed by the value's entries; a container
/// records where its entries end, so a reader steps over it at once. Made for one stored object at a time (a few
/// hundred bytes), and reused: its array keeps its capacity.
package struct SavedStateTape {
    enum Kind: UInt8 { case object, array, string, escapedString, number, trueValue, falseValue, null }

    /// One value: its kind and place in the text.
    struct Entry {
        /// A string's first byte after the quote; a number's first byte; a container's opening bracket.
        var start: Int
        /// A string's closing quote; a number's end; a container: the index of the entry after its last one.
        var end: Int
        /// A container's end in the text (after its closing bracket); 0 for the other kinds.
        var close: Int
        var kind: Kind
    }

    /// The entries, one array (one check of its storage per value parsed, not four).
    var entries: [Entry] = []

    /// Deeper than this is refused (the state file's objects nest about a dozen levels).
    static let maxDepth = 256

    /// Parses the value that starts at `offset` (after white space) and returns the offset after it.
    mutating func parse(_ text: UnsafeRawBufferPointer, at offset: Int) throws(SavedStateSyntaxError) -> Int {
        entries.removeAll(keepingCapacity: true)
        var parser = TapeParser(text: text, position: offset)
        try parser.value(into: &self, depth: 0)
        return parser.position
    }

    /// The entry after the value at `index` (its next sibling).
    @inline(__always) func after(_ index: Int) -> Int {
        switch entries[index].kind {
        case .object, .array: entries[index].end
        default: index + 1
        }
    }

    @inline(__always) mutating func append(_ kind: Kind, _ start: Int, _ end: Int) -> Int {
        entries.append(Entry(start: start, end: end, close: 0, kind: kind))
        return entries.count - 1
    }
}

/// A strict RFC 8259 parser over the bytes (white space, literals, numbers, strings with their escapes).
struct JSONTextScanner {
    let text: UnsafeRawBufferPointer
    var position: Int

    init(text: UnsafeRawBufferPointer, position: Int) {
        self.text = text
        self.position = position
    }

    func fail(_ message: String, at offset: Int? = nil) -> SavedStateSyntaxError {
        SavedStateSyntaxError(message, at: offset ?? position)
    }

    @inline(__always) mutating func skipSpace() {
        while position < text.count {
            switch text[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    /// The next byte after white space, not consumed; nil at the end.
    @inline(__always) mutating func peek() -> UInt8? {
        skipSpace()
        return position < text.count ? text[position] : nil
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(SavedStateSyntaxError) {
        guard peek() == byte else { throw fail(found(what)) }
        position += 1
    }

    func found(_ expected: String) -> String {
        guard position < text.count else { return "expected \(expected), found the end of the file" }
        let byte = text[position]
        let shown = byte >= 0x20 && byte < 0x7F ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
        return "expected \(expected), found \(shown)"
    }

    /// A string starting at its opening quote: (first byte, closing quote, has escapes).
    mutating func string() throws(SavedStateSyntaxError) -> (start: Int, end: Int, escaped: Bool) {
        guard peek() == UInt8(ascii: "\"") else { throw fail(found("a string")) }
        position += 1
        let start = position
        var escaped = false
        while true {
            // Eight bytes at a time while none of them ends the string, escapes or is a control character.
            skipStringBytes()
            guard position < text.count else { throw fail("a string that does not end", at: start - 1) }
            let byte = text[position]
            if byte == UInt8(ascii: "\"") { break }
            if byte < 0x20 { throw fail("a control character in a string") }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position += 1
                guard position < text.count else { throw fail("a string that does not end", at: start - 1) }
                switch text[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                     UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        position += 1
                        guard position < text.count, Self.hexValue(text[position]) != nil else { throw fail("a bad \\u escape") }
                    }
                default:
                    throw fail("a bad escape in a string")
                }
            }
            position += 1
        }
        let end = position
        position += 1
        return (start, end, escaped)
    }

    /// Steps eight bytes at a time to the first that ends a string, escapes or is a control character (or to the
    /// last seven bytes of the text).
    @inline(__always) mutating func skipStringBytes() {
        while position &+ 8 <= text.count {
            let skipped = Self.bytesBeforeStringStop(text.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            position &+= skipped
            if skipped < 8 { return }
        }
    }

    /// How many of the eight bytes (in text order) come before the first `"`, backslash or byte below 0x20; 8 for
    /// none. A byte found zero after the XOR (or below 0x20) sets its high bit; the lowest set bit is exact.
    @inline(__always) static func bytesBeforeStringStop(_ loaded: UInt64) -> Int {
        let word = UInt64(littleEndian: loaded)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ 0x2222_2222_2222_2222, backslash = word ^ 0x5C5C_5C5C_5C5C_5C5C
        let zeroOrControl = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- 0x2020_2020_2020_2020) & ~word)
        return (zeroOrControl & highs).trailingZeroBitCount &>> 3
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// A number's extent, checked against the grammar.
    mutating func number() throws(SavedStateSyntaxError) -> (start: Int, end: Int) {
        _ = peek()
        let start = position
        func digit(_ at: Int) -> Bool { at < text.count && text[at] >= UInt8(ascii: "0") && text[at] <= UInt8(ascii: "9") }
        if position < text.count && text[position] == UInt8(ascii: "-") { position += 1 }
        guard digit(position) else { throw fail(found("a digit")) }
        if text[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while digit(position) { position += 1 }
        }
        if position < text.count && text[position] == UInt8(ascii: ".") {
            position += 1
            guard digit(position) else { throw fail(found("a digit after the decimal point")) }
            while digit(position) { position += 1 }
        }
        if position < text.count && (text[position] == UInt8(ascii: "e") || text[position] == UInt8(ascii: "E")) {
            position += 1
            if position < text.count && (text[position] == UInt8(ascii: "+") || text[position] == UInt8(ascii: "-")) { position += 1 }
            guard digit(position) else { throw fail(found("a digit in the exponent")) }
            while digit(position) { position += 1 }
        }
        return (start, position)
    }

    mutating func literal(_ word: StaticString) throws(SavedStateSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard position + count <= text.count,
              memcmp(text.baseAddress! + position, word.utf8Start, count) == 0 else { throw fail(found("a value")) }
        position += count
    }

    /// Steps over one value (checked as it goes), without keeping anything.
    mutating func skipValue(depth: Int = 0) throws(SavedStateSyntaxError) {
        guard depth < SavedStateTape.maxDepth else { throw fail("values nested too deeply") }
        switch peek() {
        case UInt8(ascii: "{"):
            position += 1
            if peek() == UInt8(ascii: "}") { position += 1; return }
            while true {
                _ = try string()
                try expect(UInt8(ascii: ":"), "':'")
                try skipValue(depth: depth + 1)
                switch peek() {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): position += 1; return
                default: throw fail(found("',' or '}'"))
                }
            }
        case UInt8(ascii: "["):
            position += 1
            if peek() == UInt8(ascii: "]") { position += 1; return }
            while true {
                try skipValue(depth: depth + 1)
                switch peek() {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): position += 1; return
                default: throw fail(found("',' or ']'"))
                }
            }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try number()
        }
    }

    /// Steps over one value finding only where it ends (its brackets and strings), checking nothing else: for a
    /// value whose text is checked where it is parsed (a stored object, ``SavedStateTape``). A value that does not
    /// end, only, throws here.
    mutating func skipValueUnchecked() throws(SavedStateSyntaxError) {
        _ = peek()
        let start = position
        guard position < text.count, text[position] == UInt8(ascii: "{") || text[position] == UInt8(ascii: "[")
                || text[position] == UInt8(ascii: "\"") else {
            while position < text.count {
                switch text[position] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return
                default: position += 1
                }
            }
            return
        }
        // Outside strings only brackets and quotes count (few bytes: keys' separators, numbers); a string's bytes are
        // stepped over eight at a time to its closing quote.
        var depth = 0
        while position < text.count {
            switch text[position] {
            case UInt8(ascii: "\""):
                position += 1
                while true {
                    skipStringBytes()
                    guard position < text.count else { throw fail("a value that does not end", at: start) }
                    let byte = text[position]
                    if byte == UInt8(ascii: "\"") { position += 1; break }
                    position += byte == UInt8(ascii: "\\") ? 2 : 1
                }
                if depth == 0 { return }
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                position += 1
                if depth == 0 { return }
            default: position += 1
            }
        }
        throw fail("a value that does not end", at: start)
    }

    /// The text of a string (its escapes resolved).
    func stringValue(_ start: Int, _ end: Int, escaped: Bool) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: text[start..<end])
        guard escaped else { return String(decoding: raw, as: UTF8.self) }
        return Self.unescape(raw)
    }

    /// A string's escapes resolved (the scanner checked them); lone surrogates become U+FFFD.
    static func unescape(_ raw: UnsafeRawBufferPointer) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = 0
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 { value = value << 4 | UInt32(hexValue(raw[at + offset]) ?? 0) }
            return value
        }
        func appendScalar(_ value: UInt32) {
            let scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
            out.append(contentsOf: String(Character(scalar)).utf8)
        }
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else { out.append(byte); index += 1; continue }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var value = hex4(index)
                index += 4
                if (0xD800...0xDBFF).contains(value), index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"),
                   raw[index + 1] == UInt8(ascii: "u") {
                    let low = hex4(index + 2)
                    if (0xDC00...0xDFFF).contains(low) {
                        value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                appendScalar(value)
            default: out.append(escape)  // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Builds a ``SavedStateTape`` with a ``JSONTextScanner``.
private struct TapeParser {
    var scanner: JSONTextScanner
    var position: Int { scanner.position }

    init(text: UnsafeRawBufferPointer, position: Int) { scanner = JSONTextScanner(text: text, position: position) }

    mutating func value(into tape: inout SavedStateTape, depth: Int) throws(SavedStateSyntaxError) {
        guard depth < SavedStateTape.maxDepth else { throw scanner.fail("values nested too deeply") }
        switch scanner.peek() {
        case UInt8(ascii: "{"):
            try object(into: &tape, depth: depth)
        case UInt8(ascii: "["):
            try array(into: &tape, depth: depth)
        case UInt8(ascii: "\""):
            let string = try scanner.string()
            _ = tape.append(string.escaped ? .escapedString : .string, string.start, string.end)
        case UInt8(ascii: "t"):
            let start = scanner.position
            try scanner.literal("true")
            _ = tape.append(.trueValue, start, scanner.position)
        case UInt8(ascii: "f"):
            let start = scanner.position
            try scanner.literal("false")
            _ = tape.append(.falseValue, start, scanner.position)
        case UInt8(ascii: "n"):
            let start = scanner.position
            try scanner.literal("null")
            _ = tape.append(.null, start, scanner.position)
        default:
            let number = try scanner.number()
            _ = tape.append(.number, number.start, number.end)
        }
    }

    /// An object at the scanner's `{`: its keys and values, then where it ends.
    private mutating func object(into tape: inout SavedStateTape, depth: Int) throws(SavedStateSyntaxError) {
        let index = tape.append(.object, scanner.position, 0)
        scanner.position += 1
        if scanner.peek() == UInt8(ascii: "}") {
            scanner.position += 1
        } else {
            while true {
                let key = try scanner.string()
                _ = tape.append(key.escaped ? .escapedString : .string, key.start, key.end)
                try scanner.expect(UInt8(ascii: ":"), "':'")
                try value(into: &tape, depth: depth + 1)
                switch scanner.peek() {
                case UInt8(ascii: ","): scanner.position += 1; continue
                case UInt8(ascii: "}"): scanner.position += 1
                default: throw scanner.fail(scanner.found("',' or '}'"))
                }
                break
            }
        }
        tape.entries[index].end = tape.entries.count
        tape.entries[index].close = scanner.position
    }

    /// An array at the scanner's `[`: its values, then where it ends.
    private mutating func array(into tape: inout SavedStateTape, depth: Int) throws(SavedStateSyntaxError) {
        let index = tape.append(.array, scanner.position, 0)
        scanner.position += 1
        if scanner.peek() == UInt8(ascii: "]") {
            scanner.position += 1
        } else {
            while true {
                try value(into: &tape, depth: depth + 1)
                switch scanner.peek() {
                case UInt8(ascii: ","): scanner.position += 1; continue
                case UInt8(ascii: "]"): scanner.position += 1
                default: throw scanner.fail(scanner.found("',' or ']'"))
                }
                break
            }
        }
        tape.entries[index].end = tape.entries.count
        tape.entries[index].close = scanner.position
    }
}

/// Reads `Decodable` values from the state file's text as `JSONDecoder` does with its default options (dates as
/// seconds since 2001-01-01, held to ``SavedValueBounds``; `Data` from Base64; `URL` from its string; `Decimal`
/// from a number), one value at a time over a ``SavedStateTape``: the text of a large sandbox's file is never held as
/// a tree. Errors are `DecodingError`s whose coding path starts with ``basePath`` (`stores.<store>.namespaces[0]…`).
package final class SavedStateDecoder: Decoder {
    let text: UnsafeRawBufferPointer
    /// (Accesses unchecked for exclusivity, as ``SavedStateEncoder``'s: the decoder's own, on one thread.)
    @exclusivity(unchecked) var tape = SavedStateTape()
    /// The tape entry being decoded.
    @exclusivity(unchecked) var current = 0
    /// Where the value decoded sits in the file (``SavedKey``s).
    package var basePath: [SavedKey] = []
    /// Below ``basePath``: an entry ≥ 0 is the tape index of a member's key, one < 0 is -(array index + 1).
    @exclusivity(unchecked) var path: [Int] = []
    package var userInfo: [CodingUserInfoKey: Any] = [:]
    /// Values decoded before, by their text: a value whose text is the same is the same value (``SavedValueShareable``).
    var values: SavedValueCache?

    /// A decoder over `text`, which must stay valid while it is used.
    package init(text: UnsafeRawBufferPointer, values: SavedValueCache? = nil) {
        self.text = text
        self.values = values
    }

    /// Decodes the value that starts at `offset` (after white space); returns it and the offset after it.
    package func decode<T: Decodable>(_ type: T.Type, at offset: Int) throws -> (value: T, end: Int) {
        let end = try tape.parse(text, at: offset)
        path.removeAll(keepingCapacity: true)
        return (try decodeValue(T.self, at: 0), end)
    }

    /// Runs `body` with this decoder standing at the value that starts at `offset`; returns the offset after it.
    package func withValue(at offset: Int, _ body: (any Decoder) throws -> Void) throws -> Int {
        let end = try tape.parse(text, at: offset)
        path.removeAll(keepingCapacity: true)
        current = 0
        try body(self)
        return end
    }

    package var codingPath: [any CodingKey] { path(count: path.count) }

    func path(count: Int) -> [any CodingKey] {
        var keys: [any CodingKey] = basePath
        for entry in path.prefix(count) {
            keys.append(entry >= 0 ? SavedKey(string(at: entry)) : SavedKey(index: -entry - 1))
        }
        return keys
    }

    // MARK: Values

    func decodeValue<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        let saved = current
        current = index
        defer { current = saved }
        if T.self == Date.self {
            return unsafeBitCast(try SavedValueBounds.decodeDate(self), to: T.self)
        } else if T.self == String.self {
            return unsafeBitCast(try string(at: index, as: T.self), to: T.self)
        } else if T.self == Data.self {
            guard let data = Data(base64Encoded: try string(at: index, as: T.self)) else {
                throw corrupted("Encountered Data is not valid Base64.")
            }
            guard let typed = data as? T else { throw mismatch(T.self, at: index) }
            return typed
        } else if T.self == URL.self {
            guard let url = URL(string: try string(at: index, as: T.self)) else { throw corrupted("Invalid URL string.") }
            guard let typed = url as? T else { throw mismatch(T.self, at: index) }
            return typed
        } else if T.self == Decimal.self {
            guard tape.entries[index].kind == .number, let decimal = Decimal(string: numberText(index)) else {
                throw mismatch(T.self, at: index)
            }
            guard let typed = decimal as? T else { throw mismatch(T.self, at: index) }
            return typed
        }
        if let values, tape.entries[index].kind.rawValue <= SavedStateTape.Kind.array.rawValue,
           tape.entries[index].close - tape.entries[index].start >= SavedValueCache.smallest, T.self is any SavedValueShareable.Type {
            return try values.value(T.self, text: UnsafeRawBufferPointer(rebasing: text[tape.entries[index].start..<tape.entries[index].close])) {
                try T(from: self)
            }
        }
        return try T(from: self)
    }

    func string(at index: Int) -> String {
        let start = tape.entries[index].start, end = tape.entries[index].end
        let raw = UnsafeRawBufferPointer(rebasing: text[start..<end])
        return tape.entries[index].kind == .escapedString ? JSONTextScanner.unescape(raw) : String(decoding: raw, as: UTF8.self)
    }

    func string<T>(at index: Int, as type: T.Type) throws -> String {
        switch tape.entries[index].kind {
        case .string, .escapedString: return string(at: index)
        default: throw mismatch(type, at: index)
        }
    }

    func bool(at index: Int) throws -> Bool {
        switch tape.entries[index].kind {
        case .trueValue: return true
        case .falseValue: return false
        default: throw mismatch(Bool.self, at: index)
        }
    }

    func numberText(_ index: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: text[tape.entries[index].start..<tape.entries[index].end]), as: UTF8.self)
    }

    func double(at index: Int) throws -> Double {
        guard tape.entries[index].kind == .number else { throw mismatch(Double.self, at: index) }
        let start = tape.entries[index].start, count = tape.entries[index].end - start
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer -> Double in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(rebasing: text[start..<start + count]))
            buffer[count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
        guard value.isFinite else { throw corrupted("Number \(numberText(index)) is not representable in Double.") }
        return value
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        guard tape.entries[index].kind == .number else { throw mismatch(T.self, at: index) }
        var position = tape.entries[index].start
        let end = tape.entries[index].end
        let negative = text[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var value: T = 0
        while position < end {
            let byte = text[position]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                // A fraction or an exponent: accepted when the number is a whole one that fits.
                let double = try double(at: index)
                guard let exact = T(exactly: double) else { break }
                return exact
            }
            let digit = T(byte - UInt8(ascii: "0"))
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow1, !overflow2 else { throw corrupted("Number \(numberText(index)) is not representable in \(T.self).") }
            value = next
            position += 1
        }
        guard position == end else { throw corrupted("Number \(numberText(index)) is not representable in \(T.self).") }
        return value
    }

    // MARK: Errors

    func describe(_ index: Int) -> String {
        switch tape.entries[index].kind {
        case .object: "a dictionary"
        case .array: "an array"
        case .string, .escapedString: "a string"
        case .number: "number \(numberText(index))"
        case .trueValue, .falseValue: "bool"
        case .null: "null"
        }
    }

    func mismatch<T>(_ type: T.Type, at index: Int) -> DecodingError {
        if tape.entries[index].kind == .null {
            return .valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Cannot get \(type) -- found null value instead"))
        }
        return .typeMismatch(type, DecodingError.Context(codingPath: codingPath,
                                                         debugDescription: "Expected to decode \(type) but found \(describe(index)) instead."))
    }

    func corrupted(_ message: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: message))
    }

    // MARK: Decoder

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard tape.entries[current].kind == .object else { throw mismatch([String: Any].self, at: current) }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: current))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tape.entries[current].kind == .array else { throw mismatch([Any].self, at: current) }
        return UnkeyedContainer(decoder: self, array: current)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self, index: current, pathCount: path.count)
    }

    /// Decodes the value at tape entry `index` with `pathEntry` added to the path.
    @inline(__always) func decodeChild<T: Decodable>(_ type: T.Type, at index: Int, pathEntry: Int) throws -> T {
        path.append(pathEntry)
        defer { path.removeLast() }
        return try decodeValue(type, at: index)
    }

    /// A decoder of its own for a container used after the call that made it returns (a nested container, a super
    /// decoder): this one's tape and path plus `entry`, at tape entry `current`.
    func branch(adding entry: Int, current: Int) -> SavedStateDecoder {
        let branch = SavedStateDecoder(text: text)
        branch.tape = tape
        branch.basePath = basePath
        branch.path = path + [entry]
        branch.current = current
        branch.userInfo = userInfo
        branch.values = values
        return branch
    }

    /// A primitive read with `pathEntry` on the path for its error.
    @inline(__always) func child<T>(pathEntry: Int, _ read: () throws -> T) throws -> T {
        path.append(pathEntry)
        defer { path.removeLast() }
        return try read()
    }

    // MARK: Containers

    final class KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: SavedStateDecoder
        let object: Int
        let pathCount: Int
        /// Where the next lookup starts: members are mostly read in the order they were written.
        @exclusivity(unchecked) var hint: Int

        init(decoder: SavedStateDecoder, object: Int) {
            self.decoder = decoder
            self.object = object
            pathCount = decoder.path.count
            hint = object + 1
        }

        var codingPath: [any CodingKey] { decoder.path(count: pathCount) }

        var allKeys: [Key] {
            var keys: [Key] = []
            var index = object + 1
            let end = decoder.tape.entries[object].end
            while index < end {
                if let key = Key(stringValue: decoder.string(at: index)) { keys.append(key) }
                index = decoder.tape.after(index + 1)
            }
            return keys
        }

        func matches(_ key: Key, at index: Int) -> Bool {
            if decoder.tape.entries[index].kind == .escapedString { return decoder.string(at: index) == key.stringValue }
            let start = decoder.tape.entries[index].start, count = decoder.tape.entries[index].end - start
            var name = key.stringValue
            return name.withUTF8 { utf8 in
                utf8.count == count && (count == 0 || memcmp(utf8.baseAddress!, decoder.text.baseAddress! + start, count) == 0)
            }
        }

        /// The tape index of the member's key, nil when there is none.
        func find(_ key: Key) -> Int? {
            let end = decoder.tape.entries[object].end
            var index = hint
            while index < end {
                if matches(key, at: index) {
                    hint = decoder.tape.after(index + 1)
                    return index
                }
                index = decoder.tape.after(index + 1)
            }
            index = object + 1
            while index < hint && index < end {
                if matches(key, at: index) {
                    hint = decoder.tape.after(index + 1)
                    return index
                }
                index = decoder.tape.after(index + 1)
            }
            return nil
        }

        func require(_ key: Key) throws -> Int {
            guard let index = find(key) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return index
        }

        func contains(_ key: Key) -> Bool { find(key) != nil }

        func decodeNil(forKey key: Key) throws -> Bool { decoder.tape.entries[try require(key) + 1].kind == .null }

        func read<T>(_ key: Key, _ body: (Int) throws -> T) throws -> T {
            let index = try require(key)
            return try decoder.child(pathEntry: index) { try body(index + 1) }
        }

        func readIfPresent<T>(_ key: Key, _ body: (Int) throws -> T) throws -> T? {
            guard let index = find(key), decoder.tape.entries[index + 1].kind != .null else { return nil }
            return try decoder.child(pathEntry: index) { try body(index + 1) }
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(key, decoder.bool) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(key) { try decoder.string(at: $0, as: type) } }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(key, decoder.double) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try read(key, decoder.double)) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(key) { try decoder.integer(type, at: $0) } }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let index = try require(key)
            return try decoder.decodeChild(type, at: index + 1, pathEntry: index)
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try readIfPresent(key, decoder.bool) }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try readIfPresent(key) { try decoder.string(at: $0, as: type) }
        }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try readIfPresent(key, decoder.double) }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try readIfPresent(key, decoder.double).map(Float.init) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try readIfPresent(key) { try decoder.integer(type, at: $0) } }
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let index = find(key), decoder.tape.entries[index + 1].kind != .null else { return nil }
            return try decoder.decodeChild(type, at: index + 1, pathEntry: index)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let index = try require(key)
            // Used after this call returns: a decoder of its own keeps its path.
            let branch = decoder.branch(adding: index, current: index + 1)
            guard branch.tape.entries[index + 1].kind == .object else { throw branch.mismatch([String: Any].self, at: index + 1) }
            return KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: branch, object: index + 1))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let index = try require(key)
            let branch = decoder.branch(adding: index, current: index + 1)
            guard branch.tape.entries[index + 1].kind == .array else { throw branch.mismatch([Any].self, at: index + 1) }
            return UnkeyedContainer(decoder: branch, array: index + 1)
        }

        func superDecoder() throws -> any Decoder {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "superDecoder is not supported"))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            let index = try require(key)
            return decoder.branch(adding: index, current: index + 1)
        }
    }

    final class UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: SavedStateDecoder
        let array: Int
        let pathCount: Int
        /// The tape entry of the next element.
        @exclusivity(unchecked) var next: Int
        @exclusivity(unchecked) private(set) var currentIndex = 0

        init(decoder: SavedStateDecoder, array: Int) {
            self.decoder = decoder
            self.array = array
            pathCount = decoder.path.count
            next = array + 1
        }

        var codingPath: [any CodingKey] { decoder.path(count: pathCount) }

        var count: Int? {
            var count = 0
            var index = array + 1
            while index < decoder.tape.entries[array].end {
                count += 1
                index = decoder.tape.after(index)
            }
            return count
        }

        var isAtEnd: Bool { next >= decoder.tape.entries[array].end }

        func element() throws -> Int {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Any.self, DecodingError.Context(
                    codingPath: codingPath + [SavedKey(index: currentIndex)], debugDescription: "Unkeyed container is at end."))
            }
            let index = next
            next = decoder.tape.after(index)
            currentIndex += 1
            return index
        }

        func read<T>(_ body: (Int) throws -> T) throws -> T {
            let position = currentIndex
            let index = try element()
            return try decoder.child(pathEntry: -position - 1) { try body(index) }
        }

        func decodeNil() throws -> Bool {
            guard !isAtEnd, decoder.tape.entries[next].kind == .null else { return false }
            _ = try element()
            return true
        }

        func decode(_ type: Bool.Type) throws -> Bool { try read(decoder.bool) }
        func decode(_ type: String.Type) throws -> String { try read { try decoder.string(at: $0, as: type) } }
        func decode(_ type: Double.Type) throws -> Double { try read(decoder.double) }
        func decode(_ type: Float.Type) throws -> Float { Float(try read(decoder.double)) }
        func decode(_ type: Int.Type) throws -> Int { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int8.Type) throws -> Int8 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int16.Type) throws -> Int16 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int32.Type) throws -> Int32 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: Int64.Type) throws -> Int64 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt.Type) throws -> UInt { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try read { try decoder.integer(type, at: $0) } }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try read { try decoder.integer(type, at: $0) } }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let position = currentIndex
            let index = try element()
            return try decoder.decodeChild(type, at: index, pathEntry: -position - 1)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let position = currentIndex
            let index = try element()
            let branch = decoder.branch(adding: -position - 1, current: index)
            guard branch.tape.entries[index].kind == .object else { throw branch.mismatch([String: Any].self, at: index) }
            return KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: branch, object: index))
        }

        func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let position = currentIndex
            let index = try element()
            let branch = decoder.branch(adding: -position - 1, current: index)
            guard branch.tape.entries[index].kind == .array else { throw branch.mismatch([Any].self, at: index) }
            return UnkeyedContainer(decoder: branch, array: index)
        }

        func superDecoder() throws -> any Decoder {
            let position = currentIndex
            let index = try element()
            return decoder.branch(adding: -position - 1, current: index)
        }
    }

    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: SavedStateDecoder
        let index: Int
        let pathCount: Int
        var codingPath: [any CodingKey] { decoder.path(count: pathCount) }

        func decodeNil() -> Bool { decoder.tape.entries[index].kind == .null }
        func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(at: index) }
        func decode(_ type: String.Type) throws -> String { try decoder.string(at: index, as: type) }
        func decode(_ type: Double.Type) throws -> Double { try decoder.double(at: index) }
        func decode(_ type: Float.Type) throws -> Float { Float(try decoder.double(at: index)) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type, at: index) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type, at: index) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type, at: index) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type, at: index) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type, at: index) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type, at: index) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type, at: index) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type, at: index) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type, at: index) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type, at: index) }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type, at: index) }
    }
}

/// The state file as it is read: a scanner that walks the document's outer levels (the sections, the namespaces, the
/// collections) and a ``SavedStateDecoder`` for each stored object, so a large sandbox's file is read an object at a
/// time, never held as a tree. Keeps where it is (``path``) for the errors: `DecodingError`s with that coding path.
package final class SavedStateReader: SavedObjectSource {
    @exclusivity(unchecked) var scanner: JSONTextScanner
    let decoder: SavedStateDecoder
    /// Where the scanner stands in the document.
    @exclusivity(unchecked) package private(set) var path: [SavedKey]
    /// The value caches of the restore (``SavedValueShareable``), for the decoders of its stored objects.
    package var values: SavedValueCachePool?

    /// A reader of `text` (which must stay valid while it is used) standing at `offset`, which is at `path`.
    package init(text: UnsafeRawBufferPointer, at offset: Int, path: [SavedKey] = []) {
        scanner = JSONTextScanner(text: text, position: offset)
        decoder = SavedStateDecoder(text: text)
        self.path = path
    }

    package var text: UnsafeRawBufferPointer { scanner.text }
    package var position: Int { scanner.position }

    /// A syntax error with the current path (other errors as they are).
    func syntax(_ error: any Error) -> any Error {
        guard var error = error as? SavedStateSyntaxError, error.path.isEmpty else { return error }
        error.path = SavedValueOutOfBounds(codingPath: path, message: "").path
        return error
    }

    func syntax(_ error: SavedStateSyntaxError) -> SavedStateSyntaxError {
        guard error.path.isEmpty else { return error }
        var error = error
        error.path = SavedValueOutOfBounds(codingPath: path, message: "").path
        return error
    }

    /// Throws unless only white space is left.
    package func expectEnd() throws {
        guard scanner.peek() == nil else { throw syntax(scanner.fail(scanner.found("the end of the file"))) }
    }

    /// The error for a member `key` that the object at the current path lacks.
    package func missing(_ key: String) -> DecodingError {
        .keyNotFound(SavedKey(key), DecodingError.Context(codingPath: path, debugDescription: "No value associated with key \"\(key)\"."))
    }

    /// The containers the reader is in (from ``beginObject()``/``beginArray()``) and how many members each had.
    @exclusivity(unchecked) private var containers: [(isObject: Bool, count: Int)] = []

    /// Enters the object here.
    package func beginObject() throws {
        guard scanner.peek() == UInt8(ascii: "{") else {
            throw DecodingError.typeMismatch([String: Any].self, DecodingError.Context(
                codingPath: path, debugDescription: "Expected to decode a dictionary but found \(scanner.found("an object")) instead."))
        }
        scanner.position += 1
        containers.append((true, 0))
    }

    /// The next member's key of the object entered last, the reader standing at its value (which must be read or
    /// skipped) and the key on the path; nil at the object's end, which it leaves.
    package func nextMember() throws -> String? {
        do {
            if containers[containers.count - 1].count > 0 {
                path.removeLast()
                switch scanner.peek() {
                case UInt8(ascii: ","): scanner.position += 1
                case UInt8(ascii: "}"):
                    scanner.position += 1
                    containers.removeLast()
                    return nil
                default: throw scanner.fail(scanner.found("',' or '}'"))
                }
            } else if scanner.peek() == UInt8(ascii: "}") {
                scanner.position += 1
                containers.removeLast()
                return nil
            }
            let key = try scanner.string()
            try scanner.expect(UInt8(ascii: ":"), "':'")
            let name = scanner.stringValue(key.start, key.end, escaped: key.escaped)
            path.append(SavedKey(name))
            containers[containers.count - 1].count += 1
            return name
        } catch {
            throw syntax(error)
        }
    }

    /// Enters the array here.
    package func beginArray() throws {
        guard scanner.peek() == UInt8(ascii: "[") else {
            throw DecodingError.typeMismatch([Any].self, DecodingError.Context(
                codingPath: path, debugDescription: "Expected to decode an array but found \(scanner.found("an array")) instead."))
        }
        scanner.position += 1
        containers.append((false, 0))
    }

    /// Whether the array entered last has another element, the reader standing at it (which must be read or skipped)
    /// and its index on the path; false at the array's end, which it leaves.
    package func nextElement() throws -> Bool {
        do {
            let count = containers[containers.count - 1].count
            if count > 0 {
                path.removeLast()
                switch scanner.peek() {
                case UInt8(ascii: ","): scanner.position += 1
                case UInt8(ascii: "]"):
                    scanner.position += 1
                    containers.removeLast()
                    return false
                default: throw scanner.fail(scanner.found("',' or ']'"))
                }
            } else if scanner.peek() == UInt8(ascii: "]") {
                scanner.position += 1
                containers.removeLast()
                return false
            }
            path.append(SavedKey(index: count))
            containers[containers.count - 1].count += 1
            return true
        } catch {
            throw syntax(error)
        }
    }

    /// Reads an object's members: `body` gets each key, at that key's path, and must read or skip its value.
    package func readObject(_ body: (String) throws -> Void) throws {
        try beginObject()
        while let key = try nextMember() { try body(key) }
    }

    /// Reads an array's elements: `body` gets each index, at that element's path, and must read or skip it.
    package func readArray(_ body: (Int) throws -> Void) throws {
        try beginArray()
        var index = 0
        while try nextElement() {
            try body(index)
            index += 1
        }
    }

    /// Steps over the value here (checking it); returns its text.
    @discardableResult
    package func skipValue() throws -> UnsafeRawBufferPointer {
        do {
            _ = scanner.peek()
            let start = scanner.position
            try scanner.skipValue()
            return UnsafeRawBufferPointer(rebasing: scanner.text[start..<scanner.position])
        } catch {
            throw syntax(error)
        }
    }

    /// Steps over the value here finding only where it ends (``JSONTextScanner/skipValueUnchecked()``); returns the
    /// offset after it.
    package func skipValueUnchecked() throws -> Int {
        do {
            try scanner.skipValueUnchecked()
            return scanner.position
        } catch {
            throw syntax(error)
        }
    }

    /// Where the reader stands, to read from there again (``reset(to:)``).
    package struct Mark {
        fileprivate let position: Int
        fileprivate let path: [SavedKey]
        fileprivate let containers: [(isObject: Bool, count: Int)]
    }

    package func mark() -> Mark { Mark(position: scanner.position, path: path, containers: containers) }

    package func reset(to mark: Mark) {
        scanner.position = mark.position
        path = mark.path
        containers = mark.containers
    }

    /// `key` as a JSON string.
    func rawText(of key: String) -> [UInt8] {
        let encoder = SavedStateEncoder()
        encoder.append(string: key)
        return encoder.bytes
    }

    /// Decodes the value here, and steps over it.
    package func decode<T: Decodable>(_ type: T.Type) throws -> T {
        decoder.basePath = path
        do {
            let (value, end) = try decoder.decode(type, at: scanner.position)
            scanner.position = end
            return value
        } catch let error as SavedStateSyntaxError {
            throw syntax(error)
        }
    }

    /// Decodes `text` (JSON gathered from the file) as if it stood at the current path.
    package func decode<T: Decodable>(_ type: T.Type, fromText text: [UInt8]) throws -> T {
        try text.withUnsafeBytes { buffer in
            let decoder = SavedStateDecoder(text: buffer)
            decoder.basePath = path
            do {
                return try decoder.decode(type, at: 0).value
            } catch let error as SavedStateSyntaxError {
                throw syntax(error)
            }
        }
    }

    /// A counter here (a creation number): at most ``SavedValueBounds/maxCounter``.
    package func readCounter() throws -> UInt64 {
        let value = try decode(UInt64.self)
        guard SavedValueBounds.isCount(value) else {
            throw SavedValueOutOfBounds(codingPath: path, message: SavedValueBounds.counterMessage(value))
        }
        return value
    }

    /// Runs `body` with a `Decoder` standing at the value here (for a section read as one value), and steps over it.
    package func withDecoder(_ body: (any Decoder) throws -> Void) throws {
        decoder.basePath = path
        do {
            scanner.position = try decoder.withValue(at: scanner.position, body)
        } catch let error as SavedStateSyntaxError {
            throw syntax(error)
        }
    }
}

/// A value type of a stored object that a restore may share between objects: one whose text in the state file decodes
/// to an equal value wherever it appears, and that holds nothing changed in place (boxes that never change, strings,
/// numbers). A session's fields, its authorization's snapshot, the order's request and the Order Management order's
/// request are often the same text: decoded once, they share one value (and its boxes) as they did before the restart.
package protocol SavedValueShareable {}

extension Shared: SavedValueShareable where Value: SavedValueShareable {}
extension Array: SavedValueShareable where Element: SavedValueShareable {}
extension Optional: SavedValueShareable where Wrapped: SavedValueShareable {}

/// Values a restore decoded (``SavedValueShareable``, at least ``smallest`` bytes of text), by their type and text, for
/// the decoders of one restore to share. One per thread at a time (``SavedValueCachePool``); at most ``capacity``
/// values, then it starts over.
package final class SavedValueCache: @unchecked Sendable {
    static let smallest = 48
    static let capacity = 1 << 16

    private struct Key: Hashable {
        var type: ObjectIdentifier
        var hash: UInt64
        var length: Int
    }

    private struct Entry {
        var text: UnsafeRawBufferPointer
        var value: Any
    }

    @exclusivity(unchecked) private var entries: [Key: Entry] = [:]

    package init() {}

    /// The value decoded from the same text before, or `decode()`'s, kept for the next.
    func value<T>(_ type: T.Type, text: UnsafeRawBufferPointer, decode: () throws -> T) throws -> T {
        if let value = existing(ObjectIdentifier(T.self), text: text) as? T { return value }
        let value = try decode()
        keep(value, ObjectIdentifier(T.self), text: text)
        return value
    }

    /// The value of type `type` kept for the same text, if any.
    func existing(_ type: ObjectIdentifier, text: UnsafeRawBufferPointer) -> Any? {
        guard let entry = entries[Key(type: type, hash: Self.hash(text), length: text.count)],
              memcmp(entry.text.baseAddress!, text.baseAddress!, text.count) == 0 else { return nil }
        return entry.value
    }

    /// Keeps `value`, of type `type`, decoded from `text`.
    func keep(_ value: Any, _ type: ObjectIdentifier, text: UnsafeRawBufferPointer) {
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[Key(type: type, hash: Self.hash(text), length: text.count)] = Entry(text: text, value: value)
    }

    /// A 64-bit hash of the text, eight bytes at a time.
    static func hash(_ text: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(text.count)
        var offset = 0
        while offset + 8 <= text.count {
            hash = (hash ^ text.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset += 8
        }
        while offset < text.count {
            hash = (hash ^ UInt64(text[offset])) &* 0xC4CE_B9FE_1A85_EC53
            offset += 1
        }
        return hash ^ (hash >> 29)
    }
}

/// The value caches of one restore: a decoder takes one for a batch and gives it back (a thread at a time each).
package final class SavedValueCachePool: Sendable {
    private let idle = Locked<[SavedValueCache]>([])
    package init() {}

    package func withCache<Result>(_ body: (SavedValueCache) throws -> Result) rethrows -> Result {
        let cache = idle.withLock { $0.popLast() } ?? SavedValueCache()
        defer { idle.withLock { $0.append(cache) } }
        return try body(cache)
    }
}
