// SPDX-License-Identifier: MIT
// Klarna calls for the end-to-end tests (wire, CLI, state files, callbacks): the docs' example bodies, a small client
// that speaks to /payments/v1 over the raw socket client with HTTP Basic and a namespace, exact-JSON and envelope
// assertions, and a deterministic sandbox configuration (manual clock, sequential ids). The Klarna behaviour tests
// run in-process in KlarnaSandboxTests, on PaymentSandboxTesting.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

// MARK: Example bodies (klarna-api.md §2.1, §2.5)

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

    /// A customer-token request for the GB market (klarna-api.md §2.7).
    static let gbCustomerToken = #"""
    { "description": "Monthly battery subscription", "intended_use": "SUBSCRIPTION", "locale": "en-GB",
      "purchase_country": "GB", "purchase_currency": "GBP",
      "billing_address": { "given_name": "Test", "family_name": "Person-uk", "street_address": "10 New Burlington Street",
        "street_address2": "Apt. 214", "postal_code": "W1S 3BE", "city": "London", "country": "GB",
        "email": "customer@email.uk", "phone": "+447755564318" },
      "customer": { "date_of_birth": "1970-07-10", "gender": "male" } }
    """#

    /// The docs' payment method category as the sandbox offers it by default (klarna-api.md §2.1).
    static let klarnaCategory = #"""
    { "identifier": "klarna", "name": "Pay with Klarna",
      "asset_urls": {
        "descriptive": "https://x.klarnacdn.net/payment-method/assets/badges/generic/klarna.svg",
        "standard": "https://x.klarnacdn.net/payment-method/assets/badges/generic/klarna.svg" } }
    """#

    /// Edits a JSON object given as text and returns the new text.
    static func edit(_ json: String, _ change: (inout [String: Any]) -> Void) -> String {
        var object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
        change(&object)
        return jsonText(object)
    }

    static func jsonText(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

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

/// The n-th id the sequential generator hands out.
func sequentialID(_ n: Int) -> String {
    let digits = String(n, radix: 16)
    return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
}

/// A fresh namespace name per test, so tests never share state even on one sandbox.
func uniqueNamespace(_ label: String) -> String {
    "kp-e2e-\(label)-\(UUID().uuidString.prefix(8).lowercased())"
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

/// The JSON text in a canonical form (sorted keys, no whitespace), or nil when it is not JSON.
func canonicalJSON(_ data: Data) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
          let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    else { return nil }
    return String(decoding: canonical, as: UTF8.self)
}

/// Asserts status, a JSON content type, framing, and a body equal to `expected` as JSON (same keys, values and
/// array order; formatting and key order aside).
func expectJSON(_ response: RawResponse, status: Int = 200, _ expected: String,
                sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "expected \(status): \(response)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(response.rawHead)", sourceLocation: sourceLocation)
    expectWellFramed(response, sourceLocation: sourceLocation)
    let actual = canonicalJSON(Data(response.body))
    let wanted = canonicalJSON(Data(expected.utf8))
    #expect(wanted != nil, "the expected text is not JSON: \(expected)", sourceLocation: sourceLocation)
    #expect(actual == wanted, "body differs.\n  actual:   \(actual ?? response.bodyText)\n  expected: \(wanted ?? expected)",
            sourceLocation: sourceLocation)
}

/// Asserts a 204 with no body.
func expectNoContent(_ response: RawResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == 204, "expected 204: \(response)", sourceLocation: sourceLocation)
    #expect(response.body.isEmpty, sourceLocation: sourceLocation)
    expectWellFramed(response, sourceLocation: sourceLocation)
}

/// A lower-case or upper-case 8-4-4-4-12 hex UUID.
func isUUID(_ text: String) -> Bool {
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
    return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) } && UUID(uuidString: text) != nil
}

/// Klarna's error envelope (klarna-api.md §1.4): exactly `error_code`, `error_messages` and a UUID
/// `correlation_id`, as application/json. A 401 also names Basic in WWW-Authenticate.
/// Returns the correlation id.
@discardableResult
func expectKlarnaError(_ response: RawResponse, _ status: Int, _ code: String, _ messages: [String],
                       sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    #expect(response.status == status, "expected \(status) \(code) \(messages): \(response)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(response.rawHead)", sourceLocation: sourceLocation)
    expectWellFramed(response, sourceLocation: sourceLocation)
    guard let object = try? response.jsonObject() else {
        Issue.record("error body is not a JSON object: \(response)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(Set(object.keys) == ["error_code", "error_messages", "correlation_id"], "keys: \(response.bodyText)",
            sourceLocation: sourceLocation)
    #expect(object["error_code"] as? String == code, "body: \(response.bodyText)", sourceLocation: sourceLocation)
    #expect(object["error_messages"] as? [String] == messages, "body: \(response.bodyText)", sourceLocation: sourceLocation)
    let correlation = object["correlation_id"] as? String
    #expect(correlation.map(isUUID) == true, "correlation_id is not a UUID: \(response.bodyText)", sourceLocation: sourceLocation)
    if status == 401 {
        #expect(response.header("WWW-Authenticate")?.lowercased().hasPrefix("basic") == true,
                "401 without WWW-Authenticate: Basic: \(response.rawHead)", sourceLocation: sourceLocation)
    }
    return correlation
}
