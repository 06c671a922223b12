// SPDX-License-Identifier: MIT
// More of the merchant for the flow, Order Management, hosted page and scenario tests: the US examples, one call
// per Klarna operation (a scenario chosen per call with `Sandbox-Scenario`), the control API as these tests read it,
// and the bodies the scenarios answer.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

// MARK: More example bodies (klarna-api.md §2.1, §2.2, §2.5, §6)

extension KlarnaExamples {
    /// The US session behind the docs' create-order example: the same cart, no address yet (GDPR guidance:
    /// addresses go to authorize(), klarna-api.md §2.1).
    static let usSession = #"""
    {
      "purchase_country": "US", "purchase_currency": "USD", "locale": "en-US",
      "order_amount": 10, "order_tax_amount": 0,
      "order_lines": [ { "type": "physical", "reference": "19-402", "name": "Battery Power Pack",
        "quantity": 1, "unit_price": 10, "tax_rate": 0, "total_amount": 10,
        "total_discount_amount": 0, "total_tax_amount": 0 } ]
    }
    """#

    /// The docs' US billing address (klarna-api.md §2.2, §2.5).
    static let usBillingAddress = #"""
    { "given_name": "John", "family_name": "Doe", "email": "john@doe.com", "title": "Mr",
      "street_address": "Lombard St 10", "street_address2": "Apt 214", "postal_code": "90210",
      "city": "Beverly Hills", "region": "CA", "phone": "333444555", "country": "US" }
    """#

    /// The docs' US create-order example (klarna-api.md §2.5), verbatim.
    static let usOrder = #"""
    {
      "purchase_country": "US", "purchase_currency": "USD", "locale": "en-US",
      "billing_address": { "given_name": "John", "family_name": "Doe", "email": "john@doe.com", "title": "Mr",
        "street_address": "Lombard St 10", "street_address2": "Apt 214", "postal_code": "90210",
        "city": "Beverly Hills", "region": "CA", "phone": "333444555", "country": "US" },
      "order_amount": 10, "order_tax_amount": 0,
      "order_lines": [ { "type": "physical", "reference": "19-402", "name": "Battery Power Pack",
        "quantity": 1, "unit_price": 10, "tax_rate": 0, "total_amount": 10,
        "total_discount_amount": 0, "total_tax_amount": 0 } ],
      "merchant_urls": { "confirmation": "https://example.com/confirmation?sid={session.id}&oid={order.id}" }
    }
    """#
}

/// Bodies for the playground's content rules (klarna-api.md §6).
enum PlaygroundData {
    /// The US sample person with `email` (and optionally `phone`) as the billing address.
    static func usAddress(email: String, phone: String = "+13106683312") -> String {
        """
        {"given_name": "Test", "family_name": "Person-us", "email": "\(email)", "street_address": "509 Amsterdam Ave",
         "postal_code": "10024-3941", "city": "New York", "region": "NY", "phone": "\(phone)", "country": "US"}
        """
    }

    /// The body an app passes to authorize()/load(): `{"jsonData": {"billing_address": ...}}`.
    static func jsonData(email: String, phone: String = "+13106683312") -> String {
        #"{"jsonData": {"billing_address": \#(usAddress(email: email, phone: phone))}}"#
    }

    /// The docs' US order with the sample person's billing address.
    static func usOrder(email: String, phone: String = "+13106683312") -> String {
        KlarnaExamples.edit(KlarnaExamples.usOrder) { $0["billing_address"] = KlarnaExamples.object(usAddress(email: email, phone: phone)) }
    }
}

// MARK: Answers

extension SandboxResponse {
    /// The body as a JSON object; throws when it is not one.
    func requireJSONObject(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(jsonObject(), "the body is not a JSON object: \(status) \(text)", sourceLocation: sourceLocation)
    }

    /// Every value of the header `name`, compared case-insensitively.
    func headerValues(_ name: String) -> [String] {
        headerFields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// Status, header fields and body, for an expectation's message.
    var summary: String { "\(status) \(headerFields.map { "\($0.name): \($0.value)" }) \(text.prefix(600))" }
}

/// `"\(response)"` in an expectation's message shows ``SandboxResponse/summary``.
extension SandboxResponse: CustomStringConvertible {
    public var description: String { summary }
}

extension SandboxClient {
    /// The origin the sandbox builds its links on for this client (`redirect_url`, `Location`, hosted pages).
    var origin: String { baseURL.absoluteString }
}

// MARK: The merchant's calls

extension KlarnaMerchant {
    init(_ client: SandboxClient, namespace: String?, user: String, password: String = "sandbox-secret") {
        self.init(client, namespace: namespace)
        self.user = user
        self.password = password
    }

    func delete(_ path: String) async throws -> SandboxResponse { try await send(.delete, path) }

    /// The SDK stand-in's authorize(); `body` is e.g. `{"jsonData": {...}}`.
    func authorize(_ sessionID: String, _ body: String? = nil, scenario: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/__sandbox/klarna/payments/sessions/\(sessionID)/authorize", body: body, headers: Self.scenarioHeader(scenario))
    }

    func load(_ sessionID: String, _ body: String? = nil, scenario: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/__sandbox/klarna/payments/sessions/\(sessionID)/load", body: body, headers: Self.scenarioHeader(scenario))
    }

    func finalize(_ sessionID: String, _ body: String? = nil, scenario: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/__sandbox/klarna/payments/sessions/\(sessionID)/finalize", body: body, headers: Self.scenarioHeader(scenario))
    }

    func createOrder(_ token: String, _ body: String = KlarnaExamples.gbOrder, scenario: String?,
                     headers extra: [String: String] = [:]) async throws -> SandboxResponse {
        try await send(.post, "/payments/v1/authorizations/\(token)/order", body: body,
                       headers: extra.merging(Self.scenarioHeader(scenario)) { $1 })
    }

    func cancelAuthorization(_ token: String) async throws -> SandboxResponse {
        try await delete("/payments/v1/authorizations/\(token)")
    }

    /// Authorizes with `body` through the SDK stand-in and returns the authorization token (fails the test unless 200).
    func newAuthorization(_ sessionID: String, _ body: String?, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await authorize(sessionID, body)
        try #require(response.status == .ok, "authorize: \(response.summary)", sourceLocation: sourceLocation)
        return try response.decode(Authorized.self).authorization_token
    }

    /// A session created with `body` and authorized with `authorizeBody`: returns (session id, authorization token).
    func authorizedSession(_ body: String = KlarnaExamples.gbSession, authorizeBody: String? = nil,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws -> (session: String, token: String) {
        let session = try await newSession(body, sourceLocation: sourceLocation)
        return (session, try await newAuthorization(session, authorizeBody, sourceLocation: sourceLocation))
    }

    /// Creates an order and returns its id (fails the test unless 200).
    func newOrder(_ token: String, _ body: String = KlarnaExamples.gbOrder,
                  sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await createOrder(token, body)
        try #require(response.status == .ok, "create order: \(response.summary)", sourceLocation: sourceLocation)
        return try response.decode(CreatedOrder.self).order_id
    }

    // Order Management (klarna-api.md §5).

    func omOrder(_ orderID: String) async throws -> SandboxResponse { try await get("/ordermanagement/v1/orders/\(orderID)") }

    static func idempotencyHeader(_ key: String?) -> [String: String] {
        key.map { ["Klarna-Idempotency-Key": $0] } ?? [:]
    }

    func omCapture(_ orderID: String, _ body: String, key: String? = nil, scenario: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/ordermanagement/v1/orders/\(orderID)/captures", body: body,
                       headers: Self.idempotencyHeader(key).merging(Self.scenarioHeader(scenario)) { $1 })
    }

    func omRefund(_ orderID: String, _ body: String, key: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/ordermanagement/v1/orders/\(orderID)/refunds", body: body, headers: Self.idempotencyHeader(key))
    }

    /// POST …/cancel, …/acknowledge, …/release-remaining-authorization or …/extend-authorization-time.
    func omChange(_ orderID: String, _ action: String, key: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/ordermanagement/v1/orders/\(orderID)/\(action)", headers: Self.idempotencyHeader(key))
    }

    /// A KP session, authorization and order (ids 1, 2, 3 on a fresh deterministic sandbox); returns the order id.
    func placedOrder(_ body: String = KlarnaExamples.gbOrder, scenario: String? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let created = try await createSession(KlarnaExamples.gbSession, scenario: scenario)
        try #require(created.status == .ok, "create session: \(created.summary)", sourceLocation: sourceLocation)
        let session = try created.decode(CreatedSession.self).session_id
        let token = try await newAuthorization(session, sourceLocation: sourceLocation)
        return try await newOrder(token, body, sourceLocation: sourceLocation)
    }

    /// `klarna_ordermanagement.orders` of GET /__sandbox/state, as objects.
    func orderManagementOrders(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        let state = try await get("/__sandbox/state").requireJSONObject(sourceLocation: sourceLocation)
        let orders = (state["klarna_ordermanagement"] as? [String: Any])?["orders"] as? [[String: Any]]
        return try #require(orders, "state: \(state)", sourceLocation: sourceLocation)
    }
}

struct CreatedOrder: Decodable { var order_id: String }

// MARK: The control API as these tests read it

extension KlarnaMerchant {
    // As the merchant sends them (HTTP Basic too): a namespace told by its Basic user alone is the one they act on.

    /// Moves this namespace's clock by `seconds` (fractions too); fails the test unless 200.
    func advanceClock(seconds: Double, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await post("/__sandbox/clock", #"{"advance_seconds": \#(seconds)}"#)
        try #require(response.status == .ok, "advance clock: \(response.summary)", sourceLocation: sourceLocation)
    }

    /// Resets this namespace; fails the test unless 200.
    func reset(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await post("/__sandbox/reset")
        try #require(response.status == .ok, "reset: \(response.summary)", sourceLocation: sourceLocation)
    }

    /// GET /__sandbox/clock as an object (fails the test unless 200).
    func clock(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = try await get("/__sandbox/clock")
        try #require(response.status == .ok, "GET /__sandbox/clock: \(response.summary)", sourceLocation: sourceLocation)
        return try response.requireJSONObject(sourceLocation: sourceLocation)
    }

    /// `klarna_payments` of GET /__sandbox/state.
    func paymentsState(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let state = try await get("/__sandbox/state").requireJSONObject(sourceLocation: sourceLocation)
        return try #require(state["klarna_payments"] as? [String: Any], "state: \(state)", sourceLocation: sourceLocation)
    }

    /// PUT /__sandbox/scenario {"name": ...} (nil sends null), answered as it is.
    func setDefaultScenario(_ name: String?) async throws -> SandboxResponse {
        try await send(.put, "/__sandbox/scenario", body: name.map { #"{"name": "\#($0)"}"# } ?? #"{"name": null}"#)
    }

    /// GET /__sandbox/scenarios as an object (fails the test unless 200).
    func scenarioList(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = try await get("/__sandbox/scenarios")
        try #require(response.status == .ok, "GET /__sandbox/scenarios: \(response.summary)", sourceLocation: sourceLocation)
        return try response.requireJSONObject(sourceLocation: sourceLocation)
    }

    /// The names of the loaded scenarios, in the order GET /__sandbox/scenarios lists them.
    func scenarioNames(sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let list = try await scenarioList(sourceLocation: sourceLocation)
        return (list["scenarios"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// GET /__sandbox/journal?query (fails the test unless 200); returns the entries as objects.
    func journal(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [[String: Any]] {
        let response = try await get("/__sandbox/journal" + (query.isEmpty ? "" : "?" + query))
        try #require(response.status == .ok, "GET /__sandbox/journal?\(query): \(response.summary)", sourceLocation: sourceLocation)
        return try #require(response.jsonObject()?["entries"] as? [[String: Any]], "\(response.summary)", sourceLocation: sourceLocation)
    }

    /// ``journalLines()`` of the entries `query` selects.
    func journalLines(_ query: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        try await journal(query, sourceLocation: sourceLocation).map { journalLine($0, fullNote: false) }
    }
}

/// "METHOD path status note"; without `fullNote`, the note is cut before " (" (the rule, step and delay).
func journalLine(_ entry: [String: Any], fullNote: Bool = true) -> String {
    var note = entry["note"] as? String ?? "?"
    if !fullNote, let cut = note.range(of: " (") { note = String(note[..<cut.lowerBound]) }
    return "\(entry["method"] as? String ?? "?") \(entry["path"] as? String ?? "?") \(entry["status"] as? Int ?? -1) \(note)"
}

// MARK: What the scenarios answer

extension ScenarioExpect {
    /// An SDK error object: `{"approved": false, "show_form": false, "error": {...}}` (load has no `approved`).
    static func sdkError(_ response: SandboxResponse, approved: Bool? = false, name: String, action: String, message: String,
                         isFatal: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
        let approvedMember = approved.map { #""approved": \#($0),"# } ?? ""
        expectJSON(response, """
            {\(approvedMember) "show_form": false,
             "error": {"name": "\(name)", "action": "\(action)", "message": "\(message)", "is_fatal": \(isFatal)}}
            """, sourceLocation: sourceLocation)
    }

    static func showFormFalseMessage(_ call: String) -> String { "Error performing Klarna.Payments.\(call)()" }
}

/// What the SDK's authorize()/finalize() report for a session without a usable client token (unknown, expired,
/// completed, or in another namespace): a 200 carrying the SDK's error object, not an HTTP error.
/// `action` is "Authorize" or "Finalize".
func expectSDKInvalidClientToken(_ response: SandboxResponse, action: String = "Authorize",
                                 sourceLocation: SourceLocation = #_sourceLocation) {
    expectJSON(response, """
        {"approved": false, "show_form": false,
         "error": {"name": "InvalidClientTokenError", "action": "\(action)",
                   "message": "Error performing Klarna.Payments.\(action.lowercased())()",
                   "is_fatal": false}}
        """, sourceLocation: sourceLocation)
}

/// Decodes one base64url JWT segment (no padding) as a JSON object.
func jwtSegment(_ segment: Substring) -> [String: Any]? {
    var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

/// `body`'s result and how long it took.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let start = ContinuousClock.now
    let result = try await body()
    return (result, ContinuousClock.now - start)
}
