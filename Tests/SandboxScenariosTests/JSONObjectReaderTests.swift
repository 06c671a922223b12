// SPDX-License-Identifier: MIT
import Foundation
import SandboxScenarios
import Testing

@Suite("JSONObjectReader: the one typed reader of request bodies")
struct JSONObjectReaderTests {
    private func reader(_ text: String) throws -> JSONObjectReader {
        try #require(JSONObjectReader(try JSONDocument.parse(text)))
    }

    @Test("only an object makes a reader")
    func objectsOnly() throws {
        #expect(JSONObjectReader(try JSONDocument.parse("[]")) == nil)
        #expect(JSONObjectReader(try JSONDocument.parse(#""a""#)) == nil)
        #expect(JSONObjectReader(try JSONDocument.parse("{}")) != nil)
    }

    @Test("absent and null read as absent; the last of duplicate keys counts")
    func absentNullAndDuplicates() throws {
        let object = try reader(#"{"a": null, "b": "one", "b": "two"}"#)
        #expect(object.read("a", .string).value == nil)
        #expect(!object.read("a", .string).isWrongType)
        #expect(object.read("missing", .string).value == nil)
        #expect(object.read("b", .string).value == "two")
    }

    @Test("integers are whole numbers written as such, in 64 bits")
    func integers() throws {
        let object = try reader(#"{"i": 42, "f": 1.5, "e": 1e2, "s": "15", "big": 99999999999999999999, "neg": -7}"#)
        #expect(object.read("i", .integer).value == 42)
        #expect(object.read("neg", .integer).value == -7)
        for key in ["f", "e", "s", "big"] { #expect(object.read(key, .integer).isWrongType, "\(key)") }
        #expect(object.read("f", .number).value == 1.5)
        #expect(object.read("s", .number).isWrongType)
    }

    @Test("strings, booleans, objects and arrays of strings check their kind")
    func kinds() throws {
        let object = try reader(#"{"t": true, "o": {"x": 1}, "l": ["a", "b"], "m": ["a", 1], "n": 0}"#)
        #expect(object.read("t", .bool).value == true)
        #expect(object.read("n", .bool).isWrongType)
        #expect(object.read("o", .object).value?.read("x", .integer).value == 1)
        #expect(object.read("l", .object).isWrongType)
        #expect(object.read("l", .strings).value == ["a", "b"])
        #expect(object.read("m", .strings).isWrongType)
        #expect(object.read("m", .array).value?.count == 2)
        #expect(JSONField<[String]>.strings.expected == "an array of strings")
    }
}
