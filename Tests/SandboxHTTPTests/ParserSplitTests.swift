// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// The same bytes cut into reads at every offset, and one byte per read, give the same requests.
@Suite struct ParserSplitTests {
    static let post = "POST /payments/v1/sessions?x=1 HTTP/1.1\r\nHost: localhost:8080\r\nContent-Type: application/json\r\n"
        + "Content-Length: 16\r\n\r\n{\"amount\":12345}"

    static let chunked = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: Checksum\r\n\r\n"
        + "5;name=value\r\nhello\r\n7;q=\"a b;\\\"c\";flag\r\n, world\r\nA\r\n!!!!!!!!!!\r\n0;last\r\n"
        + "Checksum: 1234\r\nX-Other: y\r\n\r\n"

    static let pipelined = "GET /first HTTP/1.1\r\nHost: x\r\n\r\nPOST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"

    static func fields(_ pairs: [(String, String)]) -> [HTTPHeaders.Field] {
        pairs.map { HTTPHeaders.Field(name: $0.0, value: $0.1) }
    }

    static let expectedPost = RequestSnapshot(
        method: "POST", target: "/payments/v1/sessions?x=1", version: .http1_1,
        headers: fields([("Host", "localhost:8080"), ("Content-Type", "application/json"), ("Content-Length", "16")]),
        body: Array("{\"amount\":12345}".utf8), trailers: [])

    static let expectedChunked = RequestSnapshot(
        method: "POST", target: "/upload", version: .http1_1,
        headers: fields([("Host", "x"), ("Transfer-Encoding", "chunked"), ("Trailer", "Checksum")]),
        body: Array("hello, world!!!!!!!!!!".utf8), trailers: fields([("Checksum", "1234"), ("X-Other", "y")]))

    static let expectedPipelined = [
        RequestSnapshot(method: "GET", target: "/first", version: .http1_1, headers: fields([("Host", "x")]), body: [], trailers: []),
        RequestSnapshot(method: "POST", target: "/second", version: .http1_1,
                        headers: fields([("Host", "x"), ("Content-Length", "3")]), body: Array("abc".utf8), trailers: []),
    ]

    static let cases: [(name: String, text: String, expected: [RequestSnapshot])] = [
        ("content-length body", post, [expectedPost]),
        ("chunked with extensions and trailers", chunked, [expectedChunked]),
        ("two pipelined requests", pipelined, expectedPipelined),
    ]

    @Test(arguments: 0..<cases.count)
    func parser_YieldsIdenticalRequests_WhenSplitAtEveryOffset(_ index: Int) {
        let (name, text, expected) = Self.cases[index]
        let whole = parse(text)
        #expect(whole.requests == expected, "\(name), one read")
        #expect(whole.errorStatus == nil, "\(name): \(whole.errorReason ?? "")")
        for (label, reads) in everySplit(of: Array(text.utf8)) {
            let outcome = parse(reads: reads)
            #expect(outcome.requests == expected, "\(name), \(label)")
            #expect(outcome.errorStatus == nil, "\(name), \(label): \(outcome.errorReason ?? "")")
            #expect(outcome.continueCount == 0, "\(name), \(label)")
            #expect(!outcome.finished, "\(name), \(label)")
        }
    }

    /// Each prefix of a request gives no request and no error: the parser waits for the rest.
    @Test func parser_WaitsWithoutError_WhenRequestIsIncomplete() {
        for text in [Self.post, Self.chunked] {
            let bytes = Array(text.utf8)
            for length in 0..<bytes.count {
                let outcome = parse(bytes: Array(bytes[..<length]))
                #expect(outcome.requests.isEmpty && outcome.errorStatus == nil, "prefix of \(length) bytes")
            }
        }
    }

    /// A CR at the end of a read is judged with the byte after it, whichever read that comes in.
    @Test func parser_RejectsBareCR_WhenCRAndNextByteArriveInSeparateReads() {
        let text = Array("GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n".utf8)
        let cr = text.firstIndex(of: 0x0D, after: 20)
        let outcome = parse(reads: [Array(text[...cr]), Array(text[(cr + 1)...])])
        #expect(outcome.errorStatus == 400)
        #expect(outcome.errorReason == parse(bytes: text).errorReason)
    }

    @Test func parser_SkipsLeadingCRLF_WhenItsCRAndLFArriveInSeparateReads() {
        let outcome = parse(reads: [Array("\r".utf8), Array("\nGET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)])
        #expect(outcome.errorStatus == nil, "\(outcome.errorReason ?? "")")
        #expect(outcome.requests.map(\.target) == ["/"])
    }
}

extension Array where Element == UInt8 {
    /// The index of the first `byte` at or after `start`.
    func firstIndex(of byte: UInt8, after start: Int) -> Int {
        self[start...].firstIndex(of: byte)!
    }
}
