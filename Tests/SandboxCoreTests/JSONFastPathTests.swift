// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxCore
@testable import SandboxHTTP

/// The fast JSON reader and writers against the old ones (ReferenceJSON.swift): the same trees with the same
/// positions, the same errors at the same places, the same bytes out.
@Suite struct JSONFastPathTests {
    /// Everything a parse yields, positions, number bits and string bytes included (`==` on nodes ignores them).
    static func shape(_ node: JSONNode) -> String {
        var out = "\(node.line):\(node.column)"
        switch node.value {
        case .null: out += "null"
        case .bool(let bool): out += "\(bool)"
        case .number(let number, let text): out += "n(\(number.bitPattern),\(text))"
        case .string(let string): out += "s\(Array(string.utf8))"
        case .array(let elements): out += "[" + elements.map(shape).joined(separator: ",") + "]"
        case .object(let members):
            out += "{" + members.map { "\($0.keyPosition)\(Array($0.key.utf8)):\(shape($0.value))" }.joined(separator: ",") + "}"
        }
        return out
    }

    static func outcome(_ parse: () throws(JSONSyntaxError) -> JSONNode) -> String {
        do { return shape(try parse()) } catch { return "error \(error)" }
    }

    /// Parses `bytes` the three ways in and the reference way; all four must agree.
    static func expectSameParse(_ bytes: [UInt8], limits: JSONDocument.Limits = .default,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = outcome { () throws(JSONSyntaxError) in try ReferenceJSON.parse(bytes, limits: limits) }
        let fromBytes = outcome { () throws(JSONSyntaxError) in try JSONDocument.parse(bytes: bytes, limits: limits) }
        let fromData = outcome { () throws(JSONSyntaxError) in try JSONDocument.parse(Data(bytes), limits: limits) }
        #expect(fromBytes == expected, "\(Array(bytes))", sourceLocation: sourceLocation)
        #expect(fromData == expected, sourceLocation: sourceLocation)
        if let text = String(validUTF8: bytes) {
            let fromString = outcome { () throws(JSONSyntaxError) in try JSONDocument.parse(text, limits: limits) }
            #expect(fromString == expected, sourceLocation: sourceLocation)
        }
    }

    static let edgeCases: [String] = [
        #"{"purchase_country":"GB","order_amount":62400,"order_lines":[{"name":"Battery","quantity":1}]}"#,
        "  {\n\t\"a\" :\r\n [ 1 , -0 , 0 , -0.0 , 1e5 , 1E-5 , 2.5e+3 , -12.5e1 ] , \"b\" : { } , \"c\" : [ ] }\n",
        "[0, -0, 1, -1, 999999999999999, -999999999999999, 1000000000000000, -1000000000000000, 9007199254740993]",
        "[123456789012345678901234567890, -123456789012345678901234567890, 1e308, 1e309, -1e400, 1e-400, 4.9e-324]",
        "[00, 01, -01, 1., .5, -, --1, 1e, 1e+, 1.5e-, +1, 0x10, 1_000, 12a]",
        #"["a\"b\\c\/d\b\f\n\r\t", "\u0041\u00e9\u20AC", "\ud83d\ude00", "\uD83D\uDE00x", "\u0000\u001f\u007F"]"#,
        #"["\ud83d", "\ude00", "\ud83d\u0041", "\ud83dx", "\u12G4", "\u12", "\x", "\"#,
        "{\"é😀\": [1, 2], \"日本\": \"ü\", \"x\": [\"é\", 3, \"😀😀\", x]}",
        "{\"é\":\n\"😀\", \"a\": 1,\n \"ü\": \"ö\"  , \"b\" : [true, false, null, nul, tru, falsey]}",
        "\u{FEFF}[true]", "\u{FEFF}\n  [1, x]", "\u{FEFF}", "",
        "{\"a\": 1,\n  }", "[1, 2,]", "[1 2]", "{\"a\" 1}", "{a: 1}", "{'a': 1}", "['a']", "[1, /* two */ 2]",
        "{\n  // note\n  \"a\": 1\n}", "[1, /x]", "{\"a\": \"abc", "{\"a\": \"abc\n\"}", "\"a\tb\"", "\"a\u{7F}b\"",
        "NaN", "Infinity", "[tru]", "nulls", "True", "{} {}", "[1,\n 2,\n 3", "{\"a\":", "{\"a\": 1,", "{\"a\": 1 \"b\": 2}",
        "\"abc", "\"abc\\", "\"é", "[\"é\" x]", "{\"é\": \"😀\" \"k\": 1}", "[1,\n\"é\",\n\"😀\" ,,]",
        String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
        String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
        String(repeating: "{\"a\":", count: 70) + "1" + String(repeating: "}", count: 70),
        "[" + Array(repeating: "\"é😀\"", count: 50).joined(separator: ",") + ", x]",
    ]

    @Test func edgeCases_ParseAsBefore() {
        for text in Self.edgeCases { Self.expectSameParse(Array(text.utf8)) }
        Self.expectSameParse(Array("[1,2,3,4,5]".utf8), limits: JSONDocument.Limits(maxBytes: 10))
        Self.expectSameParse(Array("[[[1]]]".utf8), limits: JSONDocument.Limits(maxDepth: 2))
    }

    @Test func invalidUTF8_ParsesAsBefore() {
        let cases: [[UInt8]] = [
            [0x22, 0x61, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x5B, 0xFF, 0x5D],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xF0, 0x9F, 0x98], [0x5B, 0xC3, 0xA9, 0x5D],
            [0x7B, 0x22, 0xC3, 0xA9, 0x22, 0x3A, 0x31, 0x2C, 0x80, 0x7D], [0x22, 0xE0, 0x80, 0x80, 0x22],
        ]
        for bytes in cases { Self.expectSameParse(bytes) }
    }

    /// Random documents and random damage to them: thousands of inputs through both parsers.
    @Test func randomDocumentsAndMutations_ParseAsBefore() {
        var random = SplitMix64(seed: 23)
        let alphabet = Array("{}[],:\"\\/ \n\t\r-+.0123456789eEtrufalsn'xu".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]
        for _ in 0..<3000 {
            var bytes = Array(RandomJSON.value(&random, depth: 0).utf8)
            Self.expectSameParse(bytes)
            for _ in 0..<Int(random.next() % 4) {
                guard !bytes.isEmpty else { break }
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes.remove(at: at)
                case 1: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                default: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                }
            }
            Self.expectSameParse(bytes)
        }
    }

    @Test func integers_AreExactlyWhatStrtodGives() throws {
        for text in ["0", "-0", "7", "-7", "59500", "999999999999999", "-999999999999999", "100000000000000",
                     "1000000000000000", "9007199254740993", "-9007199254740993", "18446744073709551616"] {
            guard case .number(let number, let source) = try JSONDocument.parse(text).value else {
                Issue.record("not a number: \(text)"); continue
            }
            let expected = try #require(Double(text))
            #expect(number.bitPattern == expected.bitPattern, "\(text)")
            #expect(source == text)
        }
        guard case .number(let negativeZero, _) = try JSONDocument.parse("-0").value else { return }
        #expect(negativeZero.sign == .minus)
    }

    // MARK: Writing

    static func randomString(_ random: inout SplitMix64) -> String {
        let pieces = ["a", "bc", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "😀", "日本", "\u{2028}",
                      "plain text that is long enough to cross words ", "0123456789", " "]
        var string = ""
        for _ in 0..<Int(random.next() % 24) { string += pieces[Int(random.next() % UInt64(pieces.count))] }
        return string
    }

    @Test func writtenStrings_AreTheBytesAsBefore() {
        var random = SplitMix64(seed: 7)
        var all = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        all += (0..<2000).map { _ in Self.randomString(&random) }
        for length in 0..<40 { all.append(String(repeating: "x", count: length) + "\"" + String(repeating: "y", count: length)) }
        for string in all {
            #expect(JSONText.string(string).bytes == ReferenceJSON.bytes(.string(string)), "\(Array(string.utf8))")
            #expect(JSONNode.quoted(string) == ReferenceJSON.quoted(string))
            // A string that is not native (a Substring's copy made lazily) takes the same path.
            let substring = ("<" + string + ">").dropFirst().dropLast()
            #expect(JSONText.string(String(substring)).bytes == ReferenceJSON.bytes(.string(string)))
        }
    }

    @Test func writtenValuesAndDescriptions_AreTheBytesAsBefore() throws {
        var random = SplitMix64(seed: 11)
        for _ in 0..<1500 {
            let node = try JSONDocument.parse(RandomJSON.value(&random, depth: 0))
            #expect(node.description == ReferenceJSON.description(node))
            #expect(node.jsonText.bytes == ReferenceJSON.bytes(node.jsonText))
            #expect(JSONNode(node.jsonText).description == ReferenceJSON.description(JSONNode(node.jsonText)))
        }
        let numbers = JSONText.array([.int(0), .int(-1), .int(Int.max), .int(Int.min), .int(1_000_000_007), .double(-0.0),
                                      .double(1e-7), .double(.nan), .double(-.infinity), .double(2.5)])
        #expect(numbers.bytes == ReferenceJSON.bytes(numbers))
    }

    @Test func writingAppends_AndTheBufferGrows() throws {
        var random = SplitMix64(seed: 13)
        let long = (0..<400).map { _ in Self.randomString(&random) }.joined()
        let big = JSONText.array((0..<300).map { .object([("k\($0)", .string(long.prefix($0 * 3).description)), ("n", .int($0))]) })
        for text in [JSONText.string(long), big, .string(String(repeating: "\u{1}", count: 3000))] {
            var out: [UInt8] = Array("prefix ".utf8)
            text.write(into: &out)
            #expect(out == Array("prefix ".utf8) + ReferenceJSON.bytes(text))
            #expect(text.data == Data(ReferenceJSON.bytes(text)))
            var quoted: [UInt8] = [0x41]
            if case .string(let string) = text {
                JSONText.writeString(string, into: &quoted)
                #expect(quoted == [0x41] + ReferenceJSON.bytes(text))
            }
        }
        let node = JSONNode(big)
        var out: [UInt8] = [0x20]
        node.write(into: &out)
        #expect(out == [0x20] + Array(ReferenceJSON.description(node).utf8))
    }

    // MARK: Reading members

    static func describe<Value>(_ read: JSONRead<Value>) -> String {
        switch read {
        case .absent: "absent"
        case .wrongType: "wrong type"
        case .value(let value): "value \(value)"
        }
    }

    @Test func plainReads_AnswerWhatTheFieldReadsAnswer() throws {
        let node = try JSONDocument.parse(#"{"s": "x", "s": "last", "n": null, "i": 15, "d": 1.5, "e": 1e2, "z": -0, "b": true,"#
            + #" "o": {"k": 1}, "a": [1, "x"], "l": ["a", "b"], "big": 18446744073709551616, "long_key_of_seventeen": "v","#
            + #" "long_key_of_seventeeN": 3, "": 0, "é": "ü"}"#)
        let reader = try #require(JSONObjectReader(node))
        let keys = ["s", "n", "i", "d", "e", "z", "b", "o", "a", "l", "big", "long_key_of_seventeen", "long_key_of_seventeeN", "",
                    "é", "missing", "S"]
        for key in keys {
            #expect(Self.describe(reader.string(key)) == Self.describe(reader.read(key, .string)), "\(key)")
            #expect(Self.describe(reader.bool(key)) == Self.describe(reader.read(key, .bool)), "\(key)")
            #expect(Self.describe(reader.number(key)) == Self.describe(reader.read(key, .number)), "\(key)")
            #expect(Self.describe(reader.integer(key)) == Self.describe(reader.read(key, .integer)), "\(key)")
            #expect(Self.describe(reader.array(key)) == Self.describe(reader.read(key, .array)), "\(key)")
            #expect(Self.describe(reader.strings(key)) == Self.describe(reader.read(key, .strings)), "\(key)")
            #expect(reader.object(key).value?.members == reader.read(key, .object).value?.members, "\(key)")
            #expect(reader.object(key).isWrongType == reader.read(key, .object).isWrongType, "\(key)")
            #expect(node[key].map(Self.shape) == node.members?.last { $0.key == key }.map { Self.shape($0.value) })
        }
        #expect(reader.string("s").value == "last")
        #expect(reader.integer("long_key_of_seventeeN").value == 3)
    }

    @Test func wholeNumbers_AreReadAsIntReadsThem() {
        let texts = ["0", "-0", "7", "-7", "007", "+5", "-", "", "--1", "1-", "1e2", "1.0", " 1", "1 ", "\u{661}", "62400",
                     "123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
                     "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "inf"]
        for text in texts { #expect(JSONObjectReader.wholeNumber(text) == Int(text), "\(text)") }
    }

    // MARK: UTF-8 validation

    @Test func validUTF8_AcceptsExactlyWhatTheDecoderAccepts() {
        var random = SplitMix64(seed: 5)
        let interesting: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xA0, 0xED, 0x9F, 0xEF, 0xF0, 0x90,
                                    0xF4, 0x8F, 0xF5, 0xFF, 0xA9, 0xC3, 0x98, 0x9F]
        var cases: [[UInt8]] = [[], Array("plain ascii, more than eight bytes".utf8), Array("é😀日本".utf8)]
        for _ in 0..<5000 {
            cases.append((0..<Int(random.next() % 20)).map { _ in
                random.next() % 3 == 0 ? UInt8(truncatingIfNeeded: random.next()) : interesting[Int(random.next() % UInt64(interesting.count))]
            })
        }
        for bytes in cases {
            let expected = ReferenceJSON.validUTF8(bytes)
            #expect(String(validUTF8: bytes) == expected, "\(bytes)")
            #expect(String(validUTF8: bytes[...]) == expected)
            #expect(String(validUTF8: Data(bytes)) == expected)
            #expect(String(validUTF8: AnyCollection(bytes)) == expected)
        }
    }
}

/// Deterministic pseudo-random numbers (SplitMix64), so a failure can be replayed.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random JSON text: every kind of value, escapes, non-ASCII, odd numbers and whitespace with line breaks.
enum RandomJSON {
    static let strings = ["", "a", "order_amount", "é", "😀x", "日本語", #"q\"b"#, #"\\"#, #"\n\t\r\b\f\/"#, #"\u0041\u00E9"#,
                          #"\ud83d\ude00"#, "long value that crosses several eight-byte words", "tab\\u0009", "\u{7F}"]
    static let numbers = ["0", "-0", "1", "-1", "62400", "999999999999999", "1000000000000000", "-9007199254740993",
                          "1.5", "-0.25", "1e3", "1E+3", "25e-1", "-0.0", "1.0e0", "123456789012345678901234567890", "4.9e-324"]
    static let spaces = ["", " ", "\n", "\r\n", "\t", "  \n  "]

    static func pick<T>(_ items: [T], _ random: inout SplitMix64) -> T { items[Int(random.next() % UInt64(items.count))] }

    static func value(_ random: inout SplitMix64, depth: Int) -> String {
        let space = pick(spaces, &random)
        switch random.next() % (depth > 4 ? 4 : 6) {
        case 0: return space + "\"" + pick(strings, &random) + "\""
        case 1: return space + pick(numbers, &random)
        case 2: return space + pick(["true", "false", "null"], &random)
        case 3: return space + pick(numbers, &random) + space
        case 4:
            let elements = (0..<Int(random.next() % 5)).map { _ in value(&random, depth: depth + 1) }
            return space + "[" + elements.joined(separator: ",") + pick(spaces, &random) + "]"
        default:
            let members = (0..<Int(random.next() % 5)).map { _ in
                pick(spaces, &random) + "\"" + pick(strings, &random) + "\"" + pick(spaces, &random) + ":" + value(&random, depth: depth + 1)
            }
            return space + "{" + members.joined(separator: ",") + pick(spaces, &random) + "}"
        }
    }
}
