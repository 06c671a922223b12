// SPDX-License-Identifier: MIT
// The verification's matcher alone: path templates, body conditions and the reasons they give, count expectations.
import Foundation
@testable import PaymentSandbox
import SandboxCore
import SandboxScenarios
import Testing

@Suite("Pattern matcher")
struct PatternMatcherTests {
    static func condition(_ path: String, _ test: BodyCondition.Test) throws -> BodyCondition {
        BodyCondition(path: try #require(ScenarioFieldPath(path)), test: test)
    }

    static func json(_ text: String) throws -> JSONNode { try JSONDocument.parse(text) }

    @Test("a path template's {name} matches one non-empty segment")
    func pathTemplate() {
        let template = PathTemplate("/payments/v1/sessions/{id}")
        #expect(template.matches("/payments/v1/sessions/abc"))
        #expect(!template.matches("/payments/v1/sessions/"))
        #expect(!template.matches("/payments/v1/sessions/abc/x"))
        #expect(!template.matches("/payments/v1/sessions"))
        #expect(PathTemplate("/exact").matches("/exact"))
        #expect(!PathTemplate("/exact").matches("/exact/"))
    }

    @Test("equals, contains and absent, and the reasons a miss gives")
    func bodyConditions() throws {
        let body = try Self.json(#"{"order_lines": [{"quantity": 2, "name": "Battery"}], "tags": ["a", 1]}"#)
        let cases: [(BodyCondition, Bool, String)] = [
            (try Self.condition("order_lines[0].quantity", .equals(try Self.json("2.0"))), true, ""),
            (try Self.condition("order_lines[0].quantity", .equals(try Self.json("1"))), false, "body field `order_lines[0].quantity` was 2, wanted 1"),
            (try Self.condition("order_lines[0].name", .contains(try Self.json(#""att""#))), true, ""),
            (try Self.condition("tags", .contains(try Self.json("1"))), true, ""),
            (try Self.condition("tags", .contains(try Self.json(#""b""#))), false, #"body field `tags` was ["a",1], wanted it to contain "b""#),
            (try Self.condition("order_lines[1]", .absent), true, ""),
            (try Self.condition("order_lines[0]", .absent), false, #"body field `order_lines[0]` was {"quantity":2,"name":"Battery"}, wanted it absent"#),
            (try Self.condition("missing", .equals(try Self.json("null"))), false, "body field `missing` was absent, wanted null"),
        ]
        for (condition, held, reason) in cases {
            let (isHeld, why) = condition.test(body, bodyIsJSON: true)
            #expect(isHeld == held, "\(condition.path)")
            if !held { #expect(why == reason) }
        }
        let (held, why) = try Self.condition("a", .equals(try Self.json("1"))).test(nil, bodyIsJSON: false)
        #expect(!held)
        #expect(why == "body field `a` cannot be read: the body is not JSON")
    }

    @Test("near misses rank by what held: path and method first, then the newest")
    func ranking() {
        var pathOnly = PatternComparison(), methodOnly = PatternComparison(), statusOnly = PatternComparison()
        pathOnly.check("path", true, "")
        methodOnly.check("method", true, "")
        statusOnly.check("status", true, "")
        statusOnly.check("query a", false, "query parameter `a` was absent, wanted \"1\"")
        let ranked = ObservationRoutes.nearest([("old path", pathOnly), ("method", methodOnly), ("status", statusOnly), ("new path", pathOnly)])
        #expect(ranked.map(\.0) == ["new path", "old path", "method"])
    }

    @Test("a comparison's summary: what matched, then why the rest missed")
    func summary() {
        var comparison = PatternComparison()
        comparison.check("method", true, "")
        comparison.check("path", true, "")
        comparison.check("status", false, "status was 400, wanted 200")
        #expect(comparison.summary == "method and path matched, status was 400, wanted 200")
        #expect(!comparison.isMatch)
    }

    @Test("count expectations")
    func counts() throws {
        let exactly = try CountExpectation(try Self.json(#"{"exactly": 2}"#))
        #expect(exactly.holds(2) && !exactly.holds(1) && !exactly.holds(3))
        #expect(exactly.description == "exactly 2")
        let range = try CountExpectation(try Self.json(#"{"at_least": 1, "at_most": 3}"#))
        #expect(range.holds(3) && !range.holds(0) && !range.holds(4))
        let none = try CountExpectation(nil)
        #expect(none.description == "at least 1")
        #expect(throws: HTTPError.self) { try CountExpectation(try Self.json(#"{"at_least": 3, "at_most": 2}"#)) }
    }

    @Test("a raw query is decoded for query criteria")
    func queryItems() {
        let items = RequestPattern.queryItems("a=1&note=a+b%21&flag")
        #expect(items.map(\.name) == ["a", "note", "flag"])
        #expect(items.map(\.value) == ["1", "a b!", ""])
    }
}
