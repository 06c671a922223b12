// SPDX-License-Identifier: MIT
import Foundation

/// A line and column in a JSON text, both 1-based.
///
/// Columns count Unicode scalars (code points), not UTF-8 bytes and not UTF-16 units: in `{"é": x}` the `x`
/// is in column 7, although it is the 8th byte. A tab counts as one column. For ASCII text, which scenario
/// files almost always are, this is the column every editor shows.
package struct JSONPosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package init(line: Int, column: Int) { self.line = line; self.column = column }
    package var description: String { "\(line):\(column)" }
    package static func < (lhs: JSONPosition, rhs: JSONPosition) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// A JSON value (RFC 8259) with the position where it starts in its source text.
///
/// Object members keep their order and duplicates (the scenario validator reports duplicate keys; lookups
/// with `node["key"]` take the last one, as most JSON parsers do). Numbers keep their source
/// text next to their `Double` value so integers and exact digits survive a round trip.
package struct JSONNode: Sendable, Equatable, CustomStringConvertible {
    package enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case number(Double, text: String)
        case string(String)
        case array([JSONNode])
        case object([Member])

        /// JSON equality: numbers by value (`1`, `1.0` and `1e0` are equal), objects by key regardless of
        /// member order (with duplicates, the last member of a key counts), arrays element by element.
        /// Positions are never compared.
        package static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case let (.bool(a), .bool(b)): return a == b
            case let (.number(a, _), .number(b, _)): return a == b
            case let (.string(a), .string(b)): return a == b
            case let (.array(a), .array(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.value == $1.value }
            case let (.object(a), .object(b)):
                let left = Value.lastMembers(a), right = Value.lastMembers(b)
                guard left.count == right.count else { return false }
                for (key, value) in left {
                    guard let other = right[key], other.value == value.value else { return false }
                }
                return true
            default: return false
            }
        }

        static func lastMembers(_ members: [Member]) -> [String: JSONNode] {
            var result: [String: JSONNode] = [:]
            for member in members { result[member.key] = member.value }
            return result
        }
    }

    /// One `"key": value` pair of an object.
    package struct Member: Sendable, Equatable {
        package var key: String
        package var keyPosition: JSONPosition
        package var value: JSONNode
        package init(key: String, keyPosition: JSONPosition, value: JSONNode) {
            self.key = key
            self.keyPosition = keyPosition
            self.value = value
        }
        package static func == (lhs: Member, rhs: Member) -> Bool { lhs.key == rhs.key && lhs.value == rhs.value }
    }

    package var value: Value
    package var line: Int
    package var column: Int

    package init(_ value: Value, line: Int = 1, column: Int = 1) {
        self.value = value
        self.line = line
        self.column = column
    }

    package var position: JSONPosition { JSONPosition(line: line, column: column) }

    /// Two nodes are equal when their values are (see ``Value/==(_:_:)``); positions are ignored.
    package static func == (lhs: JSONNode, rhs: JSONNode) -> Bool { lhs.value == rhs.value }

    // MARK: Access

    /// The value of the last member named `key`, when this is an object.
    package subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return JSONNode.lastIndex(of: key, in: members).map { members[$0].value }
    }

    /// The index of the last member named `key`; lengths are compared before the text.
    package static func lastIndex(of key: String, in members: [Member]) -> Int? {
        let length = key.utf8.count
        // Over the buffer: each member's key is read in place, not copied.
        return members.withUnsafeBufferPointer { members in
            var index = members.count
            while index > 0 {
                index -= 1
                if members[index].key.utf8.count == length && members[index].key == key { return index }
            }
            return nil
        }
    }

    /// The element at `index`, when this is an array and the index is in range.
    package subscript(index: Int) -> JSONNode? {
        guard case .array(let elements) = value, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    package var members: [Member]? { if case .object(let members) = value { members } else { nil } }
    package var elements: [JSONNode]? { if case .array(let elements) = value { elements } else { nil } }
    package var stringValue: String? { if case .string(let string) = value { string } else { nil } }
    package var boolValue: Bool? { if case .bool(let bool) = value { bool } else { nil } }
    package var doubleValue: Double? { if case .number(let number, _) = value { number } else { nil } }
    package var isNull: Bool { if case .null = value { true } else { false } }

    /// The value as an `Int` when it is a number with no fractional part that fits (`3`, `3.0`, `3e0`).
    package var intValue: Int? {
        guard case .number(let number, _) = value, number.rounded() == number,
              number >= -9.007_199_254_740_992e15, number <= 9.007_199_254_740_992e15
        else { return nil }
        return Int(number)
    }

    /// "object", "array", "string", "number", "boolean" or "null": for messages.
    package var kindName: String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// A tree built from ``JSONText`` (no source positions: every node is at 1:1), so values built in
    /// code can be matched like parsed ones without writing and parsing text.
    package init(_ text: JSONText) {
        switch text {
        case .null: self.init(Value.null)
        case .bool(let bool): self.init(Value.bool(bool))
        case .int(let int): self.init(Value.number(Double(int), text: String(int)))
        case .double(let double): self.init(Value.number(double, text: "\(double)"))
        case .string(let string): self.init(Value.string(string))
        case .array(let elements): self.init(Value.array(elements.map(JSONNode.init)))
        case .object(let members):
            self.init(Value.object(members.map { Member(key: $0.0, keyPosition: JSONPosition(line: 1, column: 1), value: JSONNode($0.1)) }))
        }
    }

    /// The value as ``JSONText`` (for writing it out): numbers without a fraction or exponent become
    /// `.int`, others `.double`; duplicate keys are kept as they are.
    package var jsonText: JSONText {
        switch value {
        case .null: return .null
        case .bool(let bool): return .bool(bool)
        case .number(let number, let text):
            if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
               let int = Int(text) { return .int(int) }
            return .double(number)
        case .string(let string): return .string(string)
        case .array(let elements): return .array(elements.map(\.jsonText))
        case .object(let members): return .object(members.map { ($0.key, $0.value.jsonText) })
        }
    }

    /// Compact JSON text of the value (numbers as they were written).
    package var description: String {
        var buffer = JSONByteBuffer(capacity: 256)
        write(to: &buffer)
        return buffer.string
    }

    /// Appends ``description``'s bytes to `out`.
    package func write(into out: inout [UInt8]) {
        var buffer = JSONByteBuffer(capacity: 256)
        write(to: &buffer)
        buffer.append(to: &out)
    }

    package func write(to buffer: inout JSONByteBuffer) {
        switch value {
        case .null: buffer.append("null")
        case .bool(let bool): buffer.append(bool ? "true" : "false")
        case .number(_, var text): text.withUTF8 { buffer.append($0) }
        case .string(let string): JSONText.writeString(string, to: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                elements[index].write(to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let members):
            buffer.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONText.writeString(members[index].key, to: &buffer)
                buffer.append(UInt8(ascii: ":"))
                members[index].value.write(to: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
    }

    package static func quoted(_ string: String) -> String {
        var buffer = JSONByteBuffer(capacity: string.utf8.count + 16)
        JSONText.writeString(string, to: &buffer)
        return buffer.string
    }
}

/// A place in a JSON document, rendered JSONPath-style for messages: `$.rules[2].when[0].contains`.
/// Keys that are not plain identifiers are bracketed and quoted: `$.headers["X-Request-Id"]`.
package struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    package enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    package var components: [Component]
    package init(_ components: [Component] = []) { self.components = components }

    package static let root = JSONPath()

    package func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    package func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }
    package static func / (path: JSONPath, key: String) -> JSONPath { path.appending(key) }
    package static func / (path: JSONPath, index: Int) -> JSONPath { path.appending(index) }

    package var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index): text += "[\(index)]"
            case .key(let key):
                if JSONPath.isIdentifier(key) { text += "." + key } else { text += "[" + JSONNode.quoted(key) + "]" }
            }
        }
        return text
    }

    static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || first == "$" || first.properties.isAlphabetic && first.isASCII
        else { return false }
        return key.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0 == "$" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }
}

/// Why a text is not JSON, and where: `line` and `column` as in ``JSONPosition``.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var message: String
    package init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }
    package var position: JSONPosition { JSONPosition(line: line, column: column) }
    package var description: String { "\(line):\(column): \(message)" }
}

/// A strict RFC 8259 parser that keeps positions. No comments, no trailing commas, no single quotes, no
/// NaN/Infinity; a UTF-8 byte order mark at the very start is skipped (RFC 8259 §8.1 allows that).
/// Hostile input cannot crash it: nesting and size are limited, recursion depth is bounded by the nesting.
package enum JSONDocument {
    package struct Limits: Sendable, Equatable {
        /// Arrays and objects nested deeper than this are an error (the top-level value is depth 1).
        package var maxDepth: Int
        /// Texts longer than this many bytes are an error.
        package var maxBytes: Int
        package init(maxDepth: Int = 64, maxBytes: Int = 8 << 20) {
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
        }
        package static let `default` = Limits()
    }

    package static func parse(_ data: Data, limits: Limits = .default) throws(JSONSyntaxError) -> JSONNode {
        try data.withUnsafeBytes { parse(buffer: $0.assumingMemoryBound(to: UInt8.self), limits: limits) }.get()
    }

    package static func parse(_ text: String, limits: Limits = .default) throws(JSONSyntaxError) -> JSONNode {
        var text = text
        return try text.withUTF8 { parse(buffer: $0, limits: limits) }.get()
    }

    package static func parse(bytes: [UInt8], limits: Limits = .default) throws(JSONSyntaxError) -> JSONNode {
        try bytes.withUnsafeBufferPointer { parse(buffer: $0, limits: limits) }.get()
    }

    static func parse(buffer: UnsafeBufferPointer<UInt8>, limits: Limits) -> Result<JSONNode, JSONSyntaxError> {
        guard buffer.count <= limits.maxBytes else {
            return .failure(JSONSyntaxError(line: 1, column: 1, message: "document is larger than \(limits.maxBytes) bytes"))
        }
        var parser = JSONParser(bytes: buffer, maxDepth: limits.maxDepth)
        do throws(JSONSyntaxError) { return .success(try parser.parseDocument()) } catch { return .failure(error) }
    }
}

/// Reads the bytes in place (the callers hold them for the parse); every read is after a check of `index` against
/// `bytes.count`. Members and elements gather on two stacks shared by all levels, so each object or array is
/// allocated once, at its final size.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0
    var line = 1
    /// Byte offset where the current line starts.
    var lineStart = 0
    /// UTF-8 continuation bytes read on the current line: columns count scalars, so they are taken off the offset.
    var continuationBytes = 0
    var memberStack: [JSONNode.Member] = []
    var elementStack: [JSONNode] = []
    var stringBytes: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: Positions

    /// The column of byte offset `offset` on the current line, counting Unicode scalars
    /// (every byte that is not a UTF-8 continuation byte starts one). For messages; values use ``column``.
    func column(at offset: Int) -> Int {
        var column = 1
        var i = lineStart
        while i < offset && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return column
    }

    /// The column of `index`: every byte before it on this line has been read, so no rescan is needed.
    var column: Int { index - lineStart - continuationBytes + 1 }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: column(at: offset ?? index), message: message)
    }

    func error(_ message: String, at position: JSONPosition) -> JSONSyntaxError {
        JSONSyntaxError(line: position.line, column: position.column, message: message)
    }

    @inline(__always)
    func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    // MARK: Document

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
        try skipWhitespace()
        guard index < bytes.count else { throw error("empty document: expected a JSON value") }
        let node = try parseValue(depth: 1)
        try skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describe(at: index)) after the JSON value")
        }
        return node
    }

    @inline(__always)
    mutating func skipWhitespace() throws(JSONSyntaxError) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
                continuationBytes = 0
            case UInt8(ascii: "/") where startsComment(at: index): throw error("comments are not allowed in JSON")
            default: return
            }
        }
    }

    func startsComment(at offset: Int) -> Bool {
        let next = byte(at: offset + 1)
        return next == UInt8(ascii: "/") || next == UInt8(ascii: "*")
    }

    /// A short description of the byte at `offset` for messages: `'x'`, `end of input`, `byte 0xFF`.
    func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(UnicodeScalar(byte)))'" }
        if byte < 0x80 { return String(format: "character U+%04X", byte) }
        if let scalar = decodeScalar(at: offset)?.scalar { return String(format: "character U+%04X", scalar.value) }
        return String(format: "byte 0x%02X (invalid UTF-8)", byte)
    }

    // MARK: Values

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else { throw error("unexpected end of input: expected a JSON value") }
        let line = self.line, column = self.column
        let value: JSONNode.Value
        switch bytes[index] {
        case UInt8(ascii: "\""):
            value = .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (number, text) = try parseNumber()
            value = .number(number, text: text)
        case UInt8(ascii: "{"):
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            value = .object(try parseObject(depth: depth))
        case UInt8(ascii: "["):
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            value = .array(try parseArray(depth: depth))
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            value = try parseLiteral()
        case UInt8(ascii: "'"):
            throw error("strings must use double quotes, not single quotes")
        case UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "+"), UInt8(ascii: "."):
            throw error("unexpected \(describe(at: index)): not a JSON value (NaN, Infinity, '+' and leading '.' are not JSON)")
        default:
            throw error("unexpected \(describe(at: index)): expected a JSON value")
        }
        return JSONNode(value, line: line, column: column)
    }

    mutating func parseLiteral() throws(JSONSyntaxError) -> JSONNode.Value {
        let start = index
        var end = index
        while end < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[end]) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[end]) {
            end += 1
        }
        index = end
        let word = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if JSONParser.word(word, is: "true") { return .bool(true) }
        if JSONParser.word(word, is: "false") { return .bool(false) }
        if JSONParser.word(word, is: "null") { return .null }
        throw error("invalid literal '\(String(decoding: word, as: UTF8.self))': expected true, false or null", at: start)
    }

    static func word(_ word: UnsafeBufferPointer<UInt8>, is literal: StaticString) -> Bool {
        guard word.count == literal.utf8CodeUnitCount else { return false }
        for i in 0..<word.count where word[i] != literal.utf8Start[i] { return false }
        return true
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> [JSONNode.Member] {
        index += 1 // {
        try skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return []
        }
        if memberStack.capacity == 0 { memberStack.reserveCapacity(16) }
        let base = memberStack.count
        while true {
            guard index < bytes.count else { throw error("unexpected end of input: expected a string key or '}'") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "'") { throw error("object keys must use double quotes, not single quotes") }
                throw error("unexpected \(describe(at: index)): expected a string key")
            }
            let keyPosition = JSONPosition(line: line, column: column)
            let key = try parseString()
            try skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after object key, found \(describe(at: index))")
            }
            index += 1
            try skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            memberStack.append(JSONNode.Member(key: key, keyPosition: keyPosition, value: value))
            try skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input: expected ',' or '}' after object member") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                let comma = JSONPosition(line: line, column: column)
                index += 1
                try skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                    throw error("trailing comma before '}'", at: comma)
                }
            case UInt8(ascii: "}"):
                index += 1
                let members = Array(memberStack[base...])
                memberStack.removeSubrange(base...)
                return members
            default:
                throw error("expected ',' or '}' after object member, found \(describe(at: index))")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> [JSONNode] {
        index += 1 // [
        try skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return []
        }
        if elementStack.capacity == 0 { elementStack.reserveCapacity(16) }
        let base = elementStack.count
        while true {
            elementStack.append(try parseValue(depth: depth + 1))
            try skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input: expected ',' or ']' after array element") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                let comma = JSONPosition(line: line, column: column)
                index += 1
                try skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                    throw error("trailing comma before ']'", at: comma)
                }
            case UInt8(ascii: "]"):
                index += 1
                let elements = Array(elementStack[base...])
                elementStack.removeSubrange(base...)
                return elements
            default:
                throw error("expected ',' or ']' after array element, found \(describe(at: index))")
            }
        }
    }

    // MARK: Numbers

    func isDigit(at offset: Int) -> Bool {
        offset < bytes.count && bytes[offset] >= UInt8(ascii: "0") && bytes[offset] <= UInt8(ascii: "9")
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (RFC 8259 §6); values beyond Double's range are an error.
    mutating func parseNumber() throws(JSONSyntaxError) -> (Double, String) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
            guard isDigit(at: index) else { throw error("invalid number: expected a digit after '-'") }
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(at: index) { throw error("invalid number: leading zeros are not allowed", at: start) }
        } else {
            while isDigit(at: index) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard isDigit(at: index) else { throw error("invalid number: expected a digit after the decimal point") }
            while isDigit(at: index) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard isDigit(at: index) else { throw error("invalid number: expected a digit in the exponent") }
            while isDigit(at: index) { index += 1 }
        }
        let source = UnsafeBufferPointer(rebasing: bytes[start..<index])
        let text = String(decoding: source, as: UTF8.self)
        if isInteger, let value = JSONParser.exactInteger(source) { return (value, text) }
        guard let value = Double(text), value.isFinite else {
            throw error("number \(text) is out of range", at: start)
        }
        return (value, text)
    }

    /// An integer of up to 15 digits is exact in a Double: the value strtod gives (`-0` too), without it.
    static func exactInteger(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        let negative = text[0] == UInt8(ascii: "-")
        let first = negative ? 1 : 0
        guard text.count - first <= 15 else { return nil }
        var magnitude = 0
        for i in first..<text.count { magnitude = magnitude * 10 + Int(text[i] &- UInt8(ascii: "0")) }
        return negative ? -Double(magnitude) : Double(magnitude)
    }

    // MARK: Strings

    /// Reads a string starting at the opening quote; validates UTF-8 and escapes, joins surrogate pairs.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = index
        // Fast path: printable ASCII up to the closing quote (most keys and values) becomes the String
        // directly; anything else (escapes, control characters, non-ASCII) takes the careful path below.
        let scan = plainASCIIEnd(from: open + 1)
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            index = scan + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(open + 1)..<scan]), as: UTF8.self)
        }
        stringBytes.removeAll(keepingCapacity: true)
        stringBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(open + 1)..<scan]))
        index = scan
        return try parseStringRest(open: open)
    }

    /// The offset of the first byte from `start` on that is not printable ASCII, `"` or `\\` (eight bytes at a time).
    func plainASCIIEnd(from start: Int) -> Int {
        var scan = start
        if let base = bytes.baseAddress {
            while bytes.count - scan >= 8,
                  !JSONParser.mayEndPlainRun(UnsafeRawPointer(base + scan).loadUnaligned(as: UInt64.self)) {
                scan += 8
            }
        }
        while scan < bytes.count, bytes[scan] >= 0x20, bytes[scan] < 0x80, bytes[scan] != UInt8(ascii: "\""),
              bytes[scan] != UInt8(ascii: "\\") {
            scan += 1
        }
        return scan
    }

    /// Whether any of the eight bytes is below 0x20, above 0x7F, `"` or `\\` (false means none is; true may be wrong).
    @inline(__always)
    static func mayEndPlainRun(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let below0x20 = (word &- ones &* 0x20) & ~word & highs
        return word & highs | below0x20 | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C)) != 0
    }

    /// The careful path of ``parseString()``, from `index` on, after the plain bytes already in `stringBytes`.
    mutating func parseStringRest(open: Int) throws(JSONSyntaxError) -> String {
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: open) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: stringBytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0x0A, 0x0D:
                // Most likely a missing closing quote rather than a raw newline the author meant.
                throw error("unterminated string (a raw line break is not allowed in a string; write \\n)", at: open)
            case 0..<0x20:
                throw error(String(format: "unescaped control character U+%04X in string", byte))
            case 0x20..<0x80:
                stringBytes.append(byte)
                index += 1
            default:
                guard let (_, length) = decodeScalar(at: index) else { throw error("invalid UTF-8 in string") }
                stringBytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                index += length
                continuationBytes += length - 1
            }
        }
    }

    /// Appends the character of the escape at `index` to `stringBytes`.
    mutating func parseEscape() throws(JSONSyntaxError) {
        let backslash = index
        index += 1
        guard index < bytes.count else { throw error("unterminated string", at: backslash) }
        let simple: UInt8?
        switch bytes[index] {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default:
            throw error("invalid escape '\\\(describeEscape(at: index))' in string", at: backslash)
        }
        index += 1
        if let simple {
            stringBytes.append(simple)
            return
        }
        let scalar = try parseUnicodeEscape(backslash: backslash)
        UTF8.encode(scalar) { stringBytes.append($0) }
    }

    /// The scalar of `\uXXXX` (or of a surrogate pair `\uXXXX\uXXXX`), `index` just after the first `u`.
    mutating func parseUnicodeEscape(backslash: Int) throws(JSONSyntaxError) -> Unicode.Scalar {
        let first = try hex4(escapeStart: backslash)
        var scalarValue = first
        if (0xD800...0xDBFF).contains(first) {
            // A high surrogate must be followed by \u and a low surrogate (RFC 8259 §7).
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error(String(format: "unpaired surrogate \\u%04X in string", first), at: backslash)
            }
            let second = index
            index += 2
            let low = try hex4(escapeStart: second)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error(String(format: "unpaired surrogate \\u%04X in string", first), at: backslash)
            }
            scalarValue = 0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw error(String(format: "unpaired surrogate \\u%04X in string", first), at: backslash)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw error("invalid \\u escape in string", at: backslash)
        }
        return scalar
    }

    func describeEscape(at offset: Int) -> String {
        let byte = bytes[offset]
        if byte >= 0x21 && byte < 0x7F { return String(Character(UnicodeScalar(byte))) }
        return String(format: "\\x%02X", byte)
    }

    mutating func hex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("invalid \\u escape: expected 4 hex digits", at: escapeStart) }
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid \\u escape: expected 4 hex digits", at: escapeStart)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Decodes one well-formed UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    func decodeScalar(at offset: Int) -> (scalar: Unicode.Scalar, length: Int)? {
        let lead = bytes[offset]
        let length: Int
        var value: UInt32
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return Unicode.Scalar(UInt32(lead)).map { ($0, 1) }
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0: length = 3; value = UInt32(lead & 0x0F); lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xED: length = 3; value = UInt32(lead & 0x0F); upper = 0x9F
        case 0xF0: length = 4; value = UInt32(lead & 0x07); lower = 0x90
        case 0xF1...0xF3: length = 4; value = UInt32(lead & 0x07)
        case 0xF4: length = 4; value = UInt32(lead & 0x07); upper = 0x8F
        default: return nil
        }
        guard offset + length <= bytes.count else { return nil }
        for i in 1..<length {
            let byte = bytes[offset + i]
            if i == 1 {
                guard byte >= lower && byte <= upper else { return nil }
            } else {
                guard byte & 0xC0 == 0x80 else { return nil }
            }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, length) }
    }
}

/// In the state file a node is its JSON text: numbers keep their digits and members their order; positions are
/// not kept (a restored node is at 1:1 and below, as one built from ``JSONText``).
extension JSONNode: Codable {
    package init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            self = try JSONDocument.parse(text)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
