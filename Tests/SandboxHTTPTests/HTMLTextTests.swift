// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import Testing

/// HTMLText.escape and HTMLText.scriptJSON by code point: a grapheme cluster that holds `<` or `"` (U+0600 PREPEND
/// before it, U+0301 COMBINING or U+200D ZWJ after it) must not carry the character out raw.
@Suite struct HTMLTextTests {
    static let specials: [(Character, String)] = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\"", "&quot;"), ("'", "&#39;")]
    /// ARABIC NUMBER SIGN (Grapheme_Cluster_Break=Prepend), COMBINING ACUTE ACCENT (Extend), ZERO WIDTH JOINER.
    static let joiners: [String] = ["\u{0600}", "\u{0301}", "\u{200D}"]

    @Test func escape_EachSpecialCharacter_BeforeAndAfterEveryJoiner() {
        for (special, reference) in Self.specials {
            for joiner in Self.joiners {
                for (input, expected) in [(joiner + String(special), joiner + reference), (String(special) + joiner, reference + joiner),
                                          (joiner + String(special) + joiner, joiner + reference + joiner),
                                          ("a" + joiner + String(special) + "b", "a" + joiner + reference + "b")] {
                    let output = HTMLText.escape(input)
                    #expect(output == expected, "\(input.unicodeScalars.map { String($0.value, radix: 16) })")
                    #expect(!output.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) },
                            "raw special in \(output.debugDescription)")
                }
            }
        }
    }

    /// The reported payload: `<img>` between two U+0600 is one text, shown escaped.
    @Test func escape_PrependPayloadFromTheIssue() {
        let payload = "\u{0600}<img src=x onerror=alert(1) \u{0600}>"
        #expect(HTMLText.escape(payload) == "\u{0600}&lt;img src=x onerror=alert(1) \u{0600}&gt;")
        let attribute = "https://example.com/x\u{0600}\" autofocus onfocus=alert(1) x=\u{0600}\""
        #expect(HTMLText.escape(attribute) == "https://example.com/x\u{0600}&quot; autofocus onfocus=alert(1) x=\u{0600}&quot;")
    }

    @Test func escape_LeavesOtherTextAlone() {
        for text in ["", "plain", "Köp på nätet 🇸🇪", "e\u{0301}", "👩\u{200D}💻", "\u{0600}x"] {
            #expect(HTMLText.escape(text) == text)
        }
        #expect(HTMLText.escape("&amp;") == "&amp;amp;")
    }

    @Test func scriptJSON_EscapesLessThanAndLineSeparators_ByCodePoint() throws {
        for joiner in Self.joiners {
            let value = "\(joiner)</script>\(joiner)<!--\(joiner)&-->\u{2028}\u{2029}\(joiner)\""
            let script = HTMLText.scriptJSON(.object([("v", .string(value))]))
            #expect(!script.unicodeScalars.contains { "<\u{2028}\u{2029}".unicodeScalars.contains($0) }, "\(script.debugDescription)")
            let decoded = try JSONSerialization.jsonObject(with: Data(script.utf8)) as? [String: String]
            #expect(decoded?["v"] == value)
        }
        #expect(HTMLText.scriptJSON(.string("a<b")) == #""a\u003cb""#)
    }
}
