// SPDX-License-Identifier: MIT
// ObjectRetention: the server-wide bound on objects, oldest first across namespaces and kinds, its counts through
// sweeps and resets, the size of its own bookkeeping, and the EVICTED journal entries; against a model of the rule,
// under concurrency, and with resets, creations and evictions in the middle of an eviction or a compaction.
import Foundation
import Testing
@testable import SandboxCore

@Suite struct ObjectRetentionTests {
    /// A store stand-in: the ids it holds per namespace, removed by the retention's evictions. As the stores do, it
    /// tells the retention what it creates, drops and resets under its own lock. The hooks (each runs once, with no
    /// lock held) let a test put another thread's work in the middle of an eviction or a compaction.
    final class FakeStore: Sendable {
        let held: Locked<Set<String>>
        let kind: RetainedObjectKind
        /// Objects the retention's evictions removed (`evict` answered true), and the questions its compactions asked.
        let vanished, asked: Locked<Int>
        let beforeEvict, afterEvict, beforeHolds: Locked<Hook?>
        typealias Hook = @Sendable (_ namespace: String, _ id: String) -> Void

        init(_ retention: ObjectRetention, name: String) {
            kind = retention.kind(provider: "test", name: name)
            let held = Locked<Set<String>>([])
            self.held = held
            let vanished = Locked(0), asked = Locked(0)
            let beforeEvict = Locked<Hook?>(nil), afterEvict = Locked<Hook?>(nil), beforeHolds = Locked<Hook?>(nil)
            (self.vanished, self.asked) = (vanished, asked)
            (self.beforeEvict, self.afterEvict, self.beforeHolds) = (beforeEvict, afterEvict, beforeHolds)
            kind.onEviction(holds: { namespace, id in
                                Self.runOnce(beforeHolds, namespace.name, id)
                                asked.withLock { $0 += 1 }
                                return held.withLock { $0.contains("\(namespace.name)/\(id)") }
                            },
                            evict: { namespace, id in
                                Self.runOnce(beforeEvict, namespace.name, id)
                                let gone = held.withLock { $0.remove("\(namespace.name)/\(id)") != nil }
                                if gone { vanished.withLock { $0 += 1 } }
                                Self.runOnce(afterEvict, namespace.name, id)
                                return gone
                            })
        }

        private static func runOnce(_ hook: Locked<Hook?>, _ namespace: String, _ id: String) {
            let body = hook.withLock { hook in
                defer { hook = nil }
                return hook
            }
            body?(namespace, id)
        }

        /// `evicting` false: as a creation whose eviction waits for a later caller's ``ObjectRetention/evictOverflow()``.
        func create(_ namespace: String, _ id: String, evicting: Bool = true) {
            held.withLock { held in
                held.insert("\(namespace)/\(id)")
                kind.created(Namespace(namespace), id)
            }
            if evicting { kind.retention.evictOverflow() }
        }

        /// As the stores do: tells the retention the ids it held and dropped (not the others).
        func drop(_ namespace: String, _ ids: [String]) {
            held.withLock { held in
                kind.removed(Namespace(namespace), ids.filter { held.remove("\(namespace)/\($0)") != nil })
            }
        }

        /// A reset of the namespace: its objects go, counted off under the store's lock.
        func reset(_ namespace: String) {
            held.withLock { held in
                held = held.filter { !$0.hasPrefix("\(namespace)/") }
                kind.removedAll(Namespace(namespace))
            }
        }

        var ids: Set<String> { held.withLock { $0 } }
        func ids(in namespace: String) -> [String] {
            held.withLock { held in held.filter { $0.hasPrefix("\(namespace)/") }.map { String($0.dropFirst(namespace.count + 1)) } }
        }
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

    @Test func theBookkeeping_StaysBounded_UnderEvictions() async {
        let retention = ObjectRetention(maxObjects: 100)
        let store = FakeStore(retention, name: "session")
        for index in 0..<50_000 {
            store.create("ns-\(index % 13)", "\(index)")
            // Seconds under ThreadSanitizer: the cooperative thread is given back now and then, for the other tests.
            if index % 1_000 == 0 { await Task.yield() }
        }
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

    // MARK: Against a model, under concurrency, and at the seams of an eviction or a compaction

    /// A seeded generator (SplitMix64), so a failing flow can be replayed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomFlows_EvictExactlyTheOldestHeld_AndKeepTheCountsTrue(seed: UInt64) async {
        // One thread: creations, sweeps (of some of what a namespace holds of a kind) and resets, in 6 namespaces and
        // 2 kinds, against the rule itself: the oldest objects still held go, one per creation over the bound.
        let max = 150
        let retention = ObjectRetention(maxObjects: max)
        let stores = [FakeStore(retention, name: "session"), FakeStore(retention, name: "order")]
        let namespaces = (0..<6).map { "ns-\($0)" }
        var generator = SeededGenerator(state: seed)
        var expected: [(store: Int, namespace: String, id: String)] = []  // what must be held, oldest first
        var evicted = 0
        for step in 0..<20_000 {
            // Seconds under ThreadSanitizer: the cooperative thread is given back now and then, for the other tests.
            if step % 500 == 0 { await Task.yield() }
            let store = Int.random(in: 0..<2, using: &generator)
            let namespace = namespaces.randomElement(using: &generator)!
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<80:
                stores[store].create(namespace, "\(step)")
                expected.append((store, namespace, "\(step)"))
                if expected.count > max {
                    expected.removeFirst()
                    evicted += 1
                }
                let (held, queued) = (retention.counts.held, retention.queuedEntries)
                #expect(queued <= 2 * held + 1024 + 1, "seed \(seed), step \(step): \(queued) entries queued for \(held) objects")
            case 80..<97:
                let dropped = expected.filter { $0.store == store && $0.namespace == namespace && Bool.random(using: &generator) }.map(\.id)
                stores[store].drop(namespace, dropped + ["never-created"])
                expected.removeAll { $0.store == store && $0.namespace == namespace && dropped.contains($0.id) }
            default:
                stores[store].reset(namespace)
                expected.removeAll { $0.store == store && $0.namespace == namespace }
            }
            guard retention.counts == (expected.count, max, evicted) else {
                Issue.record("seed \(seed), step \(step): counts \(retention.counts), expected \((expected.count, max, evicted))")
                return
            }
            if step % 100 == 0 || step == 19_999 {
                for index in stores.indices {
                    let want = Set(expected.filter { $0.store == index }.map { "\($0.namespace)/\($0.id)" })
                    guard stores[index].ids == want else {
                        let (beyond, lacking) = (stores[index].ids.subtracting(want).sorted(), want.subtracting(stores[index].ids).sorted())
                        Issue.record("seed \(seed), step \(step): store \(index) holds \(beyond) beyond, lacks \(lacking)")
                        return
                    }
                }
            }
        }
        #expect(stores.reduce(0) { $0 + $1.vanished.withLock { $0 } } == evicted)
    }

    @Test func concurrentCreationsSweepsResetsAndEvictions_LeaveTheCountsEqualToTheStores() {
        // Eight threads: two fill a namespace each (reset now and then), four make objects their store mostly sweeps
        // soon (dead entries pile up between live ones: compactions), two sweep and reset anywhere at random.
        let max = 1000
        let clock = ManualClock()
        let journal = Journal(capacity: 1000, registry: NamespaceRegistry(clock: clock))
        let retention = ObjectRetention(maxObjects: max, journal: journal, clock: clock)
        let stores = [FakeStore(retention, name: "session"), FakeStore(retention, name: "order")]
        let namespaces = (0..<8).map { "ns-\($0)" }
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var generator = SeededGenerator(state: UInt64(worker + 1))
            let own = stores[worker % 2], namespace = namespaces[worker]
            for step in 0..<4000 {
                switch worker {
                case 0, 1:
                    own.create(namespace, "\(step)")
                    if step % 700 == 699 { own.reset(namespace) }
                case 2..<6:
                    own.create(namespace, "\(step)")
                    if step % 10 == 9 { own.drop(namespace, (step - 8...step).map { "\($0)" }) }  // one in ten stays
                default:
                    let store = stores[Int.random(in: 0..<2, using: &generator)]
                    let namespace = namespaces.randomElement(using: &generator)!
                    switch Int.random(in: 0..<100, using: &generator) {
                    case 0..<90: store.create(namespace, "w\(worker)-\(step)")
                    case 90..<99: store.drop(namespace, store.ids(in: namespace).filter { _ in Bool.random(using: &generator) })
                    default: store.reset(namespace)
                    }
                }
            }
        }
        let held = stores.reduce(0) { $0 + $1.ids.count }
        #expect(retention.counts.held == held)
        #expect(held <= max)
        #expect(retention.counts.evicted == stores.reduce(0) { $0 + $1.vanished.withLock { $0 } })
        #expect(retention.counts.evicted > 0)
        #expect(stores.reduce(0) { $0 + $1.asked.withLock { $0 } } > 0, "no compaction ran among the workers")
        // Quiet again: the next creation compacts what the sweeps and resets left dead (the workers made about 31,000).
        stores[0].create("ns-0", "last")
        #expect(retention.counts.held == stores.reduce(0) { $0 + $1.ids.count })
        #expect(retention.queuedEntries <= 2 * max + 1024 + 2 * CreationQueue.chunkSize, "\(retention.queuedEntries) entries")
        // The clock stood still: one EVICTED entry per namespace, its note counting every eviction there.
        let journaled = namespaces.map { namespace in
            journal.entries(Namespace(namespace), .init(method: "EVICTED")).reduce(0) { $0 + (Int($1.note.prefix { $0.isNumber }) ?? 0) }
        }
        #expect(journaled.reduce(0, +) == retention.counts.evicted)
    }

    @Test func theBookkeeping_StaysBounded_AfterAResetDropsMostOfWhatIsHeld() {
        // A compaction while 20,000 objects are held, then a reset of them: the queue's dead entries (and the id
        // texts they keep) must go with the next creations, not wait for the queue to double.
        let retention = ObjectRetention(maxObjects: 1_000_000)
        let store = FakeStore(retention, name: "session")
        for index in 0..<20_000 { store.create("kept", "\(index)") }
        let churn = (0..<22_000).map { "c\($0)" }
        for id in churn { store.create("churn", id) }
        store.drop("churn", churn)
        store.create("other", "first")  // dead entries outnumber live ones: compacted to what is held
        #expect(retention.queuedEntries == 20_001)
        store.reset("kept")
        for index in 0..<100 { store.create("other", "\(index)") }
        #expect(retention.counts.held == 101)
        #expect(retention.queuedEntries <= 2 * 101 + 1024 + 1, "\(retention.queuedEntries) entries queued for 101 objects")
    }

    @Test func entriesNoStoreCanRuleOut_AreNotAskedAboutAtEveryCreation() {
        // A store that cannot tell (its `holds` always says yes): a compaction keeps its dead entries, and the next
        // waits until the queue's excess over what is held doubled, so asking stays linear in the creations.
        let retention = ObjectRetention(maxObjects: 1_000_000)
        let asked = Locked(0)
        let kind = retention.kind(provider: "test", name: "opaque")
        kind.onEviction(holds: { _, _ in asked.withLock { $0 += 1 }; return true }, evict: { _, _ in true })
        kind.created(Namespace("a"), "kept")
        for index in 0..<10_000 {
            kind.created(Namespace("a"), "\(index)")
            kind.removed(Namespace("a"), ["\(index)"])
            retention.evictOverflow()
        }
        #expect(retention.counts.held == 1)
        #expect(asked.withLock { $0 } <= 4 * 10_000, "\(asked.withLock { $0 }) questions for 10,000 creations")
    }

    @Test func aCompaction_WhileAnEvictionTakesTheEntriesItIsChecking() {
        // The compaction checks the first chunk with its store (no lock held); meanwhile another thread's creation
        // evicts, taking entries of that chunk: the compaction must not count them off again.
        let retention = ObjectRetention(maxObjects: 100)
        let store = FakeStore(retention, name: "session"), other = FakeStore(retention, name: "order")
        for index in 0..<50 { store.create("a", "old-\(index)") }
        let swept = (0..<2000).map { "swept-\($0)" }
        for id in swept { store.create("a", id, evicting: false) }
        store.drop("a", swept)
        for index in 0..<50 { store.create("a", "new-\(index)", evicting: false) }
        #expect(retention.counts == (100, 100, 0))
        store.beforeHolds.withLock { $0 = { _, _ in other.create("b", "meanwhile") } }
        store.create("a", "over")  // 102 held for a moment: old-0 and old-1 go
        #expect(store.beforeHolds.withLock { $0 } == nil, "no compaction ran")
        #expect(retention.counts == (100, 100, 2))
        #expect(store.vanished.withLock { $0 } == 2)
        #expect(!store.ids.contains("a/old-0") && !store.ids.contains("a/old-1"))
        #expect(retention.queuedEntries == 100)
        for index in 0..<48 { other.create("b", "\(index)") }  // still the oldest first: old-2 … old-49
        #expect(store.ids.filter { $0.hasPrefix("a/old-") }.isEmpty)
        #expect(store.ids.count == 51)
        other.create("b", "48")
        #expect(!store.ids.contains("a/new-0"))
        #expect(retention.counts == (100, 100, 51))
        // A reset of a, then evictions through all of its entries: its slot goes with its last entry, not before.
        store.reset("a")
        for index in 0..<150 { other.create("b", "drain-\(index)") }
        #expect(store.ids.isEmpty)
        #expect(other.ids == Set((50..<150).map { "b/drain-\($0)" }))
        #expect(retention.counts == (100, 100, 151))
        #expect(retention.queuedEntries == 100)
    }

    @Test func aCompaction_WhileAnEvictionTakesTheWholeChunkItIsChecking() {
        let retention = ObjectRetention(maxObjects: 100)
        let store = FakeStore(retention, name: "session"), other = FakeStore(retention, name: "order")
        store.create("a", "live-0")
        let swept = (0..<(CreationQueue.chunkSize - 1)).map { "swept-\($0)" }
        for id in swept { store.create("a", id, evicting: false) }  // the first chunk: all but live-0 dead, unbeknown to the queue
        store.drop("a", swept)
        for index in 1..<100 { store.create("a", "live-\(index)", evicting: false) }
        store.beforeHolds.withLock { $0 = { _, _ in other.create("b", "meanwhile") } }
        store.create("a", "over")  // the eviction meanwhile takes the whole first chunk and live-1 of the next
        #expect(retention.counts == (100, 100, 2))
        #expect(store.vanished.withLock { $0 } == 2)
        #expect(!store.ids.contains("a/live-0") && !store.ids.contains("a/live-1"))
        #expect(retention.queuedEntries == 100)
        other.create("b", "next")
        #expect(!store.ids.contains("a/live-2"))
        #expect(retention.counts == (100, 100, 3))
        store.reset("a")
        for index in 0..<150 { other.create("b", "drain-\(index)") }
        #expect(store.ids.isEmpty)
        #expect(other.ids == Set((50..<150).map { "b/drain-\($0)" }))
        #expect(retention.counts == (100, 100, 55))
        #expect(retention.queuedEntries == 100)
    }

    @Test func aCreationWhileAnEvictionIsUnderWay_EvictsOneMore_NotEverything() {
        let retention = ObjectRetention(maxObjects: 3)
        let store = FakeStore(retention, name: "session")
        for id in ["1", "2", "3"] { store.create("a", id) }
        store.beforeEvict.withLock { $0 = { _, _ in store.create("b", "meanwhile") } }  // while a/1 is a candidate
        store.create("b", "1")
        #expect(store.ids == ["a/3", "b/1", "b/meanwhile"])
        #expect(retention.counts == (3, 3, 2))
    }

    @Test func aReset_BeforeAnEvictionReachesItsStore_LeavesTheCountsTrue() {
        let retention = ObjectRetention(maxObjects: 3)
        let store = FakeStore(retention, name: "session")
        for id in ["1", "2", "3"] { store.create("a", id) }
        store.create("b", "1")
        store.beforeEvict.withLock { $0 = { _, _ in store.reset("a") } }  // a/1 is a candidate; the reset comes first
        store.create("b", "2")
        #expect(store.ids == ["b/1", "b/2"])
        #expect(retention.counts == (2, 3, 1))  // a/1 went on the first creation over; the reset took the rest
        #expect(store.vanished.withLock { $0 } == 1)
        for id in ["3", "4"] { store.create("b", id) }
        #expect(store.ids == ["b/2", "b/3", "b/4"])
        #expect(retention.counts == (3, 3, 2))
    }

    @Test func aReset_AfterAnEvictionRemovedItsObject_BeforeItIsSettled_LeavesTheCountsTrue() {
        let retention = ObjectRetention(maxObjects: 3)
        let store = FakeStore(retention, name: "session")
        for id in ["1", "2", "3"] { store.create("a", id) }
        // a/1 is evicted; before the retention hears so, the namespace is reset and made anew.
        store.afterEvict.withLock { $0 = { _, _ in
            store.reset("a")
            store.create("a", "new-1")
            store.create("a", "new-2")
        } }
        store.create("b", "1")
        #expect(store.ids == ["a/new-1", "a/new-2", "b/1"])
        #expect(retention.counts == (3, 3, 1))
        #expect(store.vanished.withLock { $0 } == 1)
        store.create("b", "2")  // the dead entries of a's old objects are passed: b/1 is the oldest held
        #expect(store.ids == ["a/new-1", "a/new-2", "b/2"])
        #expect(retention.counts == (3, 3, 2))
        store.create("b", "3")  // a's new objects count in their own slot
        #expect(store.ids == ["a/new-2", "b/2", "b/3"])
        store.reset("a")
        #expect(retention.counts == (2, 3, 3))
    }

    @Test func slotsFreedAndReused_NeverMixTheirEntries() {
        let retention = ObjectRetention(maxObjects: 2)
        let store = FakeStore(retention, name: "session")
        store.create("a", "1")
        store.create("a", "2")
        store.create("b", "1")  // a/1 goes
        store.drop("a", ["2"])  // a holds nothing; its entry for 2 stays
        store.reset("a")
        store.create("a", "3")  // a anew
        store.create("c", "1")  // over: the dead a/2 entry is passed (its slot freed), b/1 goes
        #expect(store.ids == ["a/3", "c/1"])
        store.create("d", "1")  // likely in the freed slot: a/3 goes, not d's
        #expect(store.ids == ["c/1", "d/1"])
        store.create("d", "2")
        #expect(store.ids == ["d/1", "d/2"])
        store.drop("d", ["1"])
        store.create("a", "4")
        #expect(store.ids == ["d/2", "a/4"])
        #expect(retention.counts == (2, 2, 4))
        #expect(store.vanished.withLock { $0 } == 4)
    }

    @Test func aKindWithoutEvictionHandlers_IsNeverEvicted_AndItsCountStaysTrue() {
        // Until a store names how an eviction reaches its objects, the retention cannot drop them: their entries are
        // passed over (the bound then holds for the other kinds only), and the store's own drops count off as usual.
        let retention = ObjectRetention(maxObjects: 2)
        let kind = retention.kind(provider: "test", name: "unhandled")
        for id in ["1", "2", "3"] {
            kind.created(Namespace("a"), id)
            retention.evictOverflow()
        }
        #expect(retention.counts == (3, 2, 0))
        kind.removed(Namespace("a"), ["1"])
        #expect(retention.counts == (2, 2, 0), "2 and 3 are held and counted")
    }

    @Test func withoutABound_SweepsAndResetsKeepTheCountsTrue_AndNothingIsQueued() {
        let retention = ObjectRetention()
        let sessions = FakeStore(retention, name: "session"), orders = FakeStore(retention, name: "order")
        for id in 0..<1000 { sessions.create("ns-\(id % 3)", "\(id)"); orders.create("ns-\(id % 5)", "\(id)") }
        sessions.drop("ns-0", (0..<500).map { "\($0)" })
        orders.reset("ns-1")
        sessions.reset("ns-2")
        sessions.create("ns-2", "again")
        #expect(retention.counts == (sessions.ids.count + orders.ids.count, nil, 0))
        #expect(retention.queuedEntries == 0)
        for namespace in 0..<5 { sessions.reset("ns-\(namespace)"); orders.reset("ns-\(namespace)") }
        #expect(retention.counts == (0, nil, 0))
    }
}
