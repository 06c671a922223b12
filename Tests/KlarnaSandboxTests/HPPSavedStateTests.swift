// SPDX-License-Identifier: MIT
// The HPP store's section of the state file: a session restored while a consumer action was in flight takes
// actions again (the action's process is gone).
import Foundation
import Testing
@testable import KlarnaSandbox

@Suite struct HPPSavedStateTests {
    /// A section as the state file holds it, handed to a store as on start.
    struct Section: Decodable {
        let store: KlarnaHPPStore
        init(from decoder: any Decoder) throws {
            store = decoder.userInfo[CodingUserInfoKey(rawValue: "store")!] as! KlarnaHPPStore
            try store.restoreSection(from: decoder)
        }
    }

    @Test func aSessionSavedMidAction_TakesActionsAfterTheRestore() throws {
        let clock = ManualClock()
        let registry = NamespaceRegistry(clock: clock)
        let store = KlarnaHPPStore(registry: registry, ids: SequentialIDGenerator())
        let namespace = Namespace("unit")
        let created = try store.create(namespace, KlarnaHPPCreateRequest(), paymentSessionID: "kp", paymentSessionExpiresAt: clock.now() + 7200,
                                       baseURL: "http://sandbox")
        _ = try store.beginAction(namespace, created.sessionID)
        #expect(throws: KlarnaError.self) { try store.beginAction(namespace, created.sessionID) }
        let section = try #require(try store.savedSection())
        #expect(section.objectCount == 1 && section.namespaceNames == ["unit"])

        let restored = KlarnaHPPStore(registry: registry, ids: SequentialIDGenerator())
        let decoder = JSONDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "store")!] = restored
        _ = try decoder.decode(Section.self, from: section.json)
        #expect(try restored.read(namespace, created.sessionID) == store.read(namespace, created.sessionID))
        let (context, _) = try restored.beginAction(namespace, created.sessionID)
        #expect(context.sessionID == created.sessionID)
    }
}
