// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// Message syntax and framing errors (RFC 9112 §2-§6) and the status each one gets.
@Suite struct ParserFramingTests {
    /// Asserts that `text` is refused with `status` before any request completes, and the parser is finished.
    func expectRejected(_ text: String, _ status: Int, limits: HTTPParserLimits = HTTPParserLimits(),
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let outcome = parse(text, limits: limits)
        #expect(outcome.errorStatus == status, "\(text.debugDescription): \(outcome.errorReason ?? "accepted")",
                sourceLocation: sourceLocation)
        #expect(outcome.requests.isEmpty, sourceLocation: sourceLocation)
        #expect(outcome.finished, sourceLocation: sourceLocation)
    }

    func expectAccepted(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> RequestSnapshot? {
        let outcome = parse(text)
        #expect(outcome.errorStatus == nil, "\(text.debugDescription): \(outcome.errorReason ?? "")", sourceLocation: sourceLocation)
        #expect(outcome.requests.count == 1, sourceLocation: sourceLocation)
        return outcome.requests.first
    }

    // MARK: Content-Length and Transfer-Encoding (RFC 9112 §6)

    @Test func parser_Rejects400_WhenContentLengthAndTransferEncoding() {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400)
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", 400)
    }

    @Test func parser_Rejects400_WhenDuplicateContentLengthsDiffer() {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400)
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd", 400)
    }

    /// Stricter than RFC 9110 §8.6 allows, as nginx and llhttp are: a second Content-Length field, or a list in
    /// one, is a 400 even when the values agree, so no proxy in front can read the length differently.
    @Test(arguments: ["Content-Length: 3\r\nContent-Length: 3", "Content-Length: 3 , 3", "Content-Length: 3,3",
                      "Content-Length: 3\r\ncontent-length: 3", "Content-Length: 3\r\nContent-Length: 4"])
    func parser_Rejects400_WhenContentLengthIsRepeated(_ fields: String) {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\n\(fields)\r\n\r\nabc", 400)
    }

    /// A length too large to represent is a malformed message (400, as nginx and llhttp), not a large body (413).
    @Test(arguments: ["9223372036854775808", "18446744073709551616", "1000000000000000000000", String(repeating: "9", count: 100)])
    func parser_Rejects400_WhenContentLengthOverflows(_ value: String) {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\n", 400)
        #expect(parseError("POST /pay HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\n")?.head?.path == "/pay")
    }

    @Test(arguments: ["abc", "-5", "+5", "5 5", "0x5", "5.0", "", " ", "5,", ",5", "1e3"])
    func parser_Rejects400_WhenContentLengthIsNotDecimal(_ value: String) {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\n\r\nhello", 400)
    }

    @Test func parser_TrimsWhitespace_AroundContentLength() {
        #expect(expectAccepted("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \t3 \r\n\r\nabc")?.body == Array("abc".utf8))
    }

    @Test func parser_ReadsLeadingZeros_InContentLength() {
        #expect(expectAccepted("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0003\r\n\r\nabc")?.body == Array("abc".utf8))
    }

    /// RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 means faulty framing.
    @Test func parser_Rejects400_WhenTransferEncodingInHTTP10() {
        expectRejected("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400)
    }

    /// RFC 9112 §6.1: a coding the server does not implement is a 501.
    @Test func parser_Rejects501_WhenCodingBeforeChunkedIsNotImplemented() {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501)
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501)
    }

    /// RFC 9112 §6.3: without chunked last, the length of a request body cannot be determined: 400.
    @Test(arguments: ["chunked, gzip", "gzip", "identity", "chunked, chunked", "chunkedchunked", "chunked;q=1",
                      "gzip, chunked, chunked", "chunked, identity"])
    func parser_Rejects400_WhenChunkedIsNotTheOnlyFinalCoding(_ value: String) {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(value)\r\n\r\n0\r\n\r\n", 400)
    }

    /// An empty list element is not `chunked` alone (nginx wants exactly `chunked`; llhttp reads `, chunked` as
    /// another coding first): 400 rather than a guess.
    @Test(arguments: [", chunked", "chunked,", ",chunked", "chunked , ", "gzip, , chunked", ""])
    func parser_Rejects400_WhenTransferEncodingHasAnEmptyElement(_ value: String) {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: \(value)\r\n\r\n0\r\n\r\n", 400)
    }

    /// Two fields are one list (RFC 9110 §5.3): `chunked` twice is a 400 however it is split.
    @Test func parser_Rejects400_WhenChunkedComesInTwoFields() {
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400)
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: \r\n\r\n0\r\n\r\n", 400)
        expectRejected("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n0\r\n\r\n", 400)
    }

    @Test func parser_AcceptsChunked_CaseInsensitively() {
        #expect(expectAccepted("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n1\r\na\r\n0\r\n\r\n")?.body
            == Array("a".utf8))
    }

    @Test func parser_ReadsNoBody_WhenNeitherContentLengthNorTransferEncoding() {
        let outcome = parse("POST /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/a", "/b"])
        #expect(outcome.requests.first?.body == [])
    }

    // MARK: Line endings and field syntax (RFC 9112 §2.2, §5)

    @Test func parser_Rejects400_WhenBareLFInHead() {
        expectRejected("GET / HTTP/1.1\nHost: x\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\nHost: x\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\n\n", 400)
        expectRejected("\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 400)
    }

    @Test func parser_Rejects400_WhenBareCRInHead() {
        expectRejected("GET / HTTP/1.1\rHost: x\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\nHost: x\rY\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\n\r\r\n", 400)
    }

    /// RFC 9112 §5.2: obs-fold in a request is rejected with 400.
    @Test func parser_Rejects400_WhenObsoleteLineFolding() {
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\n Host: x\r\n\r\n", 400)
    }

    /// RFC 9112 §5.1: no whitespace between field name and colon, 400.
    @Test func parser_Rejects400_WhenWhitespaceBeforeColon() {
        expectRejected("GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\nContent-Length\t: 0\r\n\r\n", 400)
    }

    @Test(arguments: ["X-@: 1", ": empty name", "No colon here", "X-A\u{01}: 1", "X(A): 1"])
    func parser_Rejects400_WhenFieldLineIsMalformed(_ line: String) {
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\n\(line)\r\n\r\n", 400)
    }

    @Test(arguments: ["a\u{00}b", "a\u{7F}b", "a\u{0B}b", "a\u{0C}b"])
    func parser_Rejects400_WhenFieldValueHasControlCharacter(_ value: String) {
        expectRejected("GET / HTTP/1.1\r\nHost: x\r\nX-A: \(value)\r\n\r\n", 400)
    }

    @Test func parser_TrimsFieldValues_AndKeepsInnerWhitespaceAndOrder() {
        let request = expectAccepted("GET / HTTP/1.1\r\nHost: x\r\nX-A: \t a \t b \t\r\nx-a: 2\r\nX-Empty:\r\nX-Utf8: caf\u{E9}\r\n\r\n")
        #expect(request?.headers.map(\.name) == ["Host", "X-A", "x-a", "X-Empty", "X-Utf8"])
        #expect(request?.headers.map(\.value) == ["x", "a \t b", "2", "", "caf\u{E9}"])
    }

    /// RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request-line.
    @Test func parser_IgnoresLeadingCRLFs_BeforeRequestLine() {
        #expect(expectAccepted("\r\n\r\n\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n")?.target == "/x")
        let outcome = parse("GET /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\na\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/a", "/b"])
    }

    @Test func parser_DoesNotGrowBuffer_WhenOnlyCRLFsArrive() throws {
        var parser = HTTPRequestParser()
        for _ in 0..<1000 {
            parser.append(contentsOf: Array(String(repeating: "\r\n", count: 100).utf8))
            #expect(try parser.next() == nil)
        }
        #expect(!parser.isMidRequest)
        parser.append(contentsOf: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try parser.next() != nil)
    }

    // MARK: Request line (RFC 9112 §3)

    @Test(arguments: ["GE(T", "GET@", "G\u{01}T", "[GET]", "GET/"])
    func parser_Rejects400_WhenMethodHasInvalidCharacters(_ method: String) {
        expectRejected("\(method) / HTTP/1.1\r\nHost: x\r\n\r\n", 400)
    }

    /// RFC 9110 §9.1: an unrecognized method SHOULD get 501; methods are case-sensitive.
    @Test(arguments: ["BREW", "get", "Post", "MKCOLA"])
    func parser_Rejects501_WhenMethodIsUnrecognized(_ method: String) {
        expectRejected("\(method) / HTTP/1.1\r\nHost: x\r\n\r\n", 501)
        #expect(parseError("\(method) /pay HTTP/1.1\r\nHost: x\r\n\r\n")?.head?.path == "/pay")
    }

    @Test(arguments: ["PATCH", "PROPFIND", "M-SEARCH", "QUERY", "PURGE"])
    func parser_Accepts_WhenMethodIsRecognized(_ method: String) {
        #expect(expectAccepted("\(method) /r HTTP/1.1\r\nHost: x\r\n\r\n")?.method == method)
    }

    @Test(arguments: ["/a\u{01}b", "/a\u{7F}b", "/a\tb", "/caf\u{E9}"])
    func parser_Rejects400_WhenTargetHasControlOrNonASCII(_ target: String) {
        expectRejected("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n", 400)
    }

    @Test func parser_Rejects400_WhenSpacesAreWrongInRequestLine() {
        expectRejected("GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expectRejected("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expectRejected("GET / HTTP/1.1 \r\nHost: x\r\n\r\n", 400)
        expectRejected(" GET / HTTP/1.1\r\nHost: x\r\n\r\n", 400)
        expectRejected("GET /\r\nHost: x\r\n\r\n", 400)
        expectRejected("GET\r\nHost: x\r\n\r\n", 400)
    }

    @Test(arguments: ["HTTP/1.1x", "http/1.1", "HTTP/1", "HTTP/1.10", "HTTP/11.1", "HTTP/1.a", "HTTP 1.1", "ICE/1.0", "RTSP/1.0"])
    func parser_Rejects400_WhenVersionIsInvalid(_ version: String) {
        expectRejected("GET / \(version)\r\nHost: x\r\n\r\n", 400)
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/0.9", "HTTP/3.0", "HTTP/9.9"])
    func parser_Rejects505_WhenMajorVersionIsNotOne(_ version: String) {
        expectRejected("GET / \(version)\r\nHost: x\r\n\r\n", 505)
    }

    /// RFC 9110 §6.2: a higher minor version is served as the highest this server speaks.
    @Test func parser_ServesHTTP12AsHTTP11() {
        #expect(expectAccepted("GET / HTTP/1.2\r\nHost: x\r\n\r\n")?.version == .http1_1)
    }

    // MARK: Host (RFC 9112 §3.2)

    @Test func parser_Rejects400_WhenHTTP11HasNoHost() {
        expectRejected("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400)
    }

    @Test func parser_Rejects400_WhenTwoHostFields() {
        expectRejected("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", 400)
    }

    @Test(arguments: ["a b", "a/b", "a\tb"])
    func parser_Rejects400_WhenHostIsInvalid(_ host: String) {
        expectRejected("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", 400)
    }

    @Test func parser_Accepts_WhenHTTP10HasNoHost() {
        #expect(expectAccepted("GET / HTTP/1.0\r\n\r\n")?.version == .http1_0)
    }

    @Test func parser_AcceptsEmptyHost() {
        #expect(expectAccepted("GET / HTTP/1.1\r\nHost:\r\n\r\n")?.headers.first?.value == "")
    }

    // MARK: After an error

    @Test func parser_StaysFinished_AfterAnError() throws {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: Array("GET / HTTP/1.1\nHost: x\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.self) { try parser.next() }
        #expect(parser.isFinished)
        #expect(!parser.isMidRequest)
        parser.append(contentsOf: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try parser.next() == nil)
    }
}
