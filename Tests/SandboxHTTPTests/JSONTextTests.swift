// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

@Suite struct JSONTextTests {
    /// Decodes `[string]` written by JSONText with Foundation's parser.
    static func roundTrip(_ string: String) throws -> String? {
        let data = JSONText.array([.string(string)]).data
        return (try JSONSerialization.jsonObject(with: data) as? [String])?.first
    }

    @Test func jsonText_EscapesQuotesBackslashAndControls() {
        #expect(String(decoding: JSONText.string("a\"b\\c/d").bytes, as: UTF8.self) == #""a\"b\\c/d""#)
        #expect(String(decoding: JSONText.string("\n\r\t\u{08}\u{0C}\u{00}\u{1F}\u{7F}").bytes, as: UTF8.self)
            == #""\n\r\t\u0008\u000c\u0000\u001f\u007f""#)
    }

    @Test func jsonText_WritesNonASCIIAsUTF8() {
        #expect(JSONText.string("é😀\u{2028}").bytes == Array("\"é😀\u{2028}\"".utf8))
    }

    @Test func jsonText_RoundTripsEveryASCIICharacter_ThroughJSONSerialization() throws {
        let all = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
        #expect(try Self.roundTrip(all) == all)
    }

    @Test(arguments: ["", "plain", "quote \" and \\ backslash", "line\nbreak\r\n\ttab", "nul\u{0}byte",
                      "caf\u{E9} \u{1F600} \u{2028}\u{2029} \u{FEFF} 日本", "\\u0041 is not an escape here", "</script>"])
    func jsonText_RoundTripsStrings_ThroughJSONSerialization(_ string: String) throws {
        #expect(try Self.roundTrip(string) == string)
    }

    @Test func jsonText_EscapesObjectKeys_AndKeepsKeyOrder() throws {
        let text = JSONText.object([("z\"key", .int(1)), ("a\nkey", .string("v")), ("m", .array([.null, .bool(true), .bool(false)]))])
        #expect(String(decoding: text.bytes, as: UTF8.self) == #"{"z\"key":1,"a\nkey":"v","m":[null,true,false]}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: text.data) as? [String: Any])
        #expect(object["z\"key"] as? Int == 1)
        #expect(object["a\nkey"] as? String == "v")
    }

    @Test func jsonText_WritesNonFiniteDoublesAsNull() throws {
        let text = JSONText.array([.double(1.5), .double(.nan), .double(.infinity), .int(-3)])
        #expect(String(decoding: text.bytes, as: UTF8.self) == "[1.5,null,null,-3]")
        #expect(try JSONSerialization.jsonObject(with: text.data) is [Any])
    }
}

@Suite struct JSONTextNumberTests {
    @Test func integers_AreWrittenAsSwiftPrintsThem() {
        for value in [0, 1, -1, 9, 10, -10, 59500, Int.max, Int.min, 1_000_000_007, -42] {
            #expect(String(decoding: JSONText.int(value).bytes, as: UTF8.self) == String(value))
        }
    }

    @Test func strings_WithAndWithoutEscapes() {
        #expect(String(decoding: JSONText.string("plain ascii / é ü").bytes, as: UTF8.self) == #""plain ascii / é ü""#)
        #expect(String(decoding: JSONText.string("a\"b\\c\nd\u{1}\u{7F}").bytes, as: UTF8.self) == #""a\"b\\c\nd\u0001\u007f""#)
    }
}
