// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxCore

@Suite struct NamespaceTests {
    static func request(_ headers: HTTPHeaders) throws -> HTTPRequest {
        try HTTPRequest(method: .get, target: "/", headers: headers)
    }

    @Test func namespace_PrefersHeader_ThenBasicUser_ThenDefault() throws {
        let basic = "Basic " + Data("merchant-1:secret".utf8).base64EncodedString()
        #expect(Namespace(for: try Self.request(["Sandbox-Namespace": "suite-a", "Authorization": basic])).name == "suite-a")
        #expect(Namespace(for: try Self.request(["Authorization": basic])).name == "merchant-1")
        #expect(Namespace(for: try Self.request([:])) == .default)
        #expect(Namespace(for: try Self.request(["Sandbox-Namespace": "  "])) == .default)
    }

    @Test func namespace_FallsBackToTheBearerToken_AfterHeaderAndBasic() throws {
        #expect(Namespace(for: try Self.request(["Authorization": "Bearer merchant-token"])).name == "merchant-token")
        #expect(Namespace(for: try Self.request(["Authorization": "bearer  spaced "])).name == "spaced")
        #expect(Namespace(for: try Self.request(["Sandbox-Namespace": "suite-b", "Authorization": "Bearer t"])).name == "suite-b")
        #expect(Namespace(for: try Self.request(["Authorization": "Bearer "])) == .default)
        #expect(Namespace(for: try Self.request(["Authorization": "Bearerx abc"])) == .default)
        #expect(Namespace.bearerToken(try Self.request(["Authorization": "Basic abc"])) == nil)
    }

    @Test func basicCredentials_RejectsMalformedHeaders() throws {
        #expect(BasicCredentials(try Self.request(["Authorization": "Bearer abc"])) == nil)
        #expect(BasicCredentials(try Self.request(["Authorization": "Basic !!!"])) == nil)
        #expect(BasicCredentials(try Self.request(["Authorization": "Basic " + Data("nocolon".utf8).base64EncodedString()])) == nil)
        let withColon = try #require(BasicCredentials(try Self.request(["Authorization": "Basic " + Data("u:p:q".utf8).base64EncodedString()])))
        #expect(withColon == BasicCredentials(user: "u", password: "p:q"))
    }

    /// The last header parsed is kept: headers in any order, repeated or not, give what parsing them gives.
    @Test func basicCredentials_RepeatedAndAlternatingHeadersParseAlike() throws {
        func basic(_ text: String) -> String { "Basic " + Data(text.utf8).base64EncodedString() }
        let long = basic("user:" + String(repeating: "p", count: 600))
        let headers = [basic("a:1"), basic("a:1"), basic("b:2"), "Basic !!!", "Basic !!!", basic("a:1"), "Bearer x", basic("é:ü"),
                       long, long, basic("b:2"), "basic   " + Data("c:3".utf8).base64EncodedString(), basic("nocolon"), basic("a:1")]
        let expected: [BasicCredentials?] = [.init(user: "a", password: "1"), .init(user: "a", password: "1"),
                                             .init(user: "b", password: "2"), nil, nil, .init(user: "a", password: "1"), nil,
                                             .init(user: "é", password: "ü"), .init(user: "user", password: String(repeating: "p", count: 600)),
                                             .init(user: "user", password: String(repeating: "p", count: 600)),
                                             .init(user: "b", password: "2"), .init(user: "c", password: "3"), nil,
                                             .init(user: "a", password: "1")]
        for (header, credentials) in zip(headers, expected) {
            #expect(BasicCredentials(try Self.request(["Authorization": header])) == credentials, "\(header)")
        }
        #expect(BasicCredentials(try Self.request([:])) == nil)
    }

    @Test func registry_ClocksArePerNamespace() {
        let base = ManualClock(Date(timeIntervalSince1970: 1_000_000))
        let registry = NamespaceRegistry(clock: base)
        let a = Namespace("a"), b = Namespace("b")
        registry.advance(a, by: 3600)
        #expect(registry.now(a) == Date(timeIntervalSince1970: 1_003_600))
        #expect(registry.now(b) == Date(timeIntervalSince1970: 1_000_000))
        base.advance(by: 10)
        #expect(registry.now(a) == Date(timeIntervalSince1970: 1_003_610))
        registry.set(b, to: Date(timeIntervalSince1970: 2_000_000))
        #expect(registry.now(b) == Date(timeIntervalSince1970: 2_000_000))
        registry.reset(a)
        #expect(registry.now(a) == base.now())
    }

    @Test func sequentialIDs_AreUUIDShapedAndIncreasing() {
        let ids = SequentialIDGenerator()
        #expect(ids.uuid() == "00000000-0000-4000-8000-000000000001")
        #expect(ids.uuid() == "00000000-0000-4000-8000-000000000002")
        #expect(UUID(uuidString: ids.uuid()) != nil)
    }
}

@Suite struct ClockRangeTests {
    /// 100 moves of 10 s race from 100 s before the end of the range: checked and applied under one lock,
    /// exactly 10 move the clock and it ends on the bound, never past it.
    @Test func advanceWithinRange_RacingMoves_NeverPassTheEnd() async {
        let registry = NamespaceRegistry(clock: ManualClock(SandboxClockRange.latest.addingTimeInterval(-100)))
        let namespace = Namespace("race")
        let moved = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 { group.addTask { registry.advanceWithinRange(namespace, by: 10).moved } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(moved == 10)
        #expect(registry.now(namespace) == SandboxClockRange.latest)
        #expect(registry.advanceWithinRange(namespace, by: .infinity).moved == false)
        #expect(registry.advanceWithinRange(namespace, by: -1).moved)
    }
}

@Suite struct BasicCredentialsBase64Tests {
    @Test func decodesLikeFoundation_ForEveryLengthAndByte() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString()
            #expect(BasicCredentials.base64Decode(Array(encoded.utf8)) == bytes, "\(encoded)")
        }
    }

    @Test func rejectsWhatIsNotBase64() {
        for text in ["!!!", "QQ=A", "Q", "QUJD=", "QU==QQ", "Q Q=", "QQ==="] {
            #expect(BasicCredentials.base64Decode(Array(text.utf8)) == nil, "\(text)")
        }
        #expect(BasicCredentials.base64Decode(Array("QUI".utf8)) == Array("AB".utf8))  // padding left out
    }
}

@Suite struct NamespaceBoundTests {
    @Test func aLongName_IsCutTo200Bytes_WithAHashOfTheWhole() {
        let long = String(repeating: "a", count: 500)
        let bounded = Namespace(long).name
        #expect(bounded.utf8.count == Namespace.maxLength)
        #expect(bounded.hasPrefix(String(repeating: "a", count: 183) + "~"))
        #expect(Namespace(bounded).name == bounded, "cutting again changes nothing")
        #expect(Namespace(long + "b") != Namespace(long), "names sharing their first bytes stay apart")
        #expect(Namespace(String(repeating: "b", count: 200)).name == String(repeating: "b", count: 200))
        // Cut back to a whole character: "é" is 2 bytes, 183 is odd.
        let accented = Namespace(String(repeating: "é", count: 300)).name
        #expect(accented.hasPrefix(String(repeating: "é", count: 91) + "~") && accented.utf8.count == 199)
    }

    @Test func aLongBasicUserOrBearerToken_NamesTheBoundedNamespace() throws {
        let user = String(repeating: "u", count: 1000)
        let basic = "Basic " + Data("\(user):p".utf8).base64EncodedString()
        #expect(Namespace(for: try NamespaceTests.request(["Authorization": basic])) == Namespace(user))
        #expect(Namespace(for: try NamespaceTests.request(["Authorization": "Bearer " + user])).name.utf8.count == 200)
    }

    @Test func refusal_IsForAHeaderPast200Bytes_Only() throws {
        #expect(Namespace.refusal(try NamespaceTests.request(["Sandbox-Namespace": String(repeating: "x", count: 200)])) == nil)
        #expect(Namespace.refusal(try NamespaceTests.request(["Sandbox-Namespace": " " + String(repeating: "x", count: 200) + "\t"])) == nil)
        #expect(Namespace.refusal(try NamespaceTests.request(["Sandbox-Namespace": String(repeating: "x", count: 201)])) == NamespaceRefusal(length: 201))
        // A long Basic user is no refusal: it is cut.
        let basic = "Basic " + Data("\(String(repeating: "u", count: 1000)):p".utf8).base64EncodedString()
        #expect(Namespace.refusal(try NamespaceTests.request(["Authorization": basic])) == nil)
    }

    @Test func registry_KeepsNoZeroOffset_AndRefusesMovesPastItsBound() {
        let registry = NamespaceRegistry(clock: ManualClock(Date(timeIntervalSince1970: 1_000_000)), maxNamespaces: 2)
        #expect(registry.advanceWithinRange(Namespace("a"), by: 60).moved)
        #expect(registry.advanceWithinRange(Namespace("a"), by: -60).moved)
        #expect(registry.namespacesWithOffsetCount == 0, "moved back to where it was: no entry")
        #expect(registry.advanceWithinRange(Namespace("a"), by: 1).moved)
        #expect(registry.set(Namespace("b"), to: Date(timeIntervalSince1970: 2_000_000)))
        #expect(registry.isFull(for: Namespace("c")) && !registry.isFull(for: Namespace("a")))
        #expect(!registry.advanceWithinRange(Namespace("c"), by: 1).moved)
        #expect(!registry.set(Namespace("c"), to: Date(timeIntervalSince1970: 2_000_000)))
        #expect(registry.offset(Namespace("c")) == 0)
        #expect(registry.advanceWithinRange(Namespace("a"), by: 1).moved, "a namespace that has an entry may move on")
        registry.reset(Namespace("b"))
        #expect(registry.advanceWithinRange(Namespace("c"), by: 1).moved)
        #expect(registry.namespacesWithOffsetCount == 2)
    }
}
