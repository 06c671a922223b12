// SPDX-License-Identifier: MIT
// SandboxClient's in-process requests built without URLRequest give the request the URLRequest route gives, and are
// not built when they might not.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
@testable import PaymentSandboxTesting
import Testing

/// The request `send(method, path, headers:, basicAuth:)` makes through its URLRequest, and the one it makes directly.
private func bothRoutes(_ client: SandboxClient, _ method: SandboxClient.Method, _ path: String, headers: [String: String] = [:],
                        basicAuth: (user: String, password: String)? = nil) throws -> (viaURLRequest: InProcessExchange.Request?, direct: InProcessExchange.Request?) {
    let viaURLRequest = try? InProcessExchange.Request(client.prepared(client.urlRequest(method, path, headers: headers, body: nil, basicAuth: basicAuth)))
    return (viaURLRequest, client.directRequest(method, path, headers: headers, basicAuth: basicAuth))
}

private func fields(_ request: InProcessExchange.Request) -> [String] {
    request.headerFields.map { "\($0.name): \($0.value)" }.sorted()
}

private let plainTargets = [
    "/", "/payments/v1/sessions", "/payments/v1/sessions/", "/__sandbox/health", "/__sandbox/", "/__sandbox",
    "/ordermanagement/v1/orders/5a1f-9c/captures", "/a;b=c/d:e@f!$&'()*+,", "/x?", "/x?a=1&b=%20%C3%A9/?", "/x/?q=a?b",
    "/psp/paymentorders/abc?$expand=paid", "/x-y_z~1.2/..a/.b/a..", "/__sandbox/klarna/payments/sessions/krn:x:y/authorize",
    "http://localhost/checkout/abc/card", "http://localhost/", "http://localhost/__sandbox/health?x=1",
]

private let headerSets: [[String: String]] = [
    [:], ["Content-Type": "application/json"], ["Content-Type": "application/json;version=3.1", "Authorization": "Bearer t"],
    ["Klarna-Idempotency-Key": "D5E2A3B1-0C2B-4D1A-9F1E-3C5B6A7D8E9F", "X-B3-Traceid": "1", "X1Abc": "x"],
    ["Sandbox-Namespace": "theirs", "Sandbox-Control-Token": "their-token", "Host": "example.com:1234"],
    ["Accept": " padded ", "User-Agent": "tests/1.0 (like \"curl\")"],
]

@Test(arguments: [nil, "ns-1"], [nil, "control-secret"])
func directRequestsAreTheURLRequestRoutesRequest(namespace: String?, controlToken: String?) throws {
    var client = try SandboxClient.inProcess(namespace: namespace)
    client.controlToken = controlToken
    var compared = 0
    for target in plainTargets {
        for headers in headerSets {
            for method: SandboxClient.Method in ["GET", "POST", "DELETE", "PATCH", "PROPFIND"] {
                for auth in [nil, (user: "PK1_x", password: "s3cret:é")] as [(user: String, password: String)?] {
                    let (viaURLRequest, direct) = try bothRoutes(client, method, target, headers: headers, basicAuth: auth)
                    let request = try #require(direct, "\(method) \(target) \(headers) was not built directly")
                    let expected = try #require(viaURLRequest)
                    #expect(request.method == expected.method && request.target == expected.target && request.url == expected.url,
                            "\(method) \(target): \(request.method) \(request.target) \(request.url) vs \(expected.method) \(expected.target) \(expected.url)")
                    #expect(fields(request) == fields(expected), "\(method) \(target) \(headers)")
                    compared += 1
                }
            }
        }
    }
    #expect(compared == plainTargets.count * headerSets.count * 5 * 2)
}

@Test func requestsThatMightDifferTakeTheURLRequestRoute() throws {
    let client = try SandboxClient.inProcess(namespace: "ns")
    let targets = ["", "payments", "//host/x", "/a//b", "/a/./b", "/a/../b", "/a/.", "/..", "/a%20b", "/a b", "/x#frag",
                   "/x?a=%2", "/x?a=%zz", "/x?a b", "/é", "/x?é", "http://localhost", "http://localhost:80/x", "https://localhost/x",
                   "http://LOCALHOST/x", "http://127.0.0.1/x", "http://localhost/a//b", "/x\\y", "/x|y", "/{id}"]
    for target in targets {
        #expect(client.directRequest("GET", target, headers: [:], basicAuth: nil) == nil, "\(target)")
    }
    for method: SandboxClient.Method in ["get", "Post", "", "GET ", "M-SEARCH"] {
        #expect(client.directRequest(method, "/x", headers: [:], basicAuth: nil) == nil, "\(method)")
    }
    let names = ["content-type", "X-API-KEY", "X-3d-Thing", "A_B", "Ü-X", "X-Trace.Id", "", "X Y", "Content-Type "]
    for name in names {
        #expect(client.directRequest("GET", "/x", headers: [name: "v"], basicAuth: nil) == nil, "\(name)")
    }
    for value in ["", "a\r\nb", "caf\u{e9}", "tab\there", "\u{7F}"] {
        #expect(client.directRequest("GET", "/x", headers: ["X-Value": value], basicAuth: nil) == nil, "\(value.debugDescription)")
    }
}

/// Those fall back, and the answer is the same as before: the URLRequest route still serves them.
@Test func fallBackRequestsAreAnswered() async throws {
    let client = try SandboxClient.inProcess(namespace: "fallback")
    let direct = try await client.send("GET", "/__sandbox/health")
    let lowerCaseName = try await client.send("GET", "/__sandbox/health", headers: ["x-request-note": "a"])
    let encodedPath = try await client.send("GET", "/__sandbox/%68ealth")
    #expect(direct.status == 200 && lowerCaseName.status == 200 && encodedPath.status == 200)
    #expect(direct.body == lowerCaseName.body && direct.body == encodedPath.body)
    #expect(direct.url == lowerCaseName.url)
    #expect(direct.header("Content-Length") == String(direct.body.count))
}
