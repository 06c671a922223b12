// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SwedbankPaySandbox

/// The request path's fast paths give what the general code they stand in for gives.
@Suite struct FastPathTests {
    /// The arithmetic timestamps match ISO8601FormatStyle across leap days, year ends and both ends of the range.
    @Test func timestamps_MatchTheFormatStyle() {
        let seconds: [TimeInterval] = [0, 59.9999999, 951_782_400, 951_868_799.5, 4_107_542_400, 4_107_628_800, 1_592_823_416.25,
                                       1_704_067_199.99999995, 253_402_300_799, 1_800_000_000.123]
        for second in seconds {
            let date = Date(timeIntervalSince1970: second)
            let whole = second.rounded(.down)
            let ticks = min(9_999_999, Int(((second - whole) * 10_000_000).rounded()))
            let base = Date(timeIntervalSince1970: whole).formatted(Date.ISO8601FormatStyle())
            let fraction = String(ticks)
            let expected = String(base.dropLast()) + "." + String(repeating: "0", count: 7 - fraction.count) + fraction + "Z"
            #expect(SwedbankPayTimestamp.string(date) == expected, "\(second)")
        }
    }

    @Test func yearAndMonth_MatchTheCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for second in stride(from: 0.0, to: 4_200_000_000, by: 2_629_743.5) + [951_868_799, 951_868_800, 1_735_689_599, 1_735_689_600] {
            let date = Date(timeIntervalSince1970: second)
            let components = calendar.dateComponents([.year, .month], from: date)
            let computed = CardInput.yearAndMonth(date)
            #expect(computed.year == components.year && computed.month == components.month, "\(second)")
        }
    }

    /// ASCII bodies split on bytes, decoded only when they carry `+` or `%`: as the Foundation path decodes them.
    @Test func formFields_MatchFoundationDecoding() {
        func reference(_ body: String) -> [String: String] {
            var fields: [String: String] = [:]
            for pair in body.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ text: Substring) -> String {
                    String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
                }
                guard let name = parts.first else { continue }
                fields[decode(name)] = parts.count > 1 ? decode(parts[1]) : ""
            }
            return fields
        }
        let bodies = ["pan=4925000000000004&expiry=12/33&cvc=123", "", "&&", "a", "a=", "=b", "a=b=c", "a=1&a=2", "x=a+b%20c",
                      "bad=%zz&half=%4", "utf=%C3%A9&broken=%C3", "msisdn=%2B46739000001", "plus=+", "e=%e2%98%83", "é=ü&k=%41"]
        let alphabet = Array("ab=&+%2C3é ")
        let random = (0..<500).map { _ in String((0..<Int.random(in: 0...16)).map { _ in alphabet.randomElement()! }) }
        for body in bodies + random {
            #expect(FormFields.parse(Data(body.utf8)) == reference(body), "\(body)")
        }
    }

    /// Card input filtered on bytes when ASCII, as `String.filter` filters Characters.
    @Test func cardInputFilters_MatchCharacterFiltering() {
        let texts = ["", " ", "4925 0000-0000 0004", "12 / 33", "\t1\n2\r\n/\u{0B}3\u{0C}3", "\r\n", "a\u{1C}b", "１２/３３",
                     "12\u{85}/33", "12\u{A0}/33", "4925\u{2010}0000"]
        let alphabet = Array(" -\t\n\r\u{0B}\u{0C}\u{1F}09/aé\u{A0}")
        let random = (0..<500).map { _ in String((0..<Int.random(in: 0...12)).map { _ in alphabet.randomElement()! }) }
        for text in texts + random {
            #expect(CardInput.removingWhitespace(text) == text.filter { !$0.isWhitespace }, "\(text.debugDescription)")
            let pan = CardInput.removing(from: text, bytes: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "-") },
                                         characters: { $0 == " " || $0 == "-" })
            #expect(pan == text.filter { $0 != " " && $0 != "-" }, "\(text.debugDescription)")
        }
    }

    /// The compact text of a stored request: what JSONNode.description writes.
    @Test func compactText_IsTheNodesDescription() throws {
        let documents = [#"{"a": 1.50, "b": -0, "c": 1e5, "d": [true, false, null, {}, []], "a": "dup"}"#,
                         #"{"s": "quote \" back \\ nl \n tab \t ctl \u0001 del \u007f \u00e9 \ud834\udd1e \/ end", "n": {"x": [1, [2, {"y": "z"}]]}}"#,
                         #"[]"#, #""text""#, #"12.5e-3"#, #"null"#]
        for text in documents {
            let node = try JSONDocument.parse(text)
            #expect(JSONWriter.compactText(node) == node.description, "\(text)")
        }
    }

    @Test func luhn_OnBytesAndCharacters() {
        #expect(CardInput.luhn("4925000000000004"))
        #expect(!CardInput.luhn("4925000000000005"))
        #expect(CardInput.luhn("０") == CardInput.luhn("0"))  // a full-width digit goes the Character way
        #expect(!CardInput.luhn("49x5"))
    }

    @Test func dashes_AreRemovedAsReplacingOccurrencesDoes() {
        for text in ["", "-", "a-b-c", "00000000-0000-4000-8000-000000000002", "é-☃-"] {
            #expect(SwedbankPayASCII.removingDashes(text) == text.replacingOccurrences(of: "-", with: ""))
        }
    }
}
