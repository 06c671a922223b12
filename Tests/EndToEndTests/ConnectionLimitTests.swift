// SPDX-License-Identifier: MIT
// http.maxConnections: the connection past the cap gets 503 and is closed; room frees up again.
import Foundation
import Testing

@Suite("Connection cap")
struct ConnectionLimitTests {
    /// Connects and sends nothing; returns the server's 503 if it refused the connection, nil if the
    /// connection was accepted (it stays silent and open).
    static func probe(port: Int) async throws -> (RawClient, RawResponse?) {
        let client = try await RawClient.connect(port: port)
        if try await client.staysSilentAndOpen(for: .milliseconds(150)) { return (client, nil) }
        return (client, try await client.readResponse(timeout: .seconds(1)))
    }

    @Test("N idle connections are served, the N+1th gets 503 and is closed, room frees up after closing some")
    func cap() async throws {
        let cap = 4
        try await withSandbox({ $0.http.maxConnections = cap }) { server in
            var open: [RawClient] = []
            defer { open.forEach { $0.close() } }
            for _ in 0..<cap {
                let client = try await RawClient.connect(port: server.port)
                // One request each proves the server has accepted and counted the connection.
                try await client.send(rawRequest("GET", "/__sandbox/health"))
                #expect(try await client.readResponse().status == 200)
                open.append(client)
            }

            let refused = try await RawClient.connect(port: server.port)
            defer { refused.close() }
            let response = try await refused.readResponse(timeout: .seconds(2))
            #expect(response.status == 503)
            #expect(response.closesConnection)
            #expect(response.header("Retry-After") == "1")
            expectWellFramed(response)
            #expect(try response.jsonObject()["status"] as? Int == 503)
            try await expectServerCloses(refused)

            // A refused client that sent its request at once also reads the 503.
            let eager = try await RawClient.connect(port: server.port)
            defer { eager.close() }
            try await eager.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await eager.readResponse(timeout: .seconds(2)).status == 503)

            // The open connections still work.
            for client in open {
                try await client.send(rawRequest("GET", "/__sandbox/health"))
                #expect(try await client.readResponse().status == 200)
            }

            // Close two; within a moment two new connections are accepted again.
            open.removeFirst().close()
            open.removeFirst().close()
            var accepted = 0
            let deadline = ContinuousClock.now + .seconds(30)
            while accepted < 2 && ContinuousClock.now < deadline {
                let client = try await RawClient.connect(port: server.port)
                try await client.send(rawRequest("GET", "/__sandbox/health"))
                let answer = try await client.readResponse(timeout: .seconds(2))
                if answer.status == 200 {
                    accepted += 1
                    open.append(client)
                } else {
                    #expect(answer.status == 503)
                    client.close()
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(accepted == 2, "connections were not accepted again after others closed")

            // Full again.
            let again = try await RawClient.connect(port: server.port)
            defer { again.close() }
            #expect(try await again.readResponse(timeout: .seconds(2)).status == 503)

            // Everything closed: the server is healthy and has room for a full set again.
            open.forEach { $0.close() }
            open.removeAll()
            try await Task.sleep(for: .milliseconds(100))
            var fresh: [RawClient] = []
            defer { fresh.forEach { $0.close() } }
            for _ in 0..<cap {
                let client = try await RawClient.connect(port: server.port)
                try await client.send(rawRequest("GET", "/__sandbox/health"))
                #expect(try await client.readResponse().status == 200)
                fresh.append(client)
            }
        }
    }

    @Test("idle connections that never sent a request count towards the cap")
    func silentConnectionsCount() async throws {
        try await withSandbox({ $0.http.maxConnections = 3 }) { server in
            var silent: [RawClient] = []
            defer { silent.forEach { $0.close() } }
            for _ in 0..<3 {
                let (client, refusal) = try await Self.probe(port: server.port)
                #expect(refusal == nil, "refused below the cap: \(String(describing: refusal))")
                silent.append(client)
            }
            let extra = try await RawClient.connect(port: server.port)
            defer { extra.close() }
            #expect(try await extra.readResponse(timeout: .seconds(3)).status == 503)
        }
    }
}
