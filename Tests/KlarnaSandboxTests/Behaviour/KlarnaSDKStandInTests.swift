// SPDX-License-Identifier: MIT
// The SDK stand-ins under /__sandbox/klarna/payments/sessions/{client_token or session_id}/{call}, in-process:
// what any client (an Android app, a script, PaymentSandboxKlarnaMobile) sends for Klarna's SDK.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna SDK stand-ins")
struct KlarnaSDKStandInTests {
    @Test("keyed by the client token the app holds: initialize, load, authorize, reauthorize; the token places the order")
    func keyedByClientToken() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sdk-token"))
            let created = try await client.createSession()
            let clientToken = try #require(try created.requireJSONObject()["client_token"] as? String)
            let base = "/__sandbox/klarna/payments/sessions/\(clientToken)"
            expectJSON(try await client.post("\(base)/initialize"), #"{"show_form": true}"#)
            expectJSON(try await client.post("\(base)/load", #"{"payment_method_category": "klarna"}"#), #"{"show_form": true}"#)
            let first = try await client.post("\(base)/authorize", #"{"auto_finalize": true}"#)
            let token = try #require(try first.requireJSONObject()["authorization_token"] as? String, "\(first)")
            let second = try await client.post("\(base)/reauthorize")
            let newToken = try #require(try second.requireJSONObject()["authorization_token"] as? String, "\(second)")
            #expect(try newToken != token && (second.requireJSONObject()["approved"] as? Bool) == true)
            #expect(try await client.createOrder(newToken).status == 200)
            // Completed: the token no longer initializes (the SDK's InvalidClientTokenError, not an HTTP error).
            expectJSON(try await client.post("\(base)/initialize"), #"""
                {"show_form": false, "error": {"name": "InvalidClientTokenError", "action": "Initialize",
                 "message": "Error performing Klarna.Payments.init()", "is_fatal": false}}
                """#)
        }
    }

    @Test("a changed, garbage or other namespace's client token is Klarna's 404, naming the namespace looked in")
    func unknownKeys() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sdk-a"))
            let clientToken = try #require(try await client.createSession().requireJSONObject()["client_token"] as? String)
            let parts = clientToken.split(separator: ".")
            let changedSignature = "\(parts[0]).\(parts[1]).\(parts[2].dropLast())A"
            for key in [changedSignature, "garbage", "a.b.c"] where key != clientToken {
                expectSDKUnknownSession(try await client.post("/__sandbox/klarna/payments/sessions/\(key)/initialize"),
                                        namespace: client.namespace ?? "")
            }
            let other = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sdk-b"))
            expectSDKUnknownSession(try await other.post("/__sandbox/klarna/payments/sessions/\(clientToken)/authorize"),
                                    namespace: other.namespace ?? "")
        }
    }

    @Test("initialize and reauthorize are scenario operations of their own")
    func scenarioOperations() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("sdk-ops"))
            let session = try await client.newSession()
            let base = "/__sandbox/klarna/payments/sessions/\(session)"
            // The bundled invalid-client-token leaves initialize alone: the token is refused on load, as Klarna's widget does.
            let initialized = try await client.send("POST", "\(base)/initialize", headers: KlarnaMerchant.scenarioHeader("invalid-client-token"))
            expectJSON(initialized, #"{"show_form": true}"#)
            let loaded = try await client.load(session, scenario: "invalid-client-token")
            #expect(try (loaded.requireJSONObject()["error"] as? [String: Any])?["name"] as? String == "InvalidClientTokenError", "\(loaded)")
            // reject steers authorize; reauthorize is its own operation and approves.
            let rejected = try await client.authorize(session, scenario: "reject")
            expectJSON(rejected, #"{"approved": false, "show_form": false}"#)
            let reauthorized = try await client.send("POST", "\(base)/reauthorize", headers: KlarnaMerchant.scenarioHeader("reject"))
            #expect(try reauthorized.requireJSONObject()["approved"] as? Bool == true, "\(reauthorized)")
        }
    }

    @Test("Bearer <control token> on a stand-in is consumed: the call and its journal entry are in the request's namespace")
    func controlTokenIsNoNamespace() async throws {
        let controlToken = "stand-in-control-token"
        try await SandboxTest.run(.inProcess, configuration: configured { $0.controlToken = controlToken }) { sandbox in
            let namespace = uniqueNamespace("sdk-control")
            var client = KlarnaMerchant(sandbox, namespace: namespace)
            // Only the Bearer below carries the token (the client would send it as Sandbox-Control-Token otherwise).
            client.client.controlToken = nil
            let session = try await client.newSession()
            client.authorization = "Bearer \(controlToken)"
            let authorized = try await client.post("/__sandbox/klarna/payments/sessions/\(session)/authorize")
            #expect(try authorized.requireJSONObject()["approved"] as? Bool == true, "\(authorized)")
            let journal = try await client.send("GET", "/__sandbox/journal?path_prefix=/__sandbox/klarna/")
            let entries = try #require(try journal.requireJSONObject()["entries"] as? [[String: Any]], "\(journal)")
            #expect(entries.contains { ($0["path"] as? String)?.hasSuffix("/authorize") == true }, "\(entries)")
            // The journal records before the answer is written: nothing went to a namespace named after the token.
            var asToken = client
            asToken.namespace = controlToken
            let tokenJournal = try await asToken.send("GET", "/__sandbox/journal")
            #expect(try (tokenJournal.requireJSONObject()["entries"] as? [Any])?.isEmpty == true, "\(tokenJournal)")
        }
    }
}
