// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// Pipelining, persistence (RFC 9112 §9.3) and `Expect: 100-continue` (RFC 9110 §10.1.1).
@Suite struct ParserConnectionTests {
    @Test func parser_YieldsPipelinedRequestsInOrder_WhenInOneBuffer() {
        let outcome = parse("GET /1 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
            + "PUT /3 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
            + "DELETE /4 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(outcome.errorStatus == nil)
        #expect(outcome.requests.map(\.method) == ["GET", "POST", "PUT", "DELETE"])
        #expect(outcome.requests.map(\.target) == ["/1", "/2", "/3", "/4"])
        #expect(outcome.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["", "body", "ok", ""])
        #expect(!outcome.finished)
    }

    @Test func parser_KeepsConnectionOpen_WhenHTTP11WithoutConnectionClose() throws {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .request(let request)? = try parser.next() else { Issue.record("no request"); return }
        #expect(request.wantsKeepAlive)
        #expect(!parser.isFinished)
        #expect(!parser.isMidRequest)
        parser.append(contentsOf: Array("GET /again HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .request(let second)? = try parser.next() else { Issue.record("no second request"); return }
        #expect(second.target == "/again")
        #expect(second.id != request.id)
    }

    @Test func parser_Finishes_WhenConnectionClose() throws {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array("GET /last HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\nGET /more HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .request(let request)? = try parser.next() else { Issue.record("no request"); return }
        #expect(request.target == "/last")
        #expect(!request.wantsKeepAlive)
        #expect(parser.isFinished)
        #expect(try parser.next() == nil)
        parser.append(contentsOf: Array("GET /later HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try parser.next() == nil)
        #expect(!parser.isMidRequest)
    }

    @Test func parser_Finishes_WhenHTTP10WithoutKeepAlive() {
        let outcome = parse("GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.0\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/a"])
        #expect(outcome.requests.first?.version == .http1_0)
        #expect(outcome.finished)
        #expect(outcome.errorStatus == nil)
    }

    @Test func parser_Continues_WhenHTTP10WithConnectionKeepAlive() {
        let outcome = parse("GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\nGET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /c HTTP/1.0\r\n\r\nGET /d HTTP/1.0\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/a", "/b", "/c"])
        #expect(outcome.finished)
    }

    @Test func parser_Finishes_WhenConnect() {
        let outcome = parse("CONNECT pay.example:443 HTTP/1.1\r\nHost: pay.example:443\r\n\r\n\u{16}\u{03}\u{01}binary tunnel bytes")
        #expect(outcome.requests.map(\.method) == ["CONNECT"])
        #expect(outcome.requests.map(\.target) == ["pay.example:443"])
        #expect(outcome.finished)
        #expect(outcome.errorStatus == nil)
    }

    @Test func parser_Finishes_WhenUpgradeWithConnectionUpgrade() {
        let outcome = parse("GET /ws HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n\u{81}\u{05}hello")
        #expect(outcome.requests.map(\.target) == ["/ws"])
        #expect(outcome.finished)
        #expect(outcome.errorStatus == nil)
    }

    /// RFC 9110 §7.8: Upgrade only counts when Connection lists it; otherwise it is an ordinary field.
    @Test func parser_Continues_WhenUpgradeWithoutConnectionUpgrade() {
        let outcome = parse("GET /a HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/a", "/b"])
        #expect(!outcome.finished)
    }

    @Test func parser_ReportsMidRequestAndPendingHead_WhileBodyArrives() throws {
        var parser = HTTPRequestParser()
        #expect(!parser.isMidRequest)
        parser.append(contentsOf: Array("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.isMidRequest && !parser.isAwaitingBody && parser.pendingHead == nil)
        parser.append(contentsOf: Array("\r\na".utf8))
        #expect(try parser.next() == nil)
        #expect(parser.isMidRequest && parser.isAwaitingBody)
        #expect(parser.pendingHead?.target == "/p")
        parser.append(contentsOf: Array("bc".utf8))
        guard case .request(let request)? = try parser.next() else { Issue.record("no request"); return }
        #expect(request.body == Data("abc".utf8))
        #expect(!parser.isMidRequest && !parser.isAwaitingBody && parser.pendingHead == nil)
    }

    @Test func parser_GivesRequestIDsWithPrefixAndCounter() throws {
        var parser = HTTPRequestParser(idPrefix: "c7-")
        parser.append(contentsOf: Array("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        guard case .request(let first)? = try parser.next(), case .request(let second)? = try parser.next() else {
            Issue.record("two requests expected"); return
        }
        #expect([first.id, second.id] == ["c7-1", "c7-2"])
    }

    // MARK: Expect

    static let expectHead = "PUT /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"

    @Test func parser_AsksForContinueOnceBeforeRequest_WhenBodyHasNotArrived() throws {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array(Self.expectHead.utf8))
        guard case .continueExpected? = try parser.next() else { Issue.record("no continueExpected"); return }
        #expect(try parser.next() == nil)
        parser.append(contentsOf: Array("he".utf8))
        #expect(try parser.next() == nil)
        parser.append(contentsOf: Array("llo".utf8))
        guard case .request(let request)? = try parser.next() else { Issue.record("no request"); return }
        #expect(request.body == Data("hello".utf8))
        #expect(try parser.next() == nil)
    }

    @Test func parser_AsksForContinueExactlyOnce_WhenBodyArrivesByteByByte() {
        let bytes = Array((Self.expectHead + "hello").utf8)
        let headCount = Self.expectHead.utf8.count
        let outcome = parse(reads: [Array(bytes[..<headCount])] + bytes[headCount...].map { [$0] })
        #expect(outcome.events.first == .continueExpected)
        #expect(outcome.continueCount == 1)
        #expect(outcome.requests.map(\.body) == [Array("hello".utf8)])
    }

    @Test func parser_AsksForContinueOnce_WhenChunkedBodyHasNotArrived() {
        let head = "POST /c HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nTransfer-Encoding: chunked\r\n\r\n"
        let outcome = parse(reads: [Array(head.utf8), Array("3\r\nabc\r\n".utf8), Array("0\r\n\r\n".utf8)])
        #expect(outcome.events.count == 2)
        #expect(outcome.events.first == .continueExpected)
        #expect(outcome.requests.map(\.body) == [Array("abc".utf8)])
    }

    @Test func parser_DoesNotAskForContinue_WhenBodyIsAlreadyBuffered() {
        let outcome = parse(Self.expectHead + "hello")
        #expect(outcome.continueCount == 0)
        #expect(outcome.requests.count == 1)
    }

    @Test func parser_DoesNotAskForContinue_WhenThereIsNoBody() {
        let outcome = parse("POST /c HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n")
        #expect(outcome.events.count == 1)
        #expect(outcome.continueCount == 0)
    }

    /// RFC 9110 §10.1.1: "A server that receives a 100-continue expectation in an HTTP/1.0 request MUST ignore
    /// that expectation."
    @Test func parser_IgnoresContinue_WhenHTTP10() {
        let outcome = parse("PUT /u HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(outcome.events.isEmpty)
        #expect(outcome.errorStatus == nil)
    }

    /// RFC 9110 §10.1.1: another expectation MAY be answered 417; the parser does, right after the head.
    @Test func parser_Rejects417BeforeBody_WhenExpectationIsUnknown() {
        let error = parseError("PUT /upload HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 5\r\n\r\n")
        #expect(error?.status == .expectationFailed)
        #expect(error?.head?.target == "/upload")
        #expect(parse("PUT /u HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, something\r\n\r\n").errorStatus == 417)
        #expect(parse("PUT /u HTTP/1.1\r\nHost: x\r\nExpect: 100-continue=1\r\n\r\n").errorStatus == 417)
    }

    @Test func parser_IgnoresExpect_WhenValueIsEmpty() {
        #expect(parse("GET / HTTP/1.1\r\nHost: x\r\nExpect: \r\n\r\n").requests.count == 1)
    }
}
