// SPDX-License-Identifier: MIT
import Foundation
import SandboxCore
import Testing

/// The callback outbox's bounds: attempts kept per callback, and eviction that costs a step per callback however
/// many namespaces hold them, when callbacks come one by one and when a state file brings many at once.
@Suite("Callback outbox bounds")
struct CallbackOutboxBoundsTests {
    let registry = NamespaceRegistry(clock: ManualClock())

    /// A section as the state file holds it, handed to an outbox as on start.
    struct RestoredSection: Decodable {
        static let outbox = CodingUserInfoKey(rawValue: "outbox")!
        init(from decoder: any Decoder) throws {
            try (decoder.userInfo[Self.outbox] as! CallbackOutbox).restoreSection(from: decoder)
        }
    }

    static func restore(_ json: Data, into outbox: CallbackOutbox) throws {
        let decoder = JSONDecoder()
        decoder.userInfo[RestoredSection.outbox] = outbox
        _ = try decoder.decode(RestoredSection.self, from: json)
    }

    func add(_ outbox: CallbackOutbox, _ namespace: Namespace, _ description: String = "cb") -> String {
        Self.add(outbox, namespace, description)
    }

    static func add(_ outbox: CallbackOutbox, _ namespace: Namespace, _ description: String = "cb") -> String {
        outbox.add(namespace, object: "object", operation: "test.callback", description: description, url: "http://127.0.0.1:9/hook",
                   headers: [("Content-Type", "application/json")], body: Data("{}".utf8), state: .held)
    }

    @Test("a callback keeps its last 10 attempts and counts them all, also across the state file; an older file's longer list is cut to 10")
    func attempts_KeepTheLast10_CountAll() throws {
        let outbox = CallbackOutbox(registry: registry)
        let namespace = Namespace("attempts")
        let id = add(outbox, namespace)
        for index in 0..<40 {
            let attempt = CallbackOutbox.Attempt(time: registry.now(namespace), url: "http://127.0.0.1:9/hook/\(index)", status: 500, error: nil,
                                                 manual: true, answer: "answer \(index)")
            #expect(outbox.recordManual(namespace, id, attempt) != nil)
        }
        let entry = try #require(outbox.entry(namespace, id))
        #expect(entry.attemptCount == 40 && entry.attempts.map(\.answer) == (30..<40).map { "answer \($0)" })

        let section = try #require(try outbox.savedSection())
        let restored = CallbackOutbox(registry: registry)
        try Self.restore(section.json, into: restored)
        let back = try #require(restored.entry(namespace, id))
        #expect(back.attemptCount == 40 && back.attempts.map(\.url) == entry.attempts.map(\.url))

        // A file from before the bound: 25 attempts, no attemptCount.
        var object = try #require(try JSONSerialization.jsonObject(with: section.json) as? [String: Any])
        var namespaces = try #require(object["namespaces"] as? [[String: Any]])
        var callbacks = try #require(namespaces[0]["callbacks"] as? [[String: Any]])
        let attempts = try #require(callbacks[0]["attempts"] as? [[String: Any]])
        callbacks[0]["attempts"] = Array(repeating: attempts, count: 2).flatMap { $0 } + attempts.prefix(5)
        callbacks[0]["attemptCount"] = nil
        namespaces[0]["callbacks"] = callbacks
        object["namespaces"] = namespaces
        let older = CallbackOutbox(registry: registry)
        try Self.restore(try JSONSerialization.data(withJSONObject: object), into: older)
        let cut = try #require(older.entry(namespace, id))
        #expect(cut.attemptCount == 25 && cut.attempts.count == CallbackOutbox.keptAttempts)
    }

    @Test("5,000 callbacks in 5,000 namespaces through an outbox of 100: each eviction is one step, the newest 100 stay")
    func add_ManyNamespaces_EvictsInOneStepEach() async throws {
        // The steps are the measure (a scan per eviction would be 100 per step), so a few thousand show it; on a
        // thread of its own, not on the cooperative pool the other tests (and their servers' clients) need.
        let (outbox, removed) = try await onOwnThread("outbox-bounds") { [registry] in
            let outbox = CallbackOutbox(registry: registry, capacity: 100)
            let removed = Locked<[String]>([])
            outbox.onRemoval { ids in removed.withLock { $0 += ids } }
            for index in 0..<5_000 { _ = Self.add(outbox, Namespace("ns-\(index)")) }
            return (outbox, removed.withLock { $0 })
        }
        #expect(outbox.evicted == 4_900)
        #expect(outbox.evictionSteps <= 5_000, "\(outbox.evictionSteps) steps")
        #expect(removed.count == 4_900 && removed.first == "cb_1")
        #expect(outbox.entries(Namespace("ns-4899")).isEmpty && outbox.entries(Namespace("ns-4900")).map(\.id) == ["cb_4901"])
    }

    @Test("a namespace's own bound and resets leave nothing behind that slows eviction: each kept callback is still one step")
    func perNamespaceBoundAndResets_StayLinear() async throws {
        let outbox = try await onOwnThread("outbox-bounds") { [registry] in
            let outbox = CallbackOutbox(registry: registry, capacity: 50, capacityPerNamespace: 5)
            for round in 0..<2_000 {
                for _ in 0..<10 { _ = Self.add(outbox, Namespace("busy")) }
                _ = Self.add(outbox, Namespace("other-\(round)"))
                if round % 7 == 0 { outbox.reset(Namespace("busy")) }
            }
            return outbox
        }
        #expect(outbox.entries(Namespace("busy")).count <= 5)
        #expect(outbox.evictionSteps <= 2 * 22_000, "\(outbox.evictionSteps) steps for 22,000 callbacks")
    }

    @Test("restoring 16,000 callbacks in 16,000 namespaces into an outbox of 10,000: one step each, the newest 10,000 stay")
    func restore_ManyNamespaces_IsLinear() async throws {
        // Seconds of work: on a thread of its own, not on the cooperative pool the other tests (and their servers) need.
        let (outbox, removed, took) = try await onOwnThread("outbox-bounds") { [registry] in
            let source = CallbackOutbox(registry: registry, capacity: 16_000)
            for index in 0..<16_000 { _ = Self.add(source, Namespace("ns-\(index)")) }
            let section = try #require(try source.savedSection())
            let outbox = CallbackOutbox(registry: registry)
            let removed = Locked(0)
            outbox.onRemoval { ids in removed.withLock { $0 += ids.count } }
            let took = try ContinuousClock().measure { try Self.restore(section.json, into: outbox) }
            return (outbox, removed.withLock { $0 }, took)
        }
        #expect(outbox.evicted == 6_000 && removed == 6_000)
        #expect(outbox.evictionSteps <= 16_000, "\(outbox.evictionSteps) steps")
        #expect(outbox.entries(Namespace("ns-5999")).isEmpty && outbox.entries(Namespace("ns-6000")).map(\.id) == ["cb_6001"])
        #expect(add(outbox, Namespace("after")) == "cb_16001" && outbox.entries(Namespace("ns-6000")).isEmpty, "ids go on; the oldest goes")
        // A backstop only (the steps above are the measure), generous for ThreadSanitizer: 37 s before in a release
        // build, when each eviction scanned every namespace; now decoding the section is most of it.
        #expect(took < .seconds(120), "restore took \(took)")
    }
}
