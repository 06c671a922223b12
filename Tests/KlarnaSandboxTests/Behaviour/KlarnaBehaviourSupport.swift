// SPDX-License-Identifier: MIT
// Klarna behaviour tests on the testing product (PaymentSandboxTesting): a merchant on a SandboxClient (HTTP Basic,
// a namespace), the docs' example bodies, exact-JSON and envelope assertions, and a deterministic configuration.
// What the wire does (framing, keep-alive, limits) stays in EndToEndTests, on sockets.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
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

/// The n-th id the sequential generator hands out.
func sequentialID(_ n: Int) -> String {
    let digits = String(n, radix: 16)
    return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
}

/// A fresh namespace name per test, so tests never share state even on one sandbox.
func uniqueNamespace(_ label: String) -> String {
    "kp-\(label)-\(UUID().uuidString.prefix(8).lowercased())"
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

// MARK: Example bodies

enum KlarnaExamples {
    /// The docs' GB create-session example (klarna-api.md §2.1; the tax-handling worked example).
    static let gbSession = #"""
    {
      "purchase_country": "GB",
      "purchase_currency": "GBP",
      "locale": "en-GB",
      "order_amount": 62400,
      "order_tax_amount": 10400,
      "order_lines": [
        { "type": "physical", "reference": "19-402", "name": "Battery Power Pack",
          "quantity": 1, "unit_price": 59500, "tax_rate": 2000,
          "total_amount": 59500, "total_discount_amount": 0, "total_tax_amount": 9917 },
        { "type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900,
          "tax_rate": 2000, "total_amount": 2900, "total_tax_amount": 483 }
      ],
      "merchant_urls": { "authorization": "https://example.com/authorization_callbacks" },
      "merchant_reference1": "45aa52f387871e3a210645d4"
    }
    """#

    /// The GB example as a create-order request: the same cart and references, plus a confirmation URL with
    /// both placeholders (klarna-api.md §2.1 merchant_urls, §2.5 redirect_url).
    static let gbOrder = #"""
    {
      "purchase_country": "GB",
      "purchase_currency": "GBP",
      "locale": "en-GB",
      "order_amount": 62400,
      "order_tax_amount": 10400,
      "order_lines": [
        { "type": "physical", "reference": "19-402", "name": "Battery Power Pack",
          "quantity": 1, "unit_price": 59500, "tax_rate": 2000,
          "total_amount": 59500, "total_discount_amount": 0, "total_tax_amount": 9917 },
        { "type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900,
          "tax_rate": 2000, "total_amount": 2900, "total_tax_amount": 483 }
      ],
      "merchant_urls": { "confirmation": "https://example.com/confirmation?sid={session.id}&oid={order.id}" },
      "merchant_reference1": "45aa52f387871e3a210645d4"
    }
    """#

    /// The docs' customer-token request (klarna-api.md §2.9).
    static let gbCustomerToken = #"""
    { "description": "Monthly battery subscription", "intended_use": "SUBSCRIPTION", "locale": "en-GB",
      "purchase_country": "GB", "purchase_currency": "GBP",
      "billing_address": { "given_name": "Test", "family_name": "Person-uk", "street_address": "10 New Burlington Street",
        "street_address2": "Apt. 214", "postal_code": "W1S 3BE", "city": "London", "country": "GB",
        "email": "customer@email.uk", "phone": "+447755564318" },
      "customer": { "date_of_birth": "1970-07-10", "gender": "male" } }
    """#

    /// Edits a JSON object given as text and returns the new text.
    static func edit(_ json: String, _ change: (inout [String: Any]) -> Void) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
        change(&object)
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
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

/// The JSON text in a canonical form (sorted keys, no whitespace), or nil when it is not JSON.
func canonicalJSON(_ data: Data) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
          let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    else { return nil }
    return String(decoding: canonical, as: UTF8.self)
}

/// What a framed answer carries without a socket: a `Content-Length` equal to the body's (none after a 204).
func expectWellFramed(_ response: SandboxResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    if response.status == .noContent {
        #expect(response.body.isEmpty, sourceLocation: sourceLocation)
        return
    }
    #expect(response.header("Content-Length") == String(response.body.count), "\(response.headerFields)", sourceLocation: sourceLocation)
}

/// Asserts status, a JSON content type, framing, and a body equal to `expected` as JSON (same keys, values and
/// array order; formatting and key order aside).
func expectJSON(_ response: SandboxResponse, status: SandboxResponse.Status = .ok, _ expected: String,
                sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "expected \(status): \(response.status) \(response.text)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(response.headerFields)", sourceLocation: sourceLocation)
    expectWellFramed(response, sourceLocation: sourceLocation)
    let actual = canonicalJSON(response.body)
    let wanted = canonicalJSON(Data(expected.utf8))
    #expect(wanted != nil, "the expected text is not JSON: \(expected)", sourceLocation: sourceLocation)
    #expect(actual == wanted, "body differs.\n  actual:   \(actual ?? response.text)\n  expected: \(wanted ?? expected)",
            sourceLocation: sourceLocation)
}

/// A lower-case or upper-case 8-4-4-4-12 hex UUID.
func isUUID(_ text: String) -> Bool {
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
    return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) } && UUID(uuidString: text) != nil
}

/// Klarna's error envelope (klarna-api.md §1.4): exactly `error_code`, `error_messages` and a UUID `correlation_id`,
/// as application/json. A 401 also names Basic in WWW-Authenticate. Returns the correlation id.
@discardableResult
func expectKlarnaError(_ response: SandboxResponse, _ status: SandboxResponse.Status, _ code: String, _ messages: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    #expect(response.status == status, "expected \(status) \(code) \(messages): \(response.status) \(response.text)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(response.headerFields)", sourceLocation: sourceLocation)
    expectWellFramed(response, sourceLocation: sourceLocation)
    guard let object = response.jsonObject() else {
        Issue.record("error body is not a JSON object: \(response.text)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(Set(object.keys) == ["error_code", "error_messages", "correlation_id"], "keys: \(response.text)", sourceLocation: sourceLocation)
    #expect(object["error_code"] as? String == code, "body: \(response.text)", sourceLocation: sourceLocation)
    #expect(object["error_messages"] as? [String] == messages, "body: \(response.text)", sourceLocation: sourceLocation)
    let correlation = object["correlation_id"] as? String
    #expect(correlation.map(isUUID) == true, "correlation_id is not a UUID: \(response.text)", sourceLocation: sourceLocation)
    if status == .unauthorized {
        #expect(response.header("WWW-Authenticate")?.lowercased().hasPrefix("basic") == true,
                "401 without WWW-Authenticate: Basic: \(response.headerFields)", sourceLocation: sourceLocation)
    }
    return correlation
}

/// Asserts a 204 with no body.
func expectNoContent(_ response: SandboxResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == .noContent, "expected 204: \(response.status) \(response.text)", sourceLocation: sourceLocation)
    #expect(response.body.isEmpty, sourceLocation: sourceLocation)
    expectWellFramed(response, sourceLocation: sourceLocation)
}

/// What the SDK stand-ins answer for a client token or session id that names no live session of `namespace`:
/// Klarna's 404 NOT_FOUND, naming the namespace it looked in.
func expectSDKUnknownSession(_ response: SandboxResponse, namespace: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectKlarnaError(response, .notFound, "NOT_FOUND", [
        "Invalid session id",
        "No live session has this client token or session id in namespace \"\(namespace)\" (unknown, expired after 48 hours, "
            + "changed, or created in another namespace: send the namespace the session was created in)",
    ], sourceLocation: sourceLocation)
}
