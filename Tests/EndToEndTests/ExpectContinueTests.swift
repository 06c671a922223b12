// SPDX-License-Identifier: MIT
// Expect: 100-continue (RFC 9110 §10.1.1).
import Foundation
import Testing

@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    @Test("100 Continue arrives before the body is sent, then the final 200")
    func continueThenFinal() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n")
            let interim = try await client.readResponse(timeout: .seconds(2))
            #expect(interim.status == 100)
            #expect(interim.rawHead == "HTTP/1.1 100 Continue\r\n\r\n")
            // Nothing else comes until the body is sent.
            #expect(try await client.staysSilentAndOpen(for: .milliseconds(150)))
            try await client.send("hello world")
            let final = try await client.readResponse()
            #expect(final.status == 200)
            expectWellFramed(final)
            let json = try final.jsonObject()
            #expect(json["body_length"] as? Int == 11)
            #expect(json["body_base64"] as? String == Data("hello world".utf8).base64EncodedString())
            // The connection stays usable.
            try await client.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test("100 Continue for a chunked body too")
    func continueChunked() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("PUT /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n")
            #expect(try await client.readResponse(timeout: .seconds(2)).status == 100)
            try await client.send("3\r\nabc\r\n0\r\n\r\n")
            let final = try await client.readResponse()
            #expect(final.status == 200)
            #expect(try final.jsonObject()["body_length"] as? Int == 3)
        }
    }

    @Test("a body over the limit gets 413 instead of 100 Continue")
    func tooLargeInsteadOfContinue() async throws {
        try await withSandbox({ $0.http.limits.maxBodyBytes = 1000 }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n")
            let response = try await client.readResponse(timeout: .seconds(2))
            #expect(response.status == 413)
            #expect(response.closesConnection)
            expectWellFramed(response)
            try await expectServerCloses(client)
        }
    }

    @Test("a client that sends the body without waiting still gets its 200")
    func bodyWithoutWaiting() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nabcd")
            var response = try await client.readResponse()
            if response.status == 100 { response = try await client.readResponse() }
            #expect(response.status == 200)
            #expect(try response.jsonObject()["body_length"] as? Int == 4)
        }
    }
}
