// SPDX-License-Identifier: MIT
// Klarna Payments lifetimes in-process, through the testing product's SandboxClient, moved with POST /__sandbox/clock: authorization tokens live
// 60 minutes (klarna-api.md §2.4, §2.8), sessions 48 hours after their last update (§2.2, §2.3, §2.8).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna Payments: lifetimes")
struct KlarnaPaymentsLifetimeTests {
    /// `manualClock`: the deterministic configuration, where the boundary is exact; else the system clock, where
    /// real time keeps running between requests (seconds under the thread sanitizer on a busy machine), so the
    /// "still valid" case leaves a margin of a minute.
    private func sandbox(manualClock: Bool, _ body: (SandboxClient) async throws -> Void) async throws {
        try await SandboxTest.run(.inProcess, configuration: manualClock ? deterministicConfiguration() : SandboxConfiguration(), body)
    }

    @Test("an authorization token still places an order just before its 60 minutes are up", arguments: [true, false])
    func tokenJustInTime(manualClock: Bool) async throws {
        try await sandbox(manualClock: manualClock) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("token-3599"))
            let (_, token) = try await client.authorizedSession()
            try await client.advanceClock(seconds: manualClock ? 3599 : 3540)
            let order = try await client.createOrder(token)
            #expect(order.status == .ok, "\(order.status) \(order.text)")
        }
    }

    @Test("3601 s after authorize() the token is 404 Invalid authorization token", arguments: [true, false])
    func tokenExpired(manualClock: Bool) async throws {
        try await sandbox(manualClock: manualClock) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("token-3601"))
            let (sessionID, token) = try await client.authorizedSession()
            try await client.advanceClock(seconds: 3601)
            expectKlarnaError(try await client.createOrder(token), .notFound, "NOT_FOUND", ["Invalid authorization token"])
            // The session itself lives on (48 h) and can be authorized again.
            let read = try await client.readSession(sessionID)
            #expect(read.status == .ok, "\(read.status) \(read.text)")
            #expect(read.jsonObject()?["status"] as? String == "incomplete")
            let fresh = try await client.newAuthorization(sessionID)
            #expect(try await client.createOrder(fresh).status == .ok)
        }
    }

    @Test("the clock can also be set: {\"now\": ...} 61 minutes ahead expires the token")
    func tokenExpiredBySettingTheClock() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("token-set-now"))
            let (_, token) = try await client.authorizedSession()
            let set = try await client.client.control.setClock(to: Date(timeIntervalSince1970: 1_800_000_000 + 3660))
            #expect(set.offsetSeconds == 3660)
            expectKlarnaError(try await client.createOrder(token), .notFound, "NOT_FOUND", ["Invalid authorization token"])
        }
    }

    @Test("a session expires 48 h after creation: 404 Invalid session id")
    func sessionExpires() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("session-48h"))
            let sessionID = try await client.newSession()
            try await client.advanceClock(seconds: 48 * 3600 - 1)
            let read = try await client.readSession(sessionID)
            #expect(read.status == .ok, "\(read.status) \(read.text)")
            // Reading does not extend the lifetime.
            #expect(read.jsonObject()?["expires_at"] as? String == "2027-01-17T08:00:00.000Z")
            try await client.advanceClock(seconds: 1)
            let invalid = ["Invalid session id"]
            expectKlarnaError(try await client.readSession(sessionID), .notFound, "NOT_FOUND", invalid)
            expectKlarnaError(try await client.updateSession(sessionID, "{}"), .notFound, "NOT_FOUND", invalid)
            expectSDKUnknownSession(try await client.authorize(sessionID), namespace: client.client.namespace ?? "")
        }
    }

    @Test("an update extends the session to 48 h after the update")
    func updateExtendsSession() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("session-extend"))
            let sessionID = try await client.newSession()
            try await client.advanceClock(seconds: 47 * 3600)
            expectNoContent(try await client.updateSession(sessionID, #"{"merchant_reference2": "extended"}"#))
            // Past the original 48 h: still there, expiring 48 h after the update (07:00 + 48 h two days on).
            try await client.advanceClock(seconds: 2 * 3600)
            let read = try await client.readSession(sessionID)
            #expect(read.status == .ok, "\(read.status) \(read.text)")
            #expect(read.jsonObject()?["expires_at"] as? String == "2027-01-19T07:00:00.000Z")
            // 95 h after creation less a second: alive; at 95 h: gone.
            try await client.advanceClock(seconds: 46 * 3600 - 1)
            #expect(try await client.readSession(sessionID).status == .ok)
            try await client.advanceClock(seconds: 1)
            expectKlarnaError(try await client.readSession(sessionID), .notFound, "NOT_FOUND", ["Invalid session id"])
        }
    }

    @Test("an update extends the session on the system clock too")
    func updateExtendsSessionOnSystemClock() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("session-extend-system"))
            let sessionID = try await client.newSession()
            try await client.advanceClock(seconds: 47 * 3600)
            expectNoContent(try await client.updateSession(sessionID, #"{"merchant_reference2": "extended"}"#))
            try await client.advanceClock(seconds: 2 * 3600)
            #expect(try await client.readSession(sessionID).status == .ok)
            try await client.advanceClock(seconds: 46 * 3600 + 60)
            expectKlarnaError(try await client.readSession(sessionID), .notFound, "NOT_FOUND", ["Invalid session id"])
        }
    }

    @Test("a placed order outlives its token: the same body answers the same order two hours later")
    func orderReplayAfterTokenLifetime() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("replay-late"))
            let (_, token) = try await client.authorizedSession()
            let first = try await client.createOrder(token)
            #expect(first.status == .ok)
            try await client.advanceClock(seconds: 2 * 3600)
            expectJSON(try await client.createOrder(token), first.text)
        }
    }
}
