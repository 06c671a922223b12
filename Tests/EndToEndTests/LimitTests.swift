// SPDX-License-Identifier: MIT
// http.limits: 431 for heads, 413 for bodies, answered without waiting for the rest.
import Foundation
import Testing

@Suite("Size limits")
struct LimitTests {
    @Test("a head larger than maxHeadBytes gets 431 and the connection closes")
    func headTooLarge() async throws {
        try await withSandbox({ $0.http.limits.maxHeadBytes = 1024 }) { server in
            // Just under the limit works.
            let fits = try await RawClient.exchange(port: server.port,
                                                    rawRequest("GET", "/__sandbox/health", headers: [("X-Pad", String(repeating: "a", count: 900))]))
            #expect(fits.status == 200)

            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/health", headers: [("X-Pad", String(repeating: "a", count: 4000))]))
            let response = try await client.readResponse()
            #expect(response.status == 431)
            #expect(response.closesConnection)
            expectWellFramed(response)
            try await expectServerCloses(client)
        }
    }

    @Test("431 arrives before the head is finished")
    func headTooLargeWithoutEnd() async throws {
        try await withSandbox({ $0.http.limits.maxHeadBytes = 1024 }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            // A head that never ends: the limit alone must trigger the answer.
            try await client.send("GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "a", count: 2000))
            let response = try await client.readResponse(timeout: .seconds(2))
            #expect(response.status == 431)
            try await expectServerCloses(client)
        }
    }

    @Test("more header fields than maxHeaderCount gets 431")
    func tooManyHeaders() async throws {
        try await withSandbox({ $0.http.limits.maxHeaderCount = 10 }) { server in
            let headers = (0..<30).map { ("X-H\($0)", "v") }
            let response = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health", headers: headers))
            #expect(response.status == 431)
            #expect(response.closesConnection)
        }
    }

    @Test("413 for a large Content-Length arrives without the body being sent")
    func contentLengthTooLarge() async throws {
        try await withSandbox({ $0.http.limits.maxBodyBytes = 1000 }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50000000\r\n\r\n")
            // Nothing of the body is ever sent: the answer must come from the head alone.
            let response = try await client.readResponse(timeout: .seconds(3))
            #expect(response.status == 413)
            #expect(response.closesConnection)
            expectWellFramed(response)
            #expect(try response.jsonObject()["status"] as? Int == 413)
            try await expectServerCloses(client)
        }
    }

    @Test("a body exactly at maxBodyBytes is accepted")
    func bodyAtLimit() async throws {
        try await withSandbox({ $0.http.limits.maxBodyBytes = 1000 }) { server in
            let response = try await RawClient.exchange(port: server.port, rawRequest("POST", "/__sandbox/echo", body: String(repeating: "z", count: 1000)))
            #expect(response.status == 200)
            #expect(try response.jsonObject()["body_length"] as? Int == 1000)
        }
    }

    @Test("a Content-Length too long to be a number is malformed: 400, as nginx and llhttp")
    func absurdContentLength() async throws {
        try await withSandbox { server in
            let response = try await RawClient.exchange(port: server.port,
                                                        "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 184467440737095516160000\r\n\r\n")
            #expect(response.status == 400)
        }
    }

    @Test("a chunk size over the limit gets 413 at once")
    func chunkTooLarge() async throws {
        try await withSandbox({ $0.http.limits.maxBodyBytes = 1000 }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\nabc")
            let response = try await client.readResponse(timeout: .seconds(2))
            #expect(response.status == 413)
            #expect(response.closesConnection)
            expectWellFramed(response)
            try await expectServerCloses(client)
        }
    }

    @Test("chunks that add up to more than the limit get 413")
    func chunksAddUp() async throws {
        try await withSandbox({ $0.http.limits.maxBodyBytes = 1000 }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            var response: RawResponse?
            for _ in 0..<10 {
                // 200 bytes a chunk: the sixth crosses 1000.
                do {
                    try await client.send("c8\r\n" + String(repeating: "q", count: 200) + "\r\n")
                } catch {
                    break  // the server may already have answered and closed
                }
            }
            response = try await client.readResponse(timeout: .seconds(2))
            #expect(response?.status == 413)
            #expect(response?.closesConnection == true)
        }
    }

    @Test("a trailer section larger than maxHeadBytes gets 431")
    func trailersTooLarge() async throws {
        try await withSandbox({ $0.http.limits.maxHeadBytes = 1024 }) { server in
            let response = try await RawClient.exchange(port: server.port,
                "POST /__sandbox/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-T: " + String(repeating: "t", count: 3000) + "\r\n\r\n")
            #expect(response.status == 431)
            #expect(response.closesConnection)
        }
    }
}
