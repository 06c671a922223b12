// SPDX-License-Identifier: MIT
// Date and Content-Length on every response, none on 204/1xx, and HEAD.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

@Suite("Response framing")
struct MessageFramingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var status: Int
        var toHEAD = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "200 health", request: rawRequest("GET", "/__sandbox/health"), status: 200),
        Case(name: "200 echo with body", request: rawRequest("POST", "/__sandbox/echo", body: "{\"a\":1}"), status: 200),
        Case(name: "200 HEAD", request: rawRequest("HEAD", "/__sandbox/health"), status: 200, toHEAD: true),
        Case(name: "404", request: rawRequest("GET", "/nope"), status: 404),
        Case(name: "405", request: rawRequest("DELETE", "/__sandbox/health"), status: 405),
        Case(name: "400 malformed", request: "GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", status: 400),
        Case(name: "431 head too large", request: rawRequest("GET", "/__sandbox/health", headers: [("X-Big", String(repeating: "a", count: 3000))]),
             status: 431),
        Case(name: "413 body too large", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", status: 413),
        Case(name: "505 version", request: "GET / HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
        Case(name: "501 transfer coding", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
             status: 501),
    ]

    @Test("every final response has one Date and a matching Content-Length", arguments: cases)
    func dateAndContentLength(_ testCase: Case) async throws {
        try await withSandbox({ $0.http.limits.maxHeadBytes = 2048; $0.http.limits.maxBodyBytes = 1000 }) { server in
            let response = try await RawClient.exchange(port: server.port, testCase.request, toHEAD: testCase.toHEAD)
            #expect(response.status == testCase.status, "\(response)")
            expectWellFramed(response)
            #expect(response.reason == HTTPStatus.standardReasonPhrase(testCase.status))
        }
    }

    @Test("204 has Date but no Content-Length and no body; the next response still parses")
    func noContent() async throws {
        try await withServer(TestRoutes.router()) { _, server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/empty") + rawRequest("GET", "/fast"))
            let empty = try await client.readResponse()
            #expect(empty.status == 204)
            expectWellFramed(empty)
            let next = try await client.readResponse()
            #expect(next.status == 200)
            #expect(next.bodyText == "fast /fast")
            expectWellFramed(next)
        }
    }

    @Test("HEAD gets the GET's headers and Content-Length but no body; the pipelined next response parses")
    func head() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("HEAD", "/__sandbox/health") + rawRequest("GET", "/__sandbox/health")
                + rawRequest("HEAD", "/__sandbox/echo?x=1") + rawRequest("GET", "/__sandbox/health"))
            let head = try await client.readResponse(toHEAD: true)
            let get = try await client.readResponse()
            let echoHead = try await client.readResponse(toHEAD: true)
            let last = try await client.readResponse()
            #expect(head.status == 200)
            #expect(get.status == 200)
            expectWellFramed(head)
            expectWellFramed(get)
            #expect(head.header("Content-Length") == String(get.body.count), "HEAD \(head.rawHead) vs GET body \(get.body.count)")
            #expect(head.header("Content-Type") == get.header("Content-Type"))
            #expect(echoHead.status == 200)
            #expect(Int(echoHead.header("Content-Length") ?? "") ?? 0 > 0)
            // Had any HEAD response carried a body, these would not start with a status line.
            #expect(last.status == 200)
            #expect(try last.jsonObject()["status"] as? String == "ok")
            #expect(client.unreadBytes.isEmpty)
        }
    }

    @Test("server-managed headers appear once; the status line is HTTP/1.1")
    func statusLineAndHeaders() async throws {
        try await withSandbox { server in
            let response = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/echo"))
            #expect(response.rawHead.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(response.headerValues("Connection").isEmpty, "keep-alive is the HTTP/1.1 default: \(response.rawHead)")
            #expect(response.headerValues("Content-Type") == ["application/json"])
        }
    }
}
