// SPDX-License-Identifier: MIT
// Klarna Order Management in-process (klarna-api.md §5, §3.2): a KP flow places the order, then
// reads, partial and full captures, refunds, cancel, release, extend, acknowledge, idempotency keys,
// auto_capture, expiry on the namespace clock, 404s and 401 in Klarna's envelope, concurrent captures,
// and the scenario engine (the bundled capture-refused scenario, an http_error sequence).
// A manual clock and sequential ids make every body exact: session 1, token 2, order 3, then captures/refunds.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

/// 201, no body, the id header and an absolute Location on the sandbox (§5). Returns the id.
@discardableResult
private func expectCreated(_ response: SandboxResponse, _ idHeader: String, id: String, orderID: String, collection: String, origin: String,
                           sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    #expect(response.status == 201, "expected 201: \(response)", sourceLocation: sourceLocation)
    #expect(response.body.isEmpty, "201 with a body: \(response)", sourceLocation: sourceLocation)
    #expect(response.header(idHeader) == id, "\(response.summary)", sourceLocation: sourceLocation)
    #expect(response.header("Location") == "\(origin)/ordermanagement/v1/orders/\(orderID)/\(collection)/\(id)",
            "\(response.summary)", sourceLocation: sourceLocation)
    return response.header(idHeader)
}

private let gbLines = KlarnaExamples.jsonText(KlarnaExamples.object(KlarnaExamples.gbOrder)["order_lines"] ?? [])

@Suite("Klarna Order Management")
struct KlarnaOrderManagementTests {
    @Test("GET order after KP create order (§5): the placed order, AUTHORIZED, 28 days to capture")
    func readOrder_AfterCreateOrder() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-read"))
            let orderID = try await client.placedOrder()
            #expect(orderID == sequentialID(3))
            let response = try await client.omOrder(orderID)
            let reference = try #require(try response.requireJSONObject()["klarna_reference"] as? String)
            #expect(reference.count == 8 && reference.allSatisfy { $0.isUppercase || $0.isNumber }, "\(reference)")
            expectJSON(response, """
                {"order_id": "\(orderID)", "status": "AUTHORIZED", "fraud_status": "ACCEPTED",
                 "order_amount": 62400, "original_order_amount": 62400, "captured_amount": 0, "refunded_amount": 0,
                 "remaining_authorized_amount": 62400, "purchase_country": "GB", "purchase_currency": "GBP", "locale": "en-GB",
                 "order_lines": \(gbLines), "merchant_reference1": "45aa52f387871e3a210645d4", "klarna_reference": "\(reference)",
                 "created_at": "2027-01-15T08:00:00.000Z", "expires_at": "2027-02-12T08:00:00.000Z",
                 "captures": [], "refunds": [], "initial_payment_method": {"type": "INVOICE"}}
                """)
        }
    }

    @Test("US order: billing address and customer date of birth come through; the customer's other fields do not")
    func readOrder_WithAddressAndCustomer() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-us"))
            let session = try await client.newSession(KlarnaExamples.usSession)
            let token = try await client.newAuthorization(session, #"{"jsonData": {"billing_address": \#(KlarnaExamples.usBillingAddress)}}"#)
            let orderID = try await client.newOrder(token, KlarnaExamples.usOrder)
            let order = try await client.omOrderObject(orderID)
            #expect(canonicalJSON(try JSONSerialization.data(withJSONObject: order["billing_address"] ?? [:]))
                    == canonicalJSON(Data(KlarnaExamples.usBillingAddress.utf8)))
            #expect(order["customer"] == nil && order["shipping_address"] == nil && order["merchant_data"] == nil)
            #expect(order["purchase_currency"] as? String == "USD" && order["order_amount"] as? Int == 10)
        }
    }

    @Test("partial capture → PART_CAPTURED, the rest → CAPTURED, beyond → 403; refunds; cancel after capture → 403")
    func captureAndRefund_Lifecycle() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-capture"))
            let orderID = try await client.placedOrder()
            let reference = try #require(try await client.omOrderObject(orderID)["klarna_reference"] as? String)

            let first = try await client.omCapture(orderID, """
                {"captured_amount": 20000, "description": "First parcel", "reference": "parcel-1",
                 "order_lines": [{"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1,
                                  "unit_price": 20000, "total_amount": 20000}],
                 "shipping_info": [{"shipping_company": "DHL US", "tracking_number": "1234567890", "shipping_method": "Home"}],
                 "shipping_delay": 2}
                """)
            expectCreated(first, "Capture-Id", id: sequentialID(4), orderID: orderID, collection: "captures", origin: sandbox.origin)
            var order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "PART_CAPTURED")
            #expect(order["captured_amount"] as? Int == 20000 && order["remaining_authorized_amount"] as? Int == 42400)

            let firstCapture = """
                {"capture_id": "\(sequentialID(4))", "klarna_reference": "\(reference)-1", "captured_amount": 20000,
                 "captured_at": "2027-01-15T08:00:00.000Z", "description": "First parcel", "reference": "parcel-1",
                 "order_lines": [{"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1,
                                  "unit_price": 20000, "total_amount": 20000}],
                 "refunded_amount": 0,
                 "shipping_info": [{"shipping_company": "DHL US", "tracking_number": "1234567890", "shipping_method": "Home"}]}
                """
            expectJSON(try await client.get("/ordermanagement/v1/orders/\(orderID)/captures/\(sequentialID(4))"), firstCapture)

            try await client.advanceClock(seconds: 3600)
            let rest = try await client.omCapture(orderID, #"{"captured_amount": 42400}"#)
            expectCreated(rest, "Capture-Id", id: sequentialID(5), orderID: orderID, collection: "captures", origin: sandbox.origin)
            order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "CAPTURED")
            #expect(order["captured_amount"] as? Int == 62400 && order["remaining_authorized_amount"] as? Int == 0)

            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 1}"#), 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"])

            let secondCapture = """
                {"capture_id": "\(sequentialID(5))", "klarna_reference": "\(reference)-2", "captured_amount": 42400,
                 "captured_at": "2027-01-15T09:00:00.000Z", "order_lines": [], "refunded_amount": 0, "shipping_info": []}
                """
            expectJSON(try await client.get("/ordermanagement/v1/orders/\(orderID)/captures"), "[\(firstCapture), \(secondCapture)]")

            // Refund 25000: the first capture takes 20000, the second 5000 (oldest first); the status stays CAPTURED.
            let refund = try await client.omRefund(orderID, #"{"refunded_amount": 25000, "description": "Returned", "reference": "rma-7"}"#)
            expectCreated(refund, "Refund-Id", id: sequentialID(6), orderID: orderID, collection: "refunds", origin: sandbox.origin)
            expectJSON(try await client.get("/ordermanagement/v1/orders/\(orderID)/refunds/\(sequentialID(6))"), """
                {"refund_id": "\(sequentialID(6))", "refunded_amount": 25000, "refunded_at": "2027-01-15T09:00:00.000Z",
                 "description": "Returned", "reference": "rma-7", "order_lines": []}
                """)
            order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "CAPTURED" && order["refunded_amount"] as? Int == 25000)
            let captures = try #require(order["captures"] as? [[String: Any]])
            #expect(captures.map { $0["refunded_amount"] as? Int } == [20000, 5000])
            #expect((order["refunds"] as? [[String: Any]])?.count == 1)

            // 62400 captured, 25000 refunded: 37400 left to refund.
            expectKlarnaError(try await client.omRefund(orderID, #"{"refunded_amount": 37401}"#), 403, "REFUND_NOT_ALLOWED",
                              ["Refund amount exceeds the captured amount. Refund not possible"])
            expectCreated(try await client.omRefund(orderID, #"{"refunded_amount": 37400}"#), "Refund-Id", id: sequentialID(7),
                          orderID: orderID, collection: "refunds", origin: sandbox.origin)

            expectKlarnaError(try await client.omChange(orderID, "cancel"), 403, "CANCEL_NOT_ALLOWED",
                              ["Order has previous captures. Cancel not possible"])
            expectKlarnaError(try await client.omChange(orderID, "release-remaining-authorization"), 403, "NOT_ALLOWED",
                              ["Order is fully captured. Remaining authorization cannot be released."])
        }
    }

    @Test("cancel an AUTHORIZED order → CANCELLED, nothing remaining; then capture, refund, cancel, extend are refused")
    func cancel_AuthorizedOrder() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-cancel"))
            let orderID = try await client.placedOrder()
            expectNoContent(try await client.omChange(orderID, "cancel"))
            let order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "CANCELLED" && order["remaining_authorized_amount"] as? Int == 0)
            #expect(order["order_amount"] as? Int == 62400)
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 100}"#), 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"])
            expectKlarnaError(try await client.omRefund(orderID, #"{"refunded_amount": 100}"#), 403, "REFUND_NOT_ALLOWED",
                              ["Order has no captures. Refund not possible"])
            expectKlarnaError(try await client.omChange(orderID, "cancel"), 403, "CANCEL_NOT_ALLOWED", ["Order is cancelled. Cancel not possible"])
            expectKlarnaError(try await client.omChange(orderID, "extend-authorization-time"), 403, "NOT_ALLOWED",
                              ["Order is cancelled. Authorization time cannot be extended."])
            expectKlarnaError(try await client.omChange(orderID, "release-remaining-authorization"), 403, "NOT_ALLOWED",
                              ["Order is cancelled. Remaining authorization cannot be released."])
        }
    }

    @Test("release the remaining authorization of a PART_CAPTURED order → CAPTURED, nothing more can be captured")
    func release_PartCapturedOrder() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-release"))
            let orderID = try await client.placedOrder()
            expectKlarnaError(try await client.omChange(orderID, "release-remaining-authorization"), 403, "NOT_ALLOWED",
                              ["Order has no captures. Remaining authorization cannot be released."])
            #expect(try await client.omCapture(orderID, #"{"captured_amount": 30000}"#).status == 201)
            expectNoContent(try await client.omChange(orderID, "release-remaining-authorization"))
            let order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "CAPTURED" && order["remaining_authorized_amount"] as? Int == 0)
            #expect(order["order_amount"] as? Int == 62400 && order["captured_amount"] as? Int == 30000)
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 1}"#), 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"])
        }
    }

    @Test("extend-authorization-time: expires_at = the day of the extension + 28 days; acknowledge changes nothing")
    func extendAndAcknowledge() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-extend"))
            let orderID = try await client.placedOrder()
            try await client.advanceClock(seconds: 10 * 86_400)  // 2027-01-25T08:00Z
            expectNoContent(try await client.omChange(orderID, "extend-authorization-time"))
            #expect(try await client.omOrderObject(orderID)["expires_at"] as? String == "2027-02-22T00:00:00.000Z")
            // The same day again: the same date.
            expectNoContent(try await client.omChange(orderID, "extend-authorization-time"))
            let before = try await client.omOrder(orderID)
            #expect(try before.requireJSONObject()["expires_at"] as? String == "2027-02-22T00:00:00.000Z")

            expectNoContent(try await client.omChange(orderID, "acknowledge"))
            expectNoContent(try await client.omChange(orderID, "acknowledge"))
            #expect(canonicalJSON(Data(try await client.omOrder(orderID).body)) == canonicalJSON(Data(before.body)))
            expectKlarnaError(try await client.omChange("f7a2c0de-0000-4000-8000-000000000000", "acknowledge"), 404, "NO_SUCH_ORDER",
                              ["Order f7a2c0de-0000-4000-8000-000000000000 cannot be found. Acknowledgement not possible."])
        }
    }

    @Test("expiry on the namespace clock: AUTHORIZED until expires_at, then EXPIRED; capture, cancel and extend refused")
    func expiry_ReadsExpired() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-expiry"))
            let orderID = try await client.placedOrder()
            try await client.advanceClock(seconds: 28 * 86_400 - 1)
            #expect(try await client.omOrderObject(orderID)["status"] as? String == "AUTHORIZED")
            try await client.advanceClock(seconds: 1)
            let order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "EXPIRED" && order["remaining_authorized_amount"] as? Int == 0)
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 100}"#), 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"])
            expectKlarnaError(try await client.omChange(orderID, "extend-authorization-time"), 403, "NOT_ALLOWED",
                              ["Order is expired. Authorization time cannot be extended."])
            expectKlarnaError(try await client.omChange(orderID, "cancel"), 403, "CANCEL_NOT_ALLOWED", ["Order is expired. Cancel not possible"])
            // Another namespace's clock did not move: its order is AUTHORIZED.
            let other = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-expiry-other"))
            let otherOrder = try await other.placedOrder()
            #expect(try await other.omOrderObject(otherOrder)["status"] as? String == "AUTHORIZED")
        }
    }

    @Test("Klarna-Idempotency-Key: the same key answers the first answer and captures once, whatever the body")
    func idempotencyKey_ReplaysFirstAnswer() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-idempotency"))
            let orderID = try await client.placedOrder()
            let key = "6f0e9f4a-2b7c-4f7e-9d55-3c1c2a9b8e11"
            let first = try await client.omCapture(orderID, #"{"captured_amount": 10000}"#, key: key)
            expectCreated(first, "Capture-Id", id: sequentialID(4), orderID: orderID, collection: "captures", origin: sandbox.origin)
            let replay = try await client.omCapture(orderID, #"{"captured_amount": 50000}"#, key: key)
            expectCreated(replay, "Capture-Id", id: sequentialID(4), orderID: orderID, collection: "captures", origin: sandbox.origin)
            let malformed = try await client.omCapture(orderID, "{not json", key: key)
            #expect(malformed.status == 201 && malformed.header("Capture-Id") == sequentialID(4), "\(malformed)")
            var order = try await client.omOrderObject(orderID)
            #expect(order["captured_amount"] as? Int == 10000 && (order["captures"] as? [Any])?.count == 1)

            // Another key captures again; the key is per operation, so a refund with the first key is a refund.
            #expect(try await client.omCapture(orderID, #"{"captured_amount": 10000}"#, key: "other").header("Capture-Id") == sequentialID(5))
            let refund = try await client.omRefund(orderID, #"{"refunded_amount": 500}"#, key: key)
            #expect(refund.status == 201 && refund.header("Refund-Id") == sequentialID(6), "\(refund)")
            #expect(try await client.omRefund(orderID, #"{"refunded_amount": 700}"#, key: key).header("Refund-Id") == sequentialID(6))

            // An error is the first answer too.
            let refused = try await client.omCapture(orderID, #"{"captured_amount": 99999}"#, key: "too-much")
            let correlation = expectKlarnaError(refused, 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"])
            let again = try await client.omCapture(orderID, #"{"captured_amount": 1}"#, key: "too-much")
            #expect(expectKlarnaError(again, 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"]) == correlation)

            // Cancel-type writes too: a 204 stays a 204.
            expectNoContent(try await client.omChange(orderID, "acknowledge", key: key))
            expectNoContent(try await client.omChange(orderID, "acknowledge", key: key))
            order = try await client.omOrderObject(orderID)
            #expect(order["captured_amount"] as? Int == 20000 && order["refunded_amount"] as? Int == 500)
        }
    }

    @Test("auto_capture: the order starts CAPTURED with one capture of the whole amount")
    func autoCapture_IsCaptured() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-auto"))
            let orderID = try await client.placedOrder(KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["auto_capture"] = true })
            let order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "CAPTURED")
            #expect(order["captured_amount"] as? Int == 62400 && order["remaining_authorized_amount"] as? Int == 0)
            let captures = try #require(order["captures"] as? [[String: Any]])
            #expect(captures.count == 1 && captures.first?["captured_amount"] as? Int == 62400)
            #expect(captures.first?["klarna_reference"] as? String == "\(order["klarna_reference"] as? String ?? "?")-1")
            expectKlarnaError(try await client.omChange(orderID, "cancel"), 403, "CANCEL_NOT_ALLOWED",
                              ["Order has previous captures. Cancel not possible"])
            #expect(try await client.omRefund(orderID, #"{"refunded_amount": 62400}"#).status == 201)
        }
    }

    @Test("404s in Klarna's envelope: unknown order, capture, refund; another namespace's order; 401 without credentials")
    func notFoundAndUnauthorized() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-404"))
            let orderID = try await client.placedOrder()
            let unknown = "7849fd84-47dc-4919-a7ce-47b9f46156f0"
            expectKlarnaError(try await client.omOrder(unknown), 404, "NO_SUCH_ORDER", ["Order \(unknown) cannot be found"])
            expectKlarnaError(try await client.omCapture(unknown, #"{"captured_amount": 1}"#), 404, "NO_SUCH_ORDER",
                              ["Order \(unknown) cannot be found"])
            expectKlarnaError(try await client.omRefund(unknown, #"{"refunded_amount": 1}"#), 404, "NO_SUCH_ORDER",
                              ["Order \(unknown) cannot be found"])
            expectKlarnaError(try await client.get("/ordermanagement/v1/orders/\(unknown)/captures"), 404, "NO_SUCH_ORDER",
                              ["Order \(unknown) cannot be found"])
            for action in ["cancel", "release-remaining-authorization", "extend-authorization-time"] {
                expectKlarnaError(try await client.omChange(unknown, action), 404, "NO_SUCH_ORDER", ["Order \(unknown) cannot be found"])
            }
            expectKlarnaError(try await client.get("/ordermanagement/v1/orders/\(orderID)/captures/\(unknown)"), 404, "NO_SUCH_CAPTURE",
                              ["Capture \(unknown) cannot be found for order \(orderID)"])
            expectKlarnaError(try await client.get("/ordermanagement/v1/orders/\(orderID)/refunds/\(unknown)"), 404, "NOT_FOUND",
                              ["Refund \(unknown) cannot be found for order \(orderID)"])
            expectJSON(try await client.get("/ordermanagement/v1/orders/\(orderID)/captures"), "[]")

            let stranger = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-404-other"))
            expectKlarnaError(try await stranger.omOrder(orderID), 404, "NO_SUCH_ORDER", ["Order \(orderID) cannot be found"])

            var anonymous = client
            anonymous.authorization = ""
            expectKlarnaError(try await anonymous.omOrder(orderID), 401, "UNAUTHORIZED", [])
            expectKlarnaError(try await anonymous.omCapture(orderID, #"{"captured_amount": 1}"#), 401, "UNAUTHORIZED", [])
            #expect(try await client.omOrderObject(orderID)["captured_amount"] as? Int == 0)

            // Unknown paths under the prefix: Klarna's envelope too.
            let path = try await client.get("/ordermanagement/v1/orders/\(orderID)/nothing-here")
            #expect(path.status == 404 && (try? path.requireJSONObject()["error_code"]) as? String == "NOT_FOUND", "\(path)")
        }
    }

    @Test("invalid bodies: 400 BAD_REQUEST / BAD_VALUE naming the field, 422 for sizes, 403 for a 0 capture")
    func invalidBodies() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-invalid"))
            let orderID = try await client.placedOrder()
            let badRequest = try await client.omCapture(orderID, "{not json")
            #expect(badRequest.status == 400 && (try? badRequest.requireJSONObject()["error_code"]) as? String == "BAD_REQUEST", "\(badRequest)")
            expectKlarnaError(try await client.omCapture(orderID, "{}"), 400, "BAD_VALUE", ["Bad value: captured_amount"])
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": "100"}"#), 400, "BAD_VALUE", ["Bad value: captured_amount"])
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": -1}"#), 400, "BAD_VALUE", ["Bad value: captured_amount"])
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 100, "order_lines": [{"quantity": 1, "unit_price": 100, "total_amount": 100}]}"#),
                              400, "BAD_VALUE", ["Bad value: order_lines[0].name"])
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 100, "shipping_info": [{"shipping_company": "\#(String(repeating: "x", count: 101))"}]}"#),
                              422, "UNPROCESSABLE_ENTITY", ["The size of the shipping_info/shipping_company value must be between 0 and 100"])
            expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 0}"#), 403, "CAPTURE_NOT_ALLOWED", ["Capture not allowed"])
            expectKlarnaError(try await client.omRefund(orderID, #"{"description": "no amount"}"#), 400, "BAD_VALUE", ["Bad value: refunded_amount"])
            #expect(try await client.omOrderObject(orderID)["captured_amount"] as? Int == 0)
        }
    }

    @Test("20 concurrent captures of 5000 on a 62400 order: exactly 12 succeed, never more than authorized")
    func concurrentCaptures_NeverOverCapture() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-race"))
            let orderID = try await client.placedOrder()
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await client.omCapture(orderID, #"{"captured_amount": 5000}"#).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 12 && statuses.filter { $0 == 403 }.count == 8, "\(statuses.sorted())")
            let order = try await client.omOrderObject(orderID)
            #expect(order["captured_amount"] as? Int == 60000 && order["remaining_authorized_amount"] as? Int == 2400)
            #expect(Set((order["captures"] as? [[String: Any]] ?? []).compactMap { $0["capture_id"] as? String }).count == 12)
        }
    }

    @Test("state and reset: /__sandbox/state lists the namespace's orders with status and amounts; reset forgets them")
    func stateAndReset() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-state"))
            let orderID = try await client.placedOrder()
            #expect(try await client.omCapture(orderID, #"{"captured_amount": 400}"#).status == 201)
            let orders = try await client.orderManagementOrders()
            #expect(orders.count == 1, "\(orders)")
            #expect(orders.first?["order_id"] as? String == orderID && orders.first?["status"] as? String == "PART_CAPTURED")
            #expect(orders.first?["captured_amount"] as? Int == 400 && orders.first?["remaining_authorized_amount"] as? Int == 62000)
            try await client.reset()
            #expect(try await client.orderManagementOrders().isEmpty)
            expectKlarnaError(try await client.omOrder(orderID), 404, "NO_SUCH_ORDER", ["Order \(orderID) cannot be found"])
        }
    }

    @Test("capture-refused (bundled): the order is AUTHORIZED, every capture answers 403 and captures nothing; cancel works")
    func captureRefusedScenario() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-capture-refused"))
            let orderID = try await client.placedOrder(scenario: "capture-refused")
            #expect(try await client.omOrderObject(orderID)["status"] as? String == "AUTHORIZED")
            for _ in 0..<2 {
                expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 1000}"#), 403, "CAPTURE_NOT_ALLOWED",
                                  ["Capture not allowed"])
            }
            let order = try await client.omOrderObject(orderID)
            #expect(order["status"] as? String == "AUTHORIZED" && order["captured_amount"] as? Int == 0)
            expectNoContent(try await client.omChange(orderID, "cancel"))
            let lines = try await client.journalLines()
            #expect(lines.contains("POST /ordermanagement/v1/orders/\(orderID)/captures 403 scenario=capture-refused klarna.ordermanagement.capture: refused"),
                    "\(lines)")
        }
    }

    @Test("http_error sequence on capture: 503 first, then the retry with the same idempotency key captures (once)")
    func httpErrorScenario_RetryWithSameKey() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("om-flaky.json", scenarioFile("om-flaky", rules: [
                #"{"operation": "klarna.ordermanagement.capture", "sequence": [{"outcome": "http_error", "status": 503}, {"outcome": "approve"}]}"#,
                #"{"operation": "klarna.ordermanagement.read_order", "sequence": [{"outcome": "approve"}]}"#,
            ]))
            let configuration = deterministicConfiguration(bundledScenarios: false, scenarioDirectories: [directory.url])
            try await SandboxTest.run(.inProcess, configuration: configuration) { sandbox in
                let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-flaky"))
                let orderID = try await client.placedOrder(scenario: "om-flaky")
                let key = "retry-key"
                expectKlarnaError(try await client.omCapture(orderID, #"{"captured_amount": 1000}"#, key: key), 503,
                                  "TEMPORARILY_UNAVAILABLE", ["Temporarily unavailable"])
                #expect(try await client.omOrderObject(orderID)["captured_amount"] as? Int == 0)
                let retry = try await client.omCapture(orderID, #"{"captured_amount": 1000}"#, key: key)
                expectCreated(retry, "Capture-Id", id: sequentialID(4), orderID: orderID, collection: "captures", origin: sandbox.origin)
                let again = try await client.omCapture(orderID, #"{"captured_amount": 1000}"#, key: key)
                #expect(again.status == 201 && again.header("Capture-Id") == sequentialID(4))
                #expect(try await client.omOrderObject(orderID)["captured_amount"] as? Int == 1000)
            }
        }
    }
}
