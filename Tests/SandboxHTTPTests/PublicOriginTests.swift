// SPDX-License-Identifier: MIT
import SandboxHTTP
import Testing

/// The origin hrefs are built on, behind a trusted proxy or not (HTTPRequest+PublicOrigin.swift).
@Suite struct PublicOriginTests {
    static func origin(_ headers: [(String, String)], trusted: TrustedForwardedHeaders = .all) throws -> String? {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name: name, value: value) }
        var request = try HTTPRequest(method: .get, target: "/psp/paymentorders", headers: fields)
        request.trustedForwardedHeaders = trusted
        return request.publicOrigin
    }

    @Test func host_OverHTTP_WithoutAProxy() throws {
        #expect(try Self.origin([("Host", "127.0.0.1:8080")]) == "http://127.0.0.1:8080")
        #expect(try Self.origin([("Host", "127.0.0.1:8080")], trusted: []) == "http://127.0.0.1:8080")
        #expect(try Self.origin([]) == nil)
    }

    /// Swedbank Pay's PHP SDK sends this on every call (SwedbankPay/swedbank-pay-sdk-php: src/SwedbankPay/Api/Client/Client.php).
    @Test func untrusted_ClientForwardedHeaders_AreIgnored() throws {
        for header in [("Forwarded", "for=1.2.3.4; proto=https"), ("Forwarded", #"proto=https;host="evil.test""#),
                       ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "evil.test")] {
            #expect(try Self.origin([("Host", "127.0.0.1:8080"), header], trusted: []) == "http://127.0.0.1:8080", "\(header)")
        }
    }

    /// docker/compose.yaml trusts only X-Forwarded-*: the PHP SDK's Forwarded then never counts, even on the direct port.
    @Test func trustingOneKind_IgnoresTheOther() throws {
        let headers = [("Host", "h:8080"), ("Forwarded", "for=1.2.3.4; proto=https; host=f.test"),
                       ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "x.test")]
        #expect(try Self.origin(Array(headers.prefix(2)), trusted: .xForwarded) == "http://h:8080")
        #expect(try Self.origin(headers, trusted: .xForwarded) == "https://x.test")
        #expect(try Self.origin([headers[0], headers[2], headers[3]], trusted: .forwarded) == "http://h:8080")
        #expect(try Self.origin(headers, trusted: .forwarded) == "https://f.test")
    }

    @Test func trusted_XForwarded_ProtoAndHost_LastValueOfEachList() throws {
        #expect(try Self.origin([("Host", "sandbox:8080"), ("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "localhost:8443")])
                == "https://localhost:8443")
        // A client's own value first, the proxy's appended: the proxy's (last) counts.
        #expect(try Self.origin([("Host", "sandbox:8080"), ("X-Forwarded-Proto", "http, https"), ("X-Forwarded-Host", "evil.test, a.test")])
                == "https://a.test")
        // The same as separate field lines.
        #expect(try Self.origin([("Host", "sandbox:8080"), ("X-Forwarded-Host", "evil.test"), ("X-Forwarded-Host", "a.test")])
                == "http://a.test")
    }

    @Test func trusted_Forwarded_RFC7239_LastElement_QuotedValues_WinsOverXForwarded() throws {
        #expect(try Self.origin([("Host", "sandbox:8080"), ("Forwarded", #"for=10.0.0.1, for=192.0.2.1;proto=https;host="pay.example:8443""#),
                                 ("X-Forwarded-Host", "other.test")]) == "https://pay.example:8443")
        // The client's element first (the PHP SDK's), then the proxy's: the proxy's counts.
        #expect(try Self.origin([("Host", "sandbox:8080"), ("Forwarded", "for=1.2.3.4; proto=https"), ("Forwarded", "for=10.0.0.2;proto=http")])
                == "http://sandbox:8080")
        // A comma inside a quoted string does not start an element.
        #expect(try Self.origin([("Host", "h"), ("Forwarded", #"for="a,b";proto=https;host=x.test"#)]) == "https://x.test")
        // An element without proto/host leaves them to X-Forwarded-* and Host.
        #expect(try Self.origin([("Host", "sandbox:8080"), ("Forwarded", "for=192.0.2.1"), ("X-Forwarded-Proto", "https")])
                == "https://sandbox:8080")
        #expect(try Self.origin([("Host", "h"), ("Forwarded", "Proto=HTTPS; Host=[2001:db8::1]:443")]) == "https://[2001:db8::1]:443")
    }

    @Test func values_ThatAreNotASchemeOrHost_AreIgnored() throws {
        #expect(try Self.origin([("Host", "sandbox:8080"), ("X-Forwarded-Proto", "javascript"), ("X-Forwarded-Host", #"evil"><script>"#)])
                == "http://sandbox:8080")
        #expect(try Self.origin([("Host", "a b"), ("X-Forwarded-Host", "x/y")]) == nil)
    }

    /// `host[:port]` must be well formed (RFC 3986 §3.2.2, §3.2.3): the reviewer's `Host: a:99999` made `http://a:99999/…` hrefs.
    @Test func host_WithABadPortOrIPLiteral_IsNotAHost() throws {
        for host in ["a:99999", "a:65536", "a:99999999999999999999999", "a:1x", "a:-1", "a:80:80", ":80", "[::1", "::1]", "[::1]x",
                     "[::1]]", "[::1]:99999", "[]", "[::g]", "[1:2:3]", "[v1.x]", "a]", "a[b"] {
            #expect(try Self.origin([("Host", host)]) == nil, "\(host)")
            // A trusted proxy's bad value falls back to Host, as any other invalid host does.
            #expect(try Self.origin([("Host", "h:8080"), ("X-Forwarded-Host", host)]) == "http://h:8080", "\(host)")
            #expect(try Self.origin([("Host", "h:8080"), ("Forwarded", #"host="\#(host)""#)]) == "http://h:8080", "\(host)")
        }
        for host in ["a:65535", "a:0", "localhost", "sandbox_1.test:8080", "[::1]:8080", "[2001:db8::1]", "[::ffff:127.0.0.1]:80"] {
            #expect(try Self.origin([("Host", host)]) == "http://\(host)", "\(host)")
        }
    }

    /// Without a trusted proxy the origin is made from Host's bytes at once; with one but no forwarded header it is the
    /// general path's: the same answer for every Host.
    @Test func host_WithoutAProxy_AsTheGeneralPathReadsIt() throws {
        for host in ["127.0.0.1:8080", " sandbox:80\t", "a:65535", "a:65536", "a:", "a:1x", ":80", "", " ", "a b", "ä.test", "x.test.:1",
                     "[::1]:8080", " [::1] ", "[::1", "[v1.x]", String(repeating: "a", count: 255), String(repeating: "a", count: 256),
                     "a:80:80", "sandbox_1.test", "a/b", "a%41"] {
            let general = try Self.origin([("Host", host)], trusted: .xForwarded)
            #expect(try Self.origin([("Host", host)], trusted: []) == general, "\(host)")
        }
    }

    /// The configured public base URL, or an in-process client's URL (HTTPRequest.publicOriginOverride), wins over
    /// `Host` and every forwarded header, trusted or not; a trailing `/` is dropped.
    @Test func override_WinsOverHostAndProxy() throws {
        for trusted: TrustedForwardedHeaders in [[], .all] {
            var request = try HTTPRequest(method: .get, target: "/", headers: HTTPHeaders([("Host", "h:8080"), ("X-Forwarded-Proto", "http"),
                                                                                          ("X-Forwarded-Host", "proxy.test")]))
            request.trustedForwardedHeaders = trusted
            request.publicOriginOverride = "https://pay.example.test:8443/"
            #expect(request.publicOrigin == "https://pay.example.test:8443")
            request.publicOriginOverride = ""
            #expect(request.publicOrigin == (trusted.isEmpty ? "http://h:8080" : "http://proxy.test"))
        }
    }
}
