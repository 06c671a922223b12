// SPDX-License-Identifier: MIT
// What the Klarna tests of every target share: the docs' example bodies, sequential ids and fresh namespaces, and the
// exact-JSON and error-envelope assertions, on any answer that is a ``TestAnswer`` (SandboxResponse here, the raw
// socket client's answer in EndToEndTests).
import Foundation
import PaymentSandboxTesting
import Testing

// MARK: Example bodies (klarna-api.md §2.1, §2.5, §2.7)

package enum KlarnaExamples {
    /// The docs' GB create-session example (klarna-api.md §2.1; the tax-handling worked example).
    package static let gbSession = #"""
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
    package static let gbOrder = #"""
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
    package static let gbCustomerToken = #"""
    { "description": "Monthly battery subscription", "intended_use": "SUBSCRIPTION", "locale": "en-GB",
      "purchase_country": "GB", "purchase_currency": "GBP",
      "billing_address": { "given_name": "Test", "family_name": "Person-uk", "street_address": "10 New Burlington Street",
        "street_address2": "Apt. 214", "postal_code": "W1S 3BE", "city": "London", "country": "GB",
        "email": "customer@email.uk", "phone": "+447755564318" },
      "customer": { "date_of_birth": "1970-07-10", "gender": "male" } }
    """#

    /// The docs' payment method category as the sandbox offers it by default (klarna-api.md §2.1).
    package static let klarnaCategory = #"""
    { "identifier": "klarna", "name": "Pay with Klarna",
      "asset_urls": {
        "descriptive": "https://x.klarnacdn.net/payment-method/assets/badges/generic/klarna.svg",
        "standard": "https://x.klarnacdn.net/payment-method/assets/badges/generic/klarna.svg" } }
    """#

    /// Edits a JSON object given as text and returns the new text.
    package static func edit(_ json: String, _ change: (inout [String: Any]) -> Void) -> String {
        var object = Self.object(json)
        change(&object)
        return jsonText(object)
    }

    package static func jsonText(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    package static func object(_ json: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] ?? [:]
    }
}

/// Create-session bodies of the Hosted Payment Page (klarna-api.md §4).
package enum KlarnaHPPBodies {
    package static let paymentSessionURL = "https://api.playground.klarna.com/payments/v1/sessions/"

    /// A create-session body for the KP session `kpSessionID`; `merchantURLs` and `options` are JSON object texts.
    package static func createBody(_ kpSessionID: String, merchantURLs: String? = nil, options: String? = nil) -> String {
        var members = [#""payment_session_url": "\#(paymentSessionURL)\#(kpSessionID)""#]
        if let merchantURLs { members.append(#""merchant_urls": \#(merchantURLs)"#) }
        if let options { members.append(#""options": \#(options)"#) }
        return "{" + members.joined(separator: ", ") + "}"
    }

    package static let allMerchantURLs = """
        {"success": "https://merchant.example/success?sid={{session_id}}&token={{authorization_token}}&order={{order_id}}",
         "cancel": "https://merchant.example/cancel?sid={{session_id}}",
         "back": "https://merchant.example/back?sid={{session_id}}",
         "failure": "https://merchant.example/failure?sid={{session_id}}",
         "error": "https://merchant.example/error?sid={{session_id}}"}
        """
}

// MARK: Ids and namespaces

/// The n-th id the sequential generator hands out.
package func sequentialID(_ n: Int) -> String {
    let digits = String(n, radix: 16)
    return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
}

/// A fresh namespace name per test, so tests never share state even on one sandbox.
package func uniqueNamespace(_ label: String) -> String {
    "kp-\(label)-\(UUID().uuidString.prefix(8).lowercased())"
}

// MARK: Assertions

/// An answer as the assertions read it, whichever client got it.
package protocol TestAnswer {
    var statusCode: Int { get }
    func header(_ name: String) -> String?
    var bodyData: Data { get }
    /// The head, for an expectation's message.
    var headSummary: String { get }
    /// What its client lets a test check of the framing: over a socket, the whole framing; in-process, where the
    /// transport frames the answer itself, only that a 204 has no body.
    func expectFraming(sourceLocation: SourceLocation)
}

extension TestAnswer {
    var bodyString: String { String(decoding: bodyData, as: UTF8.self) }
}

extension SandboxResponse: TestAnswer {
    package var statusCode: Int { status.code }
    package var bodyData: Data { body }
    package var headSummary: String { "\(status) \(headerFields.map { "\($0.name): \($0.value)" })" }

    package func expectFraming(sourceLocation: SourceLocation) {
        if status == .noContent { #expect(body.isEmpty, "204 with a body: \(text)", sourceLocation: sourceLocation) }
    }
}

/// The JSON text in a canonical form (sorted keys, no whitespace), or nil when it is not JSON.
package func canonicalJSON(_ data: Data) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
          let canonical = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    else { return nil }
    return String(decoding: canonical, as: UTF8.self)
}

/// Asserts status, a JSON content type, framing, and a body equal to `expected` as JSON (same keys, values and
/// array order; formatting and key order aside).
package func expectJSON(_ response: some TestAnswer, status: SandboxResponse.Status = .ok, _ expected: String,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.statusCode == status.code, "expected \(status): \(response)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(response.headSummary)", sourceLocation: sourceLocation)
    response.expectFraming(sourceLocation: sourceLocation)
    let actual = canonicalJSON(response.bodyData)
    let wanted = canonicalJSON(Data(expected.utf8))
    #expect(wanted != nil, "the expected text is not JSON: \(expected)", sourceLocation: sourceLocation)
    #expect(actual == wanted, "body differs.\n  actual:   \(actual ?? response.bodyString)\n  expected: \(wanted ?? expected)",
            sourceLocation: sourceLocation)
}

/// Asserts a 204 with no body.
package func expectNoContent(_ response: some TestAnswer, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.statusCode == 204, "expected 204: \(response)", sourceLocation: sourceLocation)
    #expect(response.bodyData.isEmpty, sourceLocation: sourceLocation)
    response.expectFraming(sourceLocation: sourceLocation)
}

/// A lower-case or upper-case 8-4-4-4-12 hex UUID.
package func isUUID(_ text: String) -> Bool {
    let groups = text.split(separator: "-", omittingEmptySubsequences: false)
    guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
    return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) } && UUID(uuidString: text) != nil
}

/// Klarna's error envelope (klarna-api.md §1.4): exactly `error_code`, `error_messages` and a UUID `correlation_id`,
/// as application/json. A 401 also names Basic in WWW-Authenticate. Returns the correlation id.
@discardableResult
package func expectKlarnaError(_ response: some TestAnswer, _ status: SandboxResponse.Status, _ code: String, _ messages: [String],
                               sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    #expect(response.statusCode == status.code, "expected \(status) \(code) \(messages): \(response)", sourceLocation: sourceLocation)
    #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(response.headSummary)", sourceLocation: sourceLocation)
    response.expectFraming(sourceLocation: sourceLocation)
    guard let object = (try? JSONSerialization.jsonObject(with: response.bodyData)) as? [String: Any] else {
        Issue.record("error body is not a JSON object: \(response)", sourceLocation: sourceLocation)
        return nil
    }
    let body = response.bodyString
    #expect(Set(object.keys) == ["error_code", "error_messages", "correlation_id"], "keys: \(body)", sourceLocation: sourceLocation)
    #expect(object["error_code"] as? String == code, "body: \(body)", sourceLocation: sourceLocation)
    #expect(object["error_messages"] as? [String] == messages, "body: \(body)", sourceLocation: sourceLocation)
    let correlation = object["correlation_id"] as? String
    #expect(correlation.map(isUUID) == true, "correlation_id is not a UUID: \(body)", sourceLocation: sourceLocation)
    if status == .unauthorized {
        #expect(response.header("WWW-Authenticate")?.lowercased().hasPrefix("basic") == true,
                "401 without WWW-Authenticate: Basic: \(response.headSummary)", sourceLocation: sourceLocation)
    }
    return correlation
}

// MARK: What the scenarios answer

package enum ScenarioExpect {
    /// The 200 of create session with the default category; returns the client token.
    @discardableResult
    package static func sessionCreated(_ response: some TestAnswer, id: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let object = (try? JSONSerialization.jsonObject(with: response.bodyData)) as? [String: Any]
        let clientToken = object?["client_token"] as? String
        #expect(clientToken.map { $0.split(separator: ".").count == 3 } == true, "client_token is not a JWT: \(response)",
                sourceLocation: sourceLocation)
        expectJSON(response, """
            {"session_id": "\(id)", "client_token": "\(clientToken ?? "?")",
             "payment_method_categories": [\(KlarnaExamples.klarnaCategory)]}
            """, sourceLocation: sourceLocation)
        return clientToken
    }

    /// What authorize() (or finalize()) answers when approved.
    package static func approved(_ response: some TestAnswer, token: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectJSON(response, #"{"approved": true, "show_form": true, "authorization_token": "\#(token)", "finalize_required": false}"#,
                   sourceLocation: sourceLocation)
    }

    /// The order create-order answers for the docs' example orders (both carry a confirmation URL, so a redirect_url
    /// on `origin`, the sandbox's).
    package static func order(_ response: some TestAnswer, id: String, origin: String, fraudStatus: String = "ACCEPTED",
                              sourceLocation: SourceLocation = #_sourceLocation) {
        expectJSON(response, """
            {"order_id": "\(id)", "redirect_url": "\(origin)/__sandbox/klarna/payments/orders/\(id)/redirect",
             "fraud_status": "\(fraudStatus)", "authorized_payment_method": {"type": "invoice", "number_of_days": 30}}
            """, sourceLocation: sourceLocation)
    }

    /// A hard decline: approved false, show_form false, no token.
    package static func rejected(_ response: some TestAnswer, sourceLocation: SourceLocation = #_sourceLocation) {
        expectJSON(response, #"{"approved": false, "show_form": false}"#, sourceLocation: sourceLocation)
    }
}
