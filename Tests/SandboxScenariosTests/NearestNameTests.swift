// SPDX-License-Identifier: MIT
// "Did you mean": an unknown name gets the known name it is a typo of, a short list, or where the list is.
import SandboxScenarios
import Testing

@Suite("Nearest name")
struct NearestNameTests {
    @Test("a typo gets the nearest known name; a name far from all gets none", arguments: [
        ("rejekt", "reject"), ("REJECT", "reject"), ("klarna.payments.authorise", "klarna.payments.authorize"),
        ("swedbankpay-aprove", "swedbankpay-approve"), ("cancl", "cancel"),
    ])
    func typo(typed: String, meant: String) {
        let known = ["approve", "reject", "cancel", "klarna.payments.authorize", "klarna.payments.finalize", "swedbankpay-approve"]
        #expect(NearestName.nearest(to: typed, among: known) == meant)
    }

    @Test("no suggestion for a name far from every known one, nor for an empty one")
    func noSuggestion() {
        let known = ["approve", "reject", "cancel"]
        #expect(NearestName.nearest(to: "no-such-scenario", among: known) == nil)
        #expect(NearestName.nearest(to: "x", among: known) == nil)
        #expect(NearestName.nearest(to: "", among: known) == nil)
        #expect(NearestName.nearest(to: String(repeating: "a", count: 5000), among: known) == nil)
    }

    @Test("the message: did you mean, else a short list, else where the list is; quotes escaped")
    func message() {
        #expect(NearestName.unknown("outcome", "rejekt", known: ["approve", "reject"], whereListed: "see docs")
                == #"unknown outcome "rejekt": did you mean "reject"?"#)
        #expect(NearestName.unknown("scenario", "zzz", known: ["approve", "reject"], listing: "known:", whereListed: "see docs")
                == #"unknown scenario "zzz" (known: approve, reject)"#)
        let many = (1...20).map { "scenario-number-\($0)" }
        #expect(NearestName.unknown("scenario", "zzz", known: many, whereListed: "GET /__sandbox/scenarios lists them")
                == #"unknown scenario "zzz" (GET /__sandbox/scenarios lists them)"#)
        #expect(NearestName.unknown("scenario", "a\"b", known: many, whereListed: "w") == #"unknown scenario "a\"b" (w)"#)
    }

    @Test("edit distance: insertions, deletions, substitutions")
    func distance() {
        func d(_ a: String, _ b: String) -> Int { NearestName.editDistance(Array(a.utf8), Array(b.utf8)) }
        #expect(d("", "") == 0)
        #expect(d("abc", "") == 3)
        #expect(d("kitten", "sitting") == 3)
        #expect(d("reject", "rejekt") == 1)
    }
}
