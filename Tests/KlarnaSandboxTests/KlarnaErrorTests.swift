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
