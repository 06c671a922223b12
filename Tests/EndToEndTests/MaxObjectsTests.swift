// SPDX-License-Identifier: MIT
// --max-objects (SandboxConfiguration.maxObjects): past the bound the oldest objects of the whole server are evicted
// and answer as each provider answers an unknown one; the journal says EVICTED, health counts held and evicted, and
// sweeps and resets keep the count right. In-process: the wire does not matter here (the CLI test uses a socket).
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Max objects: eviction of the oldest objects of the server")
struct MaxObjectsTests {
    /// What a Klarna error says, with `id` written as `<id>`: an evicted object must answer as an unknown one.
    static func klarnaAnswer(_ response: RawResponse, id: String) throws -> String {
        let body = try response.jsonObject()
        let messages = (body["error_messages"] as? [String] ?? []).map { $0.replacingOccurrences(of: id, with: "<id>") }
        return "\(response.status) \(body["error_code"] as? String ?? "-") \(messages)"
    }

    /// What a Swedbank Pay problem says, with `id` written as `<id>`.
    static func problem(_ response: RawResponse, id: String) throws -> String {
        let body = try response.jsonObject()
        let detail = (body["detail"] as? String ?? "").replacingOccurrences(of: id, with: "<id>")
        return "\(response.status) \(body["type"] as? String ?? "-") \(body["title"] as? String ?? "-") \(detail)"
    }

    static func health(_ server: RunningServer) async throws -> [String: Any] {
        try await server.exchange(rawRequest("GET", "/__sandbox/health")).jsonObject()
    }

    static func objects(_ server: RunningServer) async throws -> [String: Any] {
        try #require(try await health(server)["objects"] as? [String: Any])
    }

    @Test("Klarna: past the bound the oldest flow goes, answers as unknown, and the journal and health say so")
    func klarnaOldestFlowIsEvicted() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0); $0.maxObjects = 8 }) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("evict"))
            // A flow holds 4 objects: session, authorization token, KP order, Order Management order.
            var flows: [(session: String, token: String, order: String)] = []
            for _ in 0..<3 {
                let (session, token) = try await client.authorizedSession()
                flows.append((session, token, try await client.newOrder(token)))
            }
            let unknown = "00000000-0000-4000-8000-00000000fffe"
            let oldest = flows[0]
            #expect(try Self.klarnaAnswer(try await client.readSession(oldest.session), id: oldest.session)
                    == Self.klarnaAnswer(try await client.readSession(unknown), id: unknown))
            #expect(try await client.readSession(oldest.session).status == 404)
            #expect(try Self.klarnaAnswer(try await client.createOrder(oldest.token), id: oldest.token)
                    == Self.klarnaAnswer(try await client.createOrder(unknown), id: unknown))
            let evictedOrder = try await client.get("/ordermanagement/v1/orders/\(oldest.order)")
            #expect(evictedOrder.status == 404)
            #expect(try Self.klarnaAnswer(evictedOrder, id: oldest.order)
                    == Self.klarnaAnswer(try await client.get("/ordermanagement/v1/orders/\(unknown)"), id: unknown))
            // The two newer flows are whole.
            for flow in flows.dropFirst() {
                #expect(try await client.readSession(flow.session).status == 200)
                #expect(try await client.get("/ordermanagement/v1/orders/\(flow.order)").status == 200)
            }

            let objects = try await Self.objects(server)
            #expect(objects["held"] as? Int == 8)
            #expect(objects["max"] as? Int == 8)
            #expect(objects["evicted"] as? Int == 4)
            let health = try await Self.health(server)
            #expect(health["status"] as? String == "ok")
            #expect(health["version"] as? String == SandboxVersion.current)
            #expect(health["uptime_seconds"] is Int)

            // One journal entry for the burst (the manual clock stands still), in the objects' namespace.
            let journal = try await client.get("/__sandbox/journal?method=EVICTED").jsonObject()
            let entries = try #require(journal["entries"] as? [[String: Any]])
            try #require(entries.count == 1, "\(entries)")
            #expect(entries[0]["path"] as? String == "klarna/payments_session/\(oldest.session)")
            let note = try #require(entries[0]["note"] as? String)
            #expect(note.hasPrefix("4 evicted"), "\(note)")
            let body = try #require(try JSONSerialization.jsonObject(with: Data((entries[0]["request_body"] as? String ?? "").utf8)) as? [String: Any])
            let listed = (body["objects"] as? [[String: String]] ?? []).map { "\($0["provider"] ?? "")/\($0["kind"] ?? "")/\($0["id"] ?? "")" }
            #expect(listed == ["klarna/payments_session/\(oldest.session)", "klarna/authorization_token/\(oldest.token)",
                               "klarna/payments_order/\(oldest.order)", "klarna/order_management_order/\(oldest.order)"])
            // Another namespace's journal has none of it.
            let other = KlarnaClient(server, namespace: uniqueNamespace("evict-other"))
            #expect((try await other.get("/__sandbox/journal?method=EVICTED").jsonObject()["entries"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("Klarna: the oldest of the whole server go first, whichever namespace made them")
    func evictionCrossesNamespaces() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0); $0.maxObjects = 2 }) { server in
            let first = KlarnaClient(server, namespace: uniqueNamespace("evict-a"))
            let second = KlarnaClient(server, namespace: uniqueNamespace("evict-b"))
            let a = try await first.newSession()
            let b = try await second.newSession()
            let c = try await second.newSession()
            #expect(try await first.readSession(a).status == 404)
            #expect(try await second.readSession(b).status == 200)
            #expect(try await second.readSession(c).status == 200)
            let entries = try await first.get("/__sandbox/journal?method=EVICTED").jsonObject()["entries"] as? [[String: Any]]
            #expect(entries?.first?["path"] as? String == "klarna/payments_session/\(a)")
        }
    }

    @Test("Swedbank Pay: an evicted payment order and payment session answer as unknown ones")
    func swedbankPayOrderAndSessionAreEvicted() async throws {
        try await withSandboxInstance(transport: .inProcess, { $0.clock = ManualClock(); $0.maxObjects = 3 }) { sandbox, server in
            let namespace = uniqueNamespace("evict-swp")
            func orderID(_ token: String) throws -> String { try #require(sandbox.swedbankPayOrders.lookup(token: token)?.orderID) }
            func getOrder(_ id: String) async throws -> RawResponse {
                try await server.exchange(rawRequest("GET", "/psp/paymentorders/\(id)", headers: [
                    ("Authorization", "Bearer \(namespace)"), ("Sandbox-Namespace", namespace), ("Accept", "application/json;version=3.1")]))
            }
            func getSession(_ token: String) async throws -> RawResponse {
                try await server.exchange(rawRequest("GET", "/psp/paymentsessions/\(token)"))
            }
            let tokenA = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace)
            let orderA = try orderID(tokenA)
            #expect(try await getSession(tokenA).status == 200)  // the payment session: an object of its own
            _ = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace)
            let tokenC = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace)  // the fourth: order A goes
            let unknownOrder = UUID().uuidString.lowercased()
            let evicted = try await getOrder(orderA)
            #expect(evicted.status == 404)
            #expect(try Self.problem(evicted, id: orderA) == Self.problem(try await getOrder(unknownOrder), id: unknownOrder))
            let unknownToken = String(repeating: "0", count: 64)
            let session = try await getSession(tokenA)
            #expect(session.status == 404)
            #expect(try Self.problem(session, id: tokenA) == Self.problem(try await getSession(unknownToken), id: unknownToken))
            #expect(try await Self.objects(server)["evicted"] as? Int == 1)

            let tokenD = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace)  // A's payment session goes
            let objects = try await Self.objects(server)
            #expect(objects["held"] as? Int == 3)
            #expect(objects["evicted"] as? Int == 2)
            #expect(try await getOrder(try orderID(tokenC)).status == 200)
            #expect(try await getOrder(try orderID(tokenD)).status == 200)
            let state = try await server.exchange(rawRequest("GET", "/__sandbox/state", headers: [("Sandbox-Namespace", namespace)])).jsonObject()
            let sessions = (state["swedbankpay_paymentsessions"] as? [String: Any])?["payment_sessions"] as? [[String: Any]]
            #expect(sessions?.isEmpty == true, "\(String(describing: sessions))")
        }
    }

    @Test("Swedbank Pay: a card payment through the SDK whose token evicts an older payment session completes")
    func swedbankPayTokenEvictsAPaymentSessionMidFlow() async throws {
        // The token is made while the payment session's lock is held: the eviction it causes (of the older payment
        // session X, under the same lock) must wait until that lock is released.
        try await withSandboxInstance(transport: .inProcess, { configuration in
            configuration.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            configuration.scenarioDirectories = [swedbankPayScenariosDirectory]
            configuration.maxObjects = 3
        }) { sandbox, server in
            let namespace = uniqueNamespace("evict-swp-card")
            let tokenX = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace)
            #expect(try await server.exchange(rawRequest("GET", "/psp/paymentsessions/\(tokenX)")).status == 200)
            let tokenY = try await SwedbankPayTestOrder.create(try server.client(), namespace: namespace, scenario: "swedbankpay-approve", operation: "Verify",
                                                               extra: [("generateUnscheduledToken", .bool(true))])
            var driver = SwedbankPaySessionDriver(sandbox: sandbox, client: try server.client(), namespace: namespace, platform: .iOS,
                                                  choice: .savedCard(rank: 1))
            #expect(try await driver.run(token: tokenY) == .complete, "\(driver.steps)")
            let objects = try await Self.objects(server)
            #expect(objects["held"] as? Int == 3)  // order Y, its payment session, the unscheduled token
            #expect(objects["evicted"] as? Int == 2)  // order X, then its payment session
            #expect(try await server.exchange(rawRequest("GET", "/psp/paymentsessions/\(tokenX)")).status == 404)
            #expect(sandbox.swedbankPayOrders.lookup(token: tokenY) != nil)
        }
    }

    @Test("a reset and an expiry sweep take their objects off the count")
    func resetAndSweepKeepTheCount() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0); $0.maxObjects = 100 }) { server in
            let reset = KlarnaClient(server, namespace: uniqueNamespace("count-reset"))
            let swept = KlarnaClient(server, namespace: uniqueNamespace("count-sweep"))
            for _ in 0..<2 { _ = try await reset.newOrder(try await reset.authorizedSession().token) }
            _ = try await swept.newOrder(try await swept.authorizedSession().token)
            #expect(try await Self.objects(server)["held"] as? Int == 12)
            try await reset.reset()
            #expect(try await Self.objects(server)["held"] as? Int == 4)
            // 31 days on, the next flow's creations sweep the expired session, token and orders of the first.
            try await swept.advanceClock(seconds: 31 * 24 * 3600)
            _ = try await swept.newOrder(try await swept.authorizedSession().token)
            let objects = try await Self.objects(server)
            #expect(objects["held"] as? Int == 4)
            #expect(objects["evicted"] as? Int == 0)
        }
    }

    @Test("no bound: objects are counted, max is null, nothing is evicted")
    func unbounded() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0); $0.maxObjects = nil }) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("unbounded"))
            let first = try await client.newSession()
            _ = try await client.newSession()
            let objects = try await Self.objects(server)
            #expect(objects["held"] as? Int == 2)
            #expect(objects["max"] is NSNull)
            #expect(objects["evicted"] as? Int == 0)
            #expect(try await client.readSession(first).status == 200)
        }
    }

    @Test("the default bound is SandboxConfiguration.defaultMaxObjects")
    func defaultBound() async throws {
        #expect(SandboxConfiguration(port: 0).maxObjects == SandboxConfiguration.defaultMaxObjects)
        try await withSandbox(transport: .inProcess) { server in
            let objects = try await Self.objects(server)
            #expect(objects["max"] as? Int == SandboxConfiguration.defaultMaxObjects)
        }
    }
}

extension CLITests {
    @Test("--max-objects and PAYMENT_SANDBOX_MAX_OBJECTS set the bound health reports; the flag wins; 0 is none")
    func maxObjects() async throws {
        func bound(_ arguments: [String], _ environment: [String: String?]) async throws -> Any? {
            try await Self.withChild(["--port", "0", "--quiet"] + arguments, environment: environment) { child in
                let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                let port = try #require(Self.listeningPort(line), "\(line)")
                let health = try await RawClient.exchange(port: port, rawRequest("GET", "/__sandbox/health")).jsonObject()
                child.terminate()
                try await Self.expectStopsCleanly(child)
                return (health["objects"] as? [String: Any])?["max"]
            }
        }
        #expect(try await bound([], ["PAYMENT_SANDBOX_MAX_OBJECTS": "5"]) as? Int == 5)
        #expect(try await bound(["--max-objects", "3"], ["PAYMENT_SANDBOX_MAX_OBJECTS": "5"]) as? Int == 3)
        #expect(try await bound(["--max-objects=0"], [:]) is NSNull)
        let bad = try await Self.run(["--max-objects", "-1"])
        #expect(bad.status == 2, "stderr: \(bad.stderr)")
        #expect(bad.stderr.hasPrefix("payment-sandbox: --max-objects must be a whole number"), "stderr: \(bad.stderr)")
    }
}
