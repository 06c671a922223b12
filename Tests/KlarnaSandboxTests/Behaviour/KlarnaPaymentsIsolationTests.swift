// SPDX-License-Identifier: MIT
// Namespaces on one in-process sandbox: two merchants on one sandbox, told apart by the Sandbox-Namespace header or,
// without it, by their HTTP Basic user. Sessions, tokens, clock offsets and resets stay apart.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna Payments: namespaces")
struct KlarnaPaymentsIsolationTests {
    enum Separation: String, CaseIterable, Sendable {
        case header, basicUser
    }

    /// Two clients in different namespaces: by header (same Basic user) or by Basic user (no header).
    private func pair(_ sandbox: SandboxClient, _ separation: Separation) -> (KlarnaMerchant, KlarnaMerchant, String, String) {
        switch separation {
        case .header:
            let a = uniqueNamespace("iso-a"), b = uniqueNamespace("iso-b")
            return (KlarnaMerchant(sandbox, namespace: a), KlarnaMerchant(sandbox, namespace: b), a, b)
        case .basicUser:
            let a = "PK1001_" + uniqueNamespace("a"), b = "PK1002_" + uniqueNamespace("b")
            return (KlarnaMerchant(sandbox, namespace: nil, user: a), KlarnaMerchant(sandbox, namespace: nil, user: b), a, b)
        }
    }

    @Test("sessions and tokens of one namespace are unknown in another", arguments: Separation.allCases)
    func sessionsAreSeparate(separation: Separation) async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let (a, b, nameA, nameB) = pair(sandbox, separation)
            let (sessionID, token) = try await a.authorizedSession()

            expectKlarnaError(try await b.readSession(sessionID), 404, "NOT_FOUND", ["Invalid session id"])
            expectKlarnaError(try await b.updateSession(sessionID, "{}"), 404, "NOT_FOUND", ["Invalid session id"])
            expectSDKUnknownSession(try await b.authorize(sessionID), namespace: nameB)
            expectKlarnaError(try await b.createOrder(token), 404, "NOT_FOUND", ["Invalid authorization token"])
            expectKlarnaError(try await b.cancelAuthorization(token), 404, "NOT_FOUND", ["Authorization cannot be deleted"])

            // A's objects are untouched by B's attempts.
            let orderID = try await a.newOrder(token)
            #expect(try await a.readSession(sessionID).requireJSONObject()["status"] as? String == "complete")
            let redirect = try await a.get("/__sandbox/klarna/payments/orders/\(orderID)/redirect")
            #expect(redirect.status == 303, "\(redirect)")
            // The redirect is what a browser follows, with no namespace: it finds the order from anywhere.
            #expect(try await b.get("/__sandbox/klarna/payments/orders/\(orderID)/redirect").status == 303)

            // The state endpoint answers per namespace.
            let stateA = try await a.get("/__sandbox/state").requireJSONObject()
            let stateB = try await b.get("/__sandbox/state").requireJSONObject()
            #expect(stateA["namespace"] as? String == nameA)
            #expect(stateB["namespace"] as? String == nameB)
            #expect(((stateA["klarna_payments"] as? [String: Any])?["orders"] as? [Any])?.count == 1)
            #expect(((stateB["klarna_payments"] as? [String: Any])?["sessions"] as? [Any])?.count == 0)
        }
    }

    @Test("clock offsets are per namespace", arguments: Separation.allCases)
    func clocksAreSeparate(separation: Separation) async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let (a, b, nameA, nameB) = pair(sandbox, separation)
            let (_, tokenA) = try await a.authorizedSession()
            let (_, tokenB) = try await b.authorizedSession()
            try await a.advanceClock(seconds: 3601)

            let clockA = try await a.clock(), clockB = try await b.clock()
            #expect(clockA["namespace"] as? String == nameA)
            #expect(clockA["offset_seconds"] as? Double == 3601)
            #expect(clockA["now"] as? String == "2027-01-15T09:00:01.000Z")
            #expect(clockB["namespace"] as? String == nameB)
            #expect(clockB["offset_seconds"] as? Double == 0)
            #expect(clockB["now"] as? String == "2027-01-15T08:00:00.000Z")

            expectKlarnaError(try await a.createOrder(tokenA), 404, "NOT_FOUND", ["Invalid authorization token"])
            #expect(try await b.createOrder(tokenB).status == 200)
        }
    }

    @Test("reset clears one namespace's objects and clock only", arguments: Separation.allCases)
    func resetIsSeparate(separation: Separation) async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let (a, b, nameA, _) = pair(sandbox, separation)
            let sessionA = try await a.newSession()
            let sessionB = try await b.newSession()
            try await a.advanceClock(seconds: 120)
            try await b.advanceClock(seconds: 60)

            let reset = try await a.post("/__sandbox/reset")
            expectJSON(reset, #"{"namespace": "\#(nameA)", "reset": true}"#)

            expectKlarnaError(try await a.readSession(sessionA), 404, "NOT_FOUND", ["Invalid session id"])
            #expect(try await a.clock()["offset_seconds"] as? Double == 0)
            #expect(try await b.readSession(sessionB).status == 200)
            #expect(try await b.clock()["offset_seconds"] as? Double == 60)
        }
    }

    @Test("the Sandbox-Namespace header wins over the Basic user")
    func headerWinsOverUser() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let shared = uniqueNamespace("shared")
            let one = KlarnaMerchant(sandbox, namespace: shared, user: "PK2001_aaaaaaaaaaaa")
            let two = KlarnaMerchant(sandbox, namespace: shared, user: "PK2002_bbbbbbbbbbbb")
            let userOnly = KlarnaMerchant(sandbox, namespace: nil, user: "PK2001_aaaaaaaaaaaa")
            let sessionID = try await one.newSession()
            #expect(try await two.readSession(sessionID).status == 200)
            expectKlarnaError(try await userOnly.readSession(sessionID), 404, "NOT_FOUND", ["Invalid session id"])
        }
    }
}
