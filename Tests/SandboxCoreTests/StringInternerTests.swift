// SPDX-License-Identifier: MIT
// StringInterner: equal strings come back as one instance (one buffer), small ones pass through, and it stays bounded.
import Foundation
import Testing
@testable import SandboxCore

@Suite struct StringInternerTests {
    /// Where the string's UTF-8 bytes are (nil for a string stored inline).
    func buffer(_ string: String) -> UnsafeRawPointer? {
        var string = string
        return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    /// A heap string with this text, built so that the compiler cannot fold it into a shared literal.
    func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    @Test func equalStrings_ComeBackAsTheFirstInstance() {
        var interner = StringInterner()
        let first = fresh("https://merchant.example/callback")
        let second = fresh("https://merchant.example/callback")
        #expect(buffer(first) != buffer(second))
        let kept = interner(first)
        let again = interner(second)
        #expect(again == second)
        #expect(buffer(kept) == buffer(first) && buffer(again) == buffer(first))
        let other = interner(fresh("https://merchant.example/complete"))
        #expect(buffer(other) != buffer(first))
    }

    @Test func arrays_AreKeptOnceAsAWhole() {
        var interner = StringInterner()
        let first = interner([fresh("https://merchant.example"), fresh("https://shop.merchant.example")])
        let second = interner([fresh("https://merchant.example"), fresh("https://shop.merchant.example")])
        #expect(first == second)
        first.withUnsafeBufferPointer { a in second.withUnsafeBufferPointer { b in #expect(a.baseAddress == b.baseAddress) } }
    }

    @Test func itStartsAgainPastItsCapacity() {
        var interner = StringInterner(capacity: 2)
        let a = interner(fresh("https://a.example/long-enough"))
        _ = interner(fresh("https://b.example/long-enough"))
        _ = interner(fresh("https://c.example/long-enough"))  // the third: the first two are forgotten
        let aAgain = interner(fresh("https://a.example/long-enough"))
        #expect(aAgain == a && buffer(aAgain) != buffer(a))
        #expect(interner("SEK") == "SEK")
    }
}
