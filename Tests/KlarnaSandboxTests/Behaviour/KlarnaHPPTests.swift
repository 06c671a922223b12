// SPDX-License-Identifier: MIT
// Klarna Hosted Payment Page in-process (klarna-api.md §4): the merchant API, the consumer's page and its actions
// (pay, cancel, back, reject) in each place_order_mode, placeholders, custom schemes, escaping, disable,
// distribution and expiry on the sandbox clock. Manual clock and sequential ids unless stated. The status_update
// callbacks, which need a listening merchant endpoint, are in EndToEndTests (KlarnaHPPCallbackTests.swift).
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna HPP")
struct KlarnaHPPTests {
    // MARK: Helpers

    /// Creates an HPP session (fails unless 201) and returns its id.
    static func newHPPSession(_ client: KlarnaMerchant, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let response = try await client.post("/hpp/v1/sessions", body)
        try #require(response.status == 201, "create HPP session: \(response)", sourceLocation: sourceLocation)
        return try #require(try response.requireJSONObject()["session_id"] as? String, sourceLocation: sourceLocation)
    }

    static func read(_ client: KlarnaMerchant, _ id: String) async throws -> [String: Any] {
        let response = try await client.get("/hpp/v1/sessions/\(id)")
        try #require(response.status == 200, "read HPP session: \(response)")
        return try response.requireJSONObject()
    }

    /// A request as a browser sends it: no credentials, no namespace.
    static func browser(_ sandbox: SandboxClient, _ method: SandboxClient.Method, _ path: String,
                        form: String? = nil) async throws -> SandboxResponse {
        var headers = ["Accept": "text/html"]
        if form != nil { headers["Content-Type"] = "application/x-www-form-urlencoded" }
        return try await sandbox.namespace(nil).send(method, path, headers: headers, body: form.map { Data($0.utf8) })
    }

    /// A backend test's consumer action: no credentials, JSON answer.
    static func act(_ sandbox: SandboxClient, _ id: String, _ action: String) async throws -> SandboxResponse {
        try await sandbox.namespace(nil).send(.post, "/__sandbox/klarna/hpp/sessions/\(id)/\(action)")
    }

    static func expect303(_ response: SandboxResponse, to location: String, status: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 303, "\(response)", sourceLocation: sourceLocation)
        #expect(response.header("Location") == location, "\(response.summary)", sourceLocation: sourceLocation)
        let body = try? response.requireJSONObject()
        #expect(body?["status"] as? String == status, "\(response)", sourceLocation: sourceLocation)
        #expect(body?["location"] as? String == location, "\(response)", sourceLocation: sourceLocation)
    }

    /// 2027-01-15T08:00Z + 48 h (KP session) − 1 h.
    static let expiresAt = "2027-01-17T07:00:00.000Z"
    static let createdAt = "2027-01-15T08:00:00.000Z"

    // MARK: place_order_mode NONE

    @Test("NONE: create (exact 201), WAITING, page opens IN_PROGRESS, pay 303s to success with the token, which places a KP order")
    func none_PayRedirectsToSuccessWithToken() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-none"))
            let kp = try await client.newSession()
            let created = try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs))
            let id = sequentialID(2), base = "\(sandbox.origin)"
            expectJSON(created, status: 201, """
                {"session_id": "\(id)", "redirect_url": "\(base)/hpp/payments/\(id)",
                 "session_url": "\(base)/hpp/v1/sessions/\(id)", "qr_code_url": "\(base)/hpp/payments/\(id)/qr",
                 "distribution_url": "\(base)/hpp/v1/sessions/\(id)/distribution",
                 "manual_identification_check_url": "\(base)/hpp/v1/sessions/\(id)/manual-id-check",
                 "expires_at": "\(Self.expiresAt)",
                 "distribution_module": {"token": "\(sequentialID(3))",
                   "standalone_url": "\(base)/hpp/distributions/\(id)?profile_id={{profile_id}}&view_id={{view_id}}",
                   "generation_url": "\(base)/hpp/v1/sessions/\(id)/distribution-module/token"}}
                """)
            expectJSON(try await client.get("/hpp/v1/sessions/\(id)"), """
                {"session_id": "\(id)", "status": "WAITING", "updated_at": "\(Self.createdAt)", "expires_at": "\(Self.expiresAt)"}
                """)

            let page = try await Self.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(page.status == 200, "\(page)")
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            for needle in [#"<meta name="viewport""#, #"id="pay""#, #"id="cancel""#, #"id="back""#, #"id="reject""#,
                           "Battery Power Pack", "595.00 GBP", "624.00 GBP", "Pay with Klarna",
                           #"formaction="/__sandbox/klarna/hpp/sessions/\#(id)/pay""#] {
                #expect(page.text.contains(needle), "page lacks \(needle)")
            }
            #expect(!page.text.contains("<script"), "the page runs no script")
            #expect(try await Self.read(client, id)["status"] as? String == "IN_PROGRESS")

            let paid = try await Self.act(sandbox, id, "pay")
            let token = sequentialID(4)
            Self.expect303(paid, to: "https://merchant.example/success?sid=\(id)&token=\(token)&order=", status: "COMPLETED")
            expectJSON(try await client.get("/hpp/v1/sessions/\(id)"), """
                {"session_id": "\(id)", "status": "COMPLETED", "authorization_token": "\(token)",
                 "updated_at": "\(Self.createdAt)", "expires_at": "\(Self.expiresAt)"}
                """)
            // NONE: the merchant places the order with the token (klarna-api.md §4.1).
            _ = try await client.newOrder(token)
            // Final: another action is refused; the page says it is complete, without buttons.
            expectKlarnaError(try await Self.act(sandbox, id, "pay"), 409, "CONFLICT",
                              ["HPP session is COMPLETED: a final status does not change."])
            let again = try await Self.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(again.status == 200 && again.text.contains(#"data-reason="completed""#) && !again.text.contains("<button"),
                    "\(again)")
        }
    }

    // MARK: PLACE_ORDER and CAPTURE_ORDER

    @Test("PLACE_ORDER: pay places the order; order_id and klarna_reference, no authorization_token; KP session complete")
    func placeOrder_CompletesWithOrderID() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-place"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs,
                                                                         options: #"{"place_order_mode": "PLACE_ORDER"}"#))
            let orderID = sequentialID(5)
            Self.expect303(try await Self.act(sandbox, id, "pay"),
                           to: "https://merchant.example/success?sid=\(id)&token=&order=\(orderID)", status: "COMPLETED")
            let session = try await Self.read(client, id)
            let reference = try #require(session["klarna_reference"] as? String, "\(session)")
            expectJSON(try await client.get("/hpp/v1/sessions/\(id)"), """
                {"session_id": "\(id)", "status": "COMPLETED", "order_id": "\(orderID)", "klarna_reference": "\(reference)",
                 "updated_at": "\(Self.createdAt)", "expires_at": "\(Self.expiresAt)"}
                """)
            #expect(try await client.readSession(kp).requireJSONObject()["status"] as? String == "complete")
        }
    }

    @Test("CAPTURE_ORDER: pay places the order with auto capture; order_id in the success URL")
    func captureOrder_CompletesWithOrderID() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-capture"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: #"{"success": "https://m.example/ok/{{order_id}}"}"#,
                                                                         options: #"{"place_order_mode": "CAPTURE_ORDER"}"#))
            let orderID = sequentialID(5)
            Self.expect303(try await Self.act(sandbox, id, "pay"), to: "https://m.example/ok/\(orderID)", status: "COMPLETED")
            let session = try await Self.read(client, id)
            #expect(session["order_id"] as? String == orderID && session["authorization_token"] == nil, "\(session)")
            let orders = try #require(try await client.paymentsState()["orders"] as? [[String: Any]])
            #expect(orders.map { $0["order_id"] as? String } == [orderID])
        }
    }

    @Test("PLACE_ORDER / CAPTURE_ORDER: the order is in Order Management, AUTHORIZED or CAPTURED, with HPP's klarna_reference")
    func placedOrders_AreInOrderManagement() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-om"))
            for (mode, expected) in [("PLACE_ORDER", "AUTHORIZED"), ("CAPTURE_ORDER", "CAPTURED")] {
                let kp = try await client.newSession()
                let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, options: #"{"place_order_mode": "\#(mode)"}"#))
                #expect(try await Self.act(sandbox, id, "pay").status == 200)
                let orderID = try #require(try await Self.read(client, id)["order_id"] as? String)
                let order = try await client.get("/ordermanagement/v1/orders/\(orderID)")
                #expect(order.status == 200, "\(order)")
                let placed = try order.requireJSONObject()
                #expect(placed["status"] as? String == expected, "\(order)")
                #expect(placed["klarna_reference"] as? String == (try await Self.read(client, id)["klarna_reference"] as? String), "\(order)")
            }
        }
    }

    // MARK: cancel, back, reject, scenarios

    @Test("cancel in eCommerce is back (§4.1): BACK, to the cancel URL; after distribution it is CANCELLED (final)")
    func cancel_IsBackUnlessDistributed() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-cancel"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs))
            Self.expect303(try await Self.act(sandbox, id, "cancel"), to: "https://merchant.example/cancel?sid=\(id)", status: "BACK")
            // BACK is not final: the consumer comes back and pays.
            _ = try await Self.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(try await Self.read(client, id)["status"] as? String == "IN_PROGRESS")

            let distributed = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs))
            #expect(try await client.post("/hpp/v1/sessions/\(distributed)/distribution",
                                          #"{"method": "email", "contact_information": {"email": "a@b.example"}}"#).status == 201)
            Self.expect303(try await Self.act(sandbox, distributed, "cancel"), to: "https://merchant.example/cancel?sid=\(distributed)",
                           status: "CANCELLED")
            expectKlarnaError(try await Self.act(sandbox, distributed, "pay"), 409, "CONFLICT",
                              ["HPP session is CANCELLED: a final status does not change."])
        }
    }

    @Test("back: BACK to the back URL; the page reopens IN_PROGRESS and pay still works")
    func back_ThenPay() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-back"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs))
            // The browser's form post (formaction of #back).
            let back = try await Self.browser(sandbox, "POST", "/__sandbox/klarna/hpp/sessions/\(id)/back", form: "action=back")
            Self.expect303(back, to: "https://merchant.example/back?sid=\(id)", status: "BACK")
            #expect(try await Self.read(client, id)["status"] as? String == "BACK")
            // The form's own action with the field only.
            let paid = try await Self.browser(sandbox, "POST", "/__sandbox/klarna/hpp/sessions/\(id)", form: "action=pay")
            #expect(paid.status == 303 && paid.header("Location")?.hasPrefix("https://merchant.example/success?sid=\(id)&token=") == true,
                    "\(paid)")
        }
    }

    @Test("reject (sandbox control): FAILED, to the failure URL; FAILED is not final")
    func reject_Fails() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-reject"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs))
            Self.expect303(try await Self.act(sandbox, id, "reject"), to: "https://merchant.example/failure?sid=\(id)", status: "FAILED")
            let session = try await Self.read(client, id)
            #expect(session["status"] as? String == "FAILED" && session["authorization_token"] == nil, "\(session)")
            Self.expect303(try await Self.act(sandbox, id, "pay"), to: "https://merchant.example/success?sid=\(id)&token=\(sequentialID(4))&order=",
                           status: "COMPLETED")
        }
    }

    @Test("The KP session's reject scenario makes pay fail: FAILED, failure URL, journal names the scenario")
    func rejectScenario_PayFails() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-scenario"))
            #expect(try await client.createSession(scenario: "reject").status == 200)
            let kp = sequentialID(1)
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaHPPBodies.allMerchantURLs))
            Self.expect303(try await Self.act(sandbox, id, "pay"), to: "https://merchant.example/failure?sid=\(id)", status: "FAILED")
            #expect(try await Self.read(client, id)["status"] as? String == "FAILED")
            let lines = try await client.journal("path_prefix=/__sandbox/klarna/hpp/").map { journalLine($0) }
            #expect(lines == ["POST /__sandbox/klarna/hpp/sessions/\(id)/pay 303 HPP session \(id): scenario=reject "
                                + "klarna.payments.authorize (hosted page pay): reject (rule 0) -> FAILED"], "\(lines)")
            // The HPP API calls follow the KP session's scenario too (approve: reject has no HPP rules).
            let reads = try await client.journalLines("path_prefix=/hpp/v1/sessions/\(id)")
            #expect(!reads.isEmpty && reads.allSatisfy { $0.contains("scenario=reject klarna.hpp.read_session") }, "\(reads)")
        }
    }

    // MARK: Validation and merchant URLs

    @Test("Both payment_method_category and payment_method_categories: 400; case-insensitive; unoffered: 400; no URL: 400; unknown KP session: 404")
    func create_Validation() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-validation"))
            let kp = try await client.newSession()
            let refused = "We were unable to create a session with the provided data. Some field constraint was violated."
            expectKlarnaError(try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, options: """
                {"payment_method_category": "KLARNA", "payment_method_categories": ["KLARNA"]}
                """)), 400, "BAD_VALUE", ["Only one of options.payment_method_category and options.payment_method_categories may be given", refused])
            #expect(try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, options: #"{"payment_method_category": "klarna"}"#)).status == 201)
            expectKlarnaError(try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, options: #"{"payment_method_categories": ["pay_later"]}"#)),
                              400, "BAD_VALUE", ["Bad value: options.payment_method_categories (PAY_LATER is not offered by the payment session, which offers KLARNA)", refused])
            expectKlarnaError(try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, options: #"{"place_order_mode": "LATER"}"#)),
                              400, "BAD_VALUE", ["Bad value: options.place_order_mode", refused])
            expectKlarnaError(try await client.post("/hpp/v1/sessions", #"{"options": {}}"#), 400, "BAD_VALUE",
                              ["Bad value: payment_session_url", refused])
            expectKlarnaError(try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody("00000000-0000-4000-8000-0000000000ff")),
                              404, "NOT_FOUND", ["Payment session has expired."])
            // Another namespace's KP session is unknown here.
            let other = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-validation-other"))
            expectKlarnaError(try await other.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp)), 404, "NOT_FOUND", ["Payment session has expired."])
            let malformed = try await client.post("/hpp/v1/sessions", "{")
            #expect(malformed.status == 400 && (try? malformed.requireJSONObject()["error_code"] as? String) == "BAD_REQUEST", "\(malformed)")
        }
    }

    @Test("Custom scheme success URL: myapp://klarna-redirect?sid={{session_id}} is the Location as is")
    func customScheme_Redirect() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-scheme"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: #"{"success": "myapp://klarna-redirect?sid={{session_id}}"}"#))
            let paid = try await Self.browser(sandbox, "POST", "/__sandbox/klarna/hpp/sessions/\(id)/pay", form: "action=pay")
            Self.expect303(paid, to: "myapp://klarna-redirect?sid=\(id)", status: "COMPLETED")
        }
    }

    @Test("No merchant URLs: 200 result page for the browser, {status} for API clients")
    func noMerchantURLs_ResultPage() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-nourls"))
            let kp = try await client.newSession()
            let first = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp))
            let page = try await Self.browser(sandbox, "POST", "/__sandbox/klarna/hpp/sessions/\(first)/reject", form: "action=reject")
            #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8", "\(page)")
            #expect(page.text.contains(#"<main id="hpp-result""#) && page.text.contains(#"<dd id="status">FAILED</dd>"#), "\(page)")
            expectJSON(try await Self.act(sandbox, first, "pay"), #"{"status": "COMPLETED"}"#)
        }
    }

    @Test("Hostile merchant text is escaped in the page: order line names, page title, currency")
    func page_EscapesMerchantText() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-escape"))
            let hostile = KlarnaExamples.edit(KlarnaExamples.gbSession) { session in
                var lines = session["order_lines"] as? [[String: Any]] ?? []
                lines[0]["name"] = "<script>alert(1)</script>"
                lines[1]["name"] = #"Ship "quoted" 'single' & <b>bold</b>"#
                session["order_lines"] = lines
            }
            let kp = try await client.newSession(hostile)
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp, options: #"{"page_title": "\"><img src=x onerror=alert(2)>"}"#))
            let page = try await Self.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(page.status == 200)
            let html = page.text
            #expect(!html.contains("<script>") && !html.contains("<img") && !html.contains("<b>"), "\(html)")
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(html.contains("Ship &quot;quoted&quot; &#39;single&#39; &amp; &lt;b&gt;bold&lt;/b&gt;"))
            #expect(html.contains("<title>&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</title>"))
            #expect(page.header("Content-Security-Policy") == "default-src 'none'; style-src 'unsafe-inline'")
        }
    }

    // MARK: Disable, distribution, expiry, auth

    @Test("DELETE: 204 DISABLED; page 410 without buttons; actions 409; DELETE again 204; distribution 400; COMPLETED: 400")
    func disable() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-disable"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp))
            expectNoContent(try await client.delete("/hpp/v1/sessions/\(id)"))
            #expect(try await Self.read(client, id)["status"] as? String == "DISABLED")
            let page = try await Self.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(page.status == 410 && page.text.contains(#"data-reason="disabled""#) && !page.text.contains("<button"), "\(page)")
            expectKlarnaError(try await Self.act(sandbox, id, "pay"), 409, "CONFLICT", ["HPP session is DISABLED: a final status does not change."])
            expectNoContent(try await client.delete("/hpp/v1/sessions/\(id)"))
            expectKlarnaError(try await client.post("/hpp/v1/sessions/\(id)/distribution", #"{"method": "email", "contact_information": {"email": "a@b.example"}}"#),
                              400, "BAD_VALUE", ["The session is disabled", "We were unable to distribute the link with the provided data. Some field constraint was violated. Or session is disabled by merchant."])

            let completed = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(try await client.newSession()))
            #expect(try await Self.act(sandbox, completed, "pay").status == 200)
            expectKlarnaError(try await client.delete("/hpp/v1/sessions/\(completed)"), 400, "BAD_VALUE",
                              ["HPP session has already been successfully completed."])
        }
    }

    @Test("Distribution: 201 empty, nothing sent, recorded in /__sandbox/state and the journal; contact checks 400; unknown 404")
    func distribution_Recorded() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-distribution"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp))
            let sms = #"{"method": "sms", "contact_information": {"phone": "07000212345", "phone_country": "SE"}, "template": "INSTORE_PURCHASE"}"#
            let sent = try await client.post("/hpp/v1/sessions/\(id)/distribution", sms)
            #expect(sent.status == 201 && sent.body.isEmpty, "\(sent)")
            let state = try #require(try await client.get("/__sandbox/state").requireJSONObject()["klarna_hpp"] as? [String: Any])
            let distributions = try #require(state["distributions"] as? [[String: Any]], "\(state)")
            #expect(canonicalJSON(try JSONSerialization.data(withJSONObject: distributions)) == canonicalJSON(Data("""
                [{"session_id": "\(id)", "method": "sms", "template": "INSTORE_PURCHASE", "distributed_at": "\(Self.createdAt)",
                  "contact_information": {"phone": "07000212345", "phone_country": "SE"}}]
                """.utf8)))
            let journal = try await client.journal("method=DISTRIBUTION")
            #expect(journal.map { journalLine($0) } == ["DISTRIBUTION \(sandbox.origin)/hpp/payments/\(id) 0 "
                + "sms to 07000212345 (SE) for HPP session \(id): not sent (the sandbox sends no messages)"], "\(journal)")
            let problem = "We were unable to distribute the link with the provided data. Some field constraint was violated. Or session is disabled by merchant."
            expectKlarnaError(try await client.post("/hpp/v1/sessions/\(id)/distribution", #"{"method": "sms", "contact_information": {"phone": "0700"}}"#),
                              400, "BAD_VALUE", ["Bad value: contact_information.phone_country", problem])
            expectKlarnaError(try await client.post("/hpp/v1/sessions/\(id)/distribution", #"{"method": "fax", "contact_information": {}}"#),
                              400, "BAD_VALUE", ["Bad value: method", problem])
            expectKlarnaError(try await client.post("/hpp/v1/sessions/unknown/distribution", sms), 404, "NOT_FOUND",
                              ["HPP session not found or access token not found"])
        }
    }

    @Test("Distribution: contact fields and template longer than 99 characters are 400 BAD_VALUE, not recorded; 99 are accepted")
    func distribution_LongFields_400() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-distribution-long"))
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(try await client.newSession()))
            let problem = "We were unable to distribute the link with the provided data. Some field constraint was violated. Or session is disabled by merchant."
            let local = String(repeating: "a", count: 4 << 20)
            for (body, field) in [
                (#"{"method": "email", "contact_information": {"email": "\#(local)@x.com"}}"#, "contact_information.email"),
                (#"{"method": "email", "contact_information": {"email": "\#(String(repeating: "a", count: 94))@x.com"}}"#, "contact_information.email"),
                (#"{"method": "sms", "contact_information": {"phone": "\#(String(repeating: "7", count: 100))", "phone_country": "SE"}}"#, "contact_information.phone"),
                (#"{"method": "token", "contact_information": {"access_id": "\#(String(repeating: "k", count: 100))"}}"#, "contact_information.access_id"),
                (#"{"method": "email", "contact_information": {"email": "a@b.example"}, "template": "\#(String(repeating: "T", count: 100))"}"#, "template"),
            ] {
                expectKlarnaError(try await client.post("/hpp/v1/sessions/\(id)/distribution", body), 400, "BAD_VALUE", ["Bad value: \(field)", problem])
            }
            let state = try #require(try await client.get("/__sandbox/state").requireJSONObject()["klarna_hpp"] as? [String: Any])
            #expect((state["distributions"] as? [Any])?.isEmpty == true, "\(state)")
            // 99 characters (93 + "@x.com") are accepted and journaled whole.
            let email = String(repeating: "a", count: 93) + "@x.com"
            let sent = try await client.post("/hpp/v1/sessions/\(id)/distribution", #"{"method": "email", "contact_information": {"email": "\#(email)"}}"#)
            #expect(sent.status == 201, "\(sent)")
            let journal = try await client.journal("method=DISTRIBUTION")
            #expect(journal.map { journalLine($0) } == ["DISTRIBUTION \(sandbox.origin)/hpp/payments/\(id) 0 "
                + "email to \(email) for HPP session \(id): not sent (the sandbox sends no messages)"], "\(journal)")
        }
    }

    @Test("Expiry: 1 h before the KP session (sandbox clock): API 404, page 410 expired; create for such a KP session 404")
    func expiry_OnSandboxClock() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-expiry"))
            let kp = try await client.newSession()
            let id = try await Self.newHPPSession(client, KlarnaHPPBodies.createBody(kp))
            try await client.advanceClock(seconds: 47 * 3600 - 1)
            #expect(try await Self.read(client, id)["status"] as? String == "WAITING")
            try await client.advanceClock(seconds: 1)
            let notFound = ["HPP session has expired or could not be found by provided id."]
            expectKlarnaError(try await client.get("/hpp/v1/sessions/\(id)"), 404, "NOT_FOUND", notFound)
            expectKlarnaError(try await client.delete("/hpp/v1/sessions/\(id)"), 404, "NOT_FOUND", notFound)
            expectKlarnaError(try await Self.act(sandbox, id, "pay"), 404, "NOT_FOUND", notFound)
            let page = try await Self.browser(sandbox, "GET", "/hpp/payments/\(id)")
            #expect(page.status == 410 && page.text.contains(#"data-reason="expired""#) && !page.text.contains("<button"), "\(page)")
            // The KP session itself lives one more hour, but no HPP session can be made for it.
            expectKlarnaError(try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp)), 404, "NOT_FOUND", ["Payment session has expired."])
        }
    }

    @Test("Auth and errors: 401 without credentials; unknown session 404; 405 and unknown paths in Klarna's envelope; unknown page 404")
    func auth_AndErrors() async throws {
        try await SandboxTest.run(.inProcess, configuration: deterministicConfiguration()) { sandbox in
            var anonymous = KlarnaMerchant(sandbox, namespace: nil)
            anonymous.authorization = ""
            expectKlarnaError(try await anonymous.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody("x")), 401, "UNAUTHORIZED", [])
            expectKlarnaError(try await anonymous.get("/hpp/v1/sessions/x"), 401, "UNAUTHORIZED", [])
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("hpp-errors"))
            expectKlarnaError(try await client.get("/hpp/v1/sessions/unknown"), 404, "NOT_FOUND",
                              ["HPP session has expired or could not be found by provided id."])
            let wrongMethod = try await client.send("PUT", "/hpp/v1/sessions/unknown")
            #expect(wrongMethod.status == 405 && (try? wrongMethod.requireJSONObject()["error_code"] as? String) == "METHOD_NOT_ALLOWED", "\(wrongMethod)")
            let unknownPath = try await client.get("/hpp/v1/nothing")
            #expect(unknownPath.status == 404 && (try? unknownPath.requireJSONObject()["error_code"] as? String) == "NOT_FOUND", "\(unknownPath)")
            let page = try await Self.browser(sandbox, "GET", "/hpp/payments/nope")
            #expect(page.status == 404 && page.text.contains(#"data-reason="not_found""#), "\(page)")
            expectKlarnaError(try await Self.act(sandbox, "nope", "pay"), 404, "NOT_FOUND",
                              ["HPP session has expired or could not be found by provided id."])
        }
    }
}
