// SPDX-License-Identifier: MIT
// Every bundled Klarna scenario (scenarios/klarna/*.json) in-process: the scenario is
// named once, on create session, and the later calls (the SDK stand-in's authorize, create order, ...)
// carry no Sandbox-Scenario header, so what they answer shows the scenario sticks to the session and its
// token. Exact status codes and bodies; the journal's notes show which scenario and rule decided each call.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna scenarios: bundled")
struct KlarnaScenarioBundledTests {
    /// The 3-line version of the GB order: a cable added, totals adjusted (valid on its own).
    static let gbOrderWithThreeLines = KlarnaExamples.edit(KlarnaExamples.gbOrder) { order in
        var lines = order["order_lines"] as? [[String: Any]] ?? []
        lines.append(["type": "physical", "reference": "19-403", "name": "USB Cable", "quantity": 1, "unit_price": 1000,
                      "tax_rate": 2000, "total_amount": 1000, "total_discount_amount": 0, "total_tax_amount": 167])
        order["order_lines"] = lines
        order["order_amount"] = 63400
        order["order_tax_amount"] = 10567
    }

    @Test("approve: session, authorize approved with a token, order ACCEPTED")
    func approve() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-approve"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "approve"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), scenario: nil), id: sequentialID(3), origin: sandbox.origin)
            #expect(try await client.journalLines() == [
                "POST /payments/v1/sessions 200 scenario=approve klarna.payments.create_session: approve",
                "POST /__sandbox/klarna/payments/sessions/\(sequentialID(1))/authorize 200 scenario=approve klarna.payments.authorize: approve",
                "POST /payments/v1/authorizations/\(sequentialID(2))/order 200 scenario=approve klarna.payments.create_order: approve",
            ])
            let sessions = try #require(try await client.paymentsState()["sessions"] as? [[String: Any]])
            #expect(sessions.first?["scenario"] as? String == "approve", "\(sessions)")
        }
    }

    @Test("reject: authorize answers approved false, show_form false, no token, every time")
    func reject() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-reject"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "reject"), id: sequentialID(1))
            ScenarioExpect.rejected(try await client.authorize(sequentialID(1), scenario: nil))
            // Again, with the customer's data: still rejected (the session sticks to its scenario).
            ScenarioExpect.rejected(try await client.authorize(sequentialID(1), PlaygroundData.jsonData(email: "customer@email.us"), scenario: nil))
            // No token was minted, so there is nothing to create an order from.
            let state = try await client.paymentsState()
            #expect((state["authorizations"] as? [Any])?.isEmpty == true, "\(state)")
            #expect(try await client.journalLines("path_prefix=/__sandbox/klarna/") == [
                "POST /__sandbox/klarna/payments/sessions/\(sequentialID(1))/authorize 200 scenario=reject klarna.payments.authorize: reject",
                "POST /__sandbox/klarna/payments/sessions/\(sequentialID(1))/authorize 200 scenario=reject klarna.payments.authorize: reject",
            ])
        }
    }

    @Test("cancel: authorize answers approved false, show_form true; the session stays usable")
    func cancel() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-cancel"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "cancel"), id: sequentialID(1))
            expectJSON(try await client.authorize(sequentialID(1), scenario: nil), #"{"approved": false, "show_form": true}"#)
            expectJSON(try await client.authorize(sequentialID(1), scenario: nil), #"{"approved": false, "show_form": true}"#)
            // As the description says: authorize again with another scenario to continue.
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: "approve"), token: sequentialID(2))
            // cancel has no create_order rule: the order is created (the token follows the session's cancel scenario).
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), scenario: nil), id: sequentialID(3), origin: sandbox.origin)
            let lines = try await client.journalLines()
            #expect(lines.last == "POST /payments/v1/authorizations/\(sequentialID(2))/order 200 scenario=cancel klarna.payments.create_order: approve",
                    "\(lines)")
        }
    }

    @Test("expire-token: authorize succeeds; create order and customer token answer 404 Invalid authorization token, cancel 404 Authorization cannot be deleted")
    func expireToken() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-expire"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "expire-token"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            let token = sequentialID(2)
            expectKlarnaError(try await client.createOrder(token, scenario: nil), 404, "NOT_FOUND", ["Invalid authorization token"])
            expectKlarnaError(try await client.createCustomerToken(token), 404, "NOT_FOUND", ["Invalid authorization token"])
            expectKlarnaError(try await client.cancelAuthorization(token), 404, "NOT_FOUND", ["Authorization cannot be deleted"])
            // Still so on a retry, and no order exists.
            expectKlarnaError(try await client.createOrder(token, scenario: nil), 404, "NOT_FOUND", ["Invalid authorization token"])
            let state = try await client.paymentsState()
            #expect((state["orders"] as? [Any])?.isEmpty == true, "\(state)")
            #expect(try await client.journalLines("path_prefix=/payments/v1/authorizations/") == [
                "POST /payments/v1/authorizations/\(token)/order 404 scenario=expire-token klarna.payments.create_order: expire_token",
                "POST /payments/v1/authorizations/\(token)/customer-token 404 scenario=expire-token klarna.payments.create_customer_token: expire_token",
                "DELETE /payments/v1/authorizations/\(token) 404 scenario=expire-token klarna.payments.cancel_authorization: expire_token",
                "POST /payments/v1/authorizations/\(token)/order 404 scenario=expire-token klarna.payments.create_order: expire_token",
            ])
        }
    }

    @Test("mismatched-fields: create order answers 409 BAD_VALUE Not matching fields: [billing_address.postal_code]")
    func mismatchedFields() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-mismatch"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "mismatched-fields"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            // The order matches what was authorized, yet the scenario reports the mismatch.
            expectKlarnaError(try await client.createOrder(sequentialID(2), scenario: nil), 409, "BAD_VALUE",
                              ["Not matching fields: [billing_address.postal_code]"])
            let state = try await client.paymentsState()
            #expect((state["orders"] as? [Any])?.isEmpty == true, "\(state)")
        }
    }

    @Test("cart-changed: create order answers 409 with the authorized and the sent number of order lines")
    func cartChanged() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-cart"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "cart-changed"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            // The reported example: 2 lines authorized, 3 sent.
            expectKlarnaError(try await client.createOrder(sequentialID(2), Self.gbOrderWithThreeLines, scenario: nil), 409, "BAD_VALUE",
                              ["Not matching fields: [Incorrect number of items in the cart. Expected: 2, Actual: 3]"])
            // The counts are computed per call: the unchanged 2-line cart reports 2 and 2.
            expectKlarnaError(try await client.createOrder(sequentialID(2), scenario: nil), 409, "BAD_VALUE",
                              ["Not matching fields: [Incorrect number of items in the cart. Expected: 2, Actual: 2]"])
            let lines = try await client.journalLines("path_prefix=/payments/v1/authorizations/")
            #expect(lines.first == "POST /payments/v1/authorizations/\(sequentialID(2))/order 409 scenario=cart-changed klarna.payments.create_order: cart_changed expected - actual -",
                    "\(lines)")
        }
    }

    @Test("rejected-at-order: authorize succeeds, create order answers 403 REJECTED and creates no order")
    func rejectedAtOrder() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-rejected"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "rejected-at-order"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            expectKlarnaError(try await client.createOrder(sequentialID(2), scenario: nil), 403, "REJECTED", ["Rejected"])
            let state = try await client.paymentsState()
            #expect((state["orders"] as? [Any])?.isEmpty == true, "\(state)")
            let sessions = try #require(state["sessions"] as? [[String: Any]])
            #expect(sessions.first?["status"] as? String == "incomplete", "\(sessions)")
        }
    }

    @Test("fraud-pending: create order answers 200 with fraud_status PENDING")
    func fraudPending() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-pending"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "fraud-pending"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), scenario: nil), id: sequentialID(3), origin: sandbox.origin,
                                 fraudStatus: "PENDING")
            let orders = try #require(try await client.paymentsState()["orders"] as? [[String: Any]])
            #expect(orders.count == 1 && orders.first?["fraud_status"] as? String == "PENDING", "\(orders)")
            // The same body again: the same order (create order stays idempotent under the scenario).
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), scenario: nil), id: sequentialID(3), origin: sandbox.origin,
                                 fraudStatus: "PENDING")
        }
    }

    @Test("invalid-client-token: load, authorize and finalize answer InvalidClientTokenError")
    func invalidClientToken() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-invalid-token"))
            let clientToken = ScenarioExpect.sessionCreated(try await client.createSession(scenario: "invalid-client-token"),
                                                            id: sequentialID(1))
            // Even with the session's own client token, the SDK refuses it.
            ScenarioExpect.sdkError(try await client.load(sequentialID(1), #"{"clientToken": "\#(clientToken ?? "")"}"#), approved: nil,
                                    name: "InvalidClientTokenError", action: "Initialize",
                                    message: "Error performing Klarna.Payments.init()", isFatal: false)
            ScenarioExpect.sdkError(try await client.authorize(sequentialID(1), scenario: nil), name: "InvalidClientTokenError",
                                    action: "Authorize",
                                    message: "Error performing Klarna.Payments.authorize()",
                                    isFatal: false)
            ScenarioExpect.sdkError(try await client.finalize(sequentialID(1)), name: "InvalidClientTokenError", action: "Finalize",
                                    message: "Error performing Klarna.Payments.finalize()",
                                    isFatal: false)
            let state = try await client.paymentsState()
            #expect((state["authorizations"] as? [Any])?.isEmpty == true, "\(state)")
        }
    }

    @Test("finalize-required: authorize answers finalize_required without a token; finalize approves; the order is created")
    func finalizeRequired() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-finalize"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "finalize-required"), id: sequentialID(1))
            expectJSON(try await client.authorize(sequentialID(1), #"{"autoFinalize": false}"#, scenario: nil),
                       #"{"approved": false, "show_form": true, "finalize_required": true}"#)
            ScenarioExpect.approved(try await client.finalize(sequentialID(1)), token: sequentialID(2))
            ScenarioExpect.order(try await client.createOrder(sequentialID(2), scenario: nil), id: sequentialID(3), origin: sandbox.origin)
            #expect(try await client.journalLines("path_prefix=/__sandbox/klarna/") == [
                "POST /__sandbox/klarna/payments/sessions/\(sequentialID(1))/authorize 200 scenario=finalize-required klarna.payments.authorize: finalize_required",
                "POST /__sandbox/klarna/payments/sessions/\(sequentialID(1))/finalize 200 scenario=finalize-required klarna.payments.finalize: approve",
            ])
        }
    }

    @Test("server-error: create order answers 500 in Klarna's envelope, a fresh correlation id each time")
    func serverError() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-500"))
            ScenarioExpect.sessionCreated(try await client.createSession(scenario: "server-error"), id: sequentialID(1))
            ScenarioExpect.approved(try await client.authorize(sequentialID(1), scenario: nil), token: sequentialID(2))
            let first = expectKlarnaError(try await client.createOrder(sequentialID(2), scenario: nil), 500, "INTERNAL_SERVER_ERROR",
                                          ["Internal error"])
            let second = expectKlarnaError(try await client.createOrder(sequentialID(2), scenario: nil), 500, "INTERNAL_SERVER_ERROR",
                                           ["Internal error"])
            #expect(first != nil && first != second, "correlation ids \(String(describing: first)) and \(String(describing: second))")
            let state = try await client.paymentsState()
            #expect((state["orders"] as? [Any])?.isEmpty == true, "\(state)")
            #expect(try await client.journalLines("status=500") == [
                "POST /payments/v1/authorizations/\(sequentialID(2))/order 500 scenario=server-error klarna.payments.create_order: http_error 500",
                "POST /payments/v1/authorizations/\(sequentialID(2))/order 500 scenario=server-error klarna.payments.create_order: http_error 500",
            ])
        }
    }

    @Test("slow: create session, authorize and create order each take at least the file's 2 seconds, then succeed")
    func slow() async throws {
        // Only lower bounds: a busy machine may add to the delay, never take from it.
        let delay = Duration.milliseconds(2000)
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("bundled-slow"))
            let (created, createTime) = try await measure {
                try await client.send(.post, "/payments/v1/sessions", body: KlarnaExamples.gbSession, headers: ["Sandbox-Scenario": "slow"])
            }
            ScenarioExpect.sessionCreated(created, id: sequentialID(1))
            #expect(createTime >= delay, "create session took \(createTime)")
            let (authorized, authorizeTime) = try await measure {
                try await client.send(.post, "/__sandbox/klarna/payments/sessions/\(sequentialID(1))/authorize")
            }
            ScenarioExpect.approved(authorized, token: sequentialID(2))
            #expect(authorizeTime >= delay, "authorize took \(authorizeTime)")
            let (order, orderTime) = try await measure {
                try await client.send(.post, "/payments/v1/authorizations/\(sequentialID(2))/order", body: KlarnaExamples.gbOrder)
            }
            ScenarioExpect.order(order, id: sequentialID(3), origin: sandbox.origin)
            #expect(orderTime >= delay, "create order took \(orderTime)")
            // Operations the file does not slow down are not delayed (the journal's note names no delay).
            #expect(try await client.readSession(sequentialID(1)).status == 200)
            let read = try await client.journal("method=GET")
            #expect(read.map { journalLine($0) } == [
                "GET /payments/v1/sessions/\(sequentialID(1)) 200 scenario=slow klarna.payments.read_session: approve (no rule)",
            ])
            let entries = try await client.journal("path_prefix=/payments/v1/sessions&method=POST")
            #expect(entries.map { journalLine($0, fullNote: false) } == [
                "POST /payments/v1/sessions 200 scenario=slow klarna.payments.create_session: approve",
            ])
            #expect((entries.first?["note"] as? String)?.hasSuffix(", delay 2.0 seconds") == true, "\(entries)")
            #expect((entries.first?["duration_ms"] as? Double ?? 0) >= 2000, "\(entries)")
        }
    }
}
