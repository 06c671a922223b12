// SPDX-License-Identifier: MIT
// Scenario files changed while the sandbox runs: POST /__sandbox/scenarios/reload, and the watcher
// (scenarioWatchInterval) that picks changes up by itself. A set that became invalid is refused with every
// problem as "file:line:column: JSON path: what is wrong", and the previous set keeps playing.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Scenario control: reload and watch")
struct ScenarioControlReloadTests {
    static func flip(_ outcome: String, _ description: String) -> String {
        scenarioFile("e2e-flip", description, rules: [#"{"operation": "klarna.payments.create_order", "outcome": "\#(outcome)"}"#])
    }

    static let rejecting = flip("rejected", "Create order is rejected.")
    static let pending = flip("fraud_pending", "Create order is pending, after the change.")
    /// Invalid: an outcome authorize does not know.
    static let typo = scenarioFile("e2e-flip", "A typo.", rules: [#"{"operation": "klarna.payments.authorize", "outcome": "rejekt"}"#])
    static let typoMessage = #"$.rules[0].outcome: unknown outcome "rejekt": did you mean "reject"?"#

    /// Creates a session under `scenario`, authorizes it and creates the GB order: the create-order response.
    static func orderUnder(_ scenario: String, _ client: KlarnaClient) async throws -> RawResponse {
        let created = try await client.createSession(scenario: scenario)
        try #require(created.status == 200, "create session under \(scenario): \(created)")
        let session = try #require(try created.jsonObject()["session_id"] as? String)
        let token = try await client.newAuthorization(session)
        return try await client.createOrder(token, scenario: nil)
    }

    /// The problem line for `needle` in `text` written as `name` in `directory`.
    static func problem(_ directory: ScenarioDirectory, _ name: String, _ text: String, at needle: String, _ message: String) throws -> String {
        let at = try #require(position(of: needle, in: text), "\(needle) not in \(text)")
        return "\(directory.shown(name)):\(at.line):\(at.column): \(message)"
    }

    @Test("POST /__sandbox/scenarios/reload picks up changed, added and removed files; an invalid set is refused with 422")
    func reload() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("flip.json", Self.rejecting)
            try await withScenarioSandbox(bundled: false, extra: [directory.url], transport: .inProcess) { _, server in
                let namespace = uniqueNamespace("reload")
                let client = KlarnaClient(server, namespace: namespace)
                let listing = { (scenarios: String, problems: [String]) in
                    """
                    {"namespace": "\(namespace)", "default_scenario": null, "directories": ["\(directory.url.path)"],
                     "scenarios": [\(scenarios)], "reload_problems": \(KlarnaExamples.jsonText(problems))}
                    """
                }
                let flipRejecting = #"{"name": "e2e-flip", "description": "Create order is rejected.", "file": "\#(directory.shown("flip.json"))", "operations": ["klarna.payments.create_order"]}"#
                let flipPending = #"{"name": "e2e-flip", "description": "Create order is pending, after the change.", "file": "\#(directory.shown("flip.json"))", "operations": ["klarna.payments.create_order"]}"#
                let added = #"{"name": "e2e-added", "description": "Written by an end-to-end test.", "file": "\#(directory.shown("sub/added.json"))", "operations": ["klarna.payments.authorize"]}"#

                expectJSON(try await client.get("/__sandbox/scenarios"), listing(flipRejecting, []))
                expectKlarnaError(try await Self.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])

                // Changed and added files: nothing happens until reload (no watcher here).
                try directory.write("flip.json", Self.pending)
                try directory.write("sub/added.json", scenarioFile("e2e-added", rules: [
                    #"{"operation": "klarna.payments.authorize", "outcome": "cancel"}"#,
                ]))
                expectKlarnaError(try await Self.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])
                expectJSON(try await client.reloadScenarios(), listing(flipPending + ", " + added, []))
                ScenarioExpect.order(try await Self.orderUnder("e2e-flip", client), id: sequentialID(7),
                                     origin: server.baseURL.absoluteString, fraudStatus: "PENDING")
                let cancelSession = try await client.newSession()
                expectJSON(try await client.authorize(cancelSession, scenario: "e2e-added"), #"{"approved": false, "show_form": true}"#)

                // Invalid: a typo in one file, a syntax error in the other. Refused, every problem listed, sorted by file.
                try directory.write("flip.json", Self.typo)
                let broken = "{\n  \"name\": \"e2e-added\",\n}\n"
                try directory.write("sub/added.json", broken)
                let problems = [
                    try Self.problem(directory, "flip.json", Self.typo, at: "\"rejekt\"", Self.typoMessage),
                    try Self.problem(directory, "sub/added.json", broken, at: ",", "$: trailing comma before '}'"),
                ]
                expectJSON(try await client.reloadScenarios(), status: 422, """
                    {"error": "Unprocessable Content", "status": 422,
                     "message": "the scenario files have problems; the previous set stays loaded",
                     "problems": \(KlarnaExamples.jsonText(problems))}
                    """)
                // The previous set still plays, and the listing says why the reload failed.
                ScenarioExpect.order(try await Self.orderUnder("e2e-flip", client), id: sequentialID(11),
                                     origin: server.baseURL.absoluteString,
                                     fraudStatus: "PENDING")
                expectJSON(try await client.get("/__sandbox/scenarios"), listing(flipPending + ", " + added, problems))

                // Fixed, and the added file removed: the problems are gone, and so is the scenario.
                try directory.write("flip.json", Self.rejecting)
                try directory.remove("sub/added.json")
                expectJSON(try await client.reloadScenarios(), listing(flipRejecting, []))
                expectKlarnaError(try await Self.orderUnder("e2e-flip", client), 403, "REJECTED", ["Rejected"])
                expectKlarnaError(try await client.createSession(scenario: "e2e-added"), 400, "BAD_VALUE",
                                  [#"Sandbox-Scenario: unknown scenario "e2e-added" (known: e2e-flip)"#])
            }
        }
    }

    @Test("a reload that fails keeps defaults and sequences; a good one restarts only the sequences of changed scenarios")
    func reloadKeepsDefaultsAndRestartsSequences() async throws {
        try await withScenarioDirectory { directory in
            let retry = scenarioFile("e2e-retry", rules: [
                #"{"operation": "klarna.payments.create_session", "sequence": [{"outcome": "http_error", "status": 503}, {"outcome": "approve"}]}"#,
            ])
            try directory.write("retry.json", retry)
            try await withScenarioSandbox(bundled: false, extra: [directory.url], transport: .inProcess) { _, server in
                let client = KlarnaClient(server, namespace: uniqueNamespace("reload-sequence"))
                #expect(try await client.setDefaultScenario("e2e-retry").status == 200)
                #expect(try await client.createSession().status == 503)
                #expect(try await client.createSession().status == 200)
                try directory.write("broken.json", "[]")
                #expect(try await client.reloadScenarios().status == 422)
                #expect(try await client.createSession().status == 200, "a failed reload must not restart sequences")
                try directory.remove("broken.json")
                #expect(try await client.reloadScenarios().status == 200)
                #expect(try await client.scenarioList()["default_scenario"] as? String == "e2e-retry")
                // Its rules did not change: the sequence goes on where it was.
                #expect(try await client.createSession().status == 200, "an unchanged scenario keeps its sequences")
                // Changed rules start the sequence again (ScenarioEngine.reload).
                try directory.write("retry.json", scenarioFile("e2e-retry", rules: [
                    #"{"operation": "klarna.payments.create_session", "sequence": [{"outcome": "http_error", "status": 502}, {"outcome": "approve"}]}"#,
                ]))
                #expect(try await client.reloadScenarios().status == 200)
                #expect(try await client.createSession().status == 502)
                #expect(try await client.createSession().status == 200)
            }
        }
    }
}

