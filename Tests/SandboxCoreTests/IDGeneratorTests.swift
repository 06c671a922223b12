// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxCore

@Suite struct IDGeneratorTests {
    @Test func randomIDs_AreVersion4UUIDs_LowerCase_AndDistinct() throws {
        let ids = RandomIDGenerator()
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let id = ids.uuid()
            let parsed = try #require(UUID(uuidString: id), "\(id) is not a UUID")
            #expect(id == id.lowercased())
            #expect(id.count == 36)
            // RFC 9562: version nibble 4, variant bits 10.
            let bytes = parsed.uuid
            #expect(bytes.6 >> 4 == 4, "\(id)")
            #expect(bytes.8 >> 6 == 0b10, "\(id)")
            seen.insert(id)
        }
        #expect(seen.count == 10_000)
    }

    @Test func twoGenerators_DoNotRepeatEachOther() {
        let a = RandomIDGenerator(), b = RandomIDGenerator()
        let first = Set((0..<1000).map { _ in a.uuid() })
        #expect((0..<1000).allSatisfy { _ in !first.contains(b.uuid()) })
    }

    @Test func format_WritesEveryNibbleInPlace() {
        #expect(RandomIDGenerator.format(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210) == "01234567-89ab-cdef-fedc-ba9876543210")
    }
}
