// SPDX-License-Identifier: MIT
// What a client can grow through namespaces stays bounded: a namespace name has at most 200 bytes (a longer
// Sandbox-Namespace header is refused in each path's own error format; a longer Basic user or Bearer token is
// cut and hashed), a namespace that holds nothing and chose nothing is forgotten with its last object (ledgers,
// sequence counters), and every list of the page and the control API comes a page at a time.
import Foundation
import KlarnaSandbox
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Namespace bounds: names, per-namespace state and pages")
struct NamespaceBoundsTests {
    static let basicSecret = "sandbox-secret"

    static func basic(_ user: String) -> String { "Basic " + Data("\(user):\(basicSecret)".utf8).base64EncodedString() }

    static func request(_ method: HTTPMethod, _ target: String, headers: [(String, String)], body: String? = nil) throws -> HTTPRequest {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name: name, value: value) }
        if body != nil { fields.add(name: "Content-Type", value: "application/json") }
        return try HTTPRequest(method: method, target: target, headers: fields, body: Data((body ?? "").utf8))
    }

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any], "\(String(decoding: response.body, as: UTF8.self))")
    }

    static let swedbankPayOrder = #"{"paymentorder":{"operation":"Purchase","currency":"SEK","amount":1500,"vatAmount":0,"#
        + #""description":"Test","userAgent":"Mozilla/5.0","language":"sv-SE","productName":"Checkout3","urls":{"#
        + #""hostUrls":["https://example.com"],"completeUrl":"https://example.com/done","cancelUrl":"https://example.com/cancel","#
        + #""termsOfServiceUrl":"https://example.com/terms.pdf"},"payeeInfo":{"payeeId":"5cabf558-5283-482f-b252-4d58e06f6f3b","#
        + #""payeeReference":"ref1","payeeName":"Merchant1"}}}"#

    /// The smallest session Klarna accepts (the 200,000 calls below parse it each time).
    static let klarnaSession = #"{"purchase_country":"SE","purchase_currency":"SEK","locale":"sv-SE","order_amount":1000,"#
        + #""order_tax_amount":0,"order_lines":[{"name":"T","quantity":1,"unit_price":1000,"tax_rate":0,"total_amount":1000,"#
        + #""total_tax_amount":0}]}"#

    // MARK: Names

    @Test("A Sandbox-Namespace header past 200 bytes is refused (400) in Klarna's envelope, Swedbank Pay's problem and the control API's error, and journaled under a bounded name")
    func longHeader_IsRefused_InEachPathsFormat() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let sandbox = try #require(server.inProcess)
            let long = String(repeating: "n", count: 60_000)
            let header = ("Sandbox-Namespace", long)
            let message = "Sandbox-Namespace: 60000 bytes; a namespace name has at most 200 bytes (UTF-8)"

            let klarna = try await sandbox.respond(to: try Self.request(.post, "/payments/v1/sessions",
                                                                        headers: [("Authorization", Self.basic("merchant")), header],
                                                                        body: KlarnaExamples.gbSession))
            #expect(klarna.status.code == 400)
            let envelope = try Self.json(klarna)
            #expect(envelope["error_code"] as? String == "BAD_VALUE")
            #expect(envelope["error_messages"] as? [String] == ["Bad value: Sandbox-Namespace", message])
            #expect(envelope["correlation_id"] is String)

            let swedbank = try await sandbox.respond(to: try Self.request(.post, "/psp/paymentorders",
                                                                          headers: [("Authorization", "Bearer merchant"), header],
                                                                          body: Self.swedbankPayOrder))
            #expect(swedbank.status.code == 400)
            let problem = try Self.json(swedbank)
            #expect(problem["type"] as? String == "https://api.payex.com/psp/errordetail/inputerror")
            #expect(problem["detail"] as? String == message)
            #expect((problem["problems"] as? [[String: Any]])?.first?["name"] as? String == "Sandbox-Namespace")

            // The control API, and a path no route has: refused before the route is looked up.
            for target in ["/__sandbox/clock", "/__sandbox/journal", "/no/such/path"] {
                let control = try await sandbox.respond(to: try Self.request(.get, target, headers: [header]))
                #expect(control.status.code == 400, "\(target)")
                #expect(try Self.json(control) as NSDictionary == ["error": "Bad Request", "message": message, "status": 400] as NSDictionary)
            }
            // 200 bytes is a name; spaces around it do not count.
            let exact = String(repeating: "é", count: 100)
            let accepted = try await sandbox.respond(to: try Self.request(.get, "/__sandbox/clock", headers: [("Sandbox-Namespace", exact)]))
            #expect(try Self.json(accepted)["namespace"] as? String == exact)
            let padded = try await sandbox.respond(to: try Self.request(.get, "/__sandbox/clock", headers: [("Sandbox-Namespace", "  " + exact + " ")]))
            #expect(try Self.json(padded)["namespace"] as? String == exact)

            // The refused calls outside /__sandbox/ are journaled, each under the bounded name.
            let bounded = Namespace(long).name
            #expect(bounded.utf8.count == 200 && bounded.hasPrefix("nnnn") && bounded.contains("~"))
            let journal = try Self.json(try await sandbox.respond(to: try Self.request(.get, "/__sandbox/journal",
                                                                                       headers: [("Sandbox-Namespace", bounded)])))
            #expect((journal["entries"] as? [[String: Any]])?.map { $0["status"] as? Int } == [400, 400, 400])
            let listed = try Self.json(try await sandbox.respond(to: try Self.request(.get, "/__sandbox/namespaces", headers: [])))
            let names = try #require(listed["namespaces"] as? [[String: Any]]).compactMap { $0["name"] as? String }
            #expect(names.allSatisfy { $0.utf8.count <= 200 } && names.contains(bounded), "\(names)")
        }
    }

    @Test("A Basic user or Bearer token past 200 bytes is served in the namespace of its first 183 bytes, ~ and a hash")
    func longCredentials_AreServed_InABoundedNamespace() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let sandbox = try #require(server.inProcess)
            let user = String(repeating: "u", count: 5000)
            let created = try await sandbox.respond(to: try Self.request(.post, "/payments/v1/sessions",
                                                                         headers: [("Authorization", Self.basic(user))], body: KlarnaExamples.gbSession))
            #expect(created.status.code == 200)
            let token = String(repeating: "t", count: 3000)
            let order = try await sandbox.respond(to: try Self.request(.post, "/psp/paymentorders",
                                                                       headers: [("Authorization", "Bearer " + token)], body: Self.swedbankPayOrder))
            #expect(order.status.code == 200, "\(String(decoding: order.body, as: UTF8.self))")
            // Another user sharing the first 183 bytes is another namespace.
            let other = user + "v"
            for (credential, expected) in [(Self.basic(user), Namespace(user)), ("Bearer " + token, Namespace(token)),
                                           (Self.basic(other), Namespace(other))] {
                let clock = try Self.json(try await sandbox.respond(to: try Self.request(.get, "/__sandbox/clock",
                                                                                         headers: [("Authorization", credential)])))
                let name = try #require(clock["namespace"] as? String)
                #expect(name == expected.name && name.utf8.count == 200)
            }
            #expect(Namespace(user) != Namespace(other))
            #expect(sandbox.klarnaPayments.objects(Namespace(user)).count == 1)
            #expect(sandbox.swedbankPayOrders.objects(Namespace(token)).count == 1)
            // The page opens it by the long name too (it is cut the same way).
            let page = try await sandbox.respond(to: try Self.request(.get, "/__sandbox/ui/namespace?name=" + user, headers: []))
            #expect(String(decoding: page.body, as: UTF8.self).contains(#"data-namespace="\#(Namespace(user).name)""#))
        }
    }

    // MARK: Pages

    @Test("Namespaces, journal, state and callbacks come a page at a time: limit (default and maximum), a cursor, and more")
    func everyList_ComesInPages() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let sandbox = try #require(server.inProcess)
            // 250 namespaces, each with one journal entry (an unknown session: nothing is stored).
            for index in 0..<250 {
                _ = try await sandbox.respond(to: try Self.request(.get, "/payments/v1/sessions/unknown", headers: [
                    ("Authorization", Self.basic("merchant")), ("Sandbox-Namespace", String(format: "page-%03d", index))]))
            }
            func get(_ target: String, _ headers: [(String, String)] = []) async throws -> [String: Any] {
                try Self.json(try await sandbox.respond(to: try Self.request(.get, target, headers: headers)))
            }
            // The namespaces: 100 by default, by name; the cursor walks every one exactly once.
            var seen: [String] = [], after: String?
            repeat {
                let page = try await get("/__sandbox/namespaces" + (after.map { "?after=" + $0 } ?? ""))
                #expect(page["total"] as? Int == 250)
                let names = try #require(page["namespaces"] as? [[String: Any]]).compactMap { $0["name"] as? String }
                #expect(names.count == (seen.count < 200 ? 100 : 50))
                seen += names
                after = page["next_after"] as? String
                #expect((page["more"] as? Bool) == (after != nil))
            } while after != nil
            #expect(seen == (0..<250).map { String(format: "page-%03d", $0) })
            #expect(try await get("/__sandbox/namespaces?limit=5000")["limit"] as? Int == 1000)
            #expect(try await sandbox.respond(to: try Self.request(.get, "/__sandbox/namespaces?limit=-1", headers: [])).status.code == 400)

            // The page: the first 100 and a link to the next.
            let html = String(decoding: try await sandbox.respond(to: try Self.request(.get, "/__sandbox/ui", headers: [])).body, as: UTF8.self)
            #expect(html.components(separatedBy: #"<li class="namespace""#).count - 1 == 100)
            #expect(html.contains(#"data-total="250""#) && html.contains(#"href="/__sandbox/ui?after=page-099""#))
            let second = String(decoding: try await sandbox.respond(to: try Self.request(.get, "/__sandbox/ui?after=page-099&limit=200", headers: [])).body,
                                as: UTF8.self)
            #expect(second.components(separatedBy: #"<li class="namespace""#).count - 1 == 150)
            #expect(second.contains(#"data-namespace="page-100""#) && !second.contains(#"data-namespace="page-099""#))
            #expect(!second.contains(#"id="next-namespaces""#))

            // The journal: the newest `limit`, then older ones with before=next_before.
            let ns = [("Sandbox-Namespace", "journal-pages"), ("Authorization", Self.basic("merchant"))]
            for _ in 0..<5 { _ = try await sandbox.respond(to: try Self.request(.get, "/payments/v1/sessions/unknown", headers: ns)) }
            let newest = try await get("/__sandbox/journal?limit=2", ns)
            let newestSequences = try #require(newest["entries"] as? [[String: Any]]).compactMap { $0["sequence"] as? Int }
            #expect(newestSequences.count == 2 && newest["more"] as? Bool == true && newest["next_before"] as? Int == newestSequences[0])
            let older = try await get("/__sandbox/journal?limit=10&before=\(newestSequences[0])", ns)
            let olderSequences = try #require(older["entries"] as? [[String: Any]]).compactMap { $0["sequence"] as? Int }
            #expect(olderSequences.count == 3 && olderSequences.allSatisfy { $0 < newestSequences[0] })
            #expect(older["more"] as? Bool == false && older["next_before"] is NSNull)

            // The state: each list cut to `limit` from `offset`.
            let merchant = [("Sandbox-Namespace", "state-pages"), ("Authorization", Self.basic("merchant"))]
            for _ in 0..<3 {
                _ = try await sandbox.respond(to: try Self.request(.post, "/payments/v1/sessions", headers: merchant, body: KlarnaExamples.gbSession))
            }
            let first = try await get("/__sandbox/state?limit=2", merchant)
            #expect(((first["klarna_payments"] as? [String: Any])?["sessions"] as? [Any])?.count == 2)
            #expect(first["more"] as? Bool == true && first["next_offset"] as? Int == 2)
            let rest = try await get("/__sandbox/state?limit=2&offset=2", merchant)
            #expect(((rest["klarna_payments"] as? [String: Any])?["sessions"] as? [Any])?.count == 1)
            #expect(rest["more"] as? Bool == false)
            #expect(((try await get("/__sandbox/state", merchant)["klarna_payments"] as? [String: Any])?["sessions"] as? [Any])?.count == 3)

            // The callbacks: an empty outbox still answers the page's fields.
            let callbacks = try await get("/__sandbox/callbacks?limit=5", merchant)
            #expect(callbacks["limit"] as? Int == 5 && callbacks["more"] as? Bool == false && (callbacks["callbacks"] as? [Any])?.isEmpty == true)
            #expect(try await sandbox.respond(to: try Self.request(.get, "/__sandbox/callbacks?after=x", headers: merchant)).status.code == 400)
        }
    }

    // MARK: Counters

    @Test("A per-object sequence counter goes with its object (evicted), and a namespace's counters with its last object")
    func counters_GoWithTheirObjects() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("counted.json", scenarioFile("e2e-counted", rules: [
                #"{"operation": "klarna.payments.create_session", "outcome": "approve"}"#,
                #"{"operation": "klarna.payments.read_session", "outcome": "approve"}"#,
            ]))
            try await withSandbox(transport: .inProcess, { deterministic(&$0); $0.maxObjects = 2; $0.scenarioDirectories = [directory.url] }) { server in
                let sandbox = try #require(server.inProcess)
                let headers = [("Authorization", Self.basic("merchant")), ("Sandbox-Namespace", "counted"), ("Sandbox-Scenario", "e2e-counted")]
                func create() async throws -> String {
                    let response = try await sandbox.respond(to: try Self.request(.post, "/payments/v1/sessions", headers: headers, body: KlarnaExamples.gbSession))
                    return try #require(try Self.json(response)["session_id"] as? String)
                }
                func read(_ id: String) async throws -> Int {
                    try await sandbox.respond(to: try Self.request(.get, "/payments/v1/sessions/\(id)", headers: headers)).status.code
                }
                let first = try await create(), second = try await create()
                #expect(try await read(first) == 200)
                #expect(try await read(second) == 200)
                // "new-session" and one read counter per session.
                #expect(sandbox.scenarios.counterCount == 3)
                _ = try await create()  // evicts the first session: its read counter goes
                #expect(sandbox.scenarios.counterCount == 2)
                // A read of the evicted id counts anew (a call on an unknown object).
                #expect(try await read(first) == 404)
                #expect(sandbox.scenarios.counterCount == 3)
                // A reset of another namespace changes nothing here; emptying this one drops all of its counters.
                _ = try await sandbox.respond(to: try Self.request(.post, "/__sandbox/reset", headers: [("Sandbox-Namespace", "other")]))
                #expect(sandbox.scenarios.counterCount == 3)
                for _ in 0..<2 {
                    _ = try await sandbox.respond(to: try Self.request(.post, "/payments/v1/sessions", headers: [
                        ("Authorization", Self.basic("merchant")), ("Sandbox-Namespace", "elsewhere")], body: KlarnaExamples.gbSession))
                }
                #expect(sandbox.klarnaPayments.objects(Namespace("counted")).isEmpty)
                #expect(sandbox.scenarios.counterCount == 0)
                #expect(sandbox.scenarios.namespacesWithCounters == 0)
                #expect(sandbox.scenarios.savedState.counters.isEmpty)
            }
        }
    }

    // MARK: The bound of everything, under a new namespace per request

    #if os(Linux)
    /// Under `swift test --sanitize=thread` (its runtime exports `__tsan_init`) each call is several times slower:
    /// fewer calls there.
    static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil
    #else
    static let underThreadSanitizer = false
    #endif

    @Test("200,000 requests, each in a new namespace, under --max-objects 64: namespaces, ledgers, clocks, counters and the page stay bounded",
          .enabled(if: !underThreadSanitizer,
                   "under ThreadSanitizer its minutes of in-process requests on both cores starve the servers of other tests"))
    func aNamespacePerRequest_LeavesBoundedState() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("counted.json", scenarioFile("e2e-counted", rules: [
                #"{"operation": "klarna.payments.create_session", "outcome": "approve"}"#,
                #"{"operation": "klarna.payments.read_session", "outcome": "approve"}"#,
                #"{"operation": "swedbankpay.paymentorders.create", "outcome": "approve"}"#,
            ]))
            let maxObjects = 64
            // In-process, without the test gate held throughout: the calls go in chunks, each holding the gate shared,
            // so a test that must run alone (timing, descriptors) waits one chunk, not the whole run.
            var configuration = SandboxConfiguration(port: 0)
            configuration.maxObjects = maxObjects
            configuration.scenarioDirectories = [directory.url]
            let sandbox = PaymentSandbox(configuration: configuration)
            try sandbox.checkScenariosLoaded()
            do {
                let scenario = ("Sandbox-Scenario", "e2e-counted")
                let klarnaBody = Data(Self.klarnaSession.utf8), orderBody = Data(Self.swedbankPayOrder.utf8)
                func send(_ index: Int) async throws {
                    var headers = HTTPHeaders()
                    headers.add(name: scenario.0, value: scenario.1)
                    let request: HTTPRequest
                    switch index % 4 {
                    case 0:  // A Klarna session, namespaced by a new Basic user.
                        headers.add(name: "Authorization", value: Self.basic("user-\(index)"))
                        headers.add(name: "Content-Type", value: "application/json")
                        request = try HTTPRequest(method: .post, target: "/payments/v1/sessions", headers: headers, body: klarnaBody)
                    case 1:  // A Swedbank Pay order, namespaced by a new Bearer token.
                        headers.add(name: "Authorization", value: "Bearer token-\(index)")
                        headers.add(name: "Content-Type", value: "application/json;version=3.1")
                        request = try HTTPRequest(method: .post, target: "/psp/paymentorders", headers: headers, body: orderBody)
                    case 2:  // A read of a session that never existed, in a new namespace (counted, 404).
                        headers.add(name: "Authorization", value: Self.basic("merchant"))
                        headers.add(name: "Sandbox-Namespace", value: "ghost-\(index)")
                        request = try HTTPRequest(method: .get, target: "/payments/v1/sessions/never-\(index)", headers: headers)
                    default:  // A Klarna session in a new namespace named by the header.
                        headers.add(name: "Authorization", value: Self.basic("merchant"))
                        headers.add(name: "Sandbox-Namespace", value: "header-\(index)")
                        headers.add(name: "Content-Type", value: "application/json")
                        request = try HTTPRequest(method: .post, target: "/payments/v1/sessions", headers: headers, body: klarnaBody)
                    }
                    let response = try await sandbox.respond(to: request)
                    try #require(response.status.code == (index % 4 == 2 ? 404 : 200),
                                 "\(index): \(String(decoding: response.body, as: UTF8.self)) (objects: \(sandbox.retention.counts))")
                }
                let total = Self.underThreadSanitizer ? 40_000 : 200_000, chunk = 5_000
                for start in stride(from: 0, to: total, by: chunk) {
                    try await ResourceGate.shared { for index in start..<min(start + chunk, total) { try await send(index) } }
                }

                // Objects: the bound. Ledgers and the retention's own bookkeeping: only namespaces that hold an object.
                let held = sandbox.retention.counts.held
                #expect(held == maxObjects)
                let ledgers = [sandbox.klarnaPayments.namespacesWithState, sandbox.klarnaHPP.namespacesWithState,
                               sandbox.klarnaOrderManagement.namespacesWithState, sandbox.swedbankPayOrders.namespacesWithState,
                               sandbox.swedbankPaySessions.namespacesWithState].reduce(0) { $0 + $1.count }
                #expect(ledgers <= maxObjects, "\(ledgers) ledgers")
                #expect(sandbox.retention.namespacesHoldingObjects <= maxObjects)
                // Nothing was chosen: no clock, no default scenario.
                #expect(sandbox.registry.namespacesWithOffsetCount == 0)
                #expect(sandbox.scenarios.namespacesWithDefaultCount == 0)
                // Counters: those of held objects' namespaces, and the unknown-object ones of the last two sweeps at most.
                let counters = sandbox.scenarios.counterCount
                #expect(counters <= maxObjects + 2 * ScenarioEngine.countersPerSweep, "\(counters) counters")
                #expect(sandbox.scenarios.namespacesWithCounters <= maxObjects + 2 * ScenarioEngine.countersPerSweep)
                // The journal: its ring; the namespaces it names are at most its capacity.
                #expect(sandbox.journal.entryCounts.count <= sandbox.journal.capacity)

                // The overview: every namespace with something counted, a bounded page of them.
                let listing = try Self.json(try await sandbox.respond(to: try Self.request(.get, "/__sandbox/namespaces", headers: [])))
                let listed = try #require(listing["total"] as? Int)
                #expect(listed <= sandbox.journal.capacity + maxObjects, "\(listed) namespaces")
                #expect((listing["namespaces"] as? [Any])?.count == 100 && listing["more"] as? Bool == true)
                let started = ContinuousClock.now
                let page = try await sandbox.respond(to: try Self.request(.get, "/__sandbox/ui", headers: []))
                let elapsed = ContinuousClock.now - started
                #expect(page.status.code == 200)
                #expect(page.body.count < 64 << 10, "the page has \(page.body.count) bytes")
                #expect(elapsed < .seconds(5), "the page took \(elapsed)")
            }
        }
    }
}
