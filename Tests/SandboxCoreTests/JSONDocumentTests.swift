// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxCore

@Suite struct JSONDocumentTests {
    // MARK: Valid documents

    @Test func parsesEveryKindOfValue_WithPositions() throws {
        let text = """
        {
          "s": "x",
          "n": -12.5e1,
          "t": true, "f": false, "z": null,
          "a": [1, [], {}],
          "o": {"k": "v"}
        }
        """
        let root = try JSONDocument.parse(text)
        #expect(root.line == 1 && root.column == 1)
        let members = try #require(root.members)
        #expect(members.map(\.key) == ["s", "n", "t", "f", "z", "a", "o"])
        #expect(members[0].keyPosition == JSONPosition(line: 2, column: 3))
        #expect(root["s"]?.stringValue == "x")
        #expect(root["s"]?.position == JSONPosition(line: 2, column: 8))
        #expect(root["n"]?.doubleValue == -125)
        if case .number(_, let text)? = root["n"]?.value { #expect(text == "-12.5e1") } else { Issue.record("not a number") }
        #expect(root["t"]?.boolValue == true)
        #expect(root["f"]?.boolValue == false)
        #expect(root["f"]?.position == JSONPosition(line: 4, column: 19))
        #expect(root["z"]?.isNull == true)
        #expect(root["a"]?.elements?.count == 3)
        #expect(root["a"]?[1]?.elements?.isEmpty == true)
        #expect(root["a"]?[1]?.position == JSONPosition(line: 5, column: 12))
        #expect(root["o"]?["k"]?.stringValue == "v")
        #expect(root["missing"] == nil)
        #expect(root["a"]?[3] == nil)
    }

    @Test(arguments: [
        ("0", 0.0), ("-0", 0.0), ("1", 1), ("-1", -1), ("123456789", 123_456_789), ("1.5", 1.5), ("-0.25", -0.25),
        ("1e3", 1000), ("1E+3", 1000), ("25e-1", 2.5), ("1.0e0", 1), ("9007199254740993", 9_007_199_254_740_992),
    ])
    func parsesNumbers(text: String, value: Double) throws {
        let node = try JSONDocument.parse(text)
        guard case .number(let number, let source) = node.value else { Issue.record("not a number"); return }
        #expect(number == value)
        #expect(source == text)
    }

    @Test func intValue_AcceptsIntegralNumbersOnly() throws {
        #expect(try JSONDocument.parse("3").intValue == 3)
        #expect(try JSONDocument.parse("3.0").intValue == 3)
        #expect(try JSONDocument.parse("3e2").intValue == 300)
        #expect(try JSONDocument.parse("3.5").intValue == nil)
        #expect(try JSONDocument.parse("1e300").intValue == nil)
        #expect(try JSONDocument.parse("\"3\"").intValue == nil)
    }

    @Test func stringEscapes_IncludingSurrogatePairs() throws {
        let node = try JSONDocument.parse(#""a\"b\\c\/d\b\f\n\r\t \u0041\u00e9\u20AC \ud83d\ude00 é😀""#)
        #expect(node.stringValue == "a\"b\\c/d\u{8}\u{C}\n\r\t Aé€ 😀 é😀")
    }

    @Test func columnsCountUnicodeScalars_NotBytes() throws {
        // "é" is two UTF-8 bytes and "😀" four; each is one column.
        let root = try JSONDocument.parse("{\"é😀\": [1, 2]}")
        let member = try #require(root.members?.first)
        #expect(member.value.column == 8)
        #expect(member.value[1]?.column == 12)
        let error = try parseError("{\"é😀\": [1, x]}")
        #expect(error == JSONSyntaxError(line: 1, column: 12, message: "unexpected character 'x': expected a JSON value"))
    }

    @Test func byteOrderMark_IsSkipped() throws {
        let node = try JSONDocument.parse(Data([0xEF, 0xBB, 0xBF]) + Data("[true]".utf8))
        #expect(node.elements?.first?.boolValue == true)
        #expect(node.column == 1)
    }

    @Test func equality_IsByJSONValue() throws {
        #expect(try JSONDocument.parse(#"{"a": 1, "b": [1.0, "x"]}"#) == JSONDocument.parse(#"{"b": [1e0, "x"], "a": 1.00}"#))
        #expect(try JSONDocument.parse(#"{"a": 1}"#) != JSONDocument.parse(#"{"a": 1, "b": 2}"#))
        #expect(try JSONDocument.parse(#"[1, 2]"#) != JSONDocument.parse(#"[2, 1]"#))
        #expect(try JSONDocument.parse(#""1""#) != JSONDocument.parse("1"))
        #expect(try JSONDocument.parse("null") != JSONDocument.parse("false"))
    }

    @Test func jsonTextAndDescription_RoundTrip() throws {
        let node = try JSONDocument.parse(#"{"a": [1, 2.5, "x\n", null, true], "b": {}}"#)
        #expect(node.description == #"{"a":[1,2.5,"x\n",null,true],"b":{}}"#)
        #expect(node.jsonText == .object([("a", .array([.int(1), .double(2.5), .string("x\n"), .null, .bool(true)])), ("b", .object([]))]))
        #expect(String(decoding: node.jsonText.bytes, as: UTF8.self) == node.description)
    }

    @Test func duplicateKeys_AreKept_LookupTakesTheLast() throws {
        let node = try JSONDocument.parse(#"{"a": 1, "a": 2}"#)
        #expect(node.members?.count == 2)
        #expect(node["a"]?.intValue == 2)
    }

    // MARK: Syntax errors

    static func parseError(_ text: String, limits: JSONDocument.Limits = .default) throws -> JSONSyntaxError {
        do {
            let node = try JSONDocument.parse(text, limits: limits)
            throw UnexpectedSuccess(node: node.description)
        } catch let error as JSONSyntaxError {
            return error
        }
    }
    func parseError(_ text: String) throws -> JSONSyntaxError { try Self.parseError(text) }
    struct UnexpectedSuccess: Error { var node: String }

    @Test(arguments: [
        ("", 1, 1, "empty document: expected a JSON value"),
        ("   \n  ", 2, 3, "empty document: expected a JSON value"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}' after object member, found character '\"'"),
        ("{\"a\": 1,\n  }", 1, 8, "trailing comma before '}'"),
        ("[1, 2,]", 1, 6, "trailing comma before ']'"),
        ("[1 2]", 1, 4, "expected ',' or ']' after array element, found character '2'"),
        ("{\"a\" 1}", 1, 6, "expected ':' after object key, found character '1'"),
        ("{a: 1}", 1, 2, "unexpected character 'a': expected a string key"),
        ("{'a': 1}", 1, 2, "object keys must use double quotes, not single quotes"),
        ("['a']", 1, 2, "strings must use double quotes, not single quotes"),
        ("{\n  // note\n  \"a\": 1\n}", 2, 3, "comments are not allowed in JSON"),
        ("[1, /* two */ 2]", 1, 5, "comments are not allowed in JSON"),
        ("{\"a\": \"abc", 1, 7, "unterminated string"),
        ("{\"a\": \"abc\n\"}", 1, 7, "unterminated string (a raw line break is not allowed in a string; write \\n)"),
        ("\"a\tb\"", 1, 3, "unescaped control character U+0009 in string"),
        ("\"\\x\"", 1, 2, "invalid escape '\\x' in string"),
        ("\"\\u12G4\"", 1, 2, "invalid \\u escape: expected 4 hex digits"),
        ("\"\\ud83d\"", 1, 2, "unpaired surrogate \\uD83D in string"),
        ("\"\\ud83d\\u0041\"", 1, 2, "unpaired surrogate \\uD83D in string"),
        ("\"\\ude00\"", 1, 2, "unpaired surrogate \\uDE00 in string"),
        ("01", 1, 1, "invalid number: leading zeros are not allowed"),
        ("-", 1, 2, "invalid number: expected a digit after '-'"),
        ("1.", 1, 3, "invalid number: expected a digit after the decimal point"),
        ("1e", 1, 3, "invalid number: expected a digit in the exponent"),
        ("1e400", 1, 1, "number 1e400 is out of range"),
        ("+1", 1, 1, "unexpected character '+': not a JSON value (NaN, Infinity, '+' and leading '.' are not JSON)"),
        ("NaN", 1, 1, "unexpected character 'N': not a JSON value (NaN, Infinity, '+' and leading '.' are not JSON)"),
        ("[tru]", 1, 2, "invalid literal 'tru': expected true, false or null"),
        ("nulls", 1, 1, "invalid literal 'nulls': expected true, false or null"),
        ("True", 1, 1, "unexpected character 'T': expected a JSON value"),
        ("{} {}", 1, 4, "unexpected character '{' after the JSON value"),
        ("[1,\n 2,\n 3", 3, 3, "unexpected end of input: expected ',' or ']' after array element"),
        ("{\"a\":", 1, 6, "unexpected end of input: expected a JSON value"),
        ("{\"a\": 1,", 1, 9, "unexpected end of input: expected a string key or '}'"),
    ])
    func syntaxErrors_HaveLineColumnAndMessage(text: String, line: Int, column: Int, message: String) throws {
        let error = try parseError(text)
        #expect(error == JSONSyntaxError(line: line, column: column, message: message))
        #expect(error.description == "\(line):\(column): \(message)")
    }

    @Test func invalidUTF8_IsAnError() throws {
        let inString = try #require(Self.bytesError([0x22, 0x61, 0xFF, 0x22]))
        #expect(inString == JSONSyntaxError(line: 1, column: 3, message: "invalid UTF-8 in string"))
        // An overlong encoding of '/' and a UTF-8-encoded surrogate are not UTF-8 either.
        #expect(Self.bytesError([0x22, 0xC0, 0xAF, 0x22])?.message == "invalid UTF-8 in string")
        #expect(Self.bytesError([0x22, 0xED, 0xA0, 0x80, 0x22])?.message == "invalid UTF-8 in string")
        #expect(Self.bytesError([0x5B, 0xFF, 0x5D])?.message == "unexpected byte 0xFF (invalid UTF-8): expected a JSON value")
    }

    static func bytesError(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do { _ = try JSONDocument.parse(bytes: bytes); return nil } catch { return error }
    }

    @Test func depthLimit() throws {
        let limits = JSONDocument.Limits(maxDepth: 64)
        let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try JSONDocument.parse(deepest, limits: limits) }
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(try parseError(tooDeep) == JSONSyntaxError(line: 1, column: 65, message: "nesting deeper than 64 levels"))
        // Hostile input: a million brackets is an error, not a stack overflow.
        let hostile = String(repeating: "{\"a\":[", count: 1_000_000)
        #expect(try Self.parseError(hostile, limits: JSONDocument.Limits(maxBytes: 10 << 20)).message == "nesting deeper than 64 levels")
    }

    @Test func sizeLimit() throws {
        let limits = JSONDocument.Limits(maxBytes: 10)
        #expect(throws: Never.self) { try JSONDocument.parse("[1,2,3,4]", limits: limits) }
        #expect(try Self.parseError("[1,2,3,4,5]", limits: limits) == JSONSyntaxError(line: 1, column: 1, message: "document is larger than 10 bytes"))
    }

    @Test func longSingleLine_ParsesInLinearTime() async throws {
        // 200,000 values on one line: column bookkeeping must not rescan the line for every value. On a thread of its
        // own: a second of work must not hold a thread of the cooperative pool the other tests need.
        let (count, column, took) = try await onOwnThread("json-linear") {
            let text = "[" + Array(repeating: "12345", count: 200_000).joined(separator: ",") + "]"
            let start = ContinuousClock.now
            let node = try JSONDocument.parse(text)
            return (node.elements?.count, node[199_999]?.column, ContinuousClock.now - start)
        }
        #expect(count == 200_000)
        #expect(column == 1 + 1 + 199_999 * 6)
        #expect(took < .seconds(10))
    }

    // MARK: Paths

    @Test func jsonPath_Rendering() {
        #expect(JSONPath.root.description == "$")
        #expect((JSONPath.root / "rules" / 2 / "when" / 0 / "contains").description == "$.rules[2].when[0].contains")
        #expect((JSONPath.root / "$schema").description == "$.$schema")
        #expect((JSONPath.root / "headers" / "X-Request-Id").description == #"$.headers["X-Request-Id"]"#)
        #expect((JSONPath.root / "a b" / "quote\"d").description == #"$["a b"]["quote\"d"]"#)
        #expect((JSONPath.root / "delay_ms").description == "$.delay_ms")
        #expect((JSONPath.root / "9lives").description == #"$["9lives"]"#)
    }
}
