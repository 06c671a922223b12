// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxCore

/// The compact storage of the stored models (SharedStorage.swift, CompactJSON.swift): values behave as the plain
/// properties they replace.
@Suite struct SharedStorageTests {
    struct Holder: Codable, Equatable {
        var plain: String
        @Boxed var rare: [Int]? = nil
        @Shared var group: [String] = []
    }

    @Test func boxedAndSharedRead_WriteAndCompareAsTheirValues() {
        var a = Holder(plain: "x")
        #expect(a.rare == nil && a.group.isEmpty)
        a.rare = [1, 2]
        a.group = ["g"]
        var b = a
        #expect(a == b)
        b.rare?.append(3)  // a change makes a new box: the copy it came from keeps its value
        #expect(a.rare == [1, 2] && b.rare == [1, 2, 3] && a != b)
        b.rare = [1, 2]
        #expect(a == b, "equal values in different boxes are equal")
        b.$group = a.$group
        #expect(b.group == ["g"])
        b.rare = nil
        #expect(b.rare == nil && a.rare == [1, 2])
    }

    @Test func codable_AsOptionalAndPlainProperties_AbsentIsNil() throws {
        var value = Holder(plain: "x")
        value.group = ["a", "b"]
        let encoded = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        #expect(!encoded.contains("rare"), "a nil @Boxed is left out: \(encoded)")
        #expect(try JSONDecoder().decode(Holder.self, from: Data(encoded.utf8)) == value)
        value.rare = [7]
        #expect(try JSONDecoder().decode(Holder.self, from: JSONEncoder().encode(value)) == value)
        let missing = try JSONDecoder().decode(Holder.self, from: Data(#"{"plain":"y","group":[]}"#.utf8))
        #expect(missing.rare == nil && missing.plain == "y")
    }

    @Test func compactJSON_KeepsNumbersAsWritten_OrderAndDuplicates() throws {
        let node = try JSONDocument.parse(#"{ "b": 1.50, "a": [1e2, "x\"y", null, true], "b": {"k": -0} }"#)
        let compact = CompactJSON(node)
        #expect(compact.text == #"{"b":1.50,"a":[1e2,"x\"y",null,true],"b":{"k":-0}}"#)
        #expect(compact.node == node)
        #expect(compact.node.members?.map(\.key) == ["b", "a", "b"])
        #expect(compact.node["a"]?[0]?.description == "1e2")
    }
}
