// SPDX-License-Identifier: MIT
// POST /__sandbox/verify and /__sandbox/callbacks/verify over sockets: whether the count held, the matches, and the
// nearest misses with why each missed.
import Foundation
@testable import PaymentSandbox
import SandboxCore
import SandboxTestSupport
import Testing

@Suite("Verification")
struct VerifyTests {
    static func verify(_ server: RunningServer, _ path: String = "/__sandbox/verify", namespace: String, _ body: String) async throws -> RawResponse {
        try await RawClient.exchange(port: server.port, rawRequest("POST", path, headers: [
            ("Sandbox-Namespace", namespace), ("Content-Type", "application/json"),
        ], body: body))
    }

    @Test("a pattern that holds: the count and the matching requests")
    func held() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("verify-held")
            let klarna = KlarnaClient(server, namespace: namespace)
            let id = try await klarna.newSession()
            #expect(try await klarna.readSession(id).status == 200)
            let response = try await Self.verify(server, namespace: namespace, #"""
                {"pattern": {"method": "POST", "path": "/payments/v1/sessions",
                             "headers": {"content-type": "application/json"},
                             "body": [{"path": "order_lines[0].quantity", "equals": 1},
                                      {"path": "order_lines[1].name", "contains": "Ship"},
                                      {"path": "merchant_reference2", "absent": true}]},
                 "count": {"exactly": 1}}
                """#)
            #expect(response.status == 200)
            let json = try response.jsonObject()
            #expect(json["held"] as? Bool == true, "\(response.bodyText)")
            #expect(json["count"] as? Int == 1)
            #expect(json["namespace"] as? String == namespace)
            #expect((json["matches"] as? [[String: Any]])?.first?["path"] as? String == "/payments/v1/sessions")
            #expect((json["near_misses"] as? [Any])?.isEmpty == true)

            let templateJSON = try await Self.verify(server, namespace: namespace, #"""
                {"pattern": {"method": "GET", "path": "/payments/v1/sessions/{id}", "status": 200}}
                """#).jsonObject()
            #expect(templateJSON["held"] as? Bool == true)
            #expect((templateJSON["matches"] as? [[String: Any]])?.first?["path"] as? String == "/payments/v1/sessions/\(id)")
        }
    }

    @Test("a miss names the nearest requests and why each missed")
    func miss() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("verify-miss")
            let klarna = KlarnaClient(server, namespace: namespace)
            let id = try await klarna.newSession()
            #expect(try await klarna.readSession(id).status == 200)
            let response = try await Self.verify(server, namespace: namespace, #"""
                {"pattern": {"method": "POST", "path": "/payments/v1/sessions",
                             "body": [{"path": "order_lines[0].quantity", "equals": 2}]},
                 "count": {"at_least": 1}}
                """#)
            let json = try response.jsonObject()
            #expect(json["held"] as? Bool == false)
            #expect(json["count"] as? Int == 0)
            #expect(json["searched"] as? Int == 2)
            let misses = try #require(json["near_misses"] as? [[String: Any]])
            #expect(misses.count == 2)
            // The POST is nearest: method and path held.
            #expect(misses.first?["summary"] as? String == "method and path matched, body field `order_lines[0].quantity` was 1, wanted 2")
            #expect(misses.first?["matched"] as? [String] == ["method", "path"])
            #expect((misses.last?["reasons"] as? [String])?.first == "method was GET, wanted POST")
        }
    }

    @Test("too many matches: the count does not hold, and no near misses")
    func tooMany() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("verify-many")
            let klarna = KlarnaClient(server, namespace: namespace)
            _ = try await klarna.newSession()
            _ = try await klarna.newSession()
            let json = try await Self.verify(server, namespace: namespace,
                                             #"{"pattern": {"path_prefix": "/payments/"}, "count": {"at_most": 1}}"#).jsonObject()
            #expect(json["held"] as? Bool == false)
            #expect(json["count"] as? Int == 2)
            #expect(json["message"] as? String == "2 matched, expected at most 1")
            #expect((json["near_misses"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("callbacks: the same against the outbox")
    func callbacks() async throws {
        try await withSandboxInstance { sandbox, server in
            let namespace = uniqueNamespace("verify-cb")
            _ = sandbox.outbox.add(Namespace(namespace), object: "o3", operation: "test.callback", description: "a callback",
                                   url: "http://127.0.0.1:1/cb", headers: [], body: Data(#"{"status":"paid"}"#.utf8), state: .pending)
            let held = try await Self.verify(server, "/__sandbox/callbacks/verify", namespace: namespace,
                                             #"{"pattern": {"object": "o3", "body": [{"path": "status", "equals": "paid"}]}}"#).jsonObject()
            #expect(held["held"] as? Bool == true)
            let miss = try await Self.verify(server, "/__sandbox/callbacks/verify", namespace: namespace,
                                             #"{"pattern": {"object": "o3", "state": "delivered"}}"#).jsonObject()
            #expect(miss["held"] as? Bool == false)
            let misses = try #require(miss["near_misses"] as? [[String: Any]])
            #expect(misses.first?["summary"] as? String == "object matched, state was pending, wanted delivered")
        }
    }

    @Test("a body's namespace is the one searched")
    func namespaceInBody() async throws {
        try await withSandbox { server in
            let namespace = uniqueNamespace("verify-ns")
            _ = try await KlarnaClient(server, namespace: namespace).newSession()
            let json = try await Self.verify(server, namespace: "elsewhere",
                                             #"{"namespace": "\#(namespace)", "pattern": {"method": "POST"}}"#).jsonObject()
            #expect(json["held"] as? Bool == true)
            #expect(json["namespace"] as? String == namespace)
        }
    }

    @Test("what cannot be read is a 400 in the control API's format")
    func badRequests() async throws {
        try await withSandbox { server in
            let cases: [(String, String)] = [
                (#"{"pattern": {"colour": "red"}}"#, #"pattern: unknown field "colour" (use method, path, path_prefix, status, query, headers, body)"#),
                (#"{"pattern": {"body": [{"path": "a", "equals": 1, "absent": true}]}}"#, "pattern.body[0] must give exactly one of equals, contains, absent"),
                (#"{"count": {"exactly": 1, "at_most": 2}}"#, "count: give exactly, or at_least and/or at_most"),
                ("[]", "the body must be a JSON object"),
            ]
            for (body, message) in cases {
                let response = try await Self.verify(server, namespace: "default", body)
                #expect(response.status == 400)
                let json = try response.jsonObject()
                #expect(json["message"] as? String == message)
                #expect(json["error"] as? String == "Bad Request")
                #expect(json["status"] as? Int == 400)
            }
        }
    }
}
