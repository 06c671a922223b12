// SPDX-License-Identifier: MIT
// Klarna Payments errors in-process: every error under /payments/ is Klarna's envelope
// {error_code, error_messages, correlation_id} (klarna-api.md §1.4), with the codes and messages of §3.1
// where the sandbox can produce them today (no scenario engine yet: no REJECTED, MERCHANT_INACTIVE or 500).
import Foundation
import KlarnaSandbox
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
import Testing

@Suite("Klarna Payments: errors")
struct KlarnaPaymentsErrorTests {
    // MARK: 401 (§1.2)

    /// Authorization header values that must be refused; nil sends none.
    static let refusedAuthorizations: [(String, String?)] = [
        ("no header", nil),
        ("not Basic", "Bearer PK12345_0123456789ab"),
        ("Basic without credentials", "Basic"),
        ("empty password", "Basic " + Data("PK12345_0123456789ab:".utf8).base64EncodedString()),
        ("empty user", "Basic " + Data(":sandbox-secret".utf8).base64EncodedString()),
        ("bad base64", "Basic !!!not-base64!!!"),
        ("no colon", "Basic " + Data("PK12345_0123456789ab".utf8).base64EncodedString()),
    ]

    @Test("401 UNAUTHORIZED in Klarna's envelope with WWW-Authenticate: Basic",
          arguments: refusedAuthorizations.map(\.0))
    func unauthorized(variant: String) async throws {
        let authorization = Self.refusedAuthorizations.first { $0.0 == variant }?.1
        try await SandboxTest.run(.inProcess) { sandbox in
            var client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("401"))
            client.authorization = authorization ?? ""
            // Every KP operation, before the body is even looked at (malformed JSON stays 401).
            for response in [
                try await client.createSession(),
                try await client.post("/payments/v1/sessions", "{not json"),
                try await client.readSession("8fa7944f-5004-1366-a66f-90e39818534f"),
                try await client.updateSession("8fa7944f-5004-1366-a66f-90e39818534f", "{}"),
                try await client.delete("/payments/v1/sessions/8fa7944f-5004-1366-a66f-90e39818534f"),
                try await client.createOrder("1eddf502-f3a0-45bf-b1fd-f2e3a2758200"),
                try await client.cancelAuthorization("1eddf502-f3a0-45bf-b1fd-f2e3a2758200"),
                try await client.createCustomerToken("1eddf502-f3a0-45bf-b1fd-f2e3a2758200"),
            ] {
                expectKlarnaError(response, 401, "UNAUTHORIZED", [])
            }
        }
    }

    @Test("a refused request creates nothing")
    func unauthorizedCreatesNothing() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            var client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("401-nothing"))
            client.authorization = "Basic " + Data("PK12345_0123456789ab:".utf8).base64EncodedString()
            expectKlarnaError(try await client.createSession(), 401, "UNAUTHORIZED", [])
            let state = try await client.paymentsState()
            #expect((state["sessions"] as? [Any])?.isEmpty == true, "\(state)")
        }
    }

    @Test("a raw klarna_test_api_ key after Basic is accepted (§1.2, §9.12)")
    func rawAPIKey() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            var client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("api-key"))
            client.authorization = "Basic klarna_test_api_OGQ1ZTY3NjAtNmRkMi00YjM4LWE2OWMtYmU0ZWJmMTU3ZTk2"
            let created = try await client.createSession()
            #expect(created.status == 200, "\(created)")
        }
    }

    @Test("credentials .only: the listed user with its password is accepted, nothing else")
    func restrictedCredentials() async throws {
        let configuration = configured { $0.klarnaPayments.credentials = .only(["PK12345_0123456789ab": "right-secret"]) }
        try await SandboxTest.run(.inProcess, configuration: configuration) { sandbox in
            let namespace = uniqueNamespace("only")
            let good = KlarnaMerchant(sandbox, namespace: namespace, user: "PK12345_0123456789ab", password: "right-secret")
            let sessionID = try await good.newSession()
            #expect(try await good.readSession(sessionID).status == 200)

            for (user, password) in [("PK12345_0123456789ab", "wrong-secret"), ("PK99999_ffffffffffff", "right-secret"),
                                     ("PK12345_0123456789ab", ""), ("pk12345_0123456789ab", "right-secret")] {
                let bad = KlarnaMerchant(sandbox, namespace: namespace, user: user, password: password)
                expectKlarnaError(try await bad.readSession(sessionID), 401, "UNAUTHORIZED", [])
                expectKlarnaError(try await bad.createSession(), 401, "UNAUTHORIZED", [])
            }
            var key = KlarnaMerchant(sandbox, namespace: namespace)
            key.authorization = "Basic klarna_test_api_OGQ1ZTY3NjAtNmRkMi00YjM4LWE2OWMtYmU0ZWJmMTU3ZTk2"
            expectKlarnaError(try await key.createSession(), 401, "UNAUTHORIZED", [])
            // One set of API credentials for every Klarna API: HPP and Order Management follow the same policy.
            let bad = KlarnaMerchant(sandbox, namespace: namespace, user: "PK99999_ffffffffffff", password: "right-secret")
            expectKlarnaError(try await bad.get("/ordermanagement/v1/orders/any"), 401, "UNAUTHORIZED", [])
            expectKlarnaError(try await bad.get("/hpp/v1/sessions/any"), 401, "UNAUTHORIZED", [])
            expectKlarnaError(try await good.get("/ordermanagement/v1/orders/any"), 404, "NO_SUCH_ORDER", ["Order any cannot be found"])
        }
    }

    // MARK: Routing errors

    @Test("unknown path under /payments/: 404 NOT_FOUND envelope")
    func unknownPath() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("404"))
            expectKlarnaError(try await client.get("/payments/v1/nope"), 404, "NOT_FOUND", ["No route for /payments/v1/nope"])
            expectKlarnaError(try await client.post("/payments/v2/sessions", KlarnaExamples.gbSession), 404, "NOT_FOUND",
                              ["No route for /payments/v2/sessions"])
            // Without credentials too: the path is looked up first.
            var anonymous = client
            anonymous.authorization = ""
            expectKlarnaError(try await anonymous.get("/payments/v1/nope"), 404, "NOT_FOUND", ["No route for /payments/v1/nope"])
        }
    }

    @Test("wrong method: 405 METHOD_NOT_ALLOWED envelope with Allow")
    func wrongMethod() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("405"))
            let onSession = try await client.send("PUT", "/payments/v1/sessions/8fa7944f-5004-1366-a66f-90e39818534f", body: "{}")
            expectKlarnaError(onSession, 405, "METHOD_NOT_ALLOWED", ["Method PUT is not allowed here"])
            #expect(allowed(onSession) == ["DELETE", "GET", "HEAD", "POST"], "\(onSession.summary)")

            let onSessions = try await client.get("/payments/v1/sessions")
            expectKlarnaError(onSessions, 405, "METHOD_NOT_ALLOWED", ["Method GET is not allowed here"])
            #expect(allowed(onSessions) == ["POST"], "\(onSessions.summary)")

            let onOrder = try await client.get("/payments/v1/authorizations/1eddf502-f3a0-45bf-b1fd-f2e3a2758200/order")
            expectKlarnaError(onOrder, 405, "METHOD_NOT_ALLOWED", ["Method GET is not allowed here"])
            #expect(allowed(onOrder) == ["POST"], "\(onOrder.summary)")
        }
    }

    private func allowed(_ response: SandboxResponse) -> Set<String> {
        Set((response.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }

    // MARK: Bodies

    @Test("malformed JSON and a missing body: 400 BAD_REQUEST on every operation that takes a body")
    func malformedBodies() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("400-json"))
            let (sessionID, token) = try await client.authorizedSession()
            let paths = ["/payments/v1/sessions", "/payments/v1/sessions/\(sessionID)",
                         "/payments/v1/authorizations/\(token)/order", "/payments/v1/authorizations/\(token)/customer-token"]
            for path in paths {
                for body in ["{", "not json", #"{"order_amount": 1"#, #"{"a" "b"}"#, "{}}"] {
                    // The message says where: "Malformed JSON in request body: line 1, column 2: ...".
                    let response = try await client.post(path, body)
                    #expect(response.status == 400, "\(response)")
                    let object = try response.requireJSONObject()
                    #expect(object["error_code"] as? String == "BAD_REQUEST")
                    let message = (object["error_messages"] as? [String])?.first ?? ""
                    #expect(message.hasPrefix("Malformed JSON in request body: line 1, column "), "\(message)")
                }
                expectKlarnaError(try await client.post(path), 400, "BAD_REQUEST", ["Request body is missing"])
            }
            // Nothing was placed: the token still works.
            #expect(try await client.createOrder(token).status == 200)
        }
    }

    @Test("JSON with a trailing comma is malformed (RFC 8259): 400 BAD_REQUEST")
    func trailingComma() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("400-comma"))
            let sessionID = try await client.newSession()
            let object = try await client.updateSession(sessionID, #"{"merchant_reference2": "x",}"#)
            let array = try await client.createSession(KlarnaExamples.gbSession.replacingOccurrences(of: "\"total_tax_amount\": 483 }", with: "\"total_tax_amount\": 483 },"))
            // Foundation's JSONDecoder alone would accept these; the sandbox parses strictly first.
            for response in [object, array] {
                #expect(response.status == 400, "\(response)")
                let body = try response.requireJSONObject()
                #expect(body["error_code"] as? String == "BAD_REQUEST")
                let message = (body["error_messages"] as? [String])?.first ?? ""
                #expect(message.hasPrefix("Malformed JSON in request body: line "), "\(message)")
            }
        }
    }

    @Test("a number with a fraction where an integer belongs is a wrong value, not malformed JSON")
    func fractionalInteger() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("400-fraction"))
            let response = try await client.createSession(#"{"order_lines": [{"quantity": 1.5}]}"#)
            #expect(response.status == 400, "\(response)")
            expectKlarnaError(response, 400, "BAD_VALUE", ["Bad value: order_lines[0].quantity"])
        }
    }

    @Test("a body that is not a JSON object is 400 in the envelope, and the message names something",
          arguments: ["[]", #""GB""#, "null", "42"])
    func notAnObject(body: String) async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("400-not-object"))
            let response = try await client.createSession(body)
            #expect(response.status == 400, "\(response)")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            let object = try response.requireJSONObject()
            #expect(object["correlation_id"].flatMap { $0 as? String }.map(isUUID) == true)
            #expect(object["error_code"] as? String == "BAD_REQUEST")
            #expect(object["error_messages"] as? [String] == ["Request body must be a JSON object"], "\(response.text)")
        }
    }

    /// Bodies with a value of the wrong JSON type, and the path Klarna's message names.
    static let wrongTypes: [(String, String)] = [
        (#"{"order_amount": "62400"}"#, "order_amount"),
        (#"{"order_amount": true}"#, "order_amount"),
        (#"{"purchase_country": 44}"#, "purchase_country"),
        (#"{"order_lines": {}}"#, "order_lines"),
        (#"{"order_lines": [1]}"#, "order_lines[0]"),
        (#"{"order_lines": [{"quantity": "1"}]}"#, "order_lines[0].quantity"),
        (#"{"order_lines": [{"name": "a"}, {"unit_price": []}]}"#, "order_lines[1].unit_price"),
        (#"{"billing_address": {"postal_code": 90210}}"#, "billing_address.postal_code"),
        (#"{"merchant_urls": {"confirmation": false}}"#, "merchant_urls.confirmation"),
        (#"{"merchant_reference1": {}}"#, "merchant_reference1"),
    ]

    @Test("a value of the wrong type: 400 BAD_VALUE naming its path", arguments: wrongTypes.map(\.0))
    func wrongType(body: String) async throws {
        let path = try #require(Self.wrongTypes.first { $0.0 == body }?.1)
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("400-type"))
            expectKlarnaError(try await client.createSession(body), 400, "BAD_VALUE", ["Bad value: \(path)"])
        }
    }

    /// The BAD_VALUE rows of §3.1, each from an edit of the GB example.
    static let badValues: [(String, @Sendable (inout [String: Any]) -> Void)] = [
        ("order_lines[0].tax_rate", { editLine(&$0, 0) { $0["tax_rate"] = 10001 } }),
        ("order_lines[0].total_tax_amount", { editLine(&$0, 0) { $0["total_tax_amount"] = 9000 } }),
        ("order_lines[1].total_amount", { editLine(&$0, 1) { $0["total_amount"] = 2901 } }),
        ("order_tax_amount", { $0["order_tax_amount"] = 10500 }),
        ("order_amount", { $0["order_amount"] = 62000 }),
        ("order_lines", { $0["order_lines"] = [] }),
        ("purchase_currency", { $0["purchase_currency"] = "EUR" }),
        ("purchase_country", { $0["purchase_country"] = "GBR" }),
        ("billing_address.postal_code", { $0["billing_address"] = ["postal_code": "W1S 3BE 12345"] }),
        ("billing_address.country", { $0["billing_address"] = ["country": "UK1"] }),
        ("attachment.attachment", { $0["attachment"] = ["content_type": "application/vnd.klarna.internal.emd-v2+json", "body": "not json"] }),
        ("locale", { $0["locale"] = "sv-SE" }),
        ("intent", { $0["intent"] = "rent" }),
    ]

    private static func editLine(_ object: inout [String: Any], _ index: Int, _ change: (inout [String: Any]) -> Void) {
        var lines = object["order_lines"] as? [[String: Any]] ?? []
        change(&lines[index])
        object["order_lines"] = lines
    }

    @Test("validation errors of §3.1: 400 BAD_VALUE \"Bad value: <path>\"", arguments: badValues.map(\.0))
    func badValue(path: String) async throws {
        let change = try #require(Self.badValues.first { $0.0 == path }?.1)
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("400-value"))
            expectKlarnaError(try await client.createSession(KlarnaExamples.edit(KlarnaExamples.gbSession, change)), 400, "BAD_VALUE",
                              ["Bad value: \(path)"])
        }
    }

    // MARK: The envelope

    @Test("correlation ids are UUIDs and differ between requests")
    func correlationIDs() async throws {
        try await SandboxTest.run(.inProcess) { sandbox in
            let client = KlarnaMerchant(sandbox, namespace: uniqueNamespace("correlation"))
            var seen: Set<String> = []
            for _ in 0..<5 {
                let id = expectKlarnaError(try await client.readSession("8fa7944f-5004-1366-a66f-90e39818534f"), 404, "NOT_FOUND",
                                           ["Invalid session id"])
                if let id { seen.insert(id) }
            }
            var anonymous = client
            anonymous.authorization = ""
            if let id = expectKlarnaError(try await anonymous.createSession(), 401, "UNAUTHORIZED", []) { seen.insert(id) }
            #expect(seen.count == 6, "correlation ids repeat: \(seen)")
        }
    }
}
