// SPDX-License-Identifier: MIT
// What a namespace leaves behind once it holds nothing: its ledger goes with its last object, its sequence counters
// with their objects (and all of them with its last object), and counters of calls on unknown objects are swept.
import Foundation
import Testing
import PaymentSandbox
@testable import SandboxScenarios

@Suite struct NamespaceCleanupTests {
    struct Items: NamespaceStateValue {
        var ids: Set<String> = []
        var isEmpty: Bool { ids.isEmpty }
    }

    @Test func aLedger_IsDropped_ByTheAccessThatEmptiesIt() {
        let store = NamespacedStore { Items() }
        for name in ["a", "b"] { store.withState(Namespace(name)) { _ = $0.ids.insert("x") } }
        #expect(store.namespaceCount == 2)
        store.withState(Namespace("a")) { _ = $0.ids.remove("x") }
        #expect(store.namespaces == [Namespace("b")])
        // A walk over every namespace (a sweep) that empties one drops it too.
        _ = store.first { _, state -> Bool? in
            state.ids.removeAll()
            return nil
        }
        #expect(store.namespaceCount == 0)
    }

    static func engine(maxCounters: Int = ScenarioEngine.defaultMaxCounters) throws -> ScenarioEngine {
        let scenario = try Scenario.parse(#"""
            {"name": "counted", "description": "t", "rules": [{"operation": "klarna.payments.read_session", "outcome": "approve"}]}
            """#, file: "counted.json", vocabulary: .sandbox).get()
        return ScenarioEngine(library: ScenarioLibrary(scenarios: [scenario]), vocabulary: .sandbox, maxCounters: maxCounters)
    }

    static func read(_ engine: ScenarioEngine, _ namespace: String, _ object: String) throws {
        let request = try HTTPRequest(method: .get, target: "/payments/v1/sessions/\(object)", headers: ["Sandbox-Scenario": "counted"])
        _ = try engine.decide(.klarnaPaymentsReadSession, request: request, namespace: Namespace(namespace), subject: nil, object: object, sticky: nil)
    }

    @Test func counters_GoWithTheirObjectsAndTheirNamespacesLastObject() throws {
        let journal = Journal(registry: NamespaceRegistry(clock: ManualClock(Date(timeIntervalSince1970: 0))))
        let retention = ObjectRetention(maxObjects: 2, journal: journal)
        let engine = try Self.engine()
        retention.observeRemovals { engine.forget($0) }
        let kind = retention.kind(provider: "test", name: "item")
        let held = Locked<Set<String>>([])
        kind.onEviction(holds: { _, id in held.withLock { $0.contains(id) } }, evict: { _, id in held.withLock { $0.remove(id) != nil } })
        func create(_ namespace: String, _ id: String) {
            held.withLock { _ = $0.insert(id) }
            kind.created(Namespace(namespace), id)
            retention.evictOverflow()
        }
        create("a", "a1")
        create("a", "a2")
        for id in ["a1", "a2", "ghost"] { try Self.read(engine, "a", id) }
        #expect(engine.counterCount == 3)
        create("b", "b1")  // evicts a1: its counter goes; a still holds a2
        #expect(engine.counterCount == 2)
        kind.removed(Namespace("a"), ["a2"])  // a's last object: the ghost's counter goes too
        held.withLock { _ = $0.remove("a2") }
        #expect(engine.counterCount == 0 && engine.namespacesWithCounters == 0)
        #expect(retention.namespacesHoldingObjects == 1 && retention.holdsObjects(Namespace("b")))
    }

    @Test func countersOfUnknownObjects_AreSwept_AndBounded() throws {
        let engine = try Self.engine()
        engine.sweepIdleNamespaces { $0.name == "holder" }
        try Self.read(engine, "holder", "kept")
        for index in 0..<(3 * ScenarioEngine.countersPerSweep) { try Self.read(engine, "ghost-\(index)", "never") }
        #expect(engine.counterCount <= 2 * ScenarioEngine.countersPerSweep + 1)
        // The namespace that holds objects keeps its counter through every sweep.
        try Self.read(engine, "holder", "kept")
        #expect(engine.savedState.counters.first { $0.namespace == "holder" }.map { _ in true } == true)

        let capped = try Self.engine(maxCounters: 10)
        for index in 0..<100 { try Self.read(capped, "n\(index)", "o\(index)") }
        #expect(capped.counterCount == 10 && capped.namespacesWithCounters == 10)
    }

    @Test func defaults_AreBounded() throws {
        let scenario = try Scenario.parse(#"{"name": "s", "description": "t", "rules": []}"#, file: "s.json", vocabulary: .sandbox).get()
        let engine = ScenarioEngine(library: ScenarioLibrary(scenarios: [scenario]), vocabulary: .sandbox, maxDefaults: 2)
        try engine.setDefault("s", for: Namespace("a"))
        try engine.setDefault("s", for: Namespace("b"))
        #expect(throws: ScenarioEngine.TooManyDefaults.self) { try engine.setDefault("s", for: Namespace("c")) }
        try engine.setDefault("s", for: Namespace("a"))
        try engine.setDefault(nil, for: Namespace("c"))
        engine.reset(Namespace("b"))
        try engine.setDefault("s", for: Namespace("c"))
        #expect(engine.namespacesWithDefaultCount == 2)
    }

    @Test func journalPages_WalkBackWithACursor() throws {
        let journal = Journal(capacity: 10, registry: NamespaceRegistry(clock: ManualClock(Date(timeIntervalSince1970: 0))))
        for index in 0..<12 { journal.record(Namespace(index % 2 == 0 ? "a" : "b"), method: "TEST", path: "/\(index)", status: 200, note: "") }
        // The ring keeps 10 (entries 3...12); a's are 3, 5, ..., 11.
        let newest = journal.page(Namespace("a"), Journal.Filter(limit: 2))
        #expect(newest.entries.map(\.sequence) == [9, 11] && newest.more && newest.nextBefore == 9)
        let older = journal.page(Namespace("a"), Journal.Filter(limit: 2, before: 9))
        #expect(older.entries.map(\.sequence) == [5, 7] && older.nextBefore == 5)
        let oldest = journal.page(Namespace("a"), Journal.Filter(limit: 2, before: 5))
        #expect(oldest.entries.map(\.sequence) == [3] && !oldest.more && oldest.nextBefore == nil)
        #expect(journal.page(Namespace("a"), Journal.Filter(limit: 5000)).entries.count == 5)
        // After a reset compacted the ring, pages still run oldest to newest.
        journal.reset(Namespace("b"))
        #expect(journal.page(Namespace("a"), Journal.Filter(limit: 3)).entries.map(\.sequence) == [7, 9, 11])
    }
}
