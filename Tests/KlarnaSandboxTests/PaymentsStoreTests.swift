// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox

/// The store on an injected clock and id generator: lifetimes and ids are exact.
@Suite struct PaymentsStoreTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let namespace = Namespace("store-tests")
    let store: KlarnaPaymentsStore

    init() {
        store = KlarnaPaymentsStore(registry: NamespaceRegistry(clock: clock), ids: SequentialIDGenerator())
    }

    static let cart = #"""
        {"purchase_country":"GB","purchase_currency":"GBP","locale":"en-GB","order_amount":62400,"order_tax_amount":10400,
         "order_lines":[{"type":"physical","name":"Battery Power Pack","quantity":1,"unit_price":59500,"tax_rate":2000,
                         "total_amount":59500,"total_tax_amount":9917},
                        {"type":"shipping_fee","name":"Shipping","quantity":1,"unit_price":2900,"tax_rate":2000,
                         "total_amount":2900,"total_tax_amount":483}]}
        """#

    func session() async throws -> String {
        try store.createSession(namespace, try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(Self.cart.utf8))).sessionId
    }

    func order() throws -> KlarnaCreateOrderRequest {
        try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: Data(Self.cart.utf8))
    }

    /// The sessions listed by the state snapshot.
    func storedSessionIDs() -> [String] {
        guard case .object(let members) = store.snapshot(namespace), case .array(let sessions)? = members.first(where: { $0.0 == "sessions" })?.1
        else { return [] }
        return sessions.compactMap { session -> String? in
            guard case .object(let fields) = session, case .string(let id)? = fields.first(where: { $0.0 == "session_id" })?.1 else { return nil }
            return id
        }
    }

    @Test func sweep_DropsExpiredSessions_KeepsLiveOnes_AndSessionsWithALiveToken() async throws {
        let old = try await session()
        clock.advance(by: 47 * 3600 + 1800)
        let authorizedLate = try await session()
        _ = try #require(store.authorize(namespace, sessionID: old, data: nil).authorizationToken)  // 30 min before `old` expires
        let token = try #require(store.authorize(namespace, sessionID: authorizedLate, data: nil).authorizationToken)
        // 48 h and 1 min after `old`: a sweep is due (the clock moved on); `old` has expired but its token
        // (31 min old) keeps it, with its order still possible (§2.4: 60 minutes from authorization).
        clock.advance(by: 1860)
        let fresh = try await session()
        #expect(Set(storedSessionIDs()) == [old, authorizedLate, fresh])
        // 61 min after the tokens: `old` and its token go; the others live on.
        clock.advance(by: 1800)
        _ = try await session()
        #expect(!storedSessionIDs().contains(old))
        #expect(storedSessionIDs().contains(authorizedLate) && storedSessionIDs().contains(fresh))
        #expect(throws: KlarnaError.invalidAuthorizationToken) { _ = try store.createOrder(namespace, token: token, try order(), redirectBase: nil) }
    }

    @Test func ids_ComeFromTheInjectedGenerator() async throws {
        #expect(try await session() == "00000000-0000-4000-8000-000000000001")
    }

    @Test func token_IsValidFor60Minutes_ThenInvalid() async throws {
        let sessionID = try await session()
        let token = try #require(store.authorize(namespace, sessionID: sessionID, data: nil).authorizationToken)
        clock.advance(by: 60 * 60 - 1)
        let stillValid = try store.createOrder(namespace, token: token, try order(), redirectBase: nil)
        #expect(stillValid.fraudStatus == "ACCEPTED")

        let second = try await session()
        let late = try #require(store.authorize(namespace, sessionID: second, data: nil).authorizationToken)
        clock.advance(by: 60 * 60)
        #expect(throws: KlarnaError.invalidAuthorizationToken) {
            _ = try store.createOrder(namespace, token: late, try order(), redirectBase: nil)
        }
    }

    @Test func session_Expires48HoursAfterItsLastUpdate() async throws {
        let id = try await session()
        clock.advance(by: 47 * 3600)
        try store.updateSession(namespace, id, KlarnaSessionFields())  // extends to now + 48 h
        clock.advance(by: 47 * 3600)
        #expect(try store.readSession(namespace, id).status == "incomplete")
        clock.advance(by: 3600)
        #expect(throws: KlarnaError.invalidSessionID) { _ = try store.readSession(namespace, id) }
    }

    @Test func racingCreateOrders_MakeExactlyOneOrder() async throws {
        let token = try #require(store.authorize(namespace, sessionID: try await session(), data: nil).authorizationToken)
        let request = try order()
        let ids = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<32 {
                group.addTask { try? store.createOrder(namespace, token: token, request, redirectBase: nil).orderId }
            }
            var ids: Set<String> = []
            for await id in group { if let id { ids.insert(id) } }
            return ids
        }
        #expect(ids.count == 1)
    }

    @Test func completedSession_RefusesUpdatesAndNewTokens() async throws {
        let id = try await session()
        let token = try #require(store.authorize(namespace, sessionID: id, data: nil).authorizationToken)
        _ = try store.createOrder(namespace, token: token, try order(), redirectBase: nil)
        #expect(throws: KlarnaError.sessionCompleted) { try store.updateSession(namespace, id, KlarnaSessionFields()) }
        let again = store.authorize(namespace, sessionID: id, data: nil)
        #expect(again.error?.name == "InvalidClientTokenError")
        #expect(again.approved == false && again.authorizationToken == nil)
        #expect(try store.readSession(namespace, id).status == "complete")
    }

    @Test func load_ChecksClientTokenAndCategory() async throws {
        let id = try await session()
        let token = try store.readSession(namespace, id).clientToken
        #expect(store.load(namespace, sessionID: id, clientToken: token, category: "klarna") == KlarnaSDKResult(showForm: true))
        let wrongToken = store.load(namespace, sessionID: id, clientToken: "x.y.z", category: nil)
        #expect(wrongToken.error == .invalidClientToken(action: "Initialize"))
        #expect(wrongToken.showForm == false)
        let category = store.load(namespace, sessionID: id, clientToken: nil, category: "pay_over_time")
        #expect(category.error == .showFormFalse(action: "Load"))
        #expect(ClientToken.sessionID(of: token) == id)
    }

    @Test func reset_ForgetsOnlyThatNamespace() async throws {
        let id = try await session()
        let other = Namespace("other")
        let otherID = try store.createSession(other, try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(Self.cart.utf8))).sessionId
        store.reset(namespace)
        #expect(throws: KlarnaError.invalidSessionID) { _ = try store.readSession(namespace, id) }
        #expect(try store.readSession(other, otherID).status == "incomplete")
        #expect(throws: KlarnaError.invalidSessionID) { _ = try store.readSession(other, id) }
    }
}
