// SPDX-License-Identifier: MIT
// Payloads and checks for HTML escaping by code point, shared by the Swedbank Pay and Klarna page tests.
import Testing

package enum EscapingPayloads {
    /// ARABIC NUMBER SIGN (a "prepend" character), COMBINING ACUTE ACCENT, ZERO WIDTH JOINER: each makes one grapheme
    /// cluster with the character beside it.
    package static let joiners: [Unicode.Scalar] = ["\u{0600}", "\u{0301}", "\u{200D}"]
    package static let specials: [Unicode.Scalar] = ["&", "<", ">", "\"", "'"]

    /// Each joiner before and after each of `& < > " '`, after the reported payload `\u{0600}<img … \u{0600}>`;
    /// it starts and ends with plain text.
    package static func clusters(_ label: String) -> String {
        var text = "\(label)\u{0600}<img src=x onerror=alert(1) \u{0600}>"
        for joiner in joiners {
            for special in specials { text += " \(joiner)\(special)x\(special)\(joiner)" }
        }
        return text + " end"  // the page's own markup follows a plain character
    }

    /// HTMLText.escape written out again, by code point.
    package static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// No joiner next to a raw `& < > " '` in `html` (by code point; `&` starting a reference is escaped text): the
    /// pages' own markup has none, so one is a payload's.
    /// Also no `<img` (compared by code point: `String.contains` would not see it after U+0600).
    package static func expectNoRawSpecialBesideAJoiner(_ html: String, _ page: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let scalars = Array(html.unicodeScalars)
        // `&` that starts one of HTMLText.escape's references is escaped text, not a raw `&`.
        func isRaw(_ index: Int) -> Bool {
            guard specials.contains(scalars[index]) else { return false }
            guard scalars[index] == "&" else { return true }
            let after = String(String.UnicodeScalarView(scalars[(index + 1)..<min(scalars.count, index + 6)]))
            return !["amp;", "lt;", "gt;", "quot;", "#39;"].contains { after.hasPrefix($0) }
        }
        for index in scalars.indices.dropLast() where (joiners.contains(scalars[index]) && isRaw(index + 1))
            || (isRaw(index) && joiners.contains(scalars[index + 1])) {
            let context = String(String.UnicodeScalarView(scalars[max(0, index - 20)..<min(scalars.count, index + 20)]))
            Issue.record("\(page): raw \(scalars[index]) \(scalars[index + 1]) in \(context.debugDescription)", sourceLocation: sourceLocation)
            break
        }
        #expect(!html.utf8.elementsEqualSomewhere("<img".utf8), "\(page): an injected <img>", sourceLocation: sourceLocation)
    }
}

private extension Sequence where Element == UInt8 {
    func elementsEqualSomewhere(_ needle: some Collection<UInt8>) -> Bool {
        let haystack = Array(self), needle = Array(needle)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
