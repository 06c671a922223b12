// SPDX-License-Identifier: MIT
// The callback outbox in the state file: every callback comes back as it was, except one still waiting for a call,
// which comes back held; ids go on after the restored ones; a file without the outbox's section still loads.
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import Testing

@Suite("Callback outbox in the state file")
struct CallbackOutboxStateFileTests {
    /// Canonical text of one callback as the outbox lists it (keys sorted).
    static func text(_ callback: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: callback, options: [.sortedKeys]), as: UTF8.self)
    }

    static func outbox(_ server: RunningServer, _ namespace: String) -> OutboxClient {
        KlarnaClient(server, namespace: namespace, password: "secret").outbox
    }

    /// Held (callback-not-sent), delivered, waiting for a retry (callback-failing) and waiting for a late first call
    /// (callback-late), each in a namespace of its own: written, restored in a new sandbox, compared.
    @Test func roundTrip_EveryCallbackComesBack_PendingOnesHeld_DeliverWorks_IdsGoOn() async throws {
        let listener = MerchantListener()
        try await withServer(listener.router) { _, hooks in
            try await withStateDirectory { directory in
                let file = directory.appendingPathComponent("state.json")
                let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
                let (before, server) = try StateFileTests.sandbox(file, clock: clock)
                let names = ["held": "outbox-sf-held", "delivered": "outbox-sf-delivered", "retry": "outbox-sf-retry", "late": "outbox-sf-late"]
                let scenarios = ["held": "callback-not-sent", "retry": "callback-failing", "late": "callback-late"]
                var sessions: [String: String] = [:]
                for (kind, namespace) in names {
                    let client = KlarnaClient(server, namespace: namespace, password: "secret")
                    if let scenario = scenarios[kind] { try await client.useScenario(scenario) }
                    let id = try await CallbackOutboxTests.hppSession(client, hooks: hooks)
                    _ = try await KlarnaHPP.browser(server, "GET", "/hpp/payments/\(id)")   // IN_PROGRESS: one callback
                    sessions[kind] = id
                }
                let delivered = try await Self.outbox(server, names["delivered"]!).wait { states($0) == ["delivered"] }
                let retry = try await Self.outbox(server, names["retry"]!).wait {
                    states($0) == ["pending"] && attempts($0[0]).count == 1 && !($0[0]["due"] is NSNull)
                }
                let held = try await Self.outbox(server, names["held"]!).list()
                let late = try await Self.outbox(server, names["late"]!).list()
                try #require(states(held) == ["held"] && states(late) == ["pending"], "\(held) \(late)")
                #expect(attempts(retry[0])[0]["status"] as? Int == 503 && attempts(retry[0])[0]["note"] is NSNull)
                let restoredIDs = Set([held, delivered, retry, late].compactMap { $0.first?["id"] as? String })
                try #require(restoredIDs.count == 4)

                let snapshot = try await StateFileTests.send(server, "POST", "/__sandbox/snapshot")
                try #require(snapshot.status == 200, "\(snapshot)")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
                #expect(document["format_version"] as? Int == 1)
                let section = try #require((document["stores"] as? [String: Any])?["callback_outbox"] as? [String: Any], "\(document)")
                #expect((section["namespaces"] as? [Any])?.count == 4)
                // Callbacks are not objects: the snapshot counts the stores' objects only (4 KP and 4 HPP sessions).
                #expect(try snapshot.jsonObject()["objects"] as? Int == 8, "\(snapshot)")

                let (_, restarted) = try StateFileTests.sandbox(file, clock: clock)
                // Held and delivered: exactly as they were.
                for (kind, listed) in [("held", held), ("delivered", delivered)] {
                    let after = try await Self.outbox(restarted, names[kind]!).list()
                    #expect(try after.map(Self.text) == listed.map(Self.text), "\(kind)")
                }
                // Waiting for a retry: held, nothing due, its last result says why; the rest as it was.
                let retryAfter = try #require(try await Self.outbox(restarted, names["retry"]!).list().first)
                #expect(retryAfter["state"] as? String == "held" && retryAfter["due"] is NSNull, "\(retryAfter)")
                let lastResult = try #require(retryAfter["last_result"] as? [String: Any])
                let id = try #require(retryAfter["id"] as? String)
                #expect(lastResult["status"] as? Int == 503)
                #expect((lastResult["note"] as? String)?.hasPrefix("held after a restart") == true, "\(lastResult)")
                #expect((lastResult["note"] as? String)?.contains("POST /__sandbox/callbacks/\(id)/deliver") == true, "\(lastResult)")
                for key in ["id", "object", "operation", "description", "url", "headers", "body", "created", "scenario"] {
                    #expect(try Self.text(["v": retryAfter[key] ?? NSNull()]) == (try Self.text(["v": retry[0][key] ?? NSNull()])), "\(key)")
                }
                #expect(attempts(retryAfter).count == 1)
                // Waiting for its late first call: held, with a result saying it was not called.
                let lateAfter = try #require(try await Self.outbox(restarted, names["late"]!).list().first)
                #expect(lateAfter["state"] as? String == "held" && lateAfter["due"] is NSNull, "\(lateAfter)")
                let lateResult = try #require(lateAfter["last_result"] as? [String: Any])
                #expect(lateResult["status"] is NSNull && lateResult["error"] as? String == "not called before the restart", "\(lateResult)")
                #expect((lateResult["note"] as? String)?.hasPrefix("held after a restart") == true, "\(lateResult)")

                // Delivered by hand after the restore: the restored held one and the one that waited for a retry.
                let callsBefore = listener.received.count
                for kind in ["held", "retry"] {
                    let outbox = Self.outbox(restarted, names[kind]!)
                    let restoredID = try #require(try await outbox.list().first?["id"] as? String)
                    let answer = try await outbox.deliver(restoredID)
                    #expect(answer.status == 200, "\(answer)")
                    #expect((try answer.jsonObject()["callback"] as? [String: Any])?["state"] as? String == "delivered", "\(kind): \(answer)")
                }
                let received = try await listener.wait(for: callsBefore + 2)
                #expect(received.suffix(2).map(\.target) == ["/hooks/status?sid=\(sessions["held"]!)", "/hooks/status?sid=\(sessions["retry"]!)"])

                // A callback made after the restore gets a new id.
                let plain = KlarnaClient(restarted, namespace: names["delivered"]!, password: "secret")
                let next = try await CallbackOutboxTests.hppSession(plain, hooks: hooks)
                _ = try await KlarnaHPP.browser(restarted, "GET", "/hpp/payments/\(next)")
                let newer = try await plain.outbox.wait { $0.count == 2 }
                let newID = try #require(newer.last?["id"] as? String)
                #expect(!restoredIDs.contains(newID), "\(newID) repeats a restored id: \(restoredIDs)")
                #expect(newer.first.map { (try? Self.text($0)) ?? "" } == (try Self.text(delivered[0])))
                _ = before
            }
        }
    }

    @Test func restoredUnderALowerBound_TheOldestGo_AndNewIdsGoOnAfterTheLastSaved() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let (_, server) = try StateFileTests.sandbox(file, clock: clock)
            let client = KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret")
            try await client.useScenario("callback-not-sent")
            func cancelledHPPSession(_ client: KlarnaClient) async throws -> String {
                let kp = try await client.newSession()
                let urls = #"{"status_update": "https://merchant.example/status/{{session_id}}"}"#
                let hpp = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: urls))
                expectNoContent(try await client.delete("/hpp/v1/sessions/\(hpp)"))   // DISABLED: one held callback
                return hpp
            }
            var sessions: [String] = []
            for _ in 0..<3 { sessions.append(try await cancelledHPPSession(client)) }
            try #require(try await client.outbox.list().map { $0["id"] as? String } == ["cb_1", "cb_2", "cb_3"])
            try #require(try await StateFileTests.send(server, "POST", "/__sandbox/snapshot").status == 200)

            var configuration = SandboxConfiguration(port: 0)
            configuration.stateFile = file
            configuration.clock = clock
            configuration.ids = SequentialIDGenerator()
            configuration.callbackOutboxCapacityPerNamespace = 2
            let restarted = PaymentSandbox(configuration: configuration)
            try restarted.loadStateFile()
            let after = KlarnaClient(RunningServer(port: 0, inProcess: restarted), namespace: StateFileTests.namespace, password: "secret")
            let listing = try await after.get("/__sandbox/callbacks").jsonObject()
            #expect(listing["evicted"] as? Int == 1 && listing["capacity_per_namespace"] as? Int == 2, "\(listing)")
            let kept = try #require(listing["callbacks"] as? [[String: Any]])
            #expect(kept.map { $0["id"] as? String } == ["cb_2", "cb_3"] && kept.map { $0["object"] as? String } == Array(sessions.suffix(2)))
            _ = try await cancelledHPPSession(after)
            #expect(try await after.outbox.list().map { $0["id"] as? String } == ["cb_3", "cb_4"])
        }
    }

    @Test func aFileWithoutTheOutboxSection_StillLoads_WithAnEmptyOutbox() async throws {
        try await withStateDirectory { directory in
            let file = directory.appendingPathComponent("state.json")
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let (_, server) = try StateFileTests.sandbox(file, clock: clock)
            let client = KlarnaClient(server, namespace: StateFileTests.namespace, password: "secret")
            try await client.useScenario("callback-not-sent")
            let kp = try await client.newSession()
            let urls = #"{"status_update": "https://merchant.example/status/{{session_id}}"}"#
            let hpp = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: urls))
            expectNoContent(try await client.delete("/hpp/v1/sessions/\(hpp)"))
            try #require(try await client.outbox.list().count == 1)
            try #require(try await StateFileTests.send(server, "POST", "/__sandbox/snapshot").status == 200)

            // The file as a sandbox without the outbox's section wrote it (format_version 1 all the same).
            var document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            var stores = try #require(document["stores"] as? [String: Any])
            try #require(stores.removeValue(forKey: "callback_outbox") != nil, "\(stores.keys)")
            document["stores"] = stores
            #expect(document["format_version"] as? Int == 1)
            try JSONSerialization.data(withJSONObject: document).write(to: file)

            let (_, restarted) = try StateFileTests.sandbox(file, clock: clock)
            let after = KlarnaClient(restarted, namespace: StateFileTests.namespace, password: "secret")
            #expect(try await after.outbox.list().isEmpty)
            #expect(try await after.readSession(kp).status == 200, "the stores' objects are restored")
        }
    }
}

extension StateFileCLITests {
    @Test func sigtermKeepsTheOutbox_AHeldCallbackIsDeliveredAfterTheRestart_APendingOneComesBackHeld() async throws {
        try await alone {
            try await withStateDirectory { directory in
                let file = directory.appendingPathComponent("state.json")
                let (first, server) = try await Self.start(file)
                defer { first.kill() }
                func callback(_ client: KlarnaClient, scenario: String) async throws {
                    try await client.useScenario(scenario)
                    let kp = try await client.newSession()
                    let urls = #"{"status_update": "https://merchant.example/status/{{session_id}}"}"#
                    let hpp = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: urls))
                    expectNoContent(try await client.delete("/hpp/v1/sessions/\(hpp)"))   // DISABLED: one callback
                }
                try await callback(KlarnaClient(server, namespace: "cli-outbox-held", password: "secret"), scenario: "callback-not-sent")
                try await callback(KlarnaClient(server, namespace: "cli-outbox-late", password: "secret"), scenario: "callback-late")
                let held = try await CallbackOutboxStateFileTests.outbox(server, "cli-outbox-held").list()
                let late = try await CallbackOutboxStateFileTests.outbox(server, "cli-outbox-late").list()
                try #require(states(held) == ["held"] && states(late) == ["pending"], "\(held) \(late)")
                try await Self.stop(first)

                let (second, restarted) = try await Self.start(file)
                defer { second.kill() }
                let heldOutbox = CallbackOutboxStateFileTests.outbox(restarted, "cli-outbox-held")
                let heldAfter = try await heldOutbox.list()
                #expect(try heldAfter.map(CallbackOutboxStateFileTests.text) == held.map(CallbackOutboxStateFileTests.text))
                let lateAfter = try await CallbackOutboxStateFileTests.outbox(restarted, "cli-outbox-late").list()
                #expect(states(lateAfter) == ["held"] && lateAfter.first?["id"] as? String == late.first?["id"] as? String, "\(lateAfter)")
                #expect(((lateAfter.first?["last_result"] as? [String: Any])?["note"] as? String)?.hasPrefix("held after a restart") == true)

                // Delivered by hand, here to the sandbox's own echo endpoint.
                let id = try #require(heldAfter.first?["id"] as? String)
                let answer = try await heldOutbox.deliver(id, #"{"url": "http://127.0.0.1:\#(restarted.port)/__sandbox/echo/restarted"}"#)
                #expect(answer.status == 200, "\(answer)")
                let delivered = try answer.jsonObject()
                #expect((delivered["attempt"] as? [String: Any])?["status"] as? Int == 200, "\(answer)")
                #expect((delivered["callback"] as? [String: Any])?["state"] as? String == "delivered", "\(answer)")
                // A callback made after the restart does not reuse an id.
                try await callback(KlarnaClient(restarted, namespace: "cli-outbox-held", password: "secret"), scenario: "callback-not-sent")
                let ids = try await heldOutbox.list().compactMap { $0["id"] as? String }
                #expect(ids.count == 2 && Set(ids + [late.first?["id"] as? String ?? ""]).count == 3, "\(ids)")
                try await Self.stop(second)
            }
        }
    }
}
