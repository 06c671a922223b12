// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// ``HTTPParserLimits``: 431 for heads, 413 for bodies, enforced while bytes arrive.
@Suite struct ParserLimitsTests {
    /// A request head of exactly `size` bytes, final CRLF CRLF included.
    static func head(ofSize size: Int) -> String {
        let fixed = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: \r\n\r\n"
        return "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "p", count: size - fixed.utf8.count) + "\r\n\r\n"
    }

    @Test func parser_AcceptsHead_WhenExactlyAtLimit() {
        let text = Self.head(ofSize: 100)
        #expect(text.utf8.count == 100)
        #expect(parse(text, limits: HTTPParserLimits(maxHeadBytes: 100)).requests.count == 1)
    }

    @Test func parser_Rejects431_WhenHeadExceedsLimit() {
        let outcome = parse(Self.head(ofSize: 101), limits: HTTPParserLimits(maxHeadBytes: 100))
        #expect(outcome.errorStatus == 431)
        #expect(outcome.requests.isEmpty)
    }

    /// The 431 comes as soon as the buffered head passes the limit, not when (if ever) its end arrives.
    @Test func parser_Rejects431AtOnce_WhenHeadTerminatorNeverArrives() throws {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxHeadBytes: 100))
        let bytes = Array(("GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "p", count: 200)).utf8)
        parser.append(contentsOf: bytes[..<100])
        #expect(try parser.next() == nil)
        parser.append(contentsOf: bytes[100..<101])
        #expect(throws: HTTPParseError.self) { try parser.next() }
        do {
            var fresh = HTTPRequestParser(limits: HTTPParserLimits(maxHeadBytes: 100))
            fresh.append(contentsOf: bytes)
            _ = try fresh.next()
            Issue.record("no error")
        } catch {
            #expect(error.status == .requestHeaderFieldsTooLarge)
            #expect(error.head == nil)
        }
    }

    @Test func parser_Rejects431AtOnce_WhenOverlongHeadEndsInCR() {
        // 100 bytes of head then a CR: 101 buffered bytes are over the limit whatever follows the CR.
        let bytes = Array(("GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "p", count: 68)).utf8) + [0x0D]
        #expect(bytes.count == 101)
        #expect(parse(bytes: bytes, limits: HTTPParserLimits(maxHeadBytes: 100)).errorStatus == 431)
    }

    @Test func parser_Rejects431_WhenTooManyHeaderFields() {
        let limits = HTTPParserLimits(maxHeaderCount: 3)
        #expect(parse("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits).requests.count == 1)
        let outcome = parse("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits)
        #expect(outcome.errorStatus == 431)
        // Without waiting for the end of the head either.
        #expect(parse("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n", limits: limits).errorStatus == 431)
    }

    /// 413 right after the head, with no body byte sent, so the client can stop early.
    @Test func parser_Rejects413RightAfterHead_WhenContentLengthExceedsBodyLimit() {
        let limits = HTTPParserLimits(maxBodyBytes: 10)
        let error = parseError("POST /payments HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", limits: limits)
        #expect(error?.status == .contentTooLarge)
        #expect(error?.head?.path == "/payments")
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits).requests.count == 1)
    }

    /// The largest representable length is a large body (413); one more overflows and is malformed (400).
    @Test func parser_Rejects413_WhenContentLengthIsHugeButRepresentable() {
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775807\r\n\r\n").errorStatus == 413)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 00000000000000000000009000000\r\n\r\n").errorStatus == 413)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775808\r\n\r\n").errorStatus == 400)
    }

    @Test func parser_Accepts_WhenBodyIsEmptyAndLimitIsZero() {
        let limits = HTTPParserLimits(maxBodyBytes: 0)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", limits: limits).requests.count == 1)
        #expect(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n", limits: limits).errorStatus == 413)
    }

    @Test func parser_AppliesHeadLimitPerRequest_WhenPipelined() {
        let limits = HTTPParserLimits(maxHeadBytes: 60)
        let one = "GET /abc HTTP/1.1\r\nHost: x\r\n\r\n"
        let outcome = parse(String(repeating: one, count: 5), limits: limits)
        #expect(outcome.requests.count == 5)
        #expect(outcome.errorStatus == nil)
    }
}
