// SPDX-License-Identifier: MIT
import Testing
@testable import SandboxHTTP

/// JSONWriter writes the bytes JSONText writes for the same value.
@Suite struct JSONWriterTests {
    /// Every ASCII byte, and text beyond ASCII, escaped as JSONText escapes it; members, arrays and commas alike.
    @Test func jsonWriter_WritesTheBytesJSONTextWrites() {
        let everyByte = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        // Each escaped byte also at every offset of a long plain run (the word-at-a-time scan).
        let offsets = ["\"", "\\", "\u{1F}", "\u{7F}", "\n"].flatMap { special in
            (0..<20).map { String(repeating: "é", count: $0 % 3) + String(repeating: "a", count: $0) + special + String(repeating: "z", count: 19 - $0) }
        }
        let strings = [everyByte, "", "plain", "é ☃ 𝄞 \"quoted\" back\\slash", "\u{7F}end\n", String(repeating: "long plain ☃ text ", count: 9)]
            + offsets
        var writer = JSONWriter()
        writer.beginObject()
        var members: [(String, JSONText)] = []
        for (index, string) in strings.enumerated() {
            writer.member("s\(index)", string)
            members.append(("s\(index)", .string(string)))
        }
        writer.member("joined", "a\"", "/", "b\n")
        writer.member("parts", "a", "\u{7F}", "b", "\\")
        writer.member("int", int: -1_234_567)
        writer.member("zero", int: 0)
        writer.member("max", int: .max)
        writer.member("yes", bool: true)
        writer.member("no", bool: false)
        writer.key(everyByte)
        writer.beginArray()
        for string in strings { writer.element(string) }
        writer.endArray()
        writer.key("objects")
        writer.beginArray()
        writer.beginObject()
        writer.endObject()
        writer.beginObject()
        writer.member("k", "v")
        writer.endObject()
        writer.endArray()
        writer.key("text")
        writer.value(.object([("n", .null), ("d", .double(1.5)), ("a", .array([.int(1), .string("x")]))]))
        writer.endObject()
        members += [("joined", .string("a\"/b\n")), ("parts", .string("a\u{7F}b\\")), ("int", .int(-1_234_567)), ("zero", .int(0)), ("max", .int(.max)),
                    ("yes", .bool(true)), ("no", .bool(false)), (everyByte, .array(strings.map(JSONText.string))),
                    ("objects", .array([.object([]), .object([("k", .string("v"))])])),
                    ("text", .object([("n", .null), ("d", .double(1.5)), ("a", .array([.int(1), .string("x")]))]))]
        let written = writer.bytes
        #expect(written == JSONText.object(members).bytes)
    }
}
