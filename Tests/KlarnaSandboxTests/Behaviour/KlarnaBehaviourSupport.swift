// SPDX-License-Identifier: MIT
// Klarna behaviour tests on the testing product (PaymentSandboxTesting): a merchant on a SandboxClient (HTTP Basic,
// a namespace) and a deterministic configuration. The docs' example bodies and the exact-JSON and envelope assertions
// are SandboxTestSupport's.
// What the wire does (framing, keep-alive, limits) stays in EndToEndTests, on sockets.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

// MARK: Sandboxes

/// A manual clock (time moves only through `/__sandbox/clock`) from 2027-01-15T08:00:00Z, and sequential ids
/// (00000000-0000-4000-8000-000000000001, …2, … in the order the sandbox mints them).
func deterministicConfiguration(bundledScenarios: Bool = true, scenarioDirectories: [URL] = []) -> SandboxConfiguration {
    var configuration = SandboxConfiguration(scenarioDirectories: scenarioDirectories)
    configuration.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    configuration.ids = SequentialIDGenerator()
    configuration.includesBundledScenarios = bundledScenarios
    configuration.scenarioWatchInterval = nil
    return configuration
}

/// ``deterministicConfiguration(bundledScenarios:scenarioDirectories:)`` with `change` applied.
func deterministicConfiguration(_ change: (inout SandboxConfiguration) -> Void) -> SandboxConfiguration {
    configured(deterministicConfiguration(), change)
}

/// `configuration` (by default the sandbox's own default) with `change` applied.
func configured(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                _ change: (inout SandboxConfiguration) -> Void) -> SandboxConfiguration {
    var configuration = configuration
    change(&configuration)
    return configuration
}

/// A scenario file with `rules` (each a JSON object text).
func scenarioFile(_ name: String, _ description: String = "Written by a behaviour test.", rules: [String]) -> String {
    #"{"name": "\#(name)", "description": "\#(description)", "rules": [\#(rules.joined(separator: ",\n"))]}"#
}

/// A temporary directory holding `files` (name → text) while `body` runs.
func withScenarioFiles<T>(_ files: [String: String], _ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("payment-sandbox-behaviour-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    for (name, text) in files { try Data(text.utf8).write(to: url.appendingPathComponent(name)) }
    return try await body(url)
}

// MARK: The merchant

/// One merchant on one sandbox: every request carries HTTP Basic (unless ``authorization`` replaces it) and the
/// client's namespace.
struct KlarnaMerchant: Sendable {
    var client: SandboxClient
    var user = "PK12345_0123456789ab"
    var password = "sandbox-secret"
    /// Replaces the Authorization header when set ("" sends none).
    var authorization: String?

    /// `namespace` nil: requests name none (the sandbox's default namespace).
    init(_ client: SandboxClient, namespace: String?) {
        self.client = client.namespace(namespace)
    }

    /// The `Sandbox-Namespace` every request carries (nil: none).
    var namespace: String? {
        get { client.namespace }
        set { client.namespace = newValue }
    }

    /// This merchant in another namespace.
    func namespace(_ name: String) -> KlarnaMerchant { KlarnaMerchant(client, namespace: name) }

    /// Sends one request; a body is sent as application/json.
    func send(_ method: SandboxClient.Method, _ path: String, body: String? = nil, headers: [String: String] = [:]) async throws -> SandboxResponse {
        var all = headers
        let auth = authorization ?? "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        if !auth.isEmpty { all["Authorization"] = auth }
        if body != nil { all["Content-Type"] = "application/json" }
        return try await client.send(method, path, headers: all, body: body.map { Data($0.utf8) })
    }

    func get(_ path: String) async throws -> SandboxResponse { try await send(.get, path) }
    func post(_ path: String, _ body: String? = nil, headers: [String: String] = [:]) async throws -> SandboxResponse {
        try await send(.post, path, body: body, headers: headers)
    }

    static func scenarioHeader(_ scenario: String?) -> [String: String] {
        scenario.map { ["Sandbox-Scenario": $0] } ?? [:]
    }

    func createSession(_ body: String = KlarnaExamples.gbSession, scenario: String? = nil) async throws -> SandboxResponse {
        try await post("/payments/v1/sessions", body, headers: Self.scenarioHeader(scenario))
    }

    func readSession(_ id: String) async throws -> SandboxResponse { try await get("/payments/v1/sessions/\(id)") }
    func updateSession(_ id: String, _ body: String) async throws -> SandboxResponse { try await post("/payments/v1/sessions/\(id)", body) }
    func createOrder(_ token: String, _ body: String = KlarnaExamples.gbOrder) async throws -> SandboxResponse {
        try await post("/payments/v1/authorizations/\(token)/order", body)
    }

    /// Creates a session and returns its id (fails the test unless 200).
    func newSession(_ body: String = KlarnaExamples.gbSession, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await createSession(body)
        try #require(response.status == .ok, "create session: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try response.decode(CreatedSession.self).session_id
    }

    /// Moves this namespace's clock by `seconds`.
    func advanceClock(seconds: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await advanceClock(seconds: Double(seconds), sourceLocation: sourceLocation)
    }

    func createCustomerToken(_ token: String, _ body: String = KlarnaExamples.gbCustomerToken) async throws -> SandboxResponse {
        try await post("/payments/v1/authorizations/\(token)/customer-token", body)
    }

    /// Authorizes through the SDK stand-in and returns the authorization token (fails the test unless 200).
    func newAuthorization(_ sessionID: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await post("/__sandbox/klarna/payments/sessions/\(sessionID)/authorize")
        try #require(response.status == .ok, "authorize: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try response.decode(Authorized.self).authorization_token
    }

    /// GET an Order Management order as an object (fails the test unless 200).
    func omOrderObject(_ orderID: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = try await get("/ordermanagement/v1/orders/\(orderID)")
        try #require(response.status == .ok, "GET order: \(response.status) \(response.text)", sourceLocation: sourceLocation)
        return try #require(response.jsonObject(), sourceLocation: sourceLocation)
    }

    /// `klarna_ordermanagement.orders` of the namespace's state.
    func orderManagementState() async throws -> [OrderManagementOrder] {
        try await client.control.state().decode(SandboxStateOrders.self).klarna_ordermanagement.orders
    }

    /// "METHOD path status decision" per journal entry, oldest first, where the decision is the note up to the rule
    /// and step it names: "scenario=reject klarna.payments.authorize: reject".
    func journalLines() async throws -> [String] {
        try await client.control.journal().map { entry in
            var note = entry.note
            if let cut = note.range(of: " (") { note = String(note[..<cut.lowerBound]) }
            return "\(entry.method) \(entry.path) \(entry.status) \(note)"
        }
    }
}

struct Authorized: Decodable { var authorization_token: String }
struct CreatedSession: Decodable { var session_id: String }
struct SandboxStateOrders: Decodable {
    var klarna_ordermanagement: Orders
    struct Orders: Decodable { var orders: [OrderManagementOrder] }
}
struct OrderManagementOrder: Decodable { var order_id: String }

// MARK: Assertions

/// What the SDK stand-ins answer for a client token or session id that names no live session of `namespace`:
/// Klarna's 404 NOT_FOUND, naming the namespace it looked in.
func expectSDKUnknownSession(_ response: SandboxResponse, namespace: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectKlarnaError(response, .notFound, "NOT_FOUND", [
        "Invalid session id",
        "No live session has this client token or session id in namespace \"\(namespace)\" (unknown, expired after 48 hours, "
            + "changed, or created in another namespace: send the namespace the session was created in)",
    ], sourceLocation: sourceLocation)
}
