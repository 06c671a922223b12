// SPDX-License-Identifier: MIT
// The Klarna Customer Token API in-process, through the testing product's SandboxClient (klarna-api.md §5b), as klarna/kco_rest_php's
// `CustomerToken\Tokens` calls it: a KP `tokenize` session, the SDK stand-in's authorize and the customer-token
// call make the token; then GET the token, POST …/order (an Order Management order), PATCH …/status
// (a cancelled token refuses orders), and Klarna's envelope for every error, including unknown paths.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

/// A monthly subscription cart (GB), as a recurring order carries it.
private let subscriptionCart = #"""
    {"purchase_country": "GB", "purchase_currency": "GBP", "locale": "en-GB", "order_amount": 9900, "order_tax_amount": 1650,
     "order_lines": [{"type": "digital", "name": "Battery subscription", "quantity": 1, "unit_price": 9900, "tax_rate": 2000,
                      "total_amount": 9900, "total_tax_amount": 1650,
                      "subscription": {"name": "Battery subscription", "interval": "MONTH", "interval_count": 1}}]}
    """#

private extension KlarnaMerchant {
    /// A customer token from a `tokenize` session (fails the test unless each step succeeds); returns its token_id.
    func newCustomerToken(scenario: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let session = try await createSession(KlarnaExamples.edit(subscriptionCart) { $0["intent"] = "tokenize" }, scenario: scenario)
        try #require(session.status == .ok, "create session: \(session.status) \(session.text)", sourceLocation: sourceLocation)
        let sessionID = try session.decode(CreatedSession.self).session_id
        let token = try await newAuthorization(sessionID, sourceLocation: sourceLocation)
        let created = try await createCustomerToken(token)
        try #require(created.status == .ok, "customer-token: \(created.status) \(created.text)", sourceLocation: sourceLocation)
        return try created.decode(CreatedToken.self).token_id
    }

    func tokenOrder(_ tokenID: String, _ body: String = subscriptionCart, key: String? = nil) async throws -> SandboxResponse {
        try await send(.post, "/customer-token/v1/tokens/\(tokenID)/order", body: body,
                       headers: key.map { ["Klarna-Idempotency-Key": $0] } ?? [:])
    }

    func tokenStatus(_ tokenID: String, _ body: String = #"{"status": "CANCELLED"}"#) async throws -> SandboxResponse {
        try await send(.patch, "/customer-token/v1/tokens/\(tokenID)/status", body: body)
    }
}

private struct CreatedToken: Decodable { var token_id: String }
private struct PlacedOrder: Decodable { var order_id: String; var fraud_status: String }

@Suite("Klarna Customer Token API")
struct KlarnaCustomerTokenTests {
    @Test("GET token: ACTIVE, INVOICE; POST order: 200 with the order, an AUTHORIZED Order Management order with the token's address")
    func readTokenAndCreateOrder() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ct-order"))
            let tokenID = try await client.newCustomerToken()
            expectJSON(try await client.get("/customer-token/v1/tokens/\(tokenID)"), #"{"status": "ACTIVE", "payment_method_type": "INVOICE"}"#)

            let created = try await client.tokenOrder(tokenID)
            let orderID = try created.decode(PlacedOrder.self).order_id
            expectJSON(created, """
                {"order_id": "\(orderID)", "fraud_status": "ACCEPTED", "authorized_payment_method": {"type": "invoice", "number_of_days": 30}}
                """)
            let order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "AUTHORIZED" && order["order_amount"] as? Int == 9900, "\(order)")
            let line = try #require((order["order_lines"] as? [[String: Any]])?.first)
            #expect((line["subscription"] as? [String: Any])?["interval_count"] as? Int == 1)
            // The billing address the customer token was created with (KlarnaExamples.gbCustomerToken).
            #expect((order["billing_address"] as? [String: Any])?["postal_code"] as? String == "W1S 3BE", "\(order)")
            // An Order Management order like any other: it can be captured.
            let capture = try await client.omCapture(orderID, #"{"captured_amount": 9900}"#)
            #expect(capture.status == .created, "\(capture.status) \(capture.text)")
        }
    }

    @Test("POST order with auto_capture: CAPTURED at once; the same Klarna-Idempotency-Key answers the same order and places one")
    func createOrder_AutoCaptureAndIdempotency() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ct-idempotent"))
            let tokenID = try await client.newCustomerToken()
            let body = KlarnaExamples.edit(subscriptionCart) { $0["auto_capture"] = true }
            let first = try await client.tokenOrder(tokenID, body, key: "month-2027-01")
            let second = try await client.tokenOrder(tokenID, body, key: "month-2027-01")
            #expect(first.status == .ok && second.status == .ok, "\(first.text) \(second.text)")
            #expect(first.text == second.text)
            let orderID = try first.decode(PlacedOrder.self).order_id
            #expect(try await client.omOrderObject(orderID)["status"] as? String == "CAPTURED")
            #expect(try await client.orderManagementState().count == 1)
            let other = try await client.tokenOrder(tokenID, body, key: "month-2027-02")
            #expect(try other.decode(PlacedOrder.self).order_id != orderID)
            #expect(try await client.orderManagementState().count == 2)
        }
    }

    @Test("PATCH status CANCELLED: 202 without a body; the token reads CANCELLED and refuses new orders with 403 TOKEN_CANCELLED")
    func cancelToken_RefusesOrders() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ct-cancel"))
            let tokenID = try await client.newCustomerToken()
            expectKlarnaError(try await client.tokenStatus(tokenID, #"{"status": "ACTIVE"}"#), 400, "BAD_VALUE", ["Bad value: status"])
            let cancelled = try await client.tokenStatus(tokenID)
            #expect(cancelled.status == .accepted && cancelled.body.isEmpty, "\(cancelled.status) \(cancelled.text)")
            expectJSON(try await client.get("/customer-token/v1/tokens/\(tokenID)"), #"{"status": "CANCELLED", "payment_method_type": "INVOICE"}"#)
            expectKlarnaError(try await client.tokenOrder(tokenID), 403, "TOKEN_CANCELLED", ["Customer token is cancelled"])
            #expect(try await client.orderManagementState().isEmpty)
            #expect(try await client.tokenStatus(tokenID).status == .accepted)
        }
    }

    @Test("unknown token (or another namespace's): 404 per operation; bad order body 400; another currency 403; unknown path, wrong method, no credentials")
    func errors() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ct-errors"))
            let tokenID = try await client.newCustomerToken()
            for id in [sequentialID(99), tokenID] {
                let stranger = id == tokenID ? client.namespace(uniqueNamespace("ct-stranger")) : client
                expectKlarnaError(try await stranger.get("/customer-token/v1/tokens/\(id)"), 404, "NOT_FOUND", ["Invalid customer-token ID"])
                expectKlarnaError(try await stranger.tokenOrder(id), 404, "TOKEN_NOT_FOUND", ["Customer token not found"])
                expectKlarnaError(try await stranger.tokenStatus(id), 404, "NOT_FOUND", ["Invalid token ID"])
            }
            expectKlarnaError(try await client.tokenOrder(tokenID, KlarnaExamples.edit(subscriptionCart) { $0["order_amount"] = 9800 }),
                              400, "BAD_VALUE", ["Bad value: order_amount"])
            let euro = KlarnaExamples.edit(subscriptionCart) { $0["purchase_currency"] = "EUR"; $0["purchase_country"] = "DE"; $0["locale"] = "de-DE" }
            expectKlarnaError(try await client.tokenOrder(tokenID, euro), 403, "PAYMENT_METHOD_CURRENCY_MISMATCH",
                              ["The customer token's payment method is not available for EUR (the token was created for GBP)"])
            let unknownPath = try await client.get("/customer-token/v1/tokens/\(tokenID)/nothing-here")
            expectKlarnaError(unknownPath, 404, "NOT_FOUND", ["No route for /customer-token/v1/tokens/\(tokenID)/nothing-here"])
            let wrongMethod = try await client.send(.delete, "/customer-token/v1/tokens/\(tokenID)")
            expectKlarnaError(wrongMethod, 405, "METHOD_NOT_ALLOWED", ["Method DELETE is not allowed here"])
            #expect(wrongMethod.header("Allow") == "GET, HEAD", "\(wrongMethod.headerFields)")
            var anonymous = client
            anonymous.authorization = ""
            expectKlarnaError(try await anonymous.get("/customer-token/v1/tokens/\(tokenID)"), 401, "UNAUTHORIZED", [])
        }
    }

    @Test("scenarios: create_order rejected → 403 PAYMENT_METHOD_FAILED, refused → 403 UNAVAILABLE_PAYMENT_METHOD, then fraud_pending")
    func scenarioOutcomes() async throws {
        let file = scenarioFile("ct-charges", rules: [
            #"{"operation": "klarna.customertoken.create_order", "sequence": [{"outcome": "rejected"}, {"outcome": "refused"}, {"outcome": "fraud_pending"}]}"#,
        ])
        try await withScenarioFiles(["ct-charges.json": file]) { directory in
            let configuration = deterministicConfiguration(bundledScenarios: false, scenarioDirectories: [directory])
            try await SandboxTest.run(.inProcess, configuration: configuration) { sandbox in
                let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ct-scenario"))
                let tokenID = try await client.newCustomerToken(scenario: "ct-charges")
                expectKlarnaError(try await client.tokenOrder(tokenID), 403, "PAYMENT_METHOD_FAILED", ["Payment method failed"])
                expectKlarnaError(try await client.tokenOrder(tokenID), 403, "UNAVAILABLE_PAYMENT_METHOD", ["Payment method unavailable"])
                let pending = try await client.tokenOrder(tokenID)
                #expect(try pending.decode(PlacedOrder.self).fraud_status == "PENDING", "\(pending.text)")
                let lines = try await client.journalLines()
                #expect(lines.contains { $0.contains("/customer-token/v1/tokens/\(tokenID)/order 403 scenario=ct-charges klarna.customertoken.create_order: rejected") },
                        "\(lines)")
            }
        }
    }
}
