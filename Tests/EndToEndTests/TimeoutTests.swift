// SPDX-License-Identifier: MIT
// headTimeout (slowloris), idleTimeout, bodyIdleTimeout and handlerTimeout, observed from the client.
// Each runs alone (no other end-to-end test at the same time). Lower bounds are exact (timed from before
// the client acts, so the server's clock cannot have started earlier); upper bounds leave room for a busy machine.
import Foundation
import Testing

@Suite("Timeouts")
struct TimeoutTests {
    @Test("slowloris: a head trickled byte by byte gets 408 and is closed while another client is served")
    func slowloris() async throws {
        try await withSandbox(alone: true, { $0.http.headTimeout = .seconds(1) }) { server in
            let clock = ContinuousClock()
            let started = clock.now
            let slow = try await RawClient.connect(port: server.port)
            defer { slow.close() }
            // 250 bytes at one per 20 ms: five seconds to send in full, far past the head timeout.
            let head = Array(rawRequest("GET", "/__sandbox/health", headers: [("X-Slow", String(repeating: "s", count: 200))]).utf8)
            let trickle = Task { await slow.trickle(head, interval: .milliseconds(20)) }
            defer { trickle.cancel() }

            // Meanwhile a well-behaved client on the same server gets its answers.
            let other = try await RawClient.connect(port: server.port, sending: rawRequest("GET", "/__sandbox/echo?n=0"))
            defer { other.close() }
            for index in 0..<5 {
                let (response, elapsed) = try await measure {
                    if index > 0 { try await other.send(rawRequest("GET", "/__sandbox/echo?n=\(index)")) }
                    return try await other.readResponse(timeout: .seconds(2))
                }
                #expect(response.status == 200)
                #expect(try response.jsonObject()["target"] as? String == "/__sandbox/echo?n=\(index)")
                #expect(elapsed < .seconds(1), "request \(index) took \(elapsed) while a slowloris client was connected")
                try await Task.sleep(for: .milliseconds(20))
            }

            let response = try await slow.readResponse(timeout: .seconds(6))
            let elapsed = started.duration(to: clock.now)
            trickle.cancel()
            let sent = await trickle.value
            #expect(response.status == 408, "\(response)")
            #expect(response.closesConnection)
            expectWellFramed(response)
            #expect(elapsed >= .seconds(1) && elapsed < .seconds(5), "408 after \(elapsed) with a 1 s head timeout")
            #expect(sent < head.count, "the whole head went out (\(sent) bytes) before the 408")
            try await expectServerCloses(slow)
            // The other client is still fine.
            try await other.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await other.readResponse().status == 200)
        }
    }

    @Test("a connection that sends nothing is closed without an answer after the head timeout")
    func silentConnection() async throws {
        try await withSandbox(alone: true, { $0.http.headTimeout = .milliseconds(300) }) { server in
            // Timed from before connecting: the server's clock cannot have started earlier.
            let (observation, elapsed) = try await measure {
                let client = try await RawClient.connect(port: server.port)
                defer { client.close() }
                return try await client.readUntilClose(timeout: .seconds(5))
            }
            #expect(observation == .closed(received: []), "expected a close with no answer, got \(observation)")
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(4), "closed after \(elapsed) with a 300 ms head timeout")
        }
    }

    @Test("an idle keep-alive connection is closed after idleTimeout")
    func idleKeepAlive() async throws {
        try await withSandbox(alone: true, { $0.http.idleTimeout = .milliseconds(300) }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            // Timed from before the request: the idle clock starts after the answer.
            let ((response, observation), elapsed) = try await measure {
                try await client.send(rawRequest("GET", "/__sandbox/health"))
                let response = try await client.readResponse()
                return (response, try await client.readUntilClose(timeout: .seconds(5)))
            }
            #expect(response.status == 200)
            #expect(!response.closesConnection)
            #expect(observation == .closed(received: []), "\(observation)")
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(4), "closed after \(elapsed) with a 300 ms idle timeout")
        }
    }

    @Test("the idle timer restarts with every request: a busy keep-alive connection is not closed")
    func idleTimerRestarts() async throws {
        try await withSandbox(alone: true, { $0.http.idleTimeout = .seconds(1) }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            // Six requests 300 ms apart: never a second idle, but 1.5 s after the first answer in all.
            for index in 0..<6 {
                if index > 0 { try await Task.sleep(for: .milliseconds(300)) }
                do {
                    try await client.send(rawRequest("GET", "/__sandbox/echo?n=\(index)"))
                    let response = try await client.readResponse(timeout: .seconds(2))
                    #expect(response.status == 200)
                } catch {
                    Issue.record("request \(index), about \(index * 300) ms after the first answer, was not answered: \(error)")
                    return
                }
            }
        }
    }

    @Test("a body that stalls gets 408 and the connection closes")
    func bodyStalls() async throws {
        try await withSandbox(alone: true, { $0.http.bodyIdleTimeout = .milliseconds(300) }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            let (response, elapsed) = try await measure {
                try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nabc")
                return try await client.readResponse(timeout: .seconds(5))
            }
            #expect(response.status == 408, "\(response)")
            #expect(response.closesConnection)
            expectWellFramed(response)
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(4), "408 after \(elapsed) with a 300 ms body timeout")
            try await expectServerCloses(client)
        }
    }

    @Test("a chunked body that stalls gets 408")
    func chunkedBodyStalls() async throws {
        try await withSandbox(alone: true, { $0.http.bodyIdleTimeout = .milliseconds(300) }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
            let response = try await client.readResponse(timeout: .seconds(3))
            #expect(response.status == 408, "\(response)")
            #expect(response.closesConnection)
        }
    }

    @Test("a body that keeps arriving, never stalling for bodyIdleTimeout, is accepted however long it takes")
    func slowButSteadyBody() async throws {
        try await withSandbox(alone: true, { $0.http.bodyIdleTimeout = .seconds(1) }) { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send("POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 8\r\n\r\n")
            // 8 bytes 150 ms apart: 1.2 s in all, longer than one body timeout.
            let sent = await client.trickle(Array("12345678".utf8), interval: .milliseconds(150))
            #expect(sent == 8)
            let response = try await client.readResponse(timeout: .seconds(2))
            #expect(response.status == 200, "\(response)")
            #expect(try response.jsonObject()["body_length"] as? Int == 8)
        }
    }

    @Test("a handler slower than handlerTimeout gets 503 and the connection closes")
    func handlerTimeout() async throws {
        try await withServer(TestRoutes.router(), alone: true, { $0.handlerTimeout = .milliseconds(300) }) { _, server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            let (response, elapsed) = try await measure {
                try await client.send(rawRequest("GET", "/slow?ms=5000") + rawRequest("GET", "/fast"))
                return try await client.readResponse(timeout: .seconds(5))
            }
            #expect(response.status == 503, "\(response)")
            #expect(response.closesConnection)
            expectWellFramed(response)
            #expect(try response.jsonObject()["status"] as? Int == 503)
            #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(4), "503 after \(elapsed) with a 300 ms handler timeout")
            try await expectServerCloses(client)
            // A fast request on a new connection is unaffected.
            let fast = try await RawClient.exchange(port: server.port, rawRequest("GET", "/fast"))
            #expect(fast.status == 200)
        }
    }

    @Test("an immediate handler's HTTPResponse.later answers from a task, in order, under the handler timeout")
    func deferredAnswer() async throws {
        try await withServer(TestRoutes.router(), alone: true, { $0.handlerTimeout = .milliseconds(400) }) { _, server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            // Pipelined: the deferred answer comes first, then the immediate one, on the same connection.
            let (first, elapsed) = try await measure {
                try await client.send(rawRequest("GET", "/later?ms=150") + rawRequest("GET", "/fast"))
                return try await client.readResponse(timeout: .seconds(3))
            }
            #expect(first.status == 200, "\(first)")
            #expect(first.bodyText == "later 150")
            #expect(elapsed >= .milliseconds(150), "answered after \(elapsed)")
            let second = try await client.readResponse(timeout: .seconds(3))
            #expect(second.bodyText == "fast /fast")
            // Longer than the handler timeout: 503, as for an async handler.
            try await client.send(rawRequest("GET", "/later?ms=5000"))
            let late = try await client.readResponse(timeout: .seconds(4))
            #expect(late.status == 503, "\(late)")
            #expect(late.closesConnection)
        }
    }
}
