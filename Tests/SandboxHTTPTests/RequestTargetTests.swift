// SPDX-License-Identifier: MIT
import Foundation
import Testing
@testable import SandboxHTTP

/// request-target forms (RFC 9112 §3.2) and percent-decoding of path and query, through the parser.
@Suite struct RequestTargetTests {
    func parsed(_ target: String, method: String = "GET") -> HTTPRequest? {
        singleRequest("\(method) \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
    }

    @Test func target_DropsFragment_FromPathAndQuery() throws {
        let withQuery = try #require(parsed("/a?x=1#frag"))
        #expect(withQuery.path == "/a")
        #expect(withQuery.query == [.init(name: "x", value: "1")])
        #expect(withQuery.target == "/a?x=1#frag")
        #expect(try #require(parsed("/p#f")).path == "/p")
    }

    @Test func target_DecodesPercentEscapes_InPath() throws {
        let request = try #require(parsed("/a%20b/caf%C3%A9/%7Euser"))
        #expect(request.path == "/a b/café/~user")
        #expect(request.rawPath == "/a%20b/caf%C3%A9/%7Euser")
        #expect(request.target == "/a%20b/caf%C3%A9/%7Euser")
    }

    @Test func target_KeepsPlus_InPath() throws {
        #expect(try #require(parsed("/a+b")).path == "/a+b")
    }

    @Test func target_ReadsPlusAsSpace_InQueryOnly() throws {
        let request = try #require(parsed("/p+q?name=J%C3%B6rg+M%2B&empty=&flag&=v&a+b=c%26d"))
        #expect(request.path == "/p+q")
        #expect(request.query == [
            .init(name: "name", value: "Jörg M+"), .init(name: "empty", value: ""), .init(name: "flag", value: ""),
            .init(name: "", value: "v"), .init(name: "a b", value: "c&d"),
        ])
        #expect(request.queryValue("flag") == "")
        #expect(request.queryValue("missing") == nil)
    }

    @Test func target_DecodesEncodedSlash_WithinASegment() throws {
        let request = try #require(parsed("/files/a%2Fb/c"))
        #expect(request.path == "/files/a/b/c")
        #expect(request.rawPath == "/files/a%2Fb/c")
    }

    @Test(arguments: ["/a%zz", "/a%4", "/a%", "/%FF", "/%C3", "/ok?x=%zz", "/ok?%G0=1", "/ok?x=%E2%82"])
    func parser_Rejects400_WhenPercentEncodingIsInvalid(_ target: String) {
        let outcome = parse("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(outcome.errorStatus == 400, "\(target): \(outcome.errorReason ?? "accepted")")
    }

    @Test func target_ReadsAbsoluteForm() throws {
        let full = try #require(parsed("http://example.com:8080/pay/%41?x=1"))
        #expect(full.path == "/pay/A")
        #expect(full.rawPath == "/pay/%41")
        #expect(full.query == [.init(name: "x", value: "1")])
        #expect(try #require(parsed("https://example.com")).path == "/")
        let queryOnly = try #require(parsed("http://example.com?a=b"))
        #expect(queryOnly.path == "/")
        #expect(queryOnly.queryValue("a") == "b")
    }

    @Test(arguments: ["http:/x", "://host/p", "http:///p", "x", "pay/ments", "ht%tp://host/"])
    func parser_Rejects400_WhenTargetIsNeitherOriginNorAbsoluteForm(_ target: String) {
        #expect(parse("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n").errorStatus == 400, "\(target)")
    }

    @Test func target_AcceptsAsteriskForm_ForOptionsOnly() throws {
        let options = try #require(parsed("*", method: "OPTIONS"))
        #expect(options.path == "*")
        #expect(options.rawPath == "*")
        #expect(parse("GET * HTTP/1.1\r\nHost: x\r\n\r\n").errorStatus == 400)
    }

    @Test func target_KeepsAuthorityForm_ForConnect() throws {
        let connect = try #require(parsed("pay.example:443", method: "CONNECT"))
        #expect(connect.path == "pay.example:443")
        #expect(connect.query == [])
    }

    @Test func request_InitThrows_WhenTargetIsInvalid() {
        #expect(throws: HTTPRequestTargetError.self) { try HTTPRequest(method: .get, target: "/%zz") }
        #expect(throws: HTTPRequestTargetError.self) { try HTTPRequest(method: .get, target: "*") }
        #expect((try? HTTPRequest(method: .get, target: "/ok?a=1"))?.queryValue("a") == "1")
    }
}
