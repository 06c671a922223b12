// SPDX-License-Identifier: MIT
// Which scenario applies, in the documented order: the Sandbox-Scenario header; the scenario the session
// was created under (sticky); the playground's content rules when one matches; the namespace's default
// (PUT /__sandbox/scenario); approve. Plus the errors: an unknown default (422) and an unknown header (400).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna scenarios: selection order")
struct KlarnaScenarioSelectionTests {
    static let deniedData = PlaygroundData.jsonData(email: "customer+denied@email.us")
    static let ordinaryData = PlaygroundData.jsonData(email: "customer@email.us")
    static let cancelled = #"{"approved": false, "show_form": true}"#

    @Test("the header beats the session's scenario, for that call only")
    func headerBeatsSticky() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-header"))
            _ = try await client.createSession(scenario: "reject")
            let session = sequentialID(1)
            ScenarioExpect.approved(try await client.authorize(session, scenario: "approve"), token: sequentialID(2))
            // Without the header the session's own scenario applies again.
            ScenarioExpect.rejected(try await client.authorize(session, scenario: nil))
            // And on the token: header mismatched-fields on create order of a session created under reject.
            expectKlarnaError(try await client.createOrder(sequentialID(2), scenario: "mismatched-fields"), 409, "BAD_VALUE",
                              ["Not matching fields: [billing_address.postal_code]"])
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), scenario: nil), id: sequentialID(3), origin: sandbox.origin)
            // The session keeps the scenario it was created under.
            let sessions = try #require(try await client.paymentsState()["sessions"] as? [[String: Any]])
            #expect(sessions.first?["scenario"] as? String == "reject", "\(sessions)")
        }
    }

    @Test("the session's scenario beats the namespace default set later")
    func stickyBeatsDefault() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-sticky"))
            _ = try await client.createSession(scenario: "cancel")
            expectJSON(try await client.setDefaultScenario("reject"), "{\"namespace\": \"\(client.namespace!)\", \"default_scenario\": \"reject\"}")
            expectJSON(try await client.authorize(sequentialID(1), scenario: nil), Self.cancelled)
            // A session created under an explicit approve is not affected by the default either.
            _ = try await client.createSession(scenario: "approve")
            ScenarioExpect.approved(try await client.authorize(sequentialID(2), scenario: nil), token: sequentialID(3))
        }
    }

    @Test("the session's scenario beats the playground's content rules")
    func stickyBeatsPlayground() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-sticky-playground"))
            _ = try await client.createSession(KlarnaExamples.usSession, scenario: "approve")
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), Self.deniedData, scenario: nil), token: sequentialID(2))
        }
    }

    @Test("content rules apply to a session without a scenario, before the namespace default; the default when none matches")
    func playgroundBeatsDefault() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-playground"))
            // Created with no header and no default: the session sticks to nothing.
            let session = try await client.newSession(KlarnaExamples.usSession)
            #expect(try await client.setDefaultScenario("cancel").status == 200)
            ScenarioExpect.rejected(try await client.authorize(session, Self.deniedData, scenario: nil))
            // No content rule matches an ordinary customer: the namespace default decides.
            expectJSON(try await client.authorize(session, Self.ordinaryData, scenario: nil), Self.cancelled)
            #expect(try await client.journalLines("path_prefix=/__sandbox/klarna/") == [
                "POST /__sandbox/klarna/payments/sessions/\(session)/authorize 200 scenario=klarna-playground klarna.payments.authorize: reject",
                "POST /__sandbox/klarna/payments/sessions/\(session)/authorize 200 scenario=cancel klarna.payments.authorize: cancel",
            ])
        }
    }

    @Test("the namespace default applies when nothing else does and sticks to sessions created after it was set")
    func namespaceDefault() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let namespace = uniqueNamespace("select-default")
            let client = KlarnaMerchant(sandbox, namespace: namespace)
            let other = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-default-other"))

            let before = try await client.newSession()                     // no default yet: sticks to nothing
            expectJSON(try await client.setDefaultScenario("reject"), "{\"namespace\": \"\(namespace)\", \"default_scenario\": \"reject\"}")
            #expect(try await client.scenarioList()["default_scenario"] as? String == "reject")
            let after = try await client.newSession()                      // sticks to reject
            ScenarioExpect.rejected(try await client.authorize(before, scenario: nil))
            ScenarioExpect.rejected(try await client.authorize(after, scenario: nil))

            // Another namespace is unaffected.
            #expect(try await other.scenarioList()["default_scenario"] is NSNull)
            let elsewhere = try await other.newSession()
            #expect(try await other.authorize(elsewhere, scenario: nil).requireJSONObject()["approved"] as? Bool == true)

            // Clearing: {"name": null}.
            expectJSON(try await client.setDefaultScenario(nil), "{\"namespace\": \"\(namespace)\", \"default_scenario\": null}")
            #expect(try await client.scenarioList()["default_scenario"] is NSNull)
            // The session without a scenario now approves; the one created under the default keeps it.
            #expect(try await client.authorize(before, scenario: nil).requireJSONObject()["approved"] as? Bool == true)
            ScenarioExpect.rejected(try await client.authorize(after, scenario: nil))
            let sessions = try #require(try await client.paymentsState()["sessions"] as? [[String: Any]])
            let scenarioByID = Dictionary(uniqueKeysWithValues: sessions.map { ($0["session_id"] as? String ?? "?", $0["scenario"] as? String ?? "null") })
            #expect(scenarioByID == [before: "null", after: "reject"], "\(sessions)")
            // A session created after clearing is approved.
            let cleared = try await client.newSession()
            #expect(try await client.authorize(cleared, scenario: nil).requireJSONObject()["approved"] as? Bool == true)
        }
    }

    @Test("PUT /__sandbox/scenario with an unknown name answers 422 and keeps the default; a bad body 400")
    func unknownDefault() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-unknown-default"))
            #expect(try await client.setDefaultScenario("reject").status == 200)
            let known = try await client.scenarioNames()
            let response = try await client.setDefaultScenario("no-such-scenario")
            expectJSON(response, status: 422, """
                {"error": "Unprocessable Content", "status": 422,
                 "message": "unknown scenario \\"no-such-scenario\\" (none of the \(known.count) loaded is near it: GET /__sandbox/scenarios lists them)"}
                """)
            #expect(try await client.scenarioList()["default_scenario"] as? String == "reject")
            let bad = try await client.send("PUT", "/__sandbox/scenario", body: #"{"name": 7}"#)
            #expect(bad.status == 400, "\(bad)")
            #expect(try await client.scenarioList()["default_scenario"] as? String == "reject")
        }
    }

    @Test("an unknown Sandbox-Scenario header answers 400 in Klarna's envelope suggesting the nearest scenario")
    func unknownHeader() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("select-unknown-header"))
            let known = try await client.scenarioNames()
            #expect(known.count >= 13 && known.first == "approve", "\(known)")
            let message = "Sandbox-Scenario: unknown scenario \"rejekt\": did you mean \"reject\"?"
            expectKlarnaError(try await client.createSession(scenario: "rejekt"), 400, "BAD_VALUE", [message])
            // Nothing was created.
            #expect((try await client.paymentsState()["sessions"] as? [Any])?.isEmpty == true)
            let (session, token) = try await client.authorizedSession()
            expectKlarnaError(try await client.authorize(session, scenario: "rejekt"), 400, "BAD_VALUE", [message])
            expectKlarnaError(try await client.createOrder(token, scenario: "rejekt"), 400, "BAD_VALUE", [message])
            // The order was not created by the refused call.
            #expect((try await client.paymentsState()["orders"] as? [Any])?.isEmpty == true)
        }
    }
}
