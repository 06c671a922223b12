// SPDX-License-Identifier: MIT
// Klarna calls for the end-to-end tests (wire, CLI, state files, callbacks): a small client that speaks to /payments/v1
// over the raw socket client with HTTP Basic and a namespace, and a deterministic sandbox configuration (manual clock,
// sequential ids). The example bodies and the exact-JSON and envelope assertions are SandboxTestSupport's. The Klarna
// behaviour tests run in-process in KlarnaSandboxTests, on PaymentSandboxTesting.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

// MARK: Deterministic sandboxes

enum KlarnaTestClock {
    /// 2027-01-15T08:00:00Z: the manual clock's start in the deterministic configuration.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
}

/// A manual clock (time moves only through `/__sandbox/clock`) and sequential ids
/// (00000000-0000-4000-8000-000000000001, …2, … in the order the sandbox mints them).
func deterministic(_ configuration: inout SandboxConfiguration) {
    configuration.clock = ManualClock(KlarnaTestClock.start)
    configuration.ids = SequentialIDGenerator()
}

// MARK: The client

/// Speaks to one sandbox as one merchant: every request carries HTTP Basic and, unless `namespace` is nil,
/// the `Sandbox-Namespace` header. One connection per request, so requests are independent.
struct KlarnaClient: Sendable {
    var server: RunningServer
    var port: Int { server.port }
    var namespace: String?
    var user: String = "PK12345_0123456789ab"
    var password: String = "sandbox-secret"
    /// Replaces the Authorization header when set ("" sends none).
    var authorization: String?

    init(_ server: RunningServer, namespace: String?, user: String = "PK12345_0123456789ab", password: String = "sandbox-secret") {
        self.server = server
        self.namespace = namespace
        self.user = user
        self.password = password
    }

    var basicAuthorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    func headers(_ extra: [(String, String)] = []) -> [(String, String)] {
        var headers: [(String, String)] = []
        let auth = authorization ?? basicAuthorization
        if !auth.isEmpty { headers.append(("Authorization", auth)) }
        if let namespace { headers.append(("Sandbox-Namespace", namespace)) }
        return headers + extra
    }

    /// Sends one request; a body is sent as application/json.
    func send(_ method: String, _ path: String, body: String? = nil, headers extra: [(String, String)] = []) async throws -> RawResponse {
        var all = headers(extra)
        if body != nil { all.append(("Content-Type", "application/json")) }
        return try await server.exchange(klarnaRequest(method, path, port: port, headers: all, body: body))
    }

    func get(_ path: String) async throws -> RawResponse { try await send("GET", path) }
    func post(_ path: String, _ body: String? = nil) async throws -> RawResponse { try await send("POST", path, body: body) }
    func delete(_ path: String) async throws -> RawResponse { try await send("DELETE", path) }

    // Klarna Payments, one call each.

    func createSession(_ body: String = KlarnaExamples.gbSession) async throws -> RawResponse {
        try await post("/payments/v1/sessions", body)
    }
    func readSession(_ id: String) async throws -> RawResponse { try await get("/payments/v1/sessions/\(id)") }
    func updateSession(_ id: String, _ body: String) async throws -> RawResponse {
        try await post("/payments/v1/sessions/\(id)", body)
    }
    func authorize(_ sessionID: String, _ body: String? = nil) async throws -> RawResponse {
        try await post("/__sandbox/klarna/payments/sessions/\(sessionID)/authorize", body)
    }
    func createOrder(_ token: String, _ body: String = KlarnaExamples.gbOrder) async throws -> RawResponse {
        try await post("/payments/v1/authorizations/\(token)/order", body)
    }
    func cancelAuthorization(_ token: String) async throws -> RawResponse {
        try await delete("/payments/v1/authorizations/\(token)")
    }
    func createCustomerToken(_ token: String, _ body: String = KlarnaExamples.gbCustomerToken) async throws -> RawResponse {
        try await post("/payments/v1/authorizations/\(token)/customer-token", body)
    }

    // Steps that must succeed, returning what later steps need.

    /// Creates a session and returns its id (fails the test unless 200).
    func newSession(_ body: String = KlarnaExamples.gbSession, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await createSession(body)
        try #require(response.status == 200, "create session: \(response)", sourceLocation: sourceLocation)
        return try #require(try response.jsonObject()["session_id"] as? String, sourceLocation: sourceLocation)
    }

    /// Authorizes through the SDK stand-in and returns the authorization token (fails the test unless 200).
    func newAuthorization(_ sessionID: String, _ body: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await authorize(sessionID, body)
        try #require(response.status == 200, "authorize: \(response)", sourceLocation: sourceLocation)
        return try #require(try response.jsonObject()["authorization_token"] as? String, sourceLocation: sourceLocation)
    }

    /// A session authorized as created: returns (session id, authorization token).
    func authorizedSession(_ body: String = KlarnaExamples.gbSession, authorizeBody: String? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> (session: String, token: String) {
        let session = try await newSession(body, sourceLocation: sourceLocation)
        return (session, try await newAuthorization(session, authorizeBody, sourceLocation: sourceLocation))
    }

    /// Creates an order and returns its id (fails the test unless 200).
    func newOrder(_ token: String, _ body: String = KlarnaExamples.gbOrder, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await createOrder(token, body)
        try #require(response.status == 200, "create order: \(response)", sourceLocation: sourceLocation)
        return try #require(try response.jsonObject()["order_id"] as? String, sourceLocation: sourceLocation)
    }

    // Control API (for this client's namespace).

    /// Moves this namespace's clock; fails the test unless 200.
    func advanceClock(seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await post("/__sandbox/clock", #"{"advance_seconds": \#(seconds)}"#)
        try #require(response.status == 200, "advance clock: \(response)", sourceLocation: sourceLocation)
    }

    func clock() async throws -> [String: Any] { try await get("/__sandbox/clock").jsonObject() }

    func reset(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await post("/__sandbox/reset")
        try #require(response.status == 200, "reset: \(response)", sourceLocation: sourceLocation)
    }

    /// `klarna_payments` of GET /__sandbox/state.
    func paymentsState(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = try await get("/__sandbox/state")
        try #require(response.status == 200, "state: \(response)", sourceLocation: sourceLocation)
        return try #require(try response.jsonObject()["klarna_payments"] as? [String: Any], sourceLocation: sourceLocation)
    }
}

/// An HTTP/1.1 request whose Host names the port as a real client's does (the sandbox builds redirect_url
/// from Host, klarna-api.md §2.5).
func klarnaRequest(_ method: String, _ target: String, port: Int, headers: [(String, String)] = [], body: String? = nil) -> String {
    var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
    text += "\r\n"
    if let body { text += body }
    return text
}

// MARK: Assertions

/// The raw client's answers go through the shared Klarna assertions (SandboxTestSupport), with the whole framing
/// checked, as a socket (or this target's in-process transport, which frames as the server does) shows it.
extension RawResponse: TestAnswer {
    var statusCode: Int { status }
    var bodyData: Data { Data(body) }
    var headSummary: String { rawHead }

    func expectFraming(sourceLocation: SourceLocation) {
        expectWellFramed(self, sourceLocation: sourceLocation)
    }
}
