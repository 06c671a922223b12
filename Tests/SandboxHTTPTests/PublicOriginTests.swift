// SPDX-License-Identifier: MIT
import SandboxHTTP
import Testing

/// The origin hrefs are built on, behind a proxy or not (HTTPRequest+PublicOrigin.swift).
@Suite struct PublicOriginTests {
    static func origin(_ headers: HTTPHeaders) throws -> String? {
        try HTTPRequest(method: .get, target: "/psp/paymentorders", headers: headers).publicOrigin
    }

    @Test func host_OverHTTP_WithoutAProxy() throws {
        #expect(try Self.origin(["Host": "127.0.0.1:8080"]) == "http://127.0.0.1:8080")
        #expect(try Self.origin([:]) == nil)
    }

    @Test func xForwarded_ProtoAndHost_FirstValueOfEachList() throws {
        #expect(try Self.origin(["Host": "sandbox:8080", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "localhost:8443"])
                == "https://localhost:8443")
        // Two proxies: the first value is the client's side.
        #expect(try Self.origin(["Host": "sandbox:8080", "X-Forwarded-Proto": "https, http", "X-Forwarded-Host": "a.test, b.test"])
                == "https://a.test")
    }

    @Test func forwarded_RFC7239_FirstElement_QuotedValues_WinsOverXForwarded() throws {
        #expect(try Self.origin(["Host": "sandbox:8080", "Forwarded": #"for=192.0.2.1;proto=https;host="pay.example:8443", for=10.0.0.1"#,
                                 "X-Forwarded-Host": "other.test"]) == "https://pay.example:8443")
        #expect(try Self.origin(["Host": "sandbox:8080", "Forwarded": "for=192.0.2.1"]) == "http://sandbox:8080")
        #expect(try Self.origin(["Host": "h", "Forwarded": "Proto=HTTPS; Host=[2001:db8::1]:443"]) == "https://[2001:db8::1]:443")
    }

    @Test func values_ThatAreNotASchemeOrHost_AreIgnored() throws {
        #expect(try Self.origin(["Host": "sandbox:8080", "X-Forwarded-Proto": "javascript", "X-Forwarded-Host": #"evil"><script>"#])
                == "http://sandbox:8080")
        #expect(try Self.origin(["Host": "a b", "X-Forwarded-Host": "x/y"]) == nil)
    }
}
