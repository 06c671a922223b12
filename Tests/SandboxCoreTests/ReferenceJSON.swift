// SPDX-License-Identifier: MIT
import Foundation
@testable import SandboxCore
import SandboxHTTP

// The JSON reader and writers as they were before issue 23's fast paths (main at 765e9ff), kept as the oracle the
// differential tests compare the fast ones with: same trees, positions, errors and bytes.

enum ReferenceJSON {
    static func parse(_ bytes: [UInt8], limits: JSONDocument.Limits = .default) throws(JSONSyntaxError) -> JSONNode {
        guard bytes.count <= limits.maxBytes else {
            throw JSONSyntaxError(line: 1, column: 1, message: "document is larger than \(limits.maxBytes) bytes")
        }
        var parser = ReferenceJSONParser(bytes: bytes, maxDepth: limits.maxDepth)
        return try parser.parseDocument()
    }

    static func write(_ text: JSONText, into out: inout [UInt8]) {
        switch text {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): out.append(contentsOf: String(value).utf8)
        case .double(let value):
            out.append(contentsOf: (value.isFinite ? "\(value)" : "null").utf8)
        case .string(let value): writeString(value, into: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(value, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func bytes(_ text: JSONText) -> [UInt8] {
        var out: [UInt8] = []
        write(text, into: &out)
        return out
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
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

    static func quoted(_ string: String) -> String {
        var out: [UInt8] = []
        writeString(string, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func description(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "null"
        case .bool(let bool): return bool ? "true" : "false"
        case .number(_, let text): return text
        case .string(let string): return quoted(string)
        case .array(let elements): return "[" + elements.map(description).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.map { quoted($0.key) + ":" + description($0.value) }.joined(separator: ",") + "}"
        }
    }

    static func validUTF8(_ bytes: some Collection<UInt8>) -> String? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }
}

struct ReferenceJSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var line = 1
    /// Byte offset where the current line starts; columns are computed from it on demand.
    var lineStart = 0 { didSet { cachedOffset = lineStart; cachedColumn = 1 } }
    /// The last computed column and its offset, so a long single line is not rescanned for every value.
    var cachedOffset = 0
    var cachedColumn = 1

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    // MARK: Positions

    /// The column of byte offset `offset` on the current line, counting Unicode scalars
    /// (every byte that is not a UTF-8 continuation byte starts one).
    mutating func column(at offset: Int) -> Int {
        var column = 1
        var i = lineStart
        if cachedOffset >= lineStart && cachedOffset <= offset {
            column = cachedColumn
            i = cachedOffset
        }
        while i < offset && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        cachedOffset = i
        cachedColumn = column
        return column
    }

    var position: JSONPosition { mutating get { JSONPosition(line: line, column: column(at: index)) } }

    mutating func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let column = column(at: offset ?? index)
        return JSONSyntaxError(line: line, column: column, message: message)
    }

    func error(_ message: String, at position: JSONPosition) -> JSONSyntaxError {
        JSONSyntaxError(line: position.line, column: position.column, message: message)
    }

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

    mutating func skipWhitespace() throws(JSONSyntaxError) {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            case UInt8(ascii: "/") where index + 1 < bytes.count && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")):
                throw error("comments are not allowed in JSON")
            default: return
            }
        }
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
        let start = position
        guard index < bytes.count else { throw error("unexpected end of input: expected a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            return JSONNode(.object(try parseObject(depth: depth)), line: start.line, column: start.column)
        case UInt8(ascii: "["):
            guard depth <= maxDepth else { throw error("nesting deeper than \(maxDepth) levels") }
            return JSONNode(.array(try parseArray(depth: depth)), line: start.line, column: start.column)
        case UInt8(ascii: "\""):
            return JSONNode(.string(try parseString()), line: start.line, column: start.column)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (number, text) = try parseNumber()
            return JSONNode(.number(number, text: text), line: start.line, column: start.column)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return JSONNode(try parseLiteral(), line: start.line, column: start.column)
        case UInt8(ascii: "'"):
            throw error("strings must use double quotes, not single quotes")
        case UInt8(ascii: "N"), UInt8(ascii: "I"), UInt8(ascii: "+"), UInt8(ascii: "."):
            throw error("unexpected \(describe(at: index)): not a JSON value (NaN, Infinity, '+' and leading '.' are not JSON)")
        default:
            throw error("unexpected \(describe(at: index)): expected a JSON value")
        }
    }

    mutating func parseLiteral() throws(JSONSyntaxError) -> JSONNode.Value {
        let start = index
        var end = index
        while end < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[end]) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[end]) {
            end += 1
        }
        let word = String(decoding: bytes[start..<end], as: UTF8.self)
        index = end
        switch word {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: throw error("invalid literal '\(word)': expected true, false or null", at: start)
        }
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> [JSONNode.Member] {
        index += 1 // {
        var members: [JSONNode.Member] = []
        try skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            guard index < bytes.count else { throw error("unexpected end of input: expected a string key or '}'") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "'") { throw error("object keys must use double quotes, not single quotes") }
                throw error("unexpected \(describe(at: index)): expected a string key")
            }
            let keyPosition = position
            let key = try parseString()
            try skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after object key, found \(describe(at: index))")
            }
            index += 1
            try skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            members.append(JSONNode.Member(key: key, keyPosition: keyPosition, value: value))
            try skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input: expected ',' or '}' after object member") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                let comma = position
                index += 1
                try skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
                    throw error("trailing comma before '}'", at: comma)
                }
            case UInt8(ascii: "}"):
                index += 1
                return members
            default:
                throw error("expected ',' or '}' after object member, found \(describe(at: index))")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> [JSONNode] {
        index += 1 // [
        var elements: [JSONNode] = []
        try skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            elements.append(try parseValue(depth: depth + 1))
            try skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input: expected ',' or ']' after array element") }
            switch bytes[index] {
            case UInt8(ascii: ","):
                let comma = position
                index += 1
                try skipWhitespace()
                if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
                    throw error("trailing comma before ']'", at: comma)
                }
            case UInt8(ascii: "]"):
                index += 1
                return elements
            default:
                throw error("expected ',' or ']' after array element, found \(describe(at: index))")
            }
        }
    }

    // MARK: Numbers

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (RFC 8259 §6); values beyond Double's range are an error.
    mutating func parseNumber() throws(JSONSyntaxError) -> (Double, String) {
        let start = index
        func isDigit(_ offset: Int) -> Bool {
            offset < bytes.count && bytes[offset] >= UInt8(ascii: "0") && bytes[offset] <= UInt8(ascii: "9")
        }
        if bytes[index] == UInt8(ascii: "-") {
            index += 1
            guard isDigit(index) else { throw error("invalid number: expected a digit after '-'") }
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error("invalid number: leading zeros are not allowed", at: start) }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw error("invalid number: expected a digit after the decimal point") }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard isDigit(index) else { throw error("invalid number: expected a digit in the exponent") }
            while isDigit(index) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("number \(text) is out of range", at: start)
        }
        return (value, text)
    }

    // MARK: Strings

    /// Reads a string starting at the opening quote; validates UTF-8 and escapes, joins surrogate pairs.
    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = index
        // Fast path: printable ASCII up to the closing quote (most keys and values) becomes the String
        // directly; anything else (escapes, control characters, non-ASCII) takes the careful path below.
        var scan = open + 1
        while scan < bytes.count, bytes[scan] >= 0x20, bytes[scan] < 0x80, bytes[scan] != UInt8(ascii: "\""),
              bytes[scan] != UInt8(ascii: "\\") {
            scan += 1
        }
        if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
            index = scan + 1
            return String(decoding: bytes[(open + 1)..<scan], as: UTF8.self)
        }
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: open) }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &out)
            case 0x0A, 0x0D:
                // Most likely a missing closing quote rather than a raw newline the author meant.
                throw error("unterminated string (a raw line break is not allowed in a string; write \\n)", at: open)
            case 0..<0x20:
                throw error(String(format: "unescaped control character U+%04X in string", byte))
            case 0x20..<0x80:
                out.append(byte)
                index += 1
            default:
                guard let (_, length) = decodeScalar(at: index) else { throw error("invalid UTF-8 in string") }
                out.append(contentsOf: bytes[index..<index + length])
                index += length
            }
        }
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONSyntaxError) {
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
        if let simple {
            out.append(simple)
            index += 1
            return
        }
        index += 1
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
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
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
