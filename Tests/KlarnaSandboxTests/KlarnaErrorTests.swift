// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import KlarnaSandbox

@Suite struct KlarnaErrorTests {
    @Test func envelope_HasKlarnaKeys_AndAStableCorrelationID() throws {
        let request = try HTTPRequest(method: .get, target: "/payments/v1/sessions/x", id: "7-3")
        let response = KlarnaError.invalidSessionID.response(for: request)
        #expect(response.status == .notFound)
        let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(body["error_code"] as? String == "NOT_FOUND")
        #expect(body["error_messages"] as? [String] == ["Invalid session id"])
        let correlation = try #require(body["correlation_id"] as? String)
        #expect(correlation.count == 36 && correlation.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(KlarnaError.correlationID(for: request) == correlation)
        let other = try HTTPRequest(method: .get, target: "/", id: "7-4")
        #expect(KlarnaError.correlationID(for: other) != correlation)
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

    @Test func decode_MalformedJSON_IsBadRequest() {
        #expect(throws: KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Malformed JSON in request body"])) {
            _ = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data("{\"a\":".utf8))
        }
    }

    @Test func renderer_Answers405_InKlarnaFormat_WithAllow() throws {
        let request = try HTTPRequest(method: .put, target: "/payments/v1/sessions", id: "1-1")
        let response = KlarnaErrorRenderer().render(.methodNotAllowed(.put, allowed: [.post]), for: request)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "POST")
        let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(body["error_code"] as? String == "METHOD_NOT_ALLOWED")
    }
}
