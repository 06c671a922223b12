// SPDX-License-Identifier: MIT
// Requests the server must refuse (RFC 9112): an error status, Connection: close, then the socket closes.
import Foundation
import Testing

@Suite("Malformed requests")
struct MalformedRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var status: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "space in a header name", request: "GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n", status: 400),
        Case(name: "Content-Length with Transfer-Encoding",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "Transfer-Encoding with Content-Length",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "no Host in HTTP/1.1", request: "GET /__sandbox/health HTTP/1.1\r\nAccept: */*\r\n\r\n", status: 400),
        Case(name: "two Host fields", request: "GET /__sandbox/health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        Case(name: "whitespace before the colon", request: "GET /__sandbox/health HTTP/1.1\r\nHost : x\r\n\r\n", status: 400),
        Case(name: "obsolete line folding", request: "GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n", status: 400),
        Case(name: "bare LF line endings", request: "GET /__sandbox/health HTTP/1.1\nHost: x\n\n", status: 400),
        Case(name: "bare CR", request: "GET /__sandbox/health HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", status: 400),
        Case(name: "non-numeric Content-Length", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1a\r\n\r\n", status: 400),
        Case(name: "negative Content-Length", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", status: 400),
        Case(name: "conflicting Content-Length values",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", status: 400),
        Case(name: "two equal Content-Length fields",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", status: 400),
        Case(name: "Content-Length list of equal values",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2, 2\r\n\r\nab", status: 400),
        Case(name: "Content-Length that overflows",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", status: 400),
        Case(name: "chunk size that overflows",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", status: 400),
        Case(name: "empty element before chunked",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: , chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "chunked twice",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "chunked in two fields",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
             status: 400),
        Case(name: "invalid chunk size", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 400),
        Case(name: "chunk data not followed by CRLF",
             request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", status: 400),
        Case(name: "chunked not final", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", status: 400),
        Case(name: "Transfer-Encoding in HTTP/1.0", request: "POST /__sandbox/echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
        Case(name: "lower-case version", request: "GET /__sandbox/health http/1.1\r\nHost: x\r\n\r\n", status: 400),
        Case(name: "space in the target", request: "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", status: 400),
        Case(name: "control byte in a field value", request: "GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nX: a\u{01}b\r\n\r\n", status: 400),
        Case(name: "binary garbage", request: "\u{16}\u{03}\u{01}\u{02}\u{00}garbage\r\n\r\n", status: 400),
        Case(name: "HTTP/2.0", request: "GET / HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
        Case(name: "unsupported transfer coding", request: "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
             status: 501),
    ]

    @Test("refused with an error, Connection: close, then the server closes", arguments: cases)
    func refused(_ testCase: Case) async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(testCase.request)
            let response = try await client.readResponse()
            #expect(response.status == testCase.status, "\(response)")
            #expect(response.closesConnection, "\(response.rawHead)")
            expectWellFramed(response)
            #expect(try response.jsonObject()["status"] as? Int == testCase.status)
            try await expectServerCloses(client, within: .seconds(3))
        }
    }

    @Test("a good request before a bad one in the same write is answered first")
    func goodThenBad() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/echo?n=1") + "GET / HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n"
                + rawRequest("GET", "/__sandbox/echo?n=3"))
            let first = try await client.readResponse()
            #expect(first.status == 200)
            #expect(try first.jsonObject()["target"] as? String == "/__sandbox/echo?n=1")
            let second = try await client.readResponse()
            #expect(second.status == 400)
            #expect(second.closesConnection)
            try await expectServerCloses(client, within: .seconds(3))
        }
    }

    @Test("the server keeps serving other clients after malformed input")
    func othersUnaffected() async throws {
        try await withSandbox { server in
            for garbage in ["\r\n\r\nGET / HTTP/1.1\r\n\r\n", "GET\r\n\r\n", "\u{00}\u{00}\u{00}\u{00}\r\n\r\n", "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n"] {
                let client = try await RawClient.connect(port: server.port)
                try await client.send(garbage)
                _ = try? await client.readUntilClose(timeout: .seconds(3))
                client.close()
            }
            let response = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health"))
            #expect(response.status == 200)
        }
    }
}
