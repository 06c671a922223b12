// SPDX-License-Identifier: MIT
// Klarna Payments in-process: the docs' GB and US examples end to end, session reads through the
// lifecycle, updates, idempotent create-order, the create-order consistency check, cancellation,
// customer tokens, redirects, the client token and concurrent create-order on one token.
// Most tests use a manual clock and sequential ids so that every body can be compared exactly.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna Payments: flows")
struct KlarnaPaymentsFlowTests {
    /// The read-only part of a session read with the default category (klarna-api.md §2.2).
    private func sessionRead(_ fields: String, clientToken: String, expiresAt: String, status: String,
                             authorizationToken: String? = nil) -> String {
        KlarnaExamples.edit(fields) { object in
            object["client_token"] = clientToken
            object["expires_at"] = expiresAt
            object["payment_method_categories"] = [KlarnaExamples.object(KlarnaExamples.klarnaCategory)]
            object["status"] = status
            if let authorizationToken { object["authorization_token"] = authorizationToken }
        }
    }

    @Test("GB example (§2.1): create, read, authorize, read, create order, read, redirect, state")
    func gbHappyFlow() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let namespace = uniqueNamespace("gb-flow")
            let client = KlarnaMerchant(sandbox, namespace: namespace)

            // Create: 200 merchant_session.
            let created = try await client.createSession()
            let clientToken = try #require(try created.requireJSONObject()["client_token"] as? String, "\(created)")
            expectJSON(created, """
                {"session_id": "\(sequentialID(1))", "client_token": "\(clientToken)",
                 "payment_method_categories": [\(KlarnaExamples.klarnaCategory)]}
                """)
            let sessionID = sequentialID(1)

            // Read before authorize: every field sent, the read-only ones, status incomplete, no token yet;
            // expires 48 h after creation (2027-01-15T08:00Z + 48 h).
            let fresh = try await client.readSession(sessionID)
            expectJSON(fresh, sessionRead(KlarnaExamples.gbSession, clientToken: clientToken,
                                          expiresAt: "2027-01-17T08:00:00.000Z", status: "incomplete"))

            // Authorize (the SDK's authorize(), approved).
            let authorized = try await client.authorize(sessionID)
            expectJSON(authorized, """
                {"approved": true, "show_form": true, "authorization_token": "\(sequentialID(2))", "finalize_required": false}
                """)
            let token = sequentialID(2)

            // Read after authorize: still incomplete, now with the authorization token; lifetime unchanged.
            let afterAuthorize = try await client.readSession(sessionID)
            expectJSON(afterAuthorize, sessionRead(KlarnaExamples.gbSession, clientToken: clientToken,
                                                   expiresAt: "2027-01-17T08:00:00.000Z", status: "incomplete",
                                                   authorizationToken: token))

            // Create order: 200 order with the object form of authorized_payment_method (§2.5) and a redirect_url,
            // because merchant_urls.confirmation was given.
            let order = try await client.createOrder(token)
            let orderID = sequentialID(3)
            expectJSON(order, """
                {"order_id": "\(orderID)",
                 "redirect_url": "\(sandbox.origin)/__sandbox/klarna/payments/orders/\(orderID)/redirect",
                 "fraud_status": "ACCEPTED",
                 "authorized_payment_method": {"type": "invoice", "number_of_days": 30}}
                """)

            // Read after the order: complete.
            let completed = try await client.readSession(sessionID)
            expectJSON(completed, sessionRead(KlarnaExamples.gbSession, clientToken: clientToken,
                                              expiresAt: "2027-01-17T08:00:00.000Z", status: "complete",
                                              authorizationToken: token))

            // The redirect: 303 to the confirmation URL with both placeholders filled.
            let redirect = try await client.get("/__sandbox/klarna/payments/orders/\(orderID)/redirect")
            #expect(redirect.status == 303, "\(redirect)")
            #expect(redirect.header("Location") == "https://example.com/confirmation?sid=\(sessionID)&oid=\(orderID)")

            // The control API sees exactly one session, one authorization and one order in this namespace.
            let state = try await client.paymentsState()
            let sessions = try #require(state["sessions"] as? [[String: Any]])
            let authorizations = try #require(state["authorizations"] as? [[String: Any]])
            let orders = try #require(state["orders"] as? [[String: Any]])
            #expect(sessions.count == 1 && authorizations.count == 1 && orders.count == 1, "\(state)")
            #expect(sessions.first?["status"] as? String == "complete")
            #expect(sessions.first?["order_id"] as? String == orderID)
            #expect(authorizations.first?["order_id"] as? String == orderID)
            #expect(orders.first?["order_id"] as? String == orderID)
            #expect(orders.first?["session_id"] as? String == sessionID)
            #expect(orders.first?["authorization_token"] as? String == token)
            #expect(orders.first?["order_amount"] as? Int == 62400)
        }
    }

    @Test("US example (§2.5): address given at authorize(), the docs' create-order body verbatim")
    func usHappyFlow() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("us-flow"))
            let created = try await client.createSession(KlarnaExamples.usSession)
            #expect(created.status == 200, "\(created)")
            let sessionID = sequentialID(1)
            #expect(try created.requireJSONObject()["session_id"] as? String == sessionID)

            let authorized = try await client.authorize(sessionID, #"{"jsonData": {"billing_address": \#(KlarnaExamples.usBillingAddress)}}"#)
            expectJSON(authorized, """
                {"approved": true, "show_form": true, "authorization_token": "\(sequentialID(2))", "finalize_required": false}
                """)

            let order = try await client.createOrder(sequentialID(2), KlarnaExamples.usOrder)
            let orderID = sequentialID(3)
            expectJSON(order, """
                {"order_id": "\(orderID)",
                 "redirect_url": "\(sandbox.origin)/__sandbox/klarna/payments/orders/\(orderID)/redirect",
                 "fraud_status": "ACCEPTED",
                 "authorized_payment_method": {"type": "invoice", "number_of_days": 30}}
                """)

            let read = try await client.readSession(sessionID)
            #expect(read.status == 200, "\(read)")
            let json = try read.requireJSONObject()
            #expect(json["status"] as? String == "complete")
            #expect(json["authorization_token"] as? String == sequentialID(2))
            #expect(json["purchase_country"] as? String == "US")
            #expect(json["order_amount"] as? Int == 10)

            let redirect = try await client.get("/__sandbox/klarna/payments/orders/\(orderID)/redirect")
            #expect(redirect.status == 303, "\(redirect)")
            #expect(redirect.header("Location") == "https://example.com/confirmation?sid=\(sessionID)&oid=\(orderID)")
        }
    }

    @Test("authorize() data may come as a JSON string (the mobile SDK's jsonData) and is compared at create-order")
    func authorizeWithJSONDataString() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("jsondata-string"))
            let sessionID = try await client.newSession(KlarnaExamples.usSession)
            let data = KlarnaExamples.jsonText(["billing_address": KlarnaExamples.object(KlarnaExamples.usBillingAddress)])
            let token = try await client.newAuthorization(sessionID, KlarnaExamples.jsonText(["jsonData": data, "auto_finalize": true]))
            let moved = KlarnaExamples.edit(KlarnaExamples.usOrder) { object in
                var address = object["billing_address"] as? [String: Any] ?? [:]
                address["postal_code"] = "10024"
                object["billing_address"] = address
            }
            expectKlarnaError(try await client.createOrder(token, moved), 409, "BAD_VALUE",
                              ["Not matching fields: [billing_address.postal_code]"])
            #expect(try await client.createOrder(token, KlarnaExamples.usOrder).status == 200)
        }
    }

    @Test("finalize and load stand-ins answer like the SDK")
    func finalizeAndLoad() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("finalize-load"))
            let created = try await client.createSession()
            let clientToken = try #require(try created.requireJSONObject()["client_token"] as? String)
            let sessionID = sequentialID(1)
            let load = try await client.post("/__sandbox/klarna/payments/sessions/\(sessionID)/load",
                                             #"{"client_token": "\#(clientToken)", "payment_method_category": "klarna"}"#)
            expectJSON(load, #"{"show_form": true}"#)
            expectJSON(try await client.post("/__sandbox/klarna/payments/sessions/\(sessionID)/load"), #"{"show_form": true}"#)
            let finalized = try await client.post("/__sandbox/klarna/payments/sessions/\(sessionID)/finalize", #"{"auto_finalize": false}"#)
            expectJSON(finalized, """
                {"approved": true, "show_form": true, "authorization_token": "\(sequentialID(2))", "finalize_required": false}
                """)
            #expect(try await client.createOrder(sequentialID(2)).status == 200)

            // Once complete, the widget no longer loads; a foreign token or an unknown category never does.
            let fresh = try await client.newSession()
            let wrongToken = try await client.post("/__sandbox/klarna/payments/sessions/\(fresh)/load", #"{"client_token": "\#(clientToken)"}"#)
            expectJSON(wrongToken, #"""
                {"show_form": false, "error": {"name": "InvalidClientTokenError", "action": "Initialize",
                 "message": "Error performing Klarna.Payments.init()", "is_fatal": false}}
                """#)
            let category = try await client.post("/__sandbox/klarna/payments/sessions/\(fresh)/load", #"{"payment_method_category": "pay_now"}"#)
            expectJSON(category, #"""
                {"show_form": false, "error": {"name": "ShowFormFalseError", "action": "Load",
                 "message": "Error performing Klarna.Payments.load()", "is_fatal": true}}
                """#)
            let completed = try await client.post("/__sandbox/klarna/payments/sessions/\(sessionID)/load")
            #expect(try completed.requireJSONObject()["show_form"] as? Bool == false, "\(completed)")
            expectSDKInvalidClientToken(try await client.post("/__sandbox/klarna/payments/sessions/\(sessionID)/finalize"),
                                        action: "Finalize")
        }
    }

    // MARK: Update

    @Test("update answers 204 and a read shows the merged fields and the extended lifetime")
    func updateMerges() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("update"))
            let created = try await client.createSession()
            let clientToken = try #require(try created.requireJSONObject()["client_token"] as? String)
            let sessionID = sequentialID(1)
            try await client.advanceClock(seconds: 600)

            let update = #"""
            { "merchant_reference2": "order-77",
              "billing_address": { "given_name": "Test", "family_name": "Person-uk", "postal_code": "W1S 3BE",
                                   "city": "London", "country": "GB" },
              "customer": { "date_of_birth": "1970-07-10", "national_identification_number": "secret" } }
            """#
            expectNoContent(try await client.updateSession(sessionID, update))

            // The fields sent are added, the others kept; customer_read hides national_identification_number
            // (§2.2); expires_at is now + 48 h (08:10 + 48 h).
            let merged = KlarnaExamples.edit(KlarnaExamples.gbSession) { object in
                object["merchant_reference2"] = "order-77"
                object["billing_address"] = ["given_name": "Test", "family_name": "Person-uk", "postal_code": "W1S 3BE",
                                             "city": "London", "country": "GB"]
                object["customer"] = ["date_of_birth": "1970-07-10"]
            }
            expectJSON(try await client.readSession(sessionID),
                       sessionRead(merged, clientToken: clientToken, expiresAt: "2027-01-17T08:10:00.000Z", status: "incomplete"))

            // A second update replaces the cart consistently (one line only) and keeps everything else.
            let newCart = #"""
            { "order_amount": 59500, "order_tax_amount": 9917,
              "order_lines": [ { "type": "physical", "reference": "19-402", "name": "Battery Power Pack",
                "quantity": 1, "unit_price": 59500, "tax_rate": 2000, "total_amount": 59500,
                "total_discount_amount": 0, "total_tax_amount": 9917 } ] }
            """#
            expectNoContent(try await client.updateSession(sessionID, newCart))
            let read = try await client.readSession(sessionID).requireJSONObject()
            #expect(read["order_amount"] as? Int == 59500)
            #expect(read["order_tax_amount"] as? Int == 9917)
            #expect((read["order_lines"] as? [Any])?.count == 1)
            #expect(read["merchant_reference2"] as? String == "order-77")
            #expect(read["merchant_reference1"] as? String == "45aa52f387871e3a210645d4")

            // An empty update is valid (nothing changes but the lifetime).
            expectNoContent(try await client.updateSession(sessionID, "{}"))
        }
    }

    @Test("an update that breaks the session is 400 BAD_VALUE and changes nothing")
    func invalidUpdateChangesNothing() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("update-invalid"))
            let sessionID = try await client.newSession()
            let before = try await client.readSession(sessionID)
            // order_amount no longer matches the lines (§2.9 rule 3).
            expectKlarnaError(try await client.updateSession(sessionID, #"{"order_amount": 1}"#), 400, "BAD_VALUE",
                              ["Bad value: order_amount"])
            expectKlarnaError(try await client.updateSession(sessionID, #"{"purchase_currency": "EUR"}"#), 400, "BAD_VALUE",
                              ["Bad value: purchase_currency"])
            let after = try await client.readSession(sessionID)
            #expect(canonicalJSON(Data(after.body)) == canonicalJSON(Data(before.body)))
        }
    }

    @Test("once the order is placed: update, delete and another token's order are 404 SESSION_COMPLETED; authorize() fails")
    func completedSessionRefusesPrePurchaseCalls() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("completed"))
            let sessionID = try await client.newSession()
            let first = try await client.newAuthorization(sessionID)
            let second = try await client.newAuthorization(sessionID)
            #expect(first != second)
            _ = try await client.newOrder(first)

            let completed = ["Session has already been completed"]
            expectKlarnaError(try await client.updateSession(sessionID, #"{"merchant_reference2": "late"}"#), 404,
                              "SESSION_COMPLETED", completed)
            expectKlarnaError(try await client.createOrder(second), 404, "SESSION_COMPLETED", completed)
            expectSDKInvalidClientToken(try await client.authorize(sessionID))
            expectKlarnaError(try await client.delete("/payments/v1/sessions/\(sessionID)"), 404, "SESSION_COMPLETED", completed)
            // Reading is still fine.
            #expect(try await client.readSession(sessionID).requireJSONObject()["status"] as? String == "complete")
        }
    }

    // MARK: Create order

    @Test("create order is idempotent for the same body; another body is 409")
    func idempotentCreateOrder() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("idempotent"))
            let (_, token) = try await client.authorizedSession()
            let first = try await client.createOrder(token)
            #expect(first.status == 200, "\(first)")
            let orderID = try #require(try first.requireJSONObject()["order_id"] as? String)

            // The same body again, byte for byte and re-encoded (other key order, no whitespace): the same order.
            let again = try await client.createOrder(token)
            expectJSON(again, first.text)
            let reencoded = try await client.createOrder(token, KlarnaExamples.edit(KlarnaExamples.gbOrder) { _ in })
            expectJSON(reencoded, first.text)

            // Another body: 409 BAD_VALUE (§3.1).
            let different = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["merchant_reference2"] = "retry-2" }
            expectKlarnaError(try await client.createOrder(token, different), 409, "BAD_VALUE",
                              ["The order has been already completed with different request body"])
            let state = try await client.paymentsState()
            #expect((state["orders"] as? [[String: Any]])?.map { $0["order_id"] as? String } == [orderID], "\(state)")
        }
    }

    @Test("20 concurrent create-order calls on one token make exactly one order")
    func concurrentCreateOrder() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("race"))
            let (sessionID, token) = try await client.authorizedSession()
            let responses = try await withThrowingTaskGroup(of: SandboxResponse.self) { group in
                for _ in 0..<20 { group.addTask { try await client.createOrder(token) } }
                var all: [SandboxResponse] = []
                for try await response in group { all.append(response) }
                return all
            }
            #expect(responses.count == 20)
            #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.filter { $0.status != 200 }.prefix(3))")
            let ids = Set(responses.compactMap { try? $0.requireJSONObject()["order_id"] as? String })
            #expect(ids.count == 1, "distinct order ids: \(ids)")
            #expect(Set(responses.map(\.text)).count == 1)

            let state = try await client.paymentsState()
            let orders = try #require(state["orders"] as? [[String: Any]])
            #expect(orders.count == 1, "\(state)")
            #expect(orders.first?["order_id"] as? String == ids.first)
            #expect(orders.first?["session_id"] as? String == sessionID)
            #expect((state["sessions"] as? [[String: Any]])?.first?["status"] as? String == "complete")
        }
    }

    @Test("Not matching fields: a billing address that differs from the authorized one (§2.9 rule 8)")
    func notMatchingPostalCode() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("mismatch-postal"))
            let address = #"{"given_name": "Test", "family_name": "Person-uk", "street_address": "10 New Burlington Street", "postal_code": "W1S 3BE", "city": "London", "country": "GB"}"#
            let (_, token) = try await client.authorizedSession(authorizeBody: #"{"jsonData": {"billing_address": \#(address)}}"#)
            let moved = KlarnaExamples.edit(KlarnaExamples.gbOrder) { object in
                var billing = KlarnaExamples.object(address)
                billing["postal_code"] = "W1S 3BF"
                object["billing_address"] = billing
            }
            expectKlarnaError(try await client.createOrder(token, moved), 409, "BAD_VALUE",
                              ["Not matching fields: [billing_address.postal_code]"])
            // The authorized address itself is accepted.
            let same = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["billing_address"] = KlarnaExamples.object(address) }
            #expect(try await client.createOrder(token, same).status == 200)
        }
    }

    @Test("Not matching fields: shipping_address.organization_name (krokedil #132)")
    func notMatchingShippingOrganization() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("mismatch-org"))
            let shipping = #"{"organization_name": "Testcompany-uk", "street_address": "34 Global Avenue", "postal_code": "X9 9LG", "city": "Test Town", "country": "GB"}"#
            let (_, token) = try await client.authorizedSession(authorizeBody: #"{"jsonData": {"shipping_address": \#(shipping)}}"#)
            let renamed = KlarnaExamples.edit(KlarnaExamples.gbOrder) { object in
                var address = KlarnaExamples.object(shipping)
                address["organization_name"] = "Testcompany-uk Ltd"
                object["shipping_address"] = address
            }
            expectKlarnaError(try await client.createOrder(token, renamed), 409, "BAD_VALUE",
                              ["Not matching fields: [shipping_address.organization_name]"])
        }
    }

    @Test("Not matching fields: a cart with a different number of lines (krokedil #169)")
    func notMatchingCartCount() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("mismatch-count"))
            let (_, token) = try await client.authorizedSession()
            // A valid three-line cart with the same total (shipping split in two; arithmetic and tax hold),
            // so only the number of lines differs.
            let threeLines = KlarnaExamples.edit(KlarnaExamples.gbOrder) { object in
                var lines = object["order_lines"] as? [Any] ?? []
                lines.removeLast()
                lines.append(["type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2000,
                              "tax_rate": 2000, "total_amount": 2000, "total_tax_amount": 333])
                lines.append(["type": "shipping_fee", "name": "Express surcharge", "quantity": 1, "unit_price": 900,
                              "tax_rate": 2000, "total_amount": 900, "total_tax_amount": 150])
                object["order_lines"] = lines
            }
            let response = try await client.createOrder(token, threeLines)
            expectKlarnaError(response, 409, "BAD_VALUE",
                              ["Not matching fields: [Incorrect number of items in the cart. Expected: 2, Actual: 3]"])
            #expect(response.text.contains(#""Not matching fields: [Incorrect number of items in the cart. Expected: 2, Actual: 3]""#))
        }
    }

    @Test("Not matching fields: an added line is reported as the cart count alone, as in the issue table")
    func notMatchingAddedLine() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("mismatch-added"))
            let (_, token) = try await client.authorizedSession()
            // An item added after authorize(): one more line and a larger (consistent) total.
            let threeLines = KlarnaExamples.edit(KlarnaExamples.gbOrder) { object in
                var lines = object["order_lines"] as? [Any] ?? []
                lines.append(["type": "physical", "reference": "19-403", "name": "USB-C Cable", "quantity": 1,
                              "unit_price": 1200, "tax_rate": 2000, "total_amount": 1200, "total_tax_amount": 200])
                object["order_lines"] = lines
                object["order_amount"] = 63600
                object["order_tax_amount"] = 10600
            }
            let response = try await client.createOrder(token, threeLines)
            #expect(response.status == 409, "\(response)")
            // The only real sample (krokedil #169, an added item) names the count alone, not the amount.
            expectKlarnaError(response, 409, "BAD_VALUE",
                              ["Not matching fields: [Incorrect number of items in the cart. Expected: 2, Actual: 3]"])
        }
    }

    @Test("an address sent only at create-order matches an authorization that had none")
    func emptyAuthorizedAddressMatches() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("empty-matches"))
            let (_, token) = try await client.authorizedSession(KlarnaExamples.usSession)
            #expect(try await client.createOrder(token, KlarnaExamples.usOrder).status == 200)
        }
    }

    @Test("create order validates its body: 400 BAD_VALUE")
    func createOrderValidates() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("order-validation"))
            let (_, token) = try await client.authorizedSession()
            let wrongSum = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["order_amount"] = 62401 }
            expectKlarnaError(try await client.createOrder(token, wrongSum), 400, "BAD_VALUE", ["Bad value: order_amount"])
            let noLines = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["order_lines"] = nil }
            expectKlarnaError(try await client.createOrder(token, noLines), 400, "BAD_VALUE", ["Bad value: order_lines"])
            // The token is still good for a valid body.
            #expect(try await client.createOrder(token).status == 200)
        }
    }

    // MARK: Cancelling

    @Test("a cancelled authorization cannot place an order: 404 Invalid authorization token")
    func cancelledAuthorization() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("cancel"))
            let (sessionID, token) = try await client.authorizedSession()
            expectNoContent(try await client.cancelAuthorization(token))
            let invalid = ["Invalid authorization token"]
            expectKlarnaError(try await client.createOrder(token), 404, "NOT_FOUND", invalid)
            // §3.1 lists "Authorization cannot be deleted" for deleting one that is gone.
            expectKlarnaError(try await client.cancelAuthorization(token), 404, "NOT_FOUND", ["Authorization cannot be deleted"])
            expectKlarnaError(try await client.createCustomerToken(token), 404, "NOT_FOUND", invalid)
            // The session lives on and can be authorized again.
            let again = try await client.newAuthorization(sessionID)
            #expect(try await client.createOrder(again).status == 200)
            // A consumed token cannot be cancelled (§3.1 403 INVALID_OPERATION).
            expectKlarnaError(try await client.cancelAuthorization(again), 403, "INVALID_OPERATION",
                              ["Authorization token already consumed"])
        }
    }

    @Test("a token still within its 60 minutes answers the same whether or not its expired session was read first")
    func tokenOnExpiredSessionIsConsistent() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("expired-session-token"))
            let first = try await client.newSession()
            let second = try await client.newSession()
            try await client.advanceClock(seconds: 47 * 3600 + 30 * 60)
            let firstToken = try await client.newAuthorization(first)
            let secondToken = try await client.newAuthorization(second)
            // 48 h 15 min: both sessions have expired; both tokens are 45 minutes old.
            try await client.advanceClock(seconds: 45 * 60)
            expectKlarnaError(try await client.readSession(first), 404, "NOT_FOUND", ["Invalid session id"])
            let afterRead = try await client.createOrder(firstToken)
            let unread = try await client.createOrder(secondToken)
            // A token guarantees its order for 60 minutes (§2.4), whether or not the session was read since.
            #expect(afterRead.status == 200, "\(afterRead)")
            #expect(unread.status == 200, "\(unread)")
        }
    }

    @Test("a deleted session is gone, and so are its tokens")
    func deletedSession() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("delete-session"))
            let (sessionID, token) = try await client.authorizedSession()
            expectNoContent(try await client.delete("/payments/v1/sessions/\(sessionID)"))
            expectKlarnaError(try await client.readSession(sessionID), 404, "NOT_FOUND", ["Invalid session id"])
            expectKlarnaError(try await client.createOrder(token), 404, "NOT_FOUND", ["Invalid authorization token"])
        }
    }

    @Test("unknown ids: 404 NOT_FOUND with Klarna's messages")
    func unknownIDs() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("unknown"))
            let missing = "8fa7944f-5004-1366-a66f-90e39818534f"
            let session = ["Invalid session id"], token = ["Invalid authorization token"]
            expectKlarnaError(try await client.readSession(missing), 404, "NOT_FOUND", session)
            expectKlarnaError(try await client.updateSession(missing, "{}"), 404, "NOT_FOUND", session)
            expectKlarnaError(try await client.delete("/payments/v1/sessions/\(missing)"), 404, "NOT_FOUND", session)
            expectSDKUnknownSession(try await client.authorize(missing), namespace: client.namespace ?? "")
            expectKlarnaError(try await client.createOrder(missing), 404, "NOT_FOUND", token)
            expectKlarnaError(try await client.cancelAuthorization(missing), 404, "NOT_FOUND", ["Authorization cannot be deleted"])
            expectKlarnaError(try await client.createCustomerToken(missing), 404, "NOT_FOUND", token)
        }
    }

    // MARK: Customer token (§2.7)

    @Test("customer token: intent buy is 403 INVALID_OPERATION")
    func customerTokenForBuy() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ctoken-buy"))
            let (_, implicitBuy) = try await client.authorizedSession()
            let forbidden = ["Not allowed to create customer token for intent buy"]
            expectKlarnaError(try await client.createCustomerToken(implicitBuy), 403, "INVALID_OPERATION", forbidden)
            let buy = KlarnaExamples.edit(KlarnaExamples.gbSession) { $0["intent"] = "buy" }
            let (_, explicitBuy) = try await client.authorizedSession(buy)
            expectKlarnaError(try await client.createCustomerToken(explicitBuy), 403, "INVALID_OPERATION", forbidden)
        }
    }

    @Test("customer token: intent tokenize and buy_and_tokenize answer customer_token_creation_response",
          arguments: ["tokenize", "buy_and_tokenize"])
    func customerTokenForTokenize(intent: String) async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ctoken-\(intent)"))
            let session = KlarnaExamples.edit(KlarnaExamples.gbSession) { $0["intent"] = intent }
            let (_, token) = try await client.authorizedSession(session)  // ids 1 and 2
            let request = KlarnaExamples.object(KlarnaExamples.gbCustomerToken)
            let response = try await client.createCustomerToken(token)
            expectJSON(response, KlarnaExamples.jsonText([
                "token_id": sequentialID(3),
                "payment_method_reference": sequentialID(4),
                "billing_address": request["billing_address"] as Any,
                "customer": ["date_of_birth": "1970-07-10", "gender": "male"],
            ]))
        }
    }

    @Test("customer token: the request is validated (400 BAD_VALUE in ErrorV2)")
    func customerTokenValidation() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("ctoken-invalid"))
            let session = KlarnaExamples.edit(KlarnaExamples.gbSession) { $0["intent"] = "tokenize" }
            let (_, token) = try await client.authorizedSession(session)
            let noDescription = KlarnaExamples.edit(KlarnaExamples.gbCustomerToken) { $0["description"] = nil }
            expectKlarnaError(try await client.createCustomerToken(token, noDescription), 400, "BAD_VALUE", ["Bad value: description"])
            let oneOff = KlarnaExamples.edit(KlarnaExamples.gbCustomerToken) { $0["intended_use"] = "ONE_OFF" }
            expectKlarnaError(try await client.createCustomerToken(token, oneOff), 400, "BAD_VALUE", ["Bad value: intended_use"])
            let wrongCurrency = KlarnaExamples.edit(KlarnaExamples.gbCustomerToken) { $0["purchase_currency"] = "EUR" }
            expectKlarnaError(try await client.createCustomerToken(token, wrongCurrency), 400, "BAD_VALUE", ["Bad value: purchase_currency"])
            #expect(try await client.createCustomerToken(token).status == 200)
        }
    }

    // MARK: Redirect, client token

    @Test("no confirmation URL: no redirect_url, and the redirect route is 404")
    func noConfirmationNoRedirect() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("no-redirect"))
            let (_, token) = try await client.authorizedSession()
            let order = try await client.createOrder(token, KlarnaExamples.gbSession)
            expectJSON(order, """
                {"order_id": "\(sequentialID(3))", "fraud_status": "ACCEPTED",
                 "authorized_payment_method": {"type": "invoice", "number_of_days": 30}}
                """)
            let redirect = try await client.get("/__sandbox/klarna/payments/orders/\(sequentialID(3))/redirect")
            #expect(redirect.status == 404, "\(redirect)")
        }
    }

    @Test("redirect_url works for a browser, which sends neither credentials nor Sandbox-Namespace")
    func redirectFromABrowser() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("browser"))
            let (sessionID, token) = try await client.authorizedSession()
            let orderID = try await client.newOrder(token)
            let order = try await client.createOrder(token)
            let redirectText = try #require(try order.requireJSONObject()["redirect_url"] as? String, "\(order)")
            let redirectURL = try #require(URL(string: redirectText))
            var browser = KlarnaMerchant(sandbox, namespace: nil)
            browser.authorization = ""
            let redirect = try await browser.get(redirectURL.path)
            // A browser following redirect_url names no namespace: the order is found wherever it is.
            #expect(redirect.status == 303, "\(redirect)")
            #expect(redirect.header("Location") == "https://example.com/confirmation?sid=\(sessionID)&oid=\(orderID)")
        }
    }

    @Test("redirect_url follows X-Forwarded-Proto and X-Forwarded-Host behind a trusted proxy")
    func redirectBehindProxy() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration { $0.trustedForwardedHeaders = .all }) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("proxy"))
            let (_, token) = try await client.authorizedSession()
            let order = try await client.send("POST", "/payments/v1/authorizations/\(token)/order", body: KlarnaExamples.gbOrder,
                                              headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "sandbox.example.test"])
            #expect(order.status == 200, "\(order)")
            #expect(try order.requireJSONObject()["redirect_url"] as? String
                    == "https://sandbox.example.test/__sandbox/klarna/payments/orders/\(sequentialID(3))/redirect")
        }
    }

    @Test("the client_token is a three-part JWT whose payload names the session")
    func clientTokenIsJWT() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("jwt"))
            for (body, country, region) in [(KlarnaExamples.gbSession, "GB", "eu"), (KlarnaExamples.usSession, "US", "na")] {
                let created = try await client.createSession(body)
                let json = try created.requireJSONObject()
                let sessionID = try #require(json["session_id"] as? String)
                #expect(isUUID(sessionID), "session_id \(sessionID)")
                let token = try #require(json["client_token"] as? String)
                #expect(token.count <= 4096)
                let parts = token.split(separator: ".", omittingEmptySubsequences: false)
                try #require(parts.count == 3, "not a JWT: \(token)")
                #expect(parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } },
                        "segments must be base64url without padding: \(token)")
                let header = try #require(jwtSegment(parts[0]), "header does not decode: \(parts[0])")
                #expect(header["alg"] as? String == "RS256")
                let payload = try #require(jwtSegment(parts[1]), "payload does not decode: \(parts[1])")
                #expect(payload["session_id"] as? String == sessionID)
                #expect(payload["purchase_country"] as? String == country)
                #expect(payload["base_url"] as? String == "https://js.playground.klarna.com/\(region)/kp")
                #expect(payload["environment"] as? String == "playground")
                #expect(payload["session_type"] as? String == "PAYMENTS")
                // The read shows the same token.
                #expect(try await client.readSession(sessionID).requireJSONObject()["client_token"] as? String == token)
            }
        }
    }
}
