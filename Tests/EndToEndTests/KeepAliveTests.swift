// SPDX-License-Identifier: MIT
// Persistent connections (RFC 9112 §9.3).
import Foundation
import Testing

@Suite("Keep-alive and Connection: close")
struct KeepAliveTests {
    @Test("HTTP/1.1 keeps the connection open by default")
    func keepAliveByDefault() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            for index in 0..<3 {
                try await client.send(rawRequest("GET", "/__sandbox/echo?n=\(index)"))
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(!response.closesConnection, "\(response.rawHead)")
                #expect(try response.jsonObject()["target"] as? String == "/__sandbox/echo?n=\(index)")
            }
            #expect(try await client.staysSilentAndOpen(for: .milliseconds(100)))
        }
    }

    @Test("Connection: close is answered with Connection: close and the server closes")
    func connectionClose() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/health", headers: [("Connection", "close")]))
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.header("Connection")?.lowercased() == "close")
            expectWellFramed(response)
            try await expectServerCloses(client, within: .seconds(2))
        }
    }

    @Test("a request pipelined after Connection: close is not answered")
    func nothingAfterClose() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/echo?n=1", headers: [("Connection", "keep-alive, close")])
                + rawRequest("GET", "/__sandbox/echo?n=2"))
            let response = try await client.readResponse()
            #expect(try response.jsonObject()["target"] as? String == "/__sandbox/echo?n=1")
            #expect(response.closesConnection)
            try await expectServerCloses(client, within: .seconds(3))
        }
    }

    @Test("HTTP/1.0 closes unless the client asks for keep-alive")
    func http10ClosesByDefault() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("GET /__sandbox/health HTTP/1.0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.closesConnection, "\(response.rawHead)")
            expectWellFramed(response)
            try await expectServerCloses(client, within: .seconds(2))
        }
    }

    @Test("HTTP/1.0 with Connection: keep-alive gets Connection: keep-alive and stays open")
    func http10KeepAlive() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            for index in 0..<3 {
                try await client.send("GET /__sandbox/echo?n=\(index) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let response = try await client.readResponse()
                #expect(response.status == 200)
                #expect(response.header("Connection")?.lowercased() == "keep-alive", "\(response.rawHead)")
                expectWellFramed(response)
                #expect(try response.jsonObject()["version"] as? String == "HTTP/1.0")
            }
            // The last HTTP/1.0 request without keep-alive ends it.
            try await client.send("GET /__sandbox/health HTTP/1.0\r\n\r\n")
            #expect(try await client.readResponse().closesConnection)
            try await expectServerCloses(client, within: .seconds(2))
        }
    }

    @Test("a client that half-closes after its request still gets the answer, then the server closes")
    func halfClose() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/__sandbox/echo?n=1") + rawRequest("GET", "/__sandbox/echo?n=2"))
            client.shutdownWrite()
            let first = try await client.readResponse()
            #expect(try first.jsonObject()["target"] as? String == "/__sandbox/echo?n=1")
            let second = try await client.readResponse()
            #expect(try second.jsonObject()["target"] as? String == "/__sandbox/echo?n=2")
            try await expectServerCloses(client, within: .seconds(2))
        }
    }

    @Test("a half-close while an async handler runs: the answer still arrives, then the server closes")
    func halfCloseDuringAsyncHandler() async throws {
        try await withServer(TestRoutes.router()) { _, server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/slow?ms=150") + rawRequest("GET", "/fast"))
            client.shutdownWrite()
            #expect(try await client.readResponse().bodyText == "slow /slow?ms=150")
            #expect(try await client.readResponse().bodyText == "fast /fast")
            try await expectServerCloses(client, within: .seconds(2))
        }
    }
}
