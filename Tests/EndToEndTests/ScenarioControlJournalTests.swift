// SPDX-License-Identifier: MIT
// GET /__sandbox/journal (the scenario decision in each entry's note, the filters, per-namespace views, the
// bound) and POST /__sandbox/reset (the namespace's journal, default scenario and sequence counters).
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Scenario control: journal and reset")
struct ScenarioControlJournalTests {
    static let sessionRetry = scenarioFile("e2e-session-retry", "First create session fails with 503, then it works.", rules: [
        #"{"operation": "klarna.payments.create_session", "sequence": [{"outcome": "http_error", "status": 503}, {"outcome": "approve"}]}"#,
    ])

    @Test("each entry has the request's fields and a note naming scenario, operation, outcome, rule and step")
    func entriesAndNotes() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let namespace = uniqueNamespace("journal-notes")
            let client = KlarnaClient(server, namespace: namespace)
            _ = try await client.createSession(scenario: nil)                                              // no scenario at all
            _ = try await client.createSession(scenario: "reject")                                         // a scenario without a rule for it
            _ = try await client.authorize(sequentialID(2), scenario: nil)                                 // an inline rule
            _ = try await client.send("GET", "/payments/v1/sessions/\(sequentialID(2))?expand=all")        // no rule, with a query
            // The sandbox's own endpoints are not journaled.
            _ = try await client.get("/__sandbox/health")
            _ = try await client.get("/__sandbox/scenarios")
            _ = try await client.get("/__sandbox/state")

            let entries = try await client.journal()
            #expect(entries.map { journalLine($0) } == [
                "POST /payments/v1/sessions 200 scenario=- klarna.payments.create_session: approve (no rule)",
                "POST /payments/v1/sessions 200 scenario=reject klarna.payments.create_session: approve (no rule)",
                // ScenarioDecision's documented form for an inline outcome: "reject (rule 0)"; a step is named for sequences only.
                "POST /__sandbox/klarna/payments/sessions/\(sequentialID(2))/authorize 200 scenario=reject klarna.payments.authorize: reject (rule 0)",
                "GET /payments/v1/sessions/\(sequentialID(2)) 200 scenario=reject klarna.payments.read_session: approve (no rule)",
            ])
            for entry in entries {
                #expect(Set(entry.keys) == ["sequence", "time", "request_id", "method", "path", "path_truncated", "query", "query_truncated",
                                            "status", "duration_ms", "request_body", "request_body_truncated", "note"], "\(entry)")
                #expect(entry["path_truncated"] as? Bool == false && entry["query_truncated"] as? Bool == false, "\(entry)")
                // The namespace's (manual) clock.
                #expect(entry["time"] as? String == "2027-01-15T08:00:00.000Z", "\(entry)")
                #expect((entry["request_id"] as? String)?.isEmpty == false)
                #expect(entry["request_body_truncated"] as? Bool == false)
                #expect((entry["duration_ms"] as? Double).map { $0 >= 0 } == true, "\(entry)")
            }
            let sequences = entries.compactMap { $0["sequence"] as? Int }
            #expect(sequences.count == 4 && sequences == sequences.sorted() && Set(sequences).count == 4, "\(sequences)")
            #expect(entries.first?["request_body"] as? String == KlarnaExamples.gbSession)
            #expect(entries.first?["query"] is NSNull)
            #expect(entries.last?["query"] as? String == "expand=all")
            #expect(entries.last?["request_body"] as? String == "")
        }
    }

    @Test("a 60 KB path and a 3 KB query are journaled as their first 2 KiB, flagged; path_prefix still finds normal paths")
    func longTargets_AreCut() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let namespace = uniqueNamespace("journal-long-target")
            let path = "/payments/v1/sessions/" + String(repeating: "p", count: 60_000)
            let query = "q=" + String(repeating: "q", count: 3000)
            // No credentials: 401, journaled like any call.
            let refused = try await server.exchange(rawRequest("GET", path + "?" + query, headers: [("Sandbox-Namespace", namespace)]))
            #expect(refused.status == 401, "\(refused.status)")
            let client = KlarnaClient(server, namespace: namespace)
            _ = try await client.send("GET", "/payments/v1/sessions/abc?expand=all")
            let entries = try await client.journal()
            try #require(entries.count == 2, "\(entries.count) entries")
            #expect(entries[0]["path"] as? String == String(path.prefix(2048)) && entries[0]["path_truncated"] as? Bool == true)
            #expect(entries[0]["query"] as? String == String(query.prefix(2048)) && entries[0]["query_truncated"] as? Bool == true)
            #expect(entries[1]["path"] as? String == "/payments/v1/sessions/abc" && entries[1]["path_truncated"] as? Bool == false)
            #expect(entries[1]["query"] as? String == "expand=all" && entries[1]["query_truncated"] as? Bool == false)
            let found = try await client.journal("path_prefix=/payments/v1/sessions/abc")
            #expect(found.map { $0["path"] as? String } == ["/payments/v1/sessions/abc"])
        }
    }

    @Test("filters: method (any case), path_prefix, status, limit (the newest), combined; bad filters answer 400")
    func filters() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("journal-filters"))
            let (session, token) = try await client.authorizedSession()                 // POST 200, POST 200
            _ = try await client.readSession(session)                                    // GET 200
            _ = try await client.readSession("00000000-0000-4000-8000-0000000000ff")     // GET 404
            _ = try await client.createOrder(token, scenario: "rejected-at-order")       // POST 403
            _ = try await client.createOrder(token, scenario: nil)                       // POST 200

            let sessions = "/payments/v1/sessions"
            #expect(try await client.journalLines("method=GET") == [
                "GET \(sessions)/\(session) 200 scenario=- klarna.payments.read_session: approve",
                "GET \(sessions)/00000000-0000-4000-8000-0000000000ff 404 scenario=- klarna.payments.read_session: approve",
            ])
            #expect(try await client.journalLines("method=get").count == 2)
            #expect(try await client.journalLines("path_prefix=/__sandbox/klarna/") == [
                "POST /__sandbox/klarna/payments/sessions/\(session)/authorize 200 scenario=- klarna.payments.authorize: approve",
            ])
            #expect(try await client.journalLines("status=403") == [
                "POST /payments/v1/authorizations/\(token)/order 403 scenario=rejected-at-order klarna.payments.create_order: rejected",
            ])
            #expect(try await client.journalLines("limit=2") == [
                "POST /payments/v1/authorizations/\(token)/order 403 scenario=rejected-at-order klarna.payments.create_order: rejected",
                "POST /payments/v1/authorizations/\(token)/order 200 scenario=- klarna.payments.create_order: approve",
            ])
            #expect(try await client.journalLines("method=POST&path_prefix=/payments/&status=200&limit=1") == [
                "POST /payments/v1/authorizations/\(token)/order 200 scenario=- klarna.payments.create_order: approve",
            ])
            #expect(try await client.journal("limit=0").isEmpty)
            #expect(try await client.journal("path_prefix=/nothing/").isEmpty)
            #expect(try await client.journal().count == 6)

            for (query, message) in [
                ("status=abc", #"status must be a number, not \"abc\""#),
                ("limit=-1", #"limit must be a whole number ≥ 0, not \"-1\""#),
                ("colour=red", #"unknown filter \"colour\" (use method, path_prefix, status, limit, before)"#),
            ] {
                expectJSON(try await client.get("/__sandbox/journal?\(query)"), status: 400,
                           #"{"error": "Bad Request", "status": 400, "message": "\#(message)"}"#)
            }
        }
    }

    @Test("each namespace sees only its own entries")
    func perNamespace() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let a = KlarnaClient(server, namespace: uniqueNamespace("journal-a"))
            let b = KlarnaClient(server, namespace: uniqueNamespace("journal-b"))
            _ = try await a.createSession(scenario: "reject")
            _ = try await b.createSession(scenario: "cancel")
            _ = try await b.readSession(sequentialID(2))
            #expect(try await a.journalLines() == ["POST /payments/v1/sessions 200 scenario=reject klarna.payments.create_session: approve"])
            #expect(try await b.journalLines() == [
                "POST /payments/v1/sessions 200 scenario=cancel klarna.payments.create_session: approve",
                "GET /payments/v1/sessions/\(sequentialID(2)) 200 scenario=cancel klarna.payments.read_session: approve",
            ])
        }
    }

    @Test("reset clears the namespace's journal, default scenario, sequence counters and objects, and no other namespace's")
    func reset() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("e2e-session-retry.json", Self.sessionRetry)
            try await withScenarioSandbox(extra: [directory.url], transport: .inProcess) { _, server in
                let namespace = uniqueNamespace("reset")
                let client = KlarnaClient(server, namespace: namespace)
                let other = KlarnaClient(server, namespace: uniqueNamespace("reset-other"))
                let unavailable = ["Temporarily unavailable"]

                for c in [client, other] {
                    #expect(try await c.setDefaultScenario("e2e-session-retry").status == 200)
                    expectKlarnaError(try await c.createSession(), 503, "TEMPORARILY_UNAVAILABLE", unavailable)
                    #expect(try await c.createSession().status == 200)
                }
                #expect(try await client.journal().count == 2)

                expectJSON(try await client.post("/__sandbox/reset"), "{\"namespace\": \"\(namespace)\", \"reset\": true}")
                #expect(try await client.journal().isEmpty)
                #expect(try await client.scenarioList()["default_scenario"] is NSNull)
                #expect((try await client.paymentsState()["sessions"] as? [Any])?.isEmpty == true)
                // The counter starts again: the first create session under the scenario fails again.
                expectKlarnaError(try await client.createSession(scenario: "e2e-session-retry"), 503, "TEMPORARILY_UNAVAILABLE", unavailable)
                #expect(try await client.createSession(scenario: "e2e-session-retry").status == 200)
                // Without the default the namespace approves.
                #expect(try await client.createSession(scenario: nil).status == 200)

                // The other namespace kept everything: default, counter (its next call succeeds), journal, sessions.
                #expect(try await other.scenarioList()["default_scenario"] as? String == "e2e-session-retry")
                #expect(try await other.createSession().status == 200)
                #expect(try await other.journal().count == 3)
                #expect((try await other.paymentsState()["sessions"] as? [Any])?.count == 2)
            }
        }
    }
}
