// SPDX-License-Identifier: MIT
// Klarna Hosted Payment Page calls for the tests that stay on sockets (callbacks, return trips, decision paths):
// create-session bodies, the merchant's reads, and the consumer's browser and actions (klarna-api.md §4).
// The HPP behaviour tests themselves run in-process in KlarnaSandboxTests.
import Foundation
import PaymentSandbox
import Testing

enum KlarnaHPP {
    /// Creates an HPP session (fails unless 201) and returns its id.
    static func newHPPSession(_ client: KlarnaClient, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await client.post("/hpp/v1/sessions", body)
        try #require(response.status == 201, "create HPP session: \(response)", sourceLocation: sourceLocation)
        return try #require(try response.jsonObject()["session_id"] as? String, sourceLocation: sourceLocation)
    }

    static func read(_ client: KlarnaClient, _ id: String) async throws -> [String: Any] {
        let response = try await client.get("/hpp/v1/sessions/\(id)")
        try #require(response.status == 200, "read HPP session: \(response)")
        return try response.jsonObject()
    }

    /// A request as a browser sends it: no credentials, no namespace.
    static func browser(_ server: RunningServer, _ method: String, _ path: String, form: String? = nil) async throws -> RawResponse {
        var headers = [("Accept", "text/html")]
        if form != nil { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        return try await server.exchange(klarnaRequest(method, path, port: server.port, headers: headers, body: form))
    }

    /// A backend test's consumer action: no credentials, JSON answer.
    static func act(_ server: RunningServer, _ id: String, _ action: String) async throws -> RawResponse {
        try await server.exchange(klarnaRequest("POST", "/__sandbox/klarna/hpp/sessions/\(id)/\(action)", port: server.port))
    }

    static func expect303(_ response: RawResponse, to location: String, status: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 303, "\(response)", sourceLocation: sourceLocation)
        #expect(response.header("Location") == location, "\(response.rawHead)", sourceLocation: sourceLocation)
        expectWellFramed(response, sourceLocation: sourceLocation)
        let body = try? response.jsonObject()
        #expect(body?["status"] as? String == status, "\(response)", sourceLocation: sourceLocation)
        #expect(body?["location"] as? String == location, "\(response)", sourceLocation: sourceLocation)
    }

    /// 2027-01-15T08:00Z + 48 h (KP session) − 1 h.
    static let expiresAt = "2027-01-17T07:00:00.000Z"
    static let createdAt = "2027-01-15T08:00:00.000Z"

    /// The journal entries `query` selects once there are at least `count` (``waitForJournalEntries(_:headers:_:count:sourceLocation:)``).
    static func waitForJournal(_ client: KlarnaClient, _ query: String, count: Int,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        _ = try await waitForJournalEntries(client.server, headers: client.headers(), query, count: count, sourceLocation: sourceLocation)
        return try await client.journal(query)
    }
}
