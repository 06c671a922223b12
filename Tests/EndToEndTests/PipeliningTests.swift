// SPDX-License-Identifier: MIT
// Pipelined requests are answered in order (RFC 9112 §9.3.2).
import Foundation
import Testing

@Suite("Pipelining")
struct PipeliningTests {
    @Test("requests in one write are answered in order")
    func inOrder() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            var batch = ""
            for index in 0..<20 {
                batch += index % 2 == 0
                    ? rawRequest("GET", "/__sandbox/echo?n=\(index)")
                    : rawRequest("POST", "/__sandbox/echo?n=\(index)", body: String(repeating: "b", count: index))
            }
            try await client.send(batch)
            for index in 0..<20 {
                let response = try await client.readResponse()
                #expect(response.status == 200)
                let json = try response.jsonObject()
                #expect(json["target"] as? String == "/__sandbox/echo?n=\(index)")
                #expect(json["body_length"] as? Int == (index % 2 == 0 ? 0 : index))
            }
        }
    }

    @Test("a slow async handler holds back the fast answers queued behind it")
    func slowThenFast() async throws {
        try await withServer(TestRoutes.router()) { _, server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            let targets = ["/slow?ms=200", "/fast?1", "/slow?ms=50", "/fast?2", "/fast?3"]
            let (responses, elapsed) = try await measure {
                try await client.send(targets.map { rawRequest("GET", $0) }.joined())
                var responses: [RawResponse] = []
                for _ in targets { responses.append(try await client.readResponse()) }
                return responses
            }
            #expect(responses.map(\.status) == [200, 200, 200, 200, 200])
            #expect(responses.map(\.bodyText) == ["slow /slow?ms=200", "fast /fast?1", "slow /slow?ms=50", "fast /fast?2", "fast /fast?3"])
            #expect(elapsed >= .milliseconds(240), "the two sleeps run one after the other: \(elapsed)")
            responses.forEach { expectWellFramed($0) }
        }
    }

    @Test("a pipelined POST whose body straddles writes keeps the order")
    func splitAcrossWrites() async throws {
        try await withServer(TestRoutes.router()) { _, server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            let all = rawRequest("GET", "/fast?a") + rawRequest("POST", "/slow?ms=30", body: "0123456789")
                + rawRequest("GET", "/fast?b") + rawRequest("POST", "/echo?c", body: "xyz")
            let bytes = Array(all.utf8)
            // Cut at awkward places: inside a request line, a header, and a body.
            var start = 0
            for cut in [7, 60, 101, 150, bytes.count] where cut > start && cut <= bytes.count {
                try await client.send(Array(bytes[start..<cut]))
                start = cut
                try await Task.sleep(for: .milliseconds(15))
            }
            var bodies: [String] = []
            for _ in 0..<4 { bodies.append(try await client.readResponse().bodyText) }
            #expect(bodies == ["fast /fast?a", "slow /slow?ms=30 10", "fast /fast?b", "POST /echo?c 3"])
        }
    }

    @Test("one hundred pipelined requests")
    func many() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send((0..<100).map { rawRequest("GET", "/__sandbox/echo?n=\($0)") }.joined())
            for index in 0..<100 {
                let response = try await client.readResponse()
                #expect(try response.jsonObject()["target"] as? String == "/__sandbox/echo?n=\(index)")
            }
        }
    }
}
