// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox

@Suite struct KlarnaErrorTests {
    @Test func envelope_HasKlarnaKeys_AndAFreshCorrelationID() throws {
        let request = try HTTPRequest(method: .get, target: "/payments/v1/sessions/x", id: "7-3")
        let response = KlarnaError.invalidSessionID.response(for: request)
        #expect(response.status == .notFound)
        let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(body["error_code"] as? String == "NOT_FOUND")
        #expect(body["error_messages"] as? [String] == ["Invalid session id"])
        let correlation = try #require(body["correlation_id"] as? String)
        #expect(correlation.count == 36 && correlation.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(UUID(uuidString: correlation) != nil)
        let again = try #require(try JSONSerialization.jsonObject(with: KlarnaError.invalidSessionID.response(for: request).body) as? [String: Any])
        #expect(again["correlation_id"] as? String != correlation)
    }

    @Test func decode_NamesTheFieldWithTheWrongType_InSnakeCase() throws {
        let body = Data(#"{"purchase_country":"SE","order_lines":[{"name":"a","quantity":"two"}]}"#.utf8)
        #expect(throws: KlarnaError.badValue("order_lines[0].quantity")) {
            _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: body)
        }
        #expect(throws: KlarnaError.badValue("billing_address.street_address2")) {
            _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(#"{"billing_address":{"street_address2":5}}"#.utf8))
        }
    }

    @Test func decode_MalformedJSON_IsBadRequest_WithWhere() throws {
        do {
            _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data("{\"a\":".utf8))
            Issue.record("malformed JSON was accepted")
        } catch {
            #expect(error.code == "BAD_REQUEST")
            #expect(error.messages.first?.hasPrefix("Malformed JSON in request body: line 1, column ") == true)
        }
        // Foundation alone would accept a trailing comma; Klarna's JSON parser does not.
        #expect(throws: KlarnaError.self) { _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(#"{"locale":"en-GB",}"#.utf8)) }
    }

    @Test func decode_NonIntegerNumbers_NameTheirField() {
        #expect(throws: KlarnaError.badValue("order_lines[0].quantity")) {
            _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(#"{"order_lines":[{"name":"a","quantity":1.5}]}"#.utf8))
        }
        #expect(throws: KlarnaError.badValue("order_amount")) {
            _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(#"{"order_amount":99999999999999999999}"#.utf8))
        }
    }

    @Test func decode_NonObjectBody_IsBadRequest() {
        for body in ["[]", "\"GB\"", "null", "42"] {
            #expect(throws: KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Request body must be a JSON object"])) {
                _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(body.utf8))
            }
        }
    }

    @Test func renderer_Answers405_InKlarnaFormat_WithAllow() throws {
        let request = try HTTPRequest(method: .put, target: "/payments/v1/sessions", id: "1-1")
        let response = KlarnaErrorFormat(ids: RandomIDGenerator.shared).render(.methodNotAllowed(.put, allowed: [.post]), for: request)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "POST")
        let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(body["error_code"] as? String == "METHOD_NOT_ALLOWED")
    }
}

@Suite struct SDKRequestDecodingTests {
    @Test func acceptsSnakeCaseAndTheSDKsCamelCase() throws {
        let snake = try SDKRequest.decode(Data(#"{"auto_finalize":false,"client_token":"t","payment_method_category":"klarna","json_data":{"locale":"en-GB"}}"#.utf8))
        let camel = try SDKRequest.decode(Data(#"{"autoFinalize":false,"clientToken":"t","paymentMethodCategory":"klarna","jsonData":"{\"locale\":\"en-GB\"}"}"#.utf8))
        for request in [snake, camel] {
            #expect(request.autoFinalize == false)
            #expect(request.clientToken == "t")
            #expect(request.paymentMethodCategory == "klarna")
            #expect(request.jsonData?.locale == "en-GB")
        }
        #expect(throws: KlarnaError.badValue("jsonData.locale")) { _ = try SDKRequest.decode(Data(#"{"jsonData":{"locale":5}}"#.utf8)) }
    }
}

@Suite struct ClientTokenEncodingTests {
    @Test func base64URL_MatchesFoundationWithoutPadding_ForEveryLength() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(ClientToken.base64URL(bytes: bytes) == expected, "length \(length)")
        }
    }
}

/// The token and the created session's answer are written byte by byte: the same bytes as JSONText writes.
@Suite struct DirectJSONTests {
    /// The payload as it was built before (JSONText), the reference for the bytes written directly.
    private static func referencePayload(sessionID: String, claims: ClientToken.Claims) -> [UInt8] {
        let country = (claims.purchaseCountry ?? "").uppercased()
        let region = ["US", "CA", "MX"].contains(country) ? "na" : ["AU", "NZ"].contains(country) ? "oc" : "eu"
        return JSONText.object([
            ("session_id", .string(sessionID)),
            ("base_url", .string("https://js.playground.klarna.com/\(region)/kp")),
            ("design", .string(claims.design ?? "klarna")),
            ("language", .string(String((claims.locale ?? "en-US").prefix(2)).lowercased())),
            ("purchase_country", .string(country)),
            ("environment", .string("playground")),
            ("merchant_name", .string("payment-sandbox")),
            ("session_type", .string("PAYMENTS")),
            ("scheme", .bool(true)),
        ]).bytes
    }

    @Test(arguments: [
        (nil, nil, nil), ("gb", "en-GB", nil), ("US", "EN-us", "custom"), ("au", "e\u{301}n", "q\"uote\\"), ("Ça", "\r\nx", "tab\there"),
        ("ß", "ÉS-es", "ünï\u{7F}"), ("nz", "x", ""), ("", "", "\u{1}"),
    ] as [(String?, String?, String?)])
    func token_PayloadIsWhatJSONTextWrites(country: String?, locale: String?, design: String?) throws {
        var fields = KlarnaSessionFields()
        fields.purchaseCountry = country
        fields.locale = locale
        fields.design = design
        let claims = ClientToken.Claims(fields)
        let id = "6f1c9a62-0b7e-4d4f-9a55-3c1e2a7b8d90"
        let parts = ClientToken.make(sessionID: id, claims: claims).split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let payload = try #require(ClientToken.fromBase64URL(parts[1]))
        #expect([UInt8](payload) == Self.referencePayload(sessionID: id, claims: claims))
        #expect(ClientToken.sessionID(of: parts.joined(separator: ".")) == id)
    }

    /// The payload's tail is encoded once per claims and joined to the head at a group of three: every length of session
    /// id (each seam) and ids to escape give the token encoded whole, signature included.
    @Test func token_IsTheWholePayloadEncoded_ForEveryIDLength() {
        var fields = KlarnaSessionFields()
        fields.purchaseCountry = "se"
        fields.locale = "sv-SE"
        let claims = ClientToken.Claims(fields)
        let header = ClientToken.base64URL(bytes: JSONText.object([("alg", .string("RS256")), ("kid", .string("payment-sandbox")),
                                                                   ("typ", .string("JWT"))]).bytes)
        let ids = (0..<40).map { String(repeating: "a", count: $0) } + ["q\"uote", "é-\u{1}", "6f1c9a62-0b7e-4d4f-9a55-3c1e2a7b8d90"]
        for id in ids {
            for claims in [claims, ClientToken.Claims(KlarnaSessionFields())] {
                let expected = header + "." + ClientToken.base64URL(bytes: Self.referencePayload(sessionID: id, claims: claims)) + "."
                    + ClientToken.base64URL(bytes: Array("payment-sandbox:\(id)".utf8))
                #expect(ClientToken.make(sessionID: id, claims: claims) == expected, "id \(id)")
            }
        }
    }

    @Test func sdkCallAction_IsItsNameCapitalized() {
        for call in KlarnaSDKCall.allCases { #expect(call.action == call.rawValue.prefix(1).uppercased() + call.rawValue.dropFirst()) }
    }

    @Test func sessionIDWithoutDots_IsNoToken() {
        #expect(ClientToken.sessionID(of: "6f1c9a62-0b7e-4d4f-9a55-3c1e2a7b8d90") == nil)
        #expect(ClientToken.sessionID(of: "") == nil)
    }

    @Test func createdSession_BytesAreItsJSON() {
        let categories = KlarnaPaymentsConfiguration().paymentMethodCategories
        let other = [KlarnaPaymentMethodCategory(identifier: "pay_later", name: "Pay \"later\"",
                                                 assetUrls: KlarnaAssetURLs(descriptive: "d", standard: "s"))]
        for offered in [categories, other, []] {
            let session = KlarnaMerchantSession(sessionId: "id-1", clientToken: ClientToken.make(sessionID: "id-1", fields: KlarnaSessionFields()),
                                                paymentMethodCategories: offered)
            #expect(session.jsonBytes == session.json.bytes)
        }
    }

    @Test func sdkResult_BytesAreItsJSON() {
        let results = [
            KlarnaSDKResult(approved: true, showForm: true, authorizationToken: "tok-1", finalizeRequired: false),
            KlarnaSDKResult(approved: false, showForm: false), KlarnaSDKResult(showForm: true),
            KlarnaSDKResult(approved: false, showForm: true, finalizeRequired: true),
            KlarnaSDKResult(approved: true, showForm: true, authorizationToken: "q\"\u{1}ü", finalizeRequired: nil),
            .failed(.invalidClientToken(action: "authorize"), approved: false),
        ]
        for result in results { #expect(result.jsonBytes == result.json.bytes, "\(result)") }
    }

    @Test func trimmingWhitespaces_IsFoundations() {
        for text in ["", " ", "key", " key", "key\t", "\u{A0}key", "key\u{2003}", "k e y", "ü", "\u{A0}"] {
            #expect(text.trimmingWhitespaces() == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        }
    }
}
