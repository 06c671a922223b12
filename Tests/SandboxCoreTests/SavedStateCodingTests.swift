// SPDX-License-Identifier: MIT
// The state file's own JSON writer and reader (SavedStateEncoder, SavedStateDecoder, SavedStateReader): what the
// writer writes, JSONDecoder reads as the same value; what JSONEncoder wrote (every file before them), the reader
// reads as the same value; bad JSON and bad values are refused with their key path.
import Foundation
import SandboxHTTP
import Testing
@testable import SandboxCore

@Suite struct SavedStateCodingTests {

    /// The eight-bytes-at-a-time scans stop at a string's first quote, escape or control byte wherever it falls in a
    /// word, and step over an escaped quote: the checked scan (`string()`) and the section's walk.
    @Test func stringScansStopAtEachOffset() throws {
        for before in 0..<20 {
            for stop in ["\"", "\\\"", "\\\\", "\n", "é"] {
                let filler = String(repeating: "a", count: before)
                let value = "\"\(filler)\(stop)\(filler)\""
                let json = Array("{\"k\":[\(value)]} ".utf8)
                try json.withUnsafeBytes { text in
                    if stop == "\"" {  // the string ends at the quote after `{"k":["` and the filler
                        var walk = JSONTextScanner(text: text, position: 6), checked = walk
                        try walk.skipValueUnchecked()
                        #expect(walk.position == 7 + before + 1)
                        #expect(try checked.string().end == 7 + before)
                        return
                    }
                    var walk = JSONTextScanner(text: text, position: 0)
                    try walk.skipValueUnchecked()
                    #expect(walk.position == json.count - 1)
                    var checked = JSONTextScanner(text: text, position: 6)
                    if stop == "\n" {
                        #expect(throws: SavedStateSyntaxError.self) { try checked.string() }
                    } else {
                        let found = try checked.string()
                        #expect(found.start == 7 && found.end == json.count - 4 && found.escaped == (stop.first == "\\"))
                    }
                }
            }
        }
    }

    enum Kind: Codable, Equatable, Sendable {
        case plain
        case amount(Int, currency: String)
        case nested(Sample?)
    }

    final class Box: Codable, Equatable, Sendable {
        let values: [Double]
        init(values: [Double]) { self.values = values }
        static func == (lhs: Box, rhs: Box) -> Bool { lhs.values == rhs.values }
    }

    struct Sample: Codable, Equatable, Sendable {
        var text: String
        var optional: String?
        var count: Int
        var big: UInt64
        var negative: Int64
        var small: Int8
        var flag: Bool
        var ratio: Double
        var date: Date
        var data: Data
        var url: URL
        var list: [Int?]
        var map: [String: [String]]
        var kinds: [Kind]
        var box: Box?
        var json: JSONText?
        var status: HTTPStatus?
    }

    static let sample = Sample(
        text: "quote \" backslash \\ slash / tab \t newline \n nul \u{0} bell \u{7} é 😀", optional: nil, count: -42,
        big: 1 << 53, negative: .min, small: -128, flag: true, ratio: 0.1 + 0.2,
        date: Date(timeIntervalSinceReferenceDate: 817_571_392.293076), data: Data([0, 1, 2, 250, 255]),
        url: URL(string: "https://example.com/a?b=c&d=%C3%A9")!, list: [1, nil, 3], map: ["a": ["x", "y"], "": []],
        kinds: [.plain, .amount(100, currency: "SEK"), .nested(nil)], box: Box(values: [1, 2.5, -0.0, 1e300, .leastNonzeroMagnitude]),
        json: .object([("a", .array([.int(1), .double(2.5), .string("s"), .null, .bool(false)]))]), status: .created)

    static func written(_ value: some Encodable) throws -> [UInt8] {
        let encoder = SavedStateEncoder()
        try encoder.encode(value)
        return encoder.bytes
    }

    static func read<T: Decodable>(_ type: T.Type, _ text: [UInt8]) throws -> T {
        try text.withUnsafeBytes { try SavedStateDecoder(text: $0).decode(type, at: 0).value }
    }

    @Test func whatTheWriterWrites_JSONDecoderReadsAsTheSameValue() throws {
        var sample = Self.sample
        sample.kinds.append(.nested(Self.sample))
        let text = try Self.written(sample)
        #expect(try JSONDecoder().decode(Sample.self, from: Data(text)) == sample)
        #expect(try Self.read(Sample.self, text) == sample)
        // Nil members are left out, as JSONEncoder leaves them out.
        #expect(!String(decoding: text, as: UTF8.self).contains("optional"))
    }

    @Test func whatJSONEncoderWrote_TheReaderReadsAsTheSameValue() throws {
        let text = Array(try JSONEncoder().encode(Self.sample))
        #expect(try Self.read(Sample.self, text) == Self.sample)
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted, .sortedKeys]
        #expect(try Self.read(Sample.self, Array(try pretty.encode(Self.sample))) == Self.sample)
    }

    @Test func numbersAndDates_AsJSONEncoderWritesThem() throws {
        #expect(try Self.written(1.0) == Array("1".utf8))
        #expect(try Self.written(-63_114_076_800.0) == Array("-63114076800".utf8))
        #expect(try Self.written(Date(timeIntervalSinceReferenceDate: 0.5)) == Array("0.5".utf8))
        #expect(try Self.written(Data([1, 2, 3])) == Array(#""AQID""#.utf8))
        #expect(throws: EncodingError.self) { try Self.written(Double.infinity) }
        #expect(try Self.read(Int.self, Array("1e3".utf8)) == 1000)
        #expect(try Self.read(UInt64.self, Array("18446744073709551615".utf8)) == .max)
        #expect(throws: DecodingError.self) { try Self.read(UInt64.self, Array("18446744073709551616".utf8)) }
        #expect(throws: DecodingError.self) { try Self.read(Int8.self, Array("128".utf8)) }
        #expect(throws: DecodingError.self) { try Self.read(Int.self, Array("1.5".utf8)) }
        #expect(try Self.read(String.self, Array(#""a\u00e9\ud83d\ude00\/""#.utf8)) == "aé😀/")
    }

    /// What the writer must write for `string`: `"`, backslash and the controls escaped (`\n`, `\r`, `\t`, else
    /// `\u00XX`), every other character as it is.
    static func escaped(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Strings are checked eight bytes at a time: each character that needs an escape, at each place of a word and
    /// of the tail, among ASCII and multi-byte characters, is escaped, and nothing else.
    @Test func strings_AreEscapedWhereJSONMustEscape_AtEveryPlace() throws {
        let specials = (0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) } + ["\"", "\\"]
        let neighbours: [Character] = ["!", "#", "[", "]", "~", "\u{7F}", "é", "€", "😀", " ", "/", "A"]
        for filler in ["abcdefghijklmnopqrst", "ééééééééééé", "a😀b€cd"] {
            let fillers = Array(filler)
            for special in specials {
                for place in 0...fillers.count {
                    var characters = fillers
                    characters.insert(special, at: place)
                    let string = String(characters)
                    let text = try Self.written(string)
                    #expect(String(decoding: text, as: UTF8.self) == Self.escaped(string), "\(Array(string.utf8))")
                    #expect(try JSONDecoder().decode(String.self, from: Data(text)) == string)
                }
            }
        }
        for neighbour in neighbours {
            let string = String(repeating: neighbour, count: 17)
            #expect(String(decoding: try Self.written(string), as: UTF8.self) == Self.escaped(string))
        }
        #expect(try Self.written("") == Array(#""""#.utf8))
        let long = String(repeating: "0123456789", count: 1000) + "\u{1}"
        #expect(String(decoding: try Self.written(long), as: UTF8.self) == Self.escaped(long))
    }

    /// A value that writes to its container after a nested one was begun: the streaming writer cannot follow it, so
    /// JSONEncoder writes it.
    struct Interleaved: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: SavedKey.self)
            var inner = outer.nestedContainer(keyedBy: SavedKey.self, forKey: SavedKey("inner"))
            try outer.encode(1, forKey: SavedKey("after"))
            try inner.encode(2, forKey: SavedKey("late"))
        }
    }

    @Test func aValueTheWriterCannotFollow_IsWrittenByJSONEncoder() throws {
        let encoder = SavedStateEncoder()
        encoder.append("[")
        try encoder.encode(Interleaved())
        encoder.append("]")
        let value = try JSONSerialization.jsonObject(with: Data(encoder.bytes)) as? [[String: Any]]
        #expect(value?.first?["after"] as? Int == 1 && (value?.first?["inner"] as? [String: Int])?["late"] == 2)
    }

    @Test(arguments: [#"{"a": 1,}"#, #"{"a" 1}"#, #"[1 2]"#, #"{"a": tru}"#, #""\x""#, "\"a\u{1}\"", "01", "-", "1.", "[",
                      #"{"a": "b"#, "{\"a\": 1} x"])
    func badJSON_IsRefused(_ text: String) throws {
        let bytes = Array(text.utf8)
        #expect(throws: (any Error).self) {
            try bytes.withUnsafeBytes { buffer in
                let reader = SavedStateReader(text: buffer, at: 0)
                _ = try reader.decode(JSONText.self)
                try reader.expectEnd()
            }
        }
    }

    @Test func errorsName_TheKeyPath() throws {
        let text = Array(#"{"outer": [{"count": "x"}]}"#.utf8)
        struct Inner: Decodable { var count: Int }
        struct Outer: Decodable { var outer: [Inner] }
        do {
            _ = try text.withUnsafeBytes { buffer in
                let decoder = SavedStateDecoder(text: buffer)
                decoder.basePath = [SavedKey("stores"), SavedKey("a")]
                return try decoder.decode(Outer.self, at: 0)
            }
            Issue.record("decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(SavedValueOutOfBounds(codingPath: context.codingPath, message: "").path == "stores.a.outer[0].count")
        }
        // A date out of bounds, as the state file refuses it.
        struct Dated: Decodable { var at: Date }
        do {
            _ = try Self.read(Dated.self, Array(#"{"at": 1e300}"#.utf8))
            Issue.record("decoded")
        } catch let error as SavedValueOutOfBounds {
            #expect(error.path == "at")
        }
    }

    /// A shareable value: decoded once per text by a restore's decoders (counted), others are copies of it.
    struct Lines: Decodable, Equatable, SavedValueShareable {
        static let decoded = Locked(0)
        var names: [String]
        var total: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: SavedKey.self)
            names = try container.decode([String].self, forKey: SavedKey("names"))
            total = try container.decode(Int.self, forKey: SavedKey("total"))
            Self.decoded.withLock { $0 += 1 }
        }
    }

    @Test func aRestoresDecoders_DecodeEachShareableTextOnce() throws {
        struct Order: Decodable { var lines: Lines; var id: String }
        let same = #"{"names": ["Battery Power Pack", "Shipping"], "total": 62400}"#
        let other = #"{"names": ["Battery Power Pack", "Shipping"], "total": 62401}"#
        let text = Array(#"[{"id": "a", "lines": \#(same)}, {"id": "b", "lines": \#(same)}, {"id": "c", "lines": \#(other)}]"#.utf8)
        let before = Lines.decoded.withLock { $0 }
        let orders = try text.withUnsafeBytes { try SavedStateDecoder(text: $0, values: SavedValueCache()).decode([Order].self, at: 0).value }
        #expect(orders.map(\.id) == ["a", "b", "c"] && orders[0].lines == orders[1].lines && orders[2].lines.total == 62401)
        #expect(Lines.decoded.withLock { $0 } - before == 2, "the same text twice: decoded once")
    }

    @Test func theReader_WalksObjectsAndArrays_AndDecodesEachValue() throws {
        let text = Array(#" {"b": [1, {"x": 2}], "a": {"id-1": {"count": 3}}, "c": null} "#.utf8)
        struct Counted: Decodable { var count: Int }
        var seen: [String] = []
        try text.withUnsafeBytes { buffer in
            let reader = SavedStateReader(text: buffer, at: 0)
            try reader.readObject { key in
                switch key {
                case "a":
                    try reader.readObject { id in seen.append("\(id)=\(try reader.decode(Counted.self).count)") }
                case "b":
                    try reader.readArray { index in
                        if index == 0 { seen.append("b0=\(try reader.decode(Int.self))") } else { try reader.skipValue() }
                    }
                default:
                    seen.append("\(key):" + String(decoding: try reader.skipValue(), as: UTF8.self))
                }
            }
            try reader.expectEnd()
        }
        #expect(seen == ["b0=1", "id-1=3", "c:null"])
    }
}
