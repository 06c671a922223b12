// SPDX-License-Identifier: MIT
// Hundreds of simultaneous keep-alive clients next to misbehaving ones.
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Many clients")
struct ConcurrencyTests {
    @Test("300 concurrent connections × 20 keep-alive requests all get 200 beside a slowloris and a garbage client")
    func manyClients() async throws {
        let clients = 300, requestsPerClient = 20
        // Client and server ends of every connection live in this process.
        let limit = ProcessResources.raiseOpenFileLimit(to: 4096)
        try #require(limit >= 2 * clients + 200, "open-file limit \(limit) is too low for \(clients) connections")
        // Exclusive: this saturates both cores for a moment, which would skew the timing tests.
        try await withSandbox(alone: true) { server in
            // A slowloris client trickling a head, a client that sent garbage and keeps its socket open,
            // and one that connected and sent nothing.
            let slow = try await RawClient.connect(port: server.port)
            defer { slow.close() }
            let trickle = Task { await slow.trickle(Array("GET /__sandbox/health HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "s"), count: 4000),
                                                    interval: .milliseconds(10)) }
            defer { trickle.cancel() }
            let garbage = try await RawClient.connect(port: server.port)
            defer { garbage.close() }
            try await garbage.send("\u{01}\u{02}\u{03} nonsense\r\n\r\n")
            let silent = try await RawClient.connect(port: server.port)
            defer { silent.close() }

            let result = try await LoadDriver.run(port: server.port, clients: clients, requestsPerClient: requestsPerClient,
                                                  timeout: .seconds(40))
            #expect(result.failures.isEmpty, "\(result.failures.count) failures, first: \(result.failures.prefix(5))")
            #expect(result.succeeded == clients * requestsPerClient)
            #expect(result.maxOpenAtOnce == clients)

            // The garbage client was told so; the slowloris is still waiting (head timeout is 10 s).
            let refusal = try await garbage.readResponse(timeout: .seconds(2))
            #expect(refusal.status == 400)
            trickle.cancel()
            #expect(slow.unreadBytes.isEmpty)
            // And the server is fine afterwards.
            #expect(try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health")).status == 200)
        }
    }

    @Test("concurrent URLSession requests")
    func urlSessionConcurrent() async throws {
        try await withSandbox { server in
            try await withURLSession { session in
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<40 {
                        group.addTask {
                            var request = URLRequest(url: server.url("/__sandbox/echo?n=\(index)"))
                            request.httpMethod = "POST"
                            request.httpBody = Data(String(repeating: "p", count: index).utf8)
                            let (data, response) = try await session.data(for: request)
                            #expect(response.httpStatus == 200)
                            let json = try jsonObject(data)
                            #expect(json["target"] as? String == "/__sandbox/echo?n=\(index)")
                            #expect(json["body_length"] as? Int == index)
                            return index
                        }
                    }
                    var seen = 0
                    for try await _ in group { seen += 1 }
                    #expect(seen == 40)
                }
            }
        }
    }
}
