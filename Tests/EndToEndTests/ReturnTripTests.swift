// SPDX-License-Identifier: MIT
// The return trip to the app lost or late while the payment is done on the server (docs/scenarios.md, "Failures apps must survive"), with the bundled
// scenarios: Klarna's hosted page (klarna.hpp.redirect). Swedbank Pay's: SwedbankPaySandboxTests (SwedbankPayReturnTripTests).
import Foundation
import PaymentSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Return trip: the redirect to the app lost or late, the payment done")
struct ReturnTripTests {
    static let appURL = #"{"success": "myapp://klarna-redirect?sid={{session_id}}"}"#

    /// A KP session under `scenario` and an HPP session on it whose success URL is the app's.
    static func hppSession(_ client: KlarnaClient, scenario: String) async throws -> String {
        ScenarioExpect.sessionCreated(try await client.createSession(scenario: scenario), id: sequentialID(1))
        let kp = sequentialID(1)
        return try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: Self.appURL))
    }

    @Test("Klarna HPP, hpp-redirect-lost: pay completes the session, the page shows it with no redirect to myapp://")
    func klarnaRedirectLost() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("trip-hpp-lost"))
            let id = try await Self.hppSession(client, scenario: "hpp-redirect-lost")
            let page = try await KlarnaHPP.browser(server, "POST", "/__sandbox/klarna/hpp/sessions/\(id)/pay", form: "action=pay")
            #expect(page.status == 200 && page.header("Location") == nil, "\(page)")
            #expect(page.bodyText.contains(#"data-status="COMPLETED""#) && page.bodyText.contains("Payment complete"), "\(page)")
            #expect(!page.bodyText.contains("myapp:"), "the page offers no way back")
            let session = try await KlarnaHPP.read(client, id)
            #expect(session["status"] as? String == "COMPLETED" && session["authorization_token"] as? String != nil, "\(session)")
            let entries = try await client.journal("path_prefix=/__sandbox/klarna/hpp/")
            let note = entries.first?["note"] as? String ?? ""
            #expect(note.contains("-> COMPLETED") && note.contains("scenario=hpp-redirect-lost klarna.hpp.redirect: redirect_lost"), "\(entries)")
        }
    }

    @Test("Klarna HPP, hpp-redirect-late: the session is COMPLETED at once, the 303 to myapp:// comes 5 s later")
    func klarnaRedirectLate() async throws {
        try await withScenarioSandbox(transport: .inProcess) { _, server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("trip-hpp-late"))
            let id = try await Self.hppSession(client, scenario: "hpp-redirect-late")
            let clock = ContinuousClock(), started = clock.now
            // The in-process exchange waits up to 5 s by default: longer here, for the late redirect.
            async let paid = server.exchange(klarnaRequest("POST", "/__sandbox/klarna/hpp/sessions/\(id)/pay", port: server.port),
                                             timeout: .seconds(30))
            // While the redirect is on its way, the server already says COMPLETED.
            var status: String?
            while clock.now - started < .seconds(4), status != "COMPLETED" {
                status = try await KlarnaHPP.read(client, id)["status"] as? String
                if status != "COMPLETED" { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == "COMPLETED")
            #expect(clock.now - started < .seconds(5), "COMPLETED before the redirect")
            KlarnaHPP.expect303(try await paid, to: "myapp://klarna-redirect?sid=\(id)", status: "COMPLETED")
            #expect(clock.now - started >= .seconds(5))
        }
    }
}
