// SPDX-License-Identifier: MIT
// Klarna Order Management updates in-process, as klarna/kco_rest_php's `OrderManagement\Order` and
// `Capture` call them: PATCH …/authorization, …/merchant-references, …/customer-details, POST …/shipping-info, and per capture
// POST …/shipping-info, PATCH …/customer-details, POST …/trigger-send-out, PATCH …/extend-due-date with GET
// …/extend-due-date-options. Each change shows on the next read; refusals in Klarna's envelope (klarna-api.md
// §3.2, §5). A manual clock and sequential ids: session 1, token 2, order 3, then captures.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

extension KlarnaMerchant {
    /// A write under the order: `PATCH`/`POST` `/ordermanagement/v1/orders/{order_id}/<path>`.
    func omWrite(_ method: SandboxClient.Method, _ orderID: String, _ path: String, _ body: String? = nil,
                 key: String? = nil) async throws -> SandboxResponse {
        try await send(method, "/ordermanagement/v1/orders/\(orderID)/\(path)", body: body,
                       headers: Self.idempotencyHeader(key))
    }

    /// Captures `amount` and returns the Capture-Id (fails the test unless 201).
    func omNewCapture(_ orderID: String, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await omCapture(orderID, body)
        try #require(response.status == 201, "capture: \(response)", sourceLocation: sourceLocation)
        return try #require(response.header("Capture-Id"), sourceLocation: sourceLocation)
    }

    /// GET …/captures/{capture_id} as an object (fails the test unless 200).
    func omCaptureObject(_ orderID: String, _ captureID: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let response = try await get("/ordermanagement/v1/orders/\(orderID)/captures/\(captureID)")
        try #require(response.status == 200, "GET capture: \(response)", sourceLocation: sourceLocation)
        return try response.requireJSONObject()
    }
}

/// `value` as canonical JSON text, to compare nested members of a read with an expected text.
private func canonical(_ value: Any?) -> String? {
    guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) else { return nil }
    return canonicalJSON(data)
}

private let newLines = #"[{"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1, "unit_price": 50000, "tax_rate": 2000, "total_amount": 50000, "total_tax_amount": 8333}]"#

@Suite("Klarna Order Management updates")
struct KlarnaOrderManagementUpdateTests {
    @Test("PATCH authorization: a lower amount with new lines shows on the next read; without lines the lines go; unknown order 404")
    func updateAuthorization_Decrease() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-update-auth"))
            let orderID = try await client.placedOrder()
            expectNoContent(try await client.omWrite("PATCH", orderID, "authorization",
                                                     #"{"order_amount": 50000, "description": "Shipping waived", "order_lines": \#(newLines)}"#))
            let order = try await client.omOrderObject(orderID)
            #expect(order["order_amount"] as? Int == 50000 && order["original_order_amount"] as? Int == 62400)
            #expect(order["remaining_authorized_amount"] as? Int == 50000 && order["status"] as? String == "AUTHORIZED")
            #expect(canonical(order["order_lines"]) == canonicalJSON(Data(newLines.utf8)), "\(order)")

            // "If no order lines are provided in the call, the original order lines will be deleted" (Klarna's docs).
            expectNoContent(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 40000}"#))
            let again = try await client.omOrderObject(orderID)
            #expect(again["order_amount"] as? Int == 40000 && (again["order_lines"] as? [Any])?.isEmpty == true, "\(again)")

            expectKlarnaError(try await client.omWrite("PATCH", orderID, "authorization", #"{"description": "no amount"}"#),
                              400, "BAD_VALUE", ["Bad value: order_amount"])
            expectKlarnaError(try await client.omWrite("PATCH", sequentialID(99), "authorization", #"{"order_amount": 1}"#),
                              404, "NO_SUCH_ORDER", ["Order \(sequentialID(99)) cannot be found"])
        }
    }

    @Test("PATCH authorization: an increase is granted up to 1.5 × the original amount; beyond it 403 NOT_ALLOWED, nothing changes")
    func updateAuthorization_Increase() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-increase"))
            let orderID = try await client.placedOrder()
            expectNoContent(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 93600}"#))
            #expect(try await client.omOrderObject(orderID)["remaining_authorized_amount"] as? Int == 93600)
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 93601}"#), 403, "NOT_ALLOWED",
                              ["Increase of the order amount to 93601 was not granted. Order authorization cannot be updated"])
            #expect(try await client.omOrderObject(orderID)["order_amount"] as? Int == 93600)
        }
    }

    @Test("PATCH authorization refused: below the captured amount, fully captured, cancelled, expired")
    func updateAuthorization_Refusals() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-auth-refused"))
            let orderID = try await client.placedOrder()
            _ = try await client.omNewCapture(orderID, #"{"captured_amount": 30000}"#)
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 29999}"#), 403, "NOT_ALLOWED",
                              ["Resulting authorization amount 29999 cannot be less than the captured amount 30000 for order. Order authorization cannot be updated"])
            // Down to the captured amount: the order is then fully captured.
            expectNoContent(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 30000}"#))
            #expect(try await client.omOrderObject(orderID)["status"] as? String == "CAPTURED")
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 40000}"#), 403, "NOT_ALLOWED",
                              ["Order is fully captured. Order authorization cannot be updated"])

            let second = try await client.placedOrder()
            expectNoContent(try await client.omChange(second, "cancel"))
            expectKlarnaError(try await client.omWrite("PATCH", second, "authorization", #"{"order_amount": 100}"#), 403, "NOT_ALLOWED",
                              ["Order is cancelled. Order authorization cannot be updated"])

            let third = try await client.placedOrder()
            try await client.advanceClock(seconds: 28 * 86_400)
            expectKlarnaError(try await client.omWrite("PATCH", third, "authorization", #"{"order_amount": 100}"#), 403, "NOT_ALLOWED",
                              ["Order is expired. Order authorization cannot be updated"])
        }
    }

    @Test("PATCH merchant-references: a present reference overwrites, an absent one stays; 422 past 255; cancelled order 403")
    func updateMerchantReferences() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-references"))
            let orderID = try await client.placedOrder()
            let before = try await client.omOrderObject(orderID)
            expectNoContent(try await client.omWrite("PATCH", orderID, "merchant-references", #"{"merchant_reference2": "ERP-77"}"#))
            let order = try await client.omOrderObject(orderID)
            #expect(order["merchant_reference2"] as? String == "ERP-77")
            #expect(order["merchant_reference1"] as? String == before["merchant_reference1"] as? String && before["merchant_reference1"] != nil)
            let long = String(repeating: "r", count: 256)
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "merchant-references", #"{"merchant_reference1": "\#(long)"}"#),
                              422, "UNPROCESSABLE_ENTITY", ["The size of the merchant_reference1 value must be between 0 and 255"])
            expectNoContent(try await client.omChange(orderID, "cancel"))
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "merchant-references", #"{"merchant_reference1": "late"}"#),
                              403, "NOT_ALLOWED", ["Can not update a cancelled order."])
            #expect(try await client.omOrderObject(orderID)["merchant_reference2"] as? String == "ERP-77")
        }
    }

    @Test("PATCH customer-details: the order's addresses change, an earlier capture keeps its own; cancelled order 403")
    func updateCustomerDetails() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-customer"))
            let orderID = try await client.placedOrder()
            let captureID = try await client.omNewCapture(orderID, #"{"captured_amount": 1000}"#)
            let captureBefore = try await client.omCaptureObject(orderID, captureID)
            let shipping = #"{"given_name": "Jane", "family_name": "Doe", "street_address": "1 Main St", "postal_code": "W1S 3BE", "city": "London", "country": "GB"}"#
            expectNoContent(try await client.omWrite("PATCH", orderID, "customer-details", #"{"shipping_address": \#(shipping)}"#))
            let order = try await client.omOrderObject(orderID)
            #expect(canonical(order["shipping_address"]) == canonicalJSON(Data(shipping.utf8)), "\(order)")
            #expect(canonical(try await client.omCaptureObject(orderID, captureID)) == canonical(captureBefore))
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "customer-details", #"{"billing_address": {"postal_code": "12345678901"}}"#),
                              422, "UNPROCESSABLE_ENTITY", ["The size of the billing_address/postal_code value must be between 0 and 10"])

            let second = try await client.placedOrder()
            expectNoContent(try await client.omChange(second, "cancel"))
            expectKlarnaError(try await client.omWrite("PATCH", second, "customer-details", #"{"shipping_address": \#(shipping)}"#),
                              403, "NOT_ALLOWED", ["Can not update a cancelled order."])
        }
    }

    @Test("POST capture shipping-info: appended to the capture; a repeated idempotency key appends once; 404 / 403 / 400 refusals")
    func captureShippingInfo() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-shipping"))
            let orderID = try await client.placedOrder()
            expectKlarnaError(try await client.omWrite("POST", orderID, "captures/\(sequentialID(50))/shipping-info",
                                                       #"{"shipping_info": [{"shipping_company": "DHL"}]}"#),
                              403, "NOT_ALLOWED", ["Order has no captures."])
            let captureID = try await client.omNewCapture(orderID, """
                {"captured_amount": 1000, "shipping_info": [{"shipping_company": "DHL US", "tracking_number": "1"}]}
                """)
            let added = #"{"shipping_info": [{"shipping_company": "PostNord", "shipping_method": "PickUpPoint", "tracking_number": "2"}]}"#
            expectNoContent(try await client.omWrite("POST", orderID, "captures/\(captureID)/shipping-info", added, key: "ship-2"))
            expectNoContent(try await client.omWrite("POST", orderID, "captures/\(captureID)/shipping-info", added, key: "ship-2"))
            let capture = try await client.omCaptureObject(orderID, captureID)
            #expect(canonical(capture["shipping_info"]) == canonicalJSON(Data("""
                [{"shipping_company": "DHL US", "tracking_number": "1"},
                 {"shipping_company": "PostNord", "shipping_method": "PickUpPoint", "tracking_number": "2"}]
                """.utf8)), "\(capture)")
            expectKlarnaError(try await client.omWrite("POST", orderID, "captures/\(sequentialID(50))/shipping-info", added), 404,
                              "NO_SUCH_CAPTURE", ["Capture could not be found. Shipping info cannot be added to capture \(sequentialID(50))"])
            expectKlarnaError(try await client.omWrite("POST", orderID, "captures/\(captureID)/shipping-info", #"{"shipping_info": []}"#),
                              400, "BAD_VALUE", ["Bad value: shipping_info"])
        }
    }

    @Test("POST order shipping-info: the order reads it back in `shipping_info`; unknown order 404")
    func orderShippingInfo() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-order-shipping"))
            let orderID = try await client.placedOrder()
            #expect(try await client.omOrderObject(orderID)["shipping_info"] == nil)
            let info = #"[{"shipping_company": "DHL", "shipping_method": "Home", "tracking_number": "7"}]"#
            expectNoContent(try await client.omWrite("POST", orderID, "shipping-info", #"{"shipping_info": \#(info)}"#))
            #expect(canonical(try await client.omOrderObject(orderID)["shipping_info"]) == canonicalJSON(Data(info.utf8)))
            expectKlarnaError(try await client.omWrite("POST", orderID, "shipping-info", #"{"shipping_info": [{"shipping_method": "Drone"}]}"#),
                              400, "BAD_VALUE", ["Bad value: shipping_info[0].shipping_method"])
            expectKlarnaError(try await client.omWrite("POST", sequentialID(99), "shipping-info", #"{"shipping_info": \#(info)}"#),
                              404, "NO_SUCH_ORDER", ["Order \(sequentialID(99)) cannot be found"])
        }
    }

    @Test("PATCH capture customer-details: the billing address members sent replace the capture's; a shipping address is refused")
    func captureCustomerDetails() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-capture-customer"))
            let session = try await client.newSession()
            let token = try await client.newAuthorization(session, #"{"jsonData": {"billing_address": {"given_name": "Test", "country": "GB"}}}"#)
            let orderID = try await client.newOrder(token, KlarnaExamples.edit(KlarnaExamples.gbOrder) {
                $0["billing_address"] = ["given_name": "Test", "country": "GB"]
            })
            let captureID = try await client.omNewCapture(orderID, #"{"captured_amount": 1000}"#)
            // klarna/kco_rest_php's example body.
            expectNoContent(try await client.omWrite("PATCH", orderID, "captures/\(captureID)/customer-details",
                                                     #"{"billing_address": {"email": "user@example.com", "phone": "57-3895734"}}"#))
            let capture = try await client.omCaptureObject(orderID, captureID)
            #expect(canonical(capture["billing_address"]) == canonicalJSON(Data("""
                {"given_name": "Test", "country": "GB", "email": "user@example.com", "phone": "57-3895734"}
                """.utf8)), "\(capture)")
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "captures/\(captureID)/customer-details",
                                                       #"{"shipping_address": {"city": "Leeds"}}"#),
                              403, "NOT_ALLOWED", ["Shipping address of a capture cannot be updated."])
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "captures/\(sequentialID(50))/customer-details", #"{}"#),
                              404, "NO_SUCH_CAPTURE", ["Capture \(sequentialID(50)) cannot be found for order \(orderID)"])
        }
    }

    @Test("POST trigger-send-out: 204 without a body, counted in the control API's state; unknown capture 404")
    func triggerSendOut() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-send-out"))
            let orderID = try await client.placedOrder()
            let captureID = try await client.omNewCapture(orderID, #"{"captured_amount": 1000}"#)
            expectNoContent(try await client.omWrite("POST", orderID, "captures/\(captureID)/trigger-send-out"))
            expectNoContent(try await client.omWrite("POST", orderID, "captures/\(captureID)/trigger-send-out"))
            let state = try await client.orderManagementOrders()
            #expect(canonical(state.first?["send_outs"]) == canonicalJSON(Data(#"{"\#(captureID)": 2}"#.utf8)), "\(state)")
            expectKlarnaError(try await client.omWrite("POST", orderID, "captures/\(sequentialID(50))/trigger-send-out"),
                              404, "NO_SUCH_CAPTURE", ["Capture \(sequentialID(50)) cannot be found for order \(orderID)"])
        }
    }

    @Test("extend-due-date: the options in the order's currency, one extension per capture, then no options; 403 / 400 refusals")
    func extendDueDate() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-due-date"))
            let orderID = try await client.placedOrder()
            let captureID = try await client.omNewCapture(orderID, #"{"captured_amount": 1000}"#)
            let options = "/ordermanagement/v1/orders/\(orderID)/captures/\(captureID)/extend-due-date-options"
            expectJSON(try await client.get(options), """
                {"currency": "gbp", "options": [{"amount": 0, "number_of_days": 7}, {"amount": 0, "number_of_days": 14},
                                               {"amount": 0, "number_of_days": 30}]}
                """)
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "captures/\(captureID)/extend-due-date", #"{"number_of_days": 5}"#),
                              403, "NOT_ALLOWED", ["5 days is not an available option. Extension of due date is not possible."])
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "captures/\(captureID)/extend-due-date", #"{}"#),
                              400, "BAD_VALUE", ["Bad value: number_of_days"])
            expectNoContent(try await client.omWrite("PATCH", orderID, "captures/\(captureID)/extend-due-date", #"{"number_of_days": 14}"#))
            expectJSON(try await client.get(options), #"{"currency": "gbp", "options": []}"#)
            expectKlarnaError(try await client.omWrite("PATCH", orderID, "captures/\(captureID)/extend-due-date", #"{"number_of_days": 7}"#),
                              403, "NOT_ALLOWED", ["The due date was already extended. Extension of due date is not possible."])
            #expect(canonical(try await client.orderManagementOrders().first?["due_date_extensions"])
                    == canonicalJSON(Data(#"{"\#(captureID)": 14}"#.utf8)))
            expectKlarnaError(try await client.get("/ordermanagement/v1/orders/\(orderID)/captures/\(sequentialID(50))/extend-due-date-options"),
                              404, "NO_SUCH_CAPTURE", ["Capture \(sequentialID(50)) cannot be found for order \(orderID)"])
        }
    }

    @Test("a capture line with a subscription lacking interval_count (or interval) is 400, and nothing is captured")
    func captureSubscriptionLine_Validated() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-subscription"))
            let orderID = try await client.placedOrder()
            func capture(_ subscription: String) -> String {
                """
                {"captured_amount": 1000, "order_lines": [{"name": "Batteries", "quantity": 1, "unit_price": 1000, "total_amount": 1000,
                  "subscription": \(subscription)}]}
                """
            }
            expectKlarnaError(try await client.omCapture(orderID, capture(#"{"name": "Monthly", "interval": "MONTH"}"#)), 400, "BAD_VALUE",
                              ["Bad value: order_lines[0].subscription.interval_count"])
            expectKlarnaError(try await client.omCapture(orderID, capture(#"{"name": "Monthly", "interval_count": 1}"#)), 400, "BAD_VALUE",
                              ["Bad value: order_lines[0].subscription.interval"])
            #expect(try await client.omOrderObject(orderID)["captured_amount"] as? Int == 0)
            let complete = try await client.omCapture(orderID, capture(#"{"name": "Monthly", "interval": "MONTH", "interval_count": 1}"#))
            #expect(complete.status == 201, "\(complete)")
        }
    }

    @Test("scenario outcome refused on update_authorization and trigger_send_out: 403 NOT_ALLOWED, nothing changes")
    func refusedScenario() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("om-updates-refused.json", scenarioFile("om-updates-refused", rules: [
                #"{"operation": "klarna.ordermanagement.update_authorization", "outcome": "refused"}"#,
                #"{"operation": "klarna.ordermanagement.trigger_send_out", "outcome": "refused"}"#,
            ]))
            let configuration = deterministicConfiguration(bundledScenarios: false, scenarioDirectories: [directory.url])
            try await SandboxTest.run(.inProcess, configuration: configuration) { sandbox in
                let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("om-updates-refused"))
                let orderID = try await client.placedOrder(scenario: "om-updates-refused")
                expectKlarnaError(try await client.omWrite("PATCH", orderID, "authorization", #"{"order_amount": 100}"#), 403, "NOT_ALLOWED",
                                  ["Update of the order amount was refused. Order authorization cannot be updated"])
                #expect(try await client.omOrderObject(orderID)["order_amount"] as? Int == 62400)
                let captureID = try await client.omNewCapture(orderID, #"{"captured_amount": 1000}"#)
                expectKlarnaError(try await client.omWrite("POST", orderID, "captures/\(captureID)/trigger-send-out"), 403, "NOT_ALLOWED",
                                  ["Update not allowed."])
                expectNoContent(try await client.omWrite("PATCH", orderID, "merchant-references", #"{"merchant_reference1": "ok"}"#))
            }
        }
    }
}
