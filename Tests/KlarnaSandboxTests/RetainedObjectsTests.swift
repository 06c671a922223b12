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
}
