// SPDX-License-Identifier: MIT
// ObjectRetention: the server-wide bound on objects, oldest first across namespaces and kinds, its counts through
// sweeps and resets, the size of its own bookkeeping, and the EVICTED journal entries.
import Foundation
import Testing
@testable import SandboxScenarios

@Suite struct ObjectRetentionTests {
    /// A store stand-in: the ids it holds per namespace, removed by the retention's evictions.
    final class FakeStore: Sendable {
        let held: Locked<Set<String>>
        let kind: RetainedObjectKind

        init(_ retention: ObjectRetention, name: String) {
            kind = retention.kind(provider: "test", name: name)
            let held = Locked<Set<String>>([])
            self.held = held
            kind.onEviction(holds: { namespace, id in held.withLock { $0.contains("\(namespace.name)/\(id)") } },
                            evict: { namespace, id in held.withLock { $0.remove("\(namespace.name)/\(id)") != nil } })
        }

        func create(_ namespace: String, _ id: String) {
            held.withLock { _ = $0.insert("\(namespace)/\(id)") }
            kind.created(Namespace(namespace), id)
            kind.retention.evictOverflow()
        }

        /// As the stores do: tells the retention the ids it held and dropped (not the others).
        func drop(_ namespace: String, _ ids: [String]) {
            let dropped = held.withLock { held in ids.filter { held.remove("\(namespace)/\($0)") != nil } }
            kind.removed(Namespace(namespace), dropped)
        }

        var ids: Set<String> { held.withLock { $0 } }
    }

    @Test func evictsTheOldestOfTheWholeServer_AcrossNamespacesAndKinds() {
        let retention = ObjectRetention(maxObjects: 3)
        let sessions = FakeStore(retention, name: "session"), orders = FakeStore(retention, name: "order")
        sessions.create("a", "s1")
        orders.create("b", "o1")
        sessions.create("b", "s2")
        #expect(retention.counts == (3, 3, 0))
        orders.create("a", "o2")  // the fourth: a/s1, the oldest, goes
        #expect(sessions.ids == ["b/s2"])
        #expect(orders.ids == ["b/o1", "a/o2"])
        sessions.create("c", "s3")
        sessions.create("c", "s4")
        #expect(orders.ids == ["a/o2"])
        #expect(sessions.ids == ["c/s3", "c/s4"])
        #expect(retention.counts.held == 3)
        #expect(retention.counts.evicted == 3)
    }

    @Test func objectsDroppedByTheirStore_LeaveTheCount_AndAreNotEvictedAgain() {
        let retention = ObjectRetention(maxObjects: 3)
        let store = FakeStore(retention, name: "session")
        for id in ["1", "2", "3"] { store.create("a", id) }
        store.drop("a", ["1", "2", "never-created"])  // a sweep (the store held only the first two)
        #expect(retention.counts == (1, 3, 0))
        store.create("a", "4")
        store.create("a", "5")
        #expect(retention.counts == (3, 3, 0))  // dead entries for 1 and 2 are skipped, nothing is over
        store.create("a", "6")
        #expect(store.ids == ["a/4", "a/5", "a/6"])  // 3 went: the oldest still held
        #expect(retention.counts == (3, 3, 1))
    }

    @Test func aResetOfOneNamespace_DropsItsObjectsOfThatKind() {
        let retention = ObjectRetention(maxObjects: 100)
        let sessions = FakeStore(retention, name: "session"), orders = FakeStore(retention, name: "order")
        for id in 0..<5 { sessions.create("a", "s\(id)"); orders.create("a", "o\(id)"); sessions.create("b", "s\(id)") }
        #expect(retention.counts.held == 15)
        sessions.kind.removedAll(Namespace("a"))
        #expect(retention.counts.held == 10)
        orders.kind.removedAll(Namespace("a"))
        #expect(retention.counts.held == 5)
        sessions.kind.removedAll(Namespace("never-used"))
        #expect(retention.counts.held == 5)
    }

    @Test func theBookkeeping_StaysBounded_WhenStoresDropWhatTheyMade() {
        // Endless flows whose objects expire and are swept before any eviction: dead entries are compacted away.
        let retention = ObjectRetention(maxObjects: 1_000_000)
        let store = FakeStore(retention, name: "session")
        var largest = 0
        for round in 0..<50 {
            let ids = (0..<1000).map { "r\(round)-\($0)" }
            for id in ids { store.create("ns-\(round % 7)", id) }
            store.drop("ns-\(round % 7)", ids)
            largest = max(largest, retention.queuedEntries)
        }
        #expect(retention.counts.held == 0)
        #expect(largest <= 2 * 1000 + 1024 + 1000, "the queue grew to \(largest) entries")
    }

    @Test func aCompaction_AsksTheStores_AndKeepsTheLiveEntriesInTheirOrder() {
        let retention = ObjectRetention(maxObjects: 5000)
        let store = FakeStore(retention, name: "session")
        for round in 0..<3 {
            store.create("a", "keep-\(round)")
            let swept = (0..<2000).map { "r\(round)-\($0)" }
            for id in swept { store.create("b", id) }
            store.drop("b", swept)  // the store's own sweep: the queue still names them until a compaction
        }
        #expect(retention.queuedEntries < 3000, "not compacted: \(retention.queuedEntries) entries")
        for index in 0..<4998 { store.create("c", "\(index)") }
        #expect(retention.counts == (5000, 5000, 1))
        #expect(!store.ids.contains("a/keep-0"))
        #expect(store.ids.isSuperset(of: ["a/keep-1", "a/keep-2", "c/0"]))
    }

    @Test func theBookkeeping_StaysBounded_UnderEvictions() {
        let retention = ObjectRetention(maxObjects: 100)
        let store = FakeStore(retention, name: "session")
        for index in 0..<50_000 { store.create("ns-\(index % 13)", "\(index)") }
        #expect(retention.counts == (100, 100, 49_900))
        #expect(store.ids.count == 100)
        #expect(retention.queuedEntries <= 100 + 4096 * 2)
    }

    @Test func evictions_AreJournaledPerNamespace_OneEntryPerBurst() throws {
        let clock = ManualClock()
        let journal = Journal(capacity: 100, registry: NamespaceRegistry(clock: clock))
        let retention = ObjectRetention(maxObjects: 2, journal: journal, clock: clock, journalGroupSeconds: 1)
        let store = FakeStore(retention, name: "session")
        for id in 1...6 { store.create("a", "s\(id)") }
        var entries = journal.entries(Namespace("a"), .init(method: "EVICTED"))
        try #require(entries.count == 1)
        #expect(entries[0].path == "test/session/s1")
        #expect(entries[0].note.hasPrefix("4 evicted"), "\(entries[0].note)")
        #expect(entries[0].note.contains("test session ×4"))
        let body = try JSONSerialization.jsonObject(with: entries[0].requestBodyBytes) as? [String: Any]
        let listed = (body?["objects"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(listed == ["s1", "s2", "s3", "s4"])
        clock.advance(by: 1)  // the burst is over: the next eviction starts an entry of its own
        store.create("a", "s7")
        entries = journal.entries(Namespace("a"), .init(method: "EVICTED"))
        #expect(entries.count == 2)
        #expect(entries.last?.note.hasPrefix("1 evicted") == true)
        #expect(journal.entries(Namespace("b"), .init(method: "EVICTED")).isEmpty)
    }

    @Test func aBigBurst_ListsTheFirstObjects_AndCountsTheRest() throws {
        let clock = ManualClock()
        let journal = Journal(capacity: 100, registry: NamespaceRegistry(clock: clock))
        let retention = ObjectRetention(maxObjects: 1, journal: journal, clock: clock)
        let store = FakeStore(retention, name: "session")
        for id in 0...100 { store.create("a", "\(id)") }
        let entries = journal.entries(Namespace("a"), .init(method: "EVICTED"))
        try #require(entries.count == 1)
        #expect(entries[0].note.hasPrefix("100 evicted"))
        let body = try JSONSerialization.jsonObject(with: entries[0].requestBodyBytes) as? [String: Any]
        #expect((body?["objects"] as? [Any])?.count == ObjectRetention.listedPerEntry)
        #expect(!entries[0].requestBodyTruncated)
    }

    @Test func withoutABound_ObjectsAreCounted_NeverEvicted() {
        let retention = ObjectRetention()
        let store = FakeStore(retention, name: "session")
        for id in 0..<100 { store.create("a", "\(id)") }
        #expect(retention.counts == (100, nil, 0))
        #expect(store.ids.count == 100)
    }
}
