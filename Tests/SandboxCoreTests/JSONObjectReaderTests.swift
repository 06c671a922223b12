// SPDX-License-Identifier: MIT
import Foundation
import SandboxCore
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

    @Test("the plain reads answer as the generic read of their field")
    func plainReadsMatchTheGenericOnes() throws {
        let object = try reader(#"{"s": "x", "b": true, "n": 1.5, "i": 7, "o": {"k": 1}, "a": [1, "x"], "ss": ["p", "q"], "z": null}"#)
        for key in ["s", "b", "n", "i", "o", "a", "ss", "z", "missing"] {
            #expect(object.string(key).value == object.read(key, .string).value && object.string(key).isWrongType == object.read(key, .string).isWrongType)
            #expect(object.bool(key).value == object.read(key, .bool).value && object.bool(key).isWrongType == object.read(key, .bool).isWrongType)
            #expect(object.number(key).value == object.read(key, .number).value && object.number(key).isWrongType == object.read(key, .number).isWrongType)
            #expect(object.integer(key).value == object.read(key, .integer).value && object.integer(key).isWrongType == object.read(key, .integer).isWrongType)
            #expect(object.object(key).isWrongType == object.read(key, .object).isWrongType && (object.object(key).value == nil) == (object.read(key, .object).value == nil))
            #expect(object.array(key).value?.count == object.read(key, .array).value?.count && object.array(key).isWrongType == object.read(key, .array).isWrongType)
            #expect(object.strings(key).value == object.read(key, .strings).value && object.strings(key).isWrongType == object.read(key, .strings).isWrongType)
        }
        #expect(object.string("s").value == "x" && object.integer("i").value == 7 && object.integer("n").isWrongType)
        #expect(object.strings("ss").value == ["p", "q"] && object.strings("a").isWrongType && object.object("o").value?.node("k") != nil)
    }
}
