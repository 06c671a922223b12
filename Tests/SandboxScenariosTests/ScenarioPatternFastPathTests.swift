// SPDX-License-Identifier: MIT
// `matches` patterns of the shapes the bundled scenarios use are tested without ICU: always as NSRegularExpression
// tests them.
import Foundation
@testable import SandboxScenarios
import Testing

private let patterns = [
    "^(5226612199533406|4761739001010416|5510000000002347|4111112000006545)$", "^4925000000000004$", "^(abc)$", "^(a|A|a-b)$",
    "(?i)\\+reject_reason_other", "(?i)reject", "(?i)\\+a\\.b@c", "(?i)x_Y-z",
    // Not plain: the regular expression alone decides.
    "^a|b$", "^(a)|(b)$", "^a.b$", "(?i)a|b", "^(a|)$", "^$", "^()$", "(?i)", "a", "^(a|b)", "(?i)\\d", "^[ab]$",
]

private let values = [
    "", "a", "A", "b", "abc", "ABC", "a-b", "A-B", "4925000000000004", "4925000000000004\n", "5510000000002347", " 5510000000002347",
    "jane+reject_reason_other@example.com", "JANE+REJECT_REASON_OTHER@EXAMPLE.COM", "jane+reject_reason_others", "reject",
    "rejec", "x+a.b@c", "x+aXb@c", "X_y-Z", "x_y_z", "ab", "xa\nb", "a\r", "caf\u{e9} reject", "\u{212A}", "s\u{17F}",
    "reje\u{17F}t", "tab\treject", "a b",
]

@Test func plainPatternsAnswerAsTheRegularExpression() throws {
    var plainAnswers = 0
    for pattern in patterns {
        let compiled = try ScenarioPattern(pattern)
        for value in values + (0..<200).map({ _ in randomASCII() }) {
            #expect(compiled.matches(value) == compiled.regexMatches(value), "\(pattern) on \(value.debugDescription)")
            if compiled.plain?.matches(value) != nil { plainAnswers += 1 }
        }
    }
    // The plain shapes answer most values without ICU (the test above would pass without them).
    #expect(plainAnswers > 1_000)
}

@Test func onlyPlainShapesSkipTheRegularExpression() throws {
    let plain = ["^(5226612199533406|4761739001010416)$", "^4925000000000004$", "(?i)\\+reject_reason_other", "(?i)a@b"]
    let notPlain = ["^a|b$", "^(a)|(b)$", "^a.b$", "(?i)a|b", "^(a|)$", "^$", "(?i)", "a", "^(a|b)", "(?i)\\d", "^[ab]$", "(?i)a\\"]
    for pattern in plain { #expect(PlainPattern(pattern) != nil, "\(pattern)") }
    for pattern in notPlain { #expect(PlainPattern(pattern) == nil, "\(pattern)") }
    // Not printable ASCII: the regular expression decides (ICU folds U+212A KELVIN SIGN to k).
    #expect(PlainPattern("(?i)k")?.matches("\u{212A}") == nil)
    #expect(try ScenarioPattern("(?i)k").matches("\u{212A}") == (try ScenarioPattern("(?i)k").regexMatches("\u{212A}")))
}

/// Up to 24 characters of the literals' alphabet and a few others, so that matches happen.
private func randomASCII() -> String {
    let alphabet = Array("abcABC-_@+.x0123456789 rejcto")
    let length = Int.random(in: 0...24)
    var text = String((0..<length).map { _ in alphabet.randomElement()! })
    if Bool.random() { text += ["+reject_reason_other", "4111112000006545", "a-b", "X_Y-Z"].randomElement()! }
    return text
}
