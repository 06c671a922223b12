// SPDX-License-Identifier: MIT
// The control API's OpenAPI document (GET /__sandbox/openapi.json, docs/control-api.openapi.json) against the routes
// the sandbox really has: a route the document lacks fails, and so does a documented operation with no route.
import Foundation
import PaymentSandbox
import Testing

@Suite("Control API document")
struct ControlAPIDocumentTests {
    /// What the document covers of `/__sandbox/echo` (which answers any method): the common methods, listed on
    /// `/__sandbox/echo`; its sub-paths (`/__sandbox/echo/*`) are in the operation's description.
    static let echoMethods = ["DELETE", "GET", "PATCH", "POST", "PUT"]

    /// "METHOD /path/{name}" for every operation of the document.
    static func documentedOperations(_ document: [String: Any]) throws -> Set<String> {
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        return Set(paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
    }

    /// "METHOD /path/{name}" for every route under /__sandbox/ of a sandbox with the default providers.
    static func sandboxRoutes() -> Set<String> {
        let sandbox = PaymentSandbox(configuration: SandboxConfiguration(port: 0))
        var routes = Set<String>()
        for route in sandbox.routes where route.contains(" /__sandbox/") {
            let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
            let path = parts[1].split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            if path == "/__sandbox/echo/*" { continue }
            if parts[0] == "*" { routes.formUnion(echoMethods.map { "\($0) \(path)" }) } else { routes.insert("\(parts[0]) \(path)") }
        }
        return routes
    }

    static func parse(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("every route under /__sandbox/ is in the document, and every operation of the document is a route")
    func documentMatchesRoutes() throws {
        let documented = try Self.documentedOperations(try Self.parse(PaymentSandbox.controlAPIDocument))
        let routes = Self.sandboxRoutes()
        #expect(routes.count > 20)
        #expect(routes.subtracting(documented).sorted() == [], "routes the document lacks")
        #expect(documented.subtracting(routes).sorted() == [], "documented operations no route answers")
    }

    @Test("docs/control-api.openapi.json is the served document (payment-sandbox openapi > docs/control-api.openapi.json)")
    func repositoryCopyIsCurrent() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/control-api.openapi.json")
        let kept = try Self.parse(try Data(contentsOf: file))
        let served = try Self.parse(PaymentSandbox.controlAPIDocument)
        func canonical(_ object: [String: Any]) throws -> Data {
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        #expect(try canonical(kept) == canonical(served),
                "docs/control-api.openapi.json is out of date: run `swift run payment-sandbox openapi > docs/control-api.openapi.json`")
    }

    @Test("GET /__sandbox/openapi.json over a socket: an OpenAPI 3.1 document, behind the control token like the rest")
    func servedOverSocket() async throws {
        try await withSandbox({ $0.controlToken = "s3cret" }) { server in
            let refused = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/openapi.json"))
            #expect(refused.status == 401)
            let response = try await RawClient.exchange(
                port: server.port, rawRequest("GET", "/__sandbox/openapi.json", headers: [("Sandbox-Control-Token", "s3cret")]))
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            let document = try response.jsonObject()
            #expect(document["openapi"] as? String == "3.1.0")
            let operations = try Self.documentedOperations(document)
            #expect(operations.contains("GET /__sandbox/openapi.json"))
            #expect(operations.contains("POST /__sandbox/klarna/payments/sessions/{session_id}/authorize"))
        }
    }
}
