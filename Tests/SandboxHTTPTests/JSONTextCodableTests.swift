// SPDX-License-Identifier: MIT
// JSONText in the state file: every kind of value, the kind of each number and the order of members survive.
import Foundation
import Testing
@testable import SandboxHTTP

@Suite struct JSONTextCodableTests {
    @Test func roundTrip_KeepsKindsAndOrder() throws {
        let value = JSONText.object([
            ("z", .int(1)), ("a", .double(1)), ("b", .bool(true)), ("n", .null), ("s", .string("1")),
            ("list", .array([.int(0), .bool(false), .double(2.5), .object([])])), ("big", .int(Int.max)),
        ])
        let decoded = try JSONDecoder().decode(JSONText.self, from: JSONEncoder().encode(value))
        #expect(decoded == value)
        #expect(decoded.data == value.data)
    }

    @Test func aDoubleThatIsNotFinite_IsKeptAsNull() throws {
        let decoded = try JSONDecoder().decode(JSONText.self, from: JSONEncoder().encode(JSONText.array([.double(.infinity)])))
        #expect(decoded == .array([.null]))
    }
}
