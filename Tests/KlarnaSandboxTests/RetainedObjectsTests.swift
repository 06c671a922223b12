// SPDX-License-Identifier: MIT
// Klarna Payments' objects in the server-wide bound (ObjectRetention): what a store counts, and heldObjects,
// which counts state that was filled without its creations (a restore), oldest first.
import Foundation
import Testing
@testable import KlarnaSandbox

@Suite struct RetainedObjectsTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let namespace = Namespace("retained")

    func session(_ store: KlarnaPaymentsStore) throws -> String {
        try store.createSession(namespace, try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(PaymentsStoreTests.cart.utf8))).sessionId
    }

    @Test func heldObjects_CountWhatTheStoreHolds_OldestFirst() throws {
        let retention = ObjectRetention(maxObjects: 3)
        let store = KlarnaPaymentsStore(registry: NamespaceRegistry(clock: clock), ids: SequentialIDGenerator(), retention: retention)
        let first = try session(store)
        clock.advance(by: 1)
        let second = try session(store)
        #expect(retention.counts.held == 2)
        store.retained.removedAll(namespace)  // as if the sessions had been filled in without their creations
        #expect(retention.counts.held == 0)
        retention.retain(store.heldObjects())
        #expect(retention.counts.held == 2)
        clock.advance(by: 1)
        let third = try session(store)
        let fourth = try session(store)  // over the bound: the oldest restored session goes first
        #expect(retention.counts == (3, 3, 1))
        #expect(throws: KlarnaError.self) { try store.readSession(namespace, first) }
        for id in [second, third, fourth] { _ = try store.readSession(namespace, id) }
    }

    @Test func cancellingASession_TakesItAndItsTokensOffTheCount() throws {
        let retention = ObjectRetention()
        let store = KlarnaPaymentsStore(registry: NamespaceRegistry(clock: clock), ids: SequentialIDGenerator(), retention: retention)
        let id = try session(store)
        _ = store.authorize(namespace, sessionID: id, data: nil)
        _ = store.authorize(namespace, sessionID: id, data: nil)
        #expect(retention.counts.held == 3)
        try store.cancelSession(namespace, id)
        #expect(retention.counts.held == 0)
    }

    @Test func resetsRacingCreationsAndEvictions_LeaveTheCountEqualToWhatTheStoreHolds() throws {
        let retention = ObjectRetention(maxObjects: 40)
        let store = KlarnaPaymentsStore(registry: NamespaceRegistry(clock: clock), ids: SequentialIDGenerator(), retention: retention)
        let fields = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(PaymentsStoreTests.cart.utf8))
        let namespaces = (0..<4).map { Namespace("race-\($0)") }
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let namespace = namespaces[worker % 4]
            for round in 0..<400 {
                if worker >= 4 && round % 20 == 0 { store.reset(namespace) } else { _ = try? store.createSession(namespace, fields) }
            }
        }
        let held = namespaces.reduce(0) { $0 + store.objects($1).count }
        #expect(retention.counts.held == held)
        #expect(held <= 40)
        #expect(retention.counts.evicted > 0)
    }

    /// Everything the three stores hold in `namespace`, as the retention counts it (Payments' orders too).
    func held(_ namespace: Namespace, _ payments: KlarnaPaymentsStore, _ orders: KlarnaOrderManagementStore, _ hpp: KlarnaHPPStore) -> Int {
        payments.ledgers.withState(namespace) { $0.sessions.count + $0.authorizations.count + $0.orders.count + $0.customerTokens.count }
            + orders.objects(namespace).count + hpp.objects(namespace).count
    }

    @Test func threeStoresSharingTheBound_UnderConcurrentFlowsSweepsResetsAndEvictions_CountWhatTheyHold() throws {
        let retention = ObjectRetention(maxObjects: 60)
        let registry = NamespaceRegistry(clock: clock), ids = SequentialIDGenerator()
        let orders = KlarnaOrderManagementStore(registry: registry, ids: ids, retention: retention)
        let payments = KlarnaPaymentsStore(registry: registry, ids: ids, orders: orders, retention: retention)
        let hpp = KlarnaHPPStore(registry: registry, ids: ids, retention: retention)
        let fields = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(PaymentsStoreTests.cart.utf8))
        let request = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: Data(PaymentsStoreTests.cart.utf8))
        let namespaces = (0..<6).map { Namespace("shared-\($0)") }
        let clock = clock
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<300 {
                let namespace = namespaces[(worker + round) % namespaces.count]
                if worker == 0 && round % 30 == 29 { clock.advance(by: 10 * 3600) }  // sessions and tokens expire: sweeps
                if round % 37 == worker {  // a reset, as the control API runs it: store by store
                    payments.reset(namespace)
                    orders.reset(namespace)
                    hpp.reset(namespace)
                    continue
                }
                guard let session = try? payments.createSession(namespace, fields).sessionId else { continue }
                _ = try? hpp.create(namespace, KlarnaHPPCreateRequest(), paymentSessionID: session,
                                    paymentSessionExpiresAt: clock.now() + 48 * 3600, baseURL: "http://sandbox")
                guard let token = payments.authorize(namespace, sessionID: session, data: nil).authorizationToken else { continue }
                _ = try? payments.createOrder(namespace, token: token, request, redirectBase: nil)
            }
        }
        let total = namespaces.reduce(0) { $0 + held($1, payments, orders, hpp) }
        #expect(retention.counts.held == total)
        #expect(total <= 60)
        #expect(retention.counts.evicted > 0)
        // Still true for the next creations: every object counted once, the oldest going first.
        for _ in 0..<20 { _ = try payments.createSession(namespaces[0], fields) }
        #expect(retention.counts.held == namespaces.reduce(0) { $0 + held($1, payments, orders, hpp) })
        #expect(retention.counts.held == 60)
        #expect(retention.queuedEntries <= 2 * 60 + 1024 + 1)
    }

    /// A section as the state file holds it, handed to its store as on start.
    struct RestoredSection: Decodable {
        static let store = CodingUserInfoKey(rawValue: "store")!
        init(from decoder: any Decoder) throws {
            try (decoder.userInfo[Self.store] as! any NamespacedState).restoreSection(from: decoder)
        }
    }

    func restore(_ section: SavedStoreSection, into store: any NamespacedState) throws {
        let decoder = JSONDecoder()
        decoder.userInfo[RestoredSection.store] = store
        _ = try decoder.decode(RestoredSection.self, from: section.json)
    }

    @Test func aRestoreOverTheBound_EvictsAtOnce_AndLeavesTheCountsEqualToTheStores() throws {
        let registry = NamespaceRegistry(clock: clock), ids = SequentialIDGenerator()
        let orders = KlarnaOrderManagementStore(registry: registry, ids: ids)
        let payments = KlarnaPaymentsStore(registry: registry, ids: ids, orders: orders)
        let fields = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(PaymentsStoreTests.cart.utf8))
        let request = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: Data(PaymentsStoreTests.cart.utf8))
        for index in 0..<10 {
            let namespace = Namespace("restored-\(index % 3)")
            clock.advance(by: 1)
            let session = try payments.createSession(namespace, fields).sessionId
            let token = try #require(payments.authorize(namespace, sessionID: session, data: nil).authorizationToken)
            if index < 5 { _ = try payments.createOrder(namespace, token: token, request, redirectBase: nil) }
        }
        let savedOrders = try #require(try orders.savedSection()), savedPayments = try #require(try payments.savedSection())
        #expect(savedOrders.objectCount + savedPayments.objectCount == 30)

        // A restart with a bound of 12: the restore counts the 30 and evicts down to 12 before any request.
        let retention = ObjectRetention(maxObjects: 12)
        let restoredOrders = KlarnaOrderManagementStore(registry: registry, ids: ids, retention: retention)
        let restoredPayments = KlarnaPaymentsStore(registry: registry, ids: ids, orders: restoredOrders, retention: retention)
        let hpp = KlarnaHPPStore(registry: registry, ids: ids, retention: retention)
        try restore(savedOrders, into: restoredOrders)
        try restore(savedPayments, into: restoredPayments)
        retention.retain(restoredOrders.heldObjects() + restoredPayments.heldObjects())  // as the state file does
        let namespaces = (0..<3).map { Namespace("restored-\($0)") }
        func total() -> Int { namespaces.reduce(0) { $0 + held($1, restoredPayments, restoredOrders, hpp) } }
        #expect(retention.counts == (12, 12, 18))
        #expect(total() == 12)
        // Then each creation evicts one restored object, and resets count off what remains.
        for _ in 0..<5 { _ = try restoredPayments.createSession(namespaces[0], fields) }
        #expect(retention.counts == (12, 12, 23))
        #expect(total() == 12)
        for namespace in namespaces { restoredPayments.reset(namespace); restoredOrders.reset(namespace) }
        #expect(retention.counts == (0, 12, 23))
    }

    @Test func afterARestore_TheNextEviction_TakesTheOldestObjectOfTheServer() throws {
        // The sessions are older than the Order Management orders; the stores are restored in no set order and
        // their objects counted once, by age across them (as the state file does).
        let registry = NamespaceRegistry(clock: clock), ids = SequentialIDGenerator()
        let orders = KlarnaOrderManagementStore(registry: registry, ids: ids)
        let payments = KlarnaPaymentsStore(registry: registry, ids: ids, orders: orders)
        let request = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: Data(PaymentsStoreTests.cart.utf8))
        let oldest = try session(payments)
        clock.advance(by: 60)
        let token = try #require(payments.authorize(namespace, sessionID: try session(payments), data: nil).authorizationToken)
        clock.advance(by: 60)
        let order = try payments.createOrder(namespace, token: token, request, redirectBase: nil).orderId
        let savedOrders = try #require(try orders.savedSection()), savedPayments = try #require(try payments.savedSection())

        let retention = ObjectRetention(maxObjects: 5)  // 2 sessions, a token, the order in both stores
        let restoredOrders = KlarnaOrderManagementStore(registry: registry, ids: ids, retention: retention)
        let restoredPayments = KlarnaPaymentsStore(registry: registry, ids: ids, orders: restoredOrders, retention: retention)
        try restore(savedOrders, into: restoredOrders)
        try restore(savedPayments, into: restoredPayments)
        retention.retain(restoredOrders.heldObjects() + restoredPayments.heldObjects())
        #expect(retention.counts == (5, 5, 0))
        clock.advance(by: 60)
        _ = try session(restoredPayments)
        #expect(retention.counts == (5, 5, 1))
        let oldestStayed = (try? restoredPayments.readSession(namespace, oldest)) != nil
        let orderStayed = (try? restoredOrders.readOrder(namespace, order)) != nil
        #expect(!oldestStayed && orderStayed, "the oldest session stayed: \(oldestStayed); the newer order stayed: \(orderStayed)")
    }
}
