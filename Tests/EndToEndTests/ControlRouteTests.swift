// SPDX-License-Identifier: MIT
// /__sandbox/health and /__sandbox/echo over raw sockets and URLSession.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Control routes")
struct ControlRouteTests {
    @Test("GET /__sandbox/health answers 200 with status, version and uptime")
    func health() async throws {
        try await withSandbox { server in
            let response = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/health"))
            #expect(response.status == 200)
            #expect(response.version == "HTTP/1.1")
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            expectWellFramed(response)
            let json = try response.jsonObject()
            #expect(json["status"] as? String == "ok")
            #expect(json["version"] as? String == SandboxVersion.current)
            let uptime = try #require(json["uptime_seconds"] as? Int, "uptime_seconds must be an integer: \(response.bodyText)")
            #expect(uptime >= 0 && uptime < 60)
            // "objects": what the server holds and has evicted (docs/operations.md, "Max objects"; MaxObjectsTests).
            #expect(Set(json.keys) == ["status", "version", "uptime_seconds", "objects"])
            // Written by hand for speed: the bytes JSONText writes for the same values.
            let objects = try #require(json["objects"] as? [String: Any])
            let expected = JSONText.object([
                ("status", .string("ok")), ("version", .string(SandboxVersion.current)), ("uptime_seconds", .int(uptime)),
                ("objects", .object([("held", .int(try #require(objects["held"] as? Int))),
                                     ("max", (objects["max"] as? Int).map(JSONText.int) ?? .null),
                                     ("evicted", .int(try #require(objects["evicted"] as? Int)))])),
            ])
            #expect(response.bodyText == String(decoding: expected.data, as: UTF8.self))
        }
    }

    @Test("health through URLSession")
    func healthWithURLSession() async throws {
        try await withSandbox { server in
            try await withURLSession { session in
                let (data, response) = try await session.data(from: server.url("/__sandbox/health"))
                #expect(response.httpStatus == 200)
                let json = try jsonObject(data)
                #expect(json["status"] as? String == "ok")
                #expect(json["version"] as? String == SandboxVersion.current)
                #expect(json["uptime_seconds"] is Int)
            }
        }
    }

    @Test("echo reports target, decoded path, query, version and headers in order, repeated ones kept")
    func echoRawSocket() async throws {
        try await withSandbox { server in
            let request = "GET /__sandbox/echo/a%20b?x=1&y=two+words&x=3 HTTP/1.1\r\n"
                + "Host: 127.0.0.1\r\nX-Dup: first\r\nx-custom:   padded value  \r\nX-Dup: second\r\n\r\n"
            let response = try await RawClient.exchange(port: server.port, request)
            #expect(response.status == 200)
            expectWellFramed(response)
            let json = try response.jsonObject()
            #expect((json["request_id"] as? String)?.isEmpty == false)
            #expect(json["method"] as? String == "GET")
            #expect(json["target"] as? String == "/__sandbox/echo/a%20b?x=1&y=two+words&x=3")
            #expect(json["path"] as? String == "/__sandbox/echo/a b")
            #expect(pairs(json["query"]) == [["x", "1"], ["y", "two words"], ["x", "3"]])
            #expect(json["version"] as? String == "HTTP/1.1")
            #expect(pairs(json["headers"]) == [["Host", "127.0.0.1"], ["X-Dup", "first"], ["x-custom", "padded value"], ["X-Dup", "second"]])
            #expect(pairs(json["trailers"]) == [])
            #expect(json["body_length"] as? Int == 0)
            #expect(json["body_base64"] as? String == "")
        }
    }

    @Test("echo answers any method", arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "PROPFIND"])
    func echoAnyMethod(method: String) async throws {
        try await withSandbox { server in
            let response = try await RawClient.exchange(port: server.port, rawRequest(method, "/__sandbox/echo", body: "abc"))
            #expect(response.status == 200)
            expectWellFramed(response)
            let json = try response.jsonObject()
            #expect(json["method"] as? String == method)
            #expect(json["body_length"] as? Int == 3)
            #expect(json["body_base64"] as? String == Data("abc".utf8).base64EncodedString())
        }
    }

    @Test("request ids differ between requests")
    func requestIDsAreUnique() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            var ids: Set<String> = []
            for _ in 0..<3 {
                try await client.send(rawRequest("GET", "/__sandbox/echo"))
                ids.insert(try #require(try await client.readResponse().jsonObject()["request_id"] as? String))
            }
            let other = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/echo"))
            ids.insert(try #require(try other.jsonObject()["request_id"] as? String))
            #expect(ids.count == 4)
        }
    }

    @Test("echo through URLSession: GET with a header, POST with a binary body")
    func echoWithURLSession() async throws {
        try await withSandbox { server in
            try await withURLSession { session in
                var get = URLRequest(url: server.url("/__sandbox/echo?q=1"))
                get.setValue("yes", forHTTPHeaderField: "X-Test")
                let (getData, getResponse) = try await session.data(for: get)
                #expect(getResponse.httpStatus == 200)
                let getJSON = try jsonObject(getData)
                #expect(getJSON["method"] as? String == "GET")
                #expect(getJSON["target"] as? String == "/__sandbox/echo?q=1")
                #expect(getJSON["version"] as? String == "HTTP/1.1")
                let getHeaders = pairs(getJSON["headers"])
                #expect(getHeaders.contains(["X-Test", "yes"]), "\(getHeaders)")
                #expect(getHeaders.contains { $0.first?.lowercased() == "host" && $0.last == "127.0.0.1:\(server.port)" }, "\(getHeaders)")
                #expect(getJSON["body_length"] as? Int == 0)

                let body = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                var post = URLRequest(url: server.url("/__sandbox/echo/payments"))
                post.httpMethod = "POST"
                post.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
                post.httpBody = body
                let (postData, postResponse) = try await session.data(for: post)
                #expect(postResponse.httpStatus == 200)
                let postJSON = try jsonObject(postData)
                #expect(postJSON["method"] as? String == "POST")
                #expect(postJSON["path"] as? String == "/__sandbox/echo/payments")
                #expect(postJSON["body_length"] as? Int == body.count)
                #expect(postJSON["body_base64"] as? String == body.base64EncodedString())
                #expect(pairs(postJSON["headers"]).contains(["Content-Type", "application/octet-stream"]))
            }
        }
    }

    @Test("a chunked body is decoded and its trailers reported")
    func echoChunkedWithTrailers() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            // Sent in pieces that split the chunk-size line, the data and the trailer section.
            let pieces = [
                "POST /__sandbox/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n5\r",
                "\nhel", "lo\r\n7;ext=\"v\"\r\n, world\r\n0\r\nX-Check", "sum: abc123\r\nX-More: 1\r\n", "\r\n",
            ]
            for piece in pieces {
                try await client.send(piece)
                try await Task.sleep(for: .milliseconds(20))
            }
            let response = try await client.readResponse()
            #expect(response.status == 200)
            expectWellFramed(response)
            let json = try response.jsonObject()
            #expect(json["body_length"] as? Int == 12)
            #expect(json["body_base64"] as? String == Data("hello, world".utf8).base64EncodedString())
            #expect(pairs(json["trailers"]) == [["X-Checksum", "abc123"], ["X-More", "1"]])
            #expect(pairs(json["headers"]).contains(["Transfer-Encoding", "chunked"]))
            // The connection stays usable after a chunked request.
            try await client.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await client.readResponse().status == 200)
        }
    }

    @Test("an absolute-form target is routed by its path")
    func absoluteForm() async throws {
        try await withSandbox { server in
            let response = try await RawClient.exchange(port: server.port,
                                                        "GET http://127.0.0.1:\(server.port)/__sandbox/echo?a=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(response.status == 200)
            let json = try response.jsonObject()
            #expect(json["path"] as? String == "/__sandbox/echo")
            #expect(pairs(json["query"]) == [["a", "1"]])
        }
    }

    @Test("HTTP/1.0 request is echoed as HTTP/1.0 and answered as HTTP/1.1")
    func echoHTTP10() async throws {
        try await withSandbox { server in
            let response = try await RawClient.exchange(port: server.port, "GET /__sandbox/echo HTTP/1.0\r\n\r\n")
            #expect(response.status == 200)
            #expect(response.version == "HTTP/1.1")
            expectWellFramed(response)
            #expect(try response.jsonObject()["version"] as? String == "HTTP/1.0")
        }
    }

    @Test("unknown path is 404, wrong method is 405 with Allow, both JSON")
    func notFoundAndMethodNotAllowed() async throws {
        try await withSandbox { server in
            let client = try await RawClient.connect(port: server.port)
            defer { client.close() }
            try await client.send(rawRequest("GET", "/no/such/route"))
            let notFound = try await client.readResponse()
            #expect(notFound.status == 404)
            expectWellFramed(notFound)
            #expect(try notFound.jsonObject()["status"] as? Int == 404)
            #expect(!notFound.closesConnection)

            try await client.send(rawRequest("POST", "/__sandbox/health", body: "{}"))
            let notAllowed = try await client.readResponse()
            #expect(notAllowed.status == 405)
            expectWellFramed(notAllowed)
            let allow = Set((notAllowed.header("Allow") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(allow == ["GET", "HEAD"], "Allow: \(notAllowed.header("Allow") ?? "missing")")
            // Still open afterwards.
            try await client.send(rawRequest("GET", "/__sandbox/health"))
            #expect(try await client.readResponse().status == 200)
        }
    }

    // MARK: The clock's range (SandboxClockRange: 1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z)

    static func postClock(_ server: RunningServer, _ body: String) async throws -> RawResponse {
        try await RawClient.exchange(port: server.port, rawRequest("POST", "/__sandbox/clock",
                                                                 headers: [("Content-Type", "application/json")], body: body))
    }

    @Test("POST /__sandbox/clock refuses a time it cannot show: 400 naming the range, the clock unchanged", arguments: [
        #"{"advance_seconds": 1e300}"#, #"{"advance_seconds": -1e300}"#, #"{"advance_seconds": 1e15}"#,
        #"{"now": "1969-12-31T23:59:59Z"}"#, #"{"now": "0001-01-01T00:00:00Z"}"#,
        // The last year is headroom for the running clock and the lifetimes written ahead of it.
        #"{"now": "9999-01-01T00:00:01Z"}"#, #"{"now": "9999-12-30T00:00:00Z"}"#, #"{"now": "9999-12-31T23:59:59Z"}"#,
    ])
    func clock_OutOfRange_400NamingTheRange(body: String) async throws {
        try await withSandbox({ $0.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000)) }) { server in
            let response = try await Self.postClock(server, body)
            #expect(response.status == 400, "\(body): \(response)")
            let message = try response.jsonObject()["message"] as? String ?? ""
            #expect(message.contains("1970-01-01T00:00:00Z to 9999-01-01T00:00:00Z"), "\(body): \(message)")
            let clock = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/clock")).jsonObject()
            #expect(clock["offset_seconds"] as? Double == 0 && clock["now"] as? String == "2027-01-15T08:00:00.000Z", "\(clock)")
        }
    }

    @Test("the advance_seconds message gives the allowed span from now")
    func clock_AdvanceMessage_GivesTheSpan() async throws {
        try await withSandbox({ $0.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000)) }) { server in
            let message = try await Self.postClock(server, #"{"advance_seconds": -1e300}"#).jsonObject()["message"] as? String ?? ""
            #expect(message.contains("allows -1800000000 to 251570764800"), "\(message)")
        }
    }

    @Test("not a number (a string, NaN, an overflowing literal, null with nothing else) is 400", arguments: [
        #"{"advance_seconds": "60"}"#, #"{"advance_seconds": NaN}"#, #"{"advance_seconds": 1e400}"#, #"{"advance_seconds": null}"#,
        #"{"advance_seconds": 1, "now": "2030-01-01T00:00:00Z"}"#, #"{"now": "soon"}"#, "[]",
    ])
    func clock_NotANumber_400(body: String) async throws {
        try await withSandbox { server in
            let response = try await Self.postClock(server, body)
            #expect(response.status == 400, "\(body): \(response)")
            let clock = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/clock")).jsonObject()
            #expect(clock["offset_seconds"] as? Double == 0, "\(body): \(clock)")
        }
    }

    @Test("the range's own ends are accepted, by now and by advance_seconds")
    func clock_RangeEnds_Accepted() async throws {
        try await withSandbox({ $0.clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000)) }) { server in
            for (body, now) in [(#"{"now": "1970-01-01T00:00:00Z"}"#, "1970-01-01T00:00:00.000Z"),
                                (#"{"now": "9999-01-01T00:00:00Z"}"#, "9999-01-01T00:00:00.000Z"),
                                (#"{"advance_seconds": -253370764800}"#, "1970-01-01T00:00:00.000Z"),
                                (#"{"advance_seconds": 253370764800}"#, "9999-01-01T00:00:00.000Z")] {
                let response = try await Self.postClock(server, body)
                #expect(response.status == 200, "\(body): \(response)")
                #expect(try response.jsonObject()["now"] as? String == now, "\(body): \(response.bodyText)")
            }
            // At the last second, one more is refused.
            #expect(try await Self.postClock(server, #"{"advance_seconds": 1}"#).status == 400)
        }
    }

    @Test("at the latest time the clock takes, the dates the sandbox writes ahead of it stay in year 9999")
    func clock_Latest_LifetimesStayFourDigitYears() async throws {
        try await withSandbox(deterministic) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("clock-latest"))
            let set = try await client.post("/__sandbox/clock", #"{"now": "9999-01-01T00:00:00Z"}"#)
            #expect(set.status == 200, "\(set)")
            let session = try await client.newSession()
            let read = try await client.readSession(session).jsonObject()
            // A KP session lives 48 h.
            #expect(read["expires_at"] as? String == "9999-01-03T00:00:00.000Z", "\(read)")
        }
    }
}
