// SPDX-License-Identifier: MIT
import Dispatch
import Foundation
import Testing
@testable import SandboxCore

@Suite struct NamespacedStoreTests {
    struct Counters: NamespaceStateValue {
        var values: [String: Int] = [:]
        var isEmpty: Bool { values.isEmpty }
    }

    @Test func namespaces_AreIsolated() {
        let store = NamespacedStore { Counters() }
        store.withState(Namespace("a")) { $0.values["x"] = 1 }
        store.withState(Namespace("b")) { $0.values["x"] = 2 }
        #expect(store.withState(Namespace("a")) { $0.values["x"] } == 1)
        #expect(store.withState(Namespace("b")) { $0.values["x"] } == 2)
        #expect(store.withState(Namespace("c")) { $0.values["x"] } == nil)
    }

    @Test func aRead_OfAnUnknownNamespace_StoresNothing() {
        let store = NamespacedStore { Counters() }
        _ = store.withState(Namespace("read")) { $0.values["x"] }
        #expect(store.namespaces.isEmpty)
        store.withState(Namespace("write")) { $0.values["x"] = 1 }
        #expect(store.namespaces == [Namespace("write")])
    }

    @Test func aThrowingBody_KeepsWhatItChangedBeforeThrowing() {
        struct Refused: Error {}
        let store = NamespacedStore { Counters() }
        #expect(throws: Refused.self) {
            try store.withState(Namespace("a")) { (state) throws(Refused) in
                state.values["x"] = 1
                throw Refused()
            }
        }
        #expect(store.withState(Namespace("a")) { $0.values["x"] } == 1)
    }

    @Test func reset_DropsOneNamespace_ResetAll_DropsEvery() {
        let store = NamespacedStore { Counters() }
        for name in ["a", "b", "c"] { store.withState(Namespace(name)) { $0.values["x"] = 1 } }
        let seen = store.reset(Namespace("b")) { $0.values["x"] }
        #expect(seen == 1)
        #expect(store.reset(Namespace("b")) { $0.values["x"] } == nil)
        #expect(Set(store.namespaces) == [Namespace("a"), Namespace("c")])
        #expect(store.withState(Namespace("b")) { $0.values["x"] } == nil)
        store.resetAll()
        #expect(store.namespaces.isEmpty)
        #expect(store.withState(Namespace("a")) { $0.values["x"] } == nil)
    }

    @Test func first_AndForEach_SeeEveryNamespace() {
        let store = NamespacedStore { Counters() }
        for index in 0..<50 { store.withState(Namespace("n\(index)")) { $0.values["id-\(index)"] = index } }
        #expect(store.first { namespace, state in state.values["id-37"] != nil ? namespace : nil } == Namespace("n37"))
        #expect(store.first { _, state in state.values["missing"] } == nil)
        let total = Locked(0)
        store.forEach { _, state in total.withLock { $0 += state.values.values.reduce(0, +) } }
        #expect(total.withLock { $0 } == (0..<50).reduce(0, +))
    }

    @Test func concurrentWriters_ToManyNamespaces_LoseNoUpdate() {
        let store = NamespacedStore { Counters() }
        let namespaces = (0..<40).map { Namespace("suite-\($0)") }
        let increments = 500
        DispatchQueue.concurrentPerform(iterations: namespaces.count * 4) { worker in
            let namespace = namespaces[worker % namespaces.count]
            for _ in 0..<increments { store.withState(namespace) { $0.values["count", default: 0] += 1 } }
        }
        for namespace in namespaces {
            #expect(store.withState(namespace) { $0.values["count"] } == 4 * increments, "\(namespace)")
        }
    }

    @Test func sequence_GrowsWithEveryNamespaceCreated() {
        let store = NamespacedStore { Counters() }
        let before = store.nextSequence()
        store.withState(Namespace("a")) { $0.values["x"] = 1 }
        #expect(store.nextSequence() == before + 2)
    }

    // MARK: Sweep

    @Test func sweep_IsDueOnTheFirstCreation_ThenAMinuteLater() {
        var schedule = SweepSchedule(tracksExpiry: false)
        func due(_ now: Date) -> Bool { schedule.creationIsDue(now: now) }
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(due(start))
        #expect(!due(start + 59))
        #expect(due(start + 60))
    }

    @Test func sweep_IsDueEvery1024Creations_WithinAMinute() {
        var schedule = SweepSchedule(tracksExpiry: false)
        func due(_ now: Date) -> Bool { schedule.creationIsDue(now: now) }
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(due(now))
        let dueAt = (1...2048).filter { _ in due(now) }
        #expect(dueAt == [1024, 2048])
    }

    @Test func sweep_IsHeldBack_UntilTheEarliestExpiry() {
        var schedule = SweepSchedule()
        func due(_ now: Date) -> Bool { schedule.creationIsDue(now: now) }
        let now = Date(timeIntervalSince1970: 1_000_000)
        schedule.noteExpiry(now + 3600)
        schedule.noteExpiry(now + 7200)
        #expect(schedule.earliestExpiry == now + 3600)
        #expect(!due(now))
        #expect(!due(now + 3599))
        #expect(due(now + 3600))
    }

    @Test func sweep_WithoutCountedCreations_RunsOnlyByTheClock() {
        var schedule = SweepSchedule(creationsPerSweep: .max, tracksExpiry: false)
        func due(_ now: Date) -> Bool { schedule.creationIsDue(now: now) }
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(due(now))
        #expect((0..<5000).allSatisfy { _ in !due(now + 30) })
        #expect(due(now + 61))
    }
}
