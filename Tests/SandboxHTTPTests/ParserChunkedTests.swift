// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// Chunked transfer coding (RFC 9112 §7.1).
@Suite struct ParserChunkedTests {
    static let head = "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"

    func outcome(body: String, limits: HTTPParserLimits = HTTPParserLimits()) -> ParseOutcome {
        parse(Self.head + body, limits: limits)
    }

    func expectBody(_ chunked: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = outcome(body: chunked)
        #expect(result.errorStatus == nil, "\(chunked.debugDescription): \(result.errorReason ?? "")", sourceLocation: sourceLocation)
        #expect(result.requests.map(\.body) == [Array(expected.utf8)], sourceLocation: sourceLocation)
    }

    func expectRejected(_ chunked: String, _ status: Int, limits: HTTPParserLimits = HTTPParserLimits(),
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let result = outcome(body: chunked, limits: limits)
        #expect(result.errorStatus == status, "\(chunked.debugDescription): \(result.errorReason ?? "accepted")",
                sourceLocation: sourceLocation)
        #expect(result.requests.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func parser_JoinsChunks_WhenLastChunkHasNoTrailers() {
        let result = outcome(body: "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
        #expect(result.requests.map(\.body) == [Array("abcde".utf8)])
        #expect(result.requests.first?.trailers == [])
    }

    @Test func parser_ReadsEmptyBody_WhenOnlyLastChunk() {
        expectBody("0\r\n\r\n", "")
        expectBody("000\r\n\r\n", "")
    }

    @Test func parser_ReadsHexSizes_InEitherCase() {
        let ten = String(repeating: "t", count: 10), thirtyOne = String(repeating: "u", count: 31)
        expectBody("A\r\n\(ten)\r\n1F\r\n\(thirtyOne)\r\n0\r\n\r\n", ten + thirtyOne)
        expectBody("a\r\n\(ten)\r\n1f\r\n\(thirtyOne)\r\n0\r\n\r\n", ten + thirtyOne)
        expectBody("0000a\r\n\(ten)\r\n0\r\n\r\n", ten)
    }

    @Test(arguments: [";a=b", ";a", ";a=\"b\"", ";a=\"b;c \\\" d\"", " ;a=b", ";a = b", ";a=b;c;d=\"\"", "\t;\ta\t=\tb"])
    func parser_IgnoresChunkExtensions_WhenWellFormed(_ extensions: String) {
        expectBody("5\(extensions)\r\nhello\r\n0\(extensions)\r\n\r\n", "hello")
    }

    @Test(arguments: [";", ";=b", "; ;", ";a=", ";a=\"unterminated", ";a=b c", ";a=\"b\"c", ";a=\"\u{01}\"", ";a=b,c", "g", " ", ";a ", ";a=b ", ";a=\"x\\"])
    func parser_Rejects400_WhenChunkExtensionIsMalformed(_ extensions: String) {
        expectRejected("5\(extensions)\r\nhello\r\n0\r\n\r\n", 400)
    }

    @Test func parser_KeepsTrailers_InRequestTrailers() {
        let result = outcome(body: "2\r\nhi\r\n0\r\nChecksum: abc\r\nX-Note:  two words \r\n\r\n")
        #expect(result.requests.first?.trailers == HTTPHeaders([("Checksum", "abc"), ("X-Note", "two words")]).fields)
        #expect(result.requests.first?.headers.contains { $0.name == "Checksum" } == false)
    }

    @Test func parser_Rejects400_WhenTrailerIsMalformed() {
        expectRejected("0\r\nBad Name: x\r\n\r\n", 400)
        expectRejected("0\r\nX: a\r\n folded\r\n\r\n", 400)
        expectRejected("0\r\nX: a\n\r\n", 400)
    }

    /// A size past Int.max is a malformed line (400, as nginx and llhttp), not a large chunk.
    @Test(arguments: ["FFFFFFFFFFFFFFFFF", "10000000000000000", "8000000000000000", String(repeating: "f", count: 100)])
    func parser_Rejects400_WhenChunkSizeOverflows(_ size: String) {
        expectRejected("\(size)\r\n", 400)
        expectRejected("1\r\na\r\n\(size)\r\n", 400)
    }

    /// A size that fits but passes the body limit is a large chunk: 413. Leading zeros do not overflow.
    @Test(arguments: ["7fffffffffffffff", "00000000000000000000800001"])
    func parser_Rejects413_WhenChunkSizeIsRepresentableButTooLarge(_ size: String) {
        expectRejected("\(size)\r\n", 413)
    }

    /// A huge chunk after a first one: the body-limit check must not overflow.
    @Test func parser_Rejects413_WhenChunkSizeNearIntMaxFollowsAChunk() {
        expectRejected("1\r\na\r\n7fffffffffffffff\r\n", 413)
        expectRejected("1\r\na\r\n7ffffffffffffffe\r\n", 413)
    }

    @Test func parser_Rejects400_WhenChunkDataIsNotFollowedByCRLF() {
        expectRejected("3\r\nabcX\r\n0\r\n\r\n", 400)
        expectRejected("3\r\nabc\n0\r\n\r\n", 400)
        expectRejected("3\r\nabc\rX0\r\n\r\n", 400)
        expectRejected("3\r\nabcd\r\n0\r\n\r\n", 400)
    }

    @Test func parser_Rejects400_WhenChunkLinesUseBareLF() {
        expectRejected("3\nabc\r\n0\r\n\r\n", 400)
        expectRejected("3\r\nabc\r\n0\n\r\n", 400)
        expectRejected("3\r\nabc\r\n0\r\n\n", 400)
        expectRejected("3\r\r\nabc\r\n0\r\n\r\n", 400)
    }

    @Test(arguments: ["xyz", "-1", " 3", "3 ", "+3", "0x3", "", "\u{01}"])
    func parser_Rejects400_WhenChunkSizeIsInvalid(_ size: String) {
        expectRejected("\(size)\r\nabc\r\n0\r\n\r\n", 400)
    }

    @Test func parser_Rejects400_WhenChunkSizeLineNeverEnds() {
        expectRejected("1;" + String(repeating: "a", count: 5000), 400)
    }

    /// The 413 comes as soon as a chunk size shows the body would pass the limit, before that chunk's data.
    @Test func parser_Rejects413MidBody_WhenChunksExceedBodyLimit() {
        let limits = HTTPParserLimits(maxBodyBytes: 8)
        expectRejected("5\r\nhello\r\n4\r\n", 413, limits: limits)
        expectRejected("9\r\n", 413, limits: limits)
        let error = parseError(Self.head + "5\r\nhello\r\n4\r\n", limits: limits)
        #expect(error?.head?.target == "/upload")
        // Exactly at the limit is fine.
        let atLimit = outcome(body: "5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n", limits: limits)
        #expect(atLimit.requests.map(\.body) == [Array("helloabc".utf8)])
    }

    @Test func parser_Rejects431_WhenTrailerSectionExceedsHeadLimit() {
        let limits = HTTPParserLimits(maxHeadBytes: 100)
        let trailer = "X-Long: " + String(repeating: "v", count: 120) + "\r\n"
        expectRejected("0\r\n" + trailer + "\r\n", 431, limits: limits)
        // Also without the end of the trailer section ever arriving.
        expectRejected("0\r\n" + trailer, 431, limits: limits)
        let error = parseError(Self.head + "0\r\n" + trailer, limits: limits)
        #expect(error?.head?.target == "/upload")
    }

    @Test func parser_Rejects431_WhenTooManyTrailerFields() {
        let limits = HTTPParserLimits(maxHeaderCount: 3)
        let three = "A: 1\r\nB: 2\r\nC: 3\r\n"
        #expect(outcome(body: "0\r\n" + three + "\r\n", limits: limits).requests.first?.trailers.count == 3)
        expectRejected("0\r\n" + three + "D: 4\r\n\r\n", 431, limits: limits)
    }

    @Test func parser_ContinuesWithNextRequest_AfterChunkedBody() {
        let result = parse(Self.head + "1\r\na\r\n0\r\nT: 1\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(result.requests.map(\.target) == ["/upload", "/next"])
        #expect(result.requests.last?.trailers == [])
    }
}
