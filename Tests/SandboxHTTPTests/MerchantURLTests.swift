// SPDX-License-Identifier: MIT
import SandboxHTTP
import Testing

/// MerchantURL: the one check of the URLs merchants give both providers.
@Suite struct MerchantURLTests {
    @Test func accepts_HTTPHTTPSAndAppSchemes_PercentEncodingAndReservedCharacters() {
        for url in ["https://example.com", "http://127.0.0.1:9000/cb", "https://example.com/a/b?x=1&y='2'#top",
                    "https://user:pw@[2001:db8::1]:8443/p;q=1", "https://example.com/%E2%80%A8%22%3C", "HTTPS://EXAMPLE.COM/"] {
            #expect(MerchantURL.violation(in: url, rules: .web) == nil, "\(url)")
            #expect(MerchantURL.violation(in: url, rules: .redirect) == nil, "\(url)")
        }
        for url in ["myapp://klarna-redirect?sid=1", "com.example.app:/callback", "swish://paymentrequest?token=t"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect) == nil, "\(url)")
            #expect(MerchantURL.violation(in: url, rules: .web) != nil, "\(url)")
        }
    }

    @Test func placeholders_OnlyWhereAllowed() {
        for url in ["https://example.com/c?sid={session.id}&oid={order.id}", "myapp://r?sid={{session_id}}&t={{authorization_token}}"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == nil, "\(url)")
            #expect(MerchantURL.violation(in: url, rules: .redirect) == .character("{"), "\(url)")
        }
    }

    @Test func refuses_ScriptAndLocalSchemes_InAnyCase() {
        for (url, scheme) in [("javascript:alert(1)", "javascript"), ("JavaScript:alert(1)", "javascript"), ("vbscript:msgbox", "vbscript"),
                              ("data:text/html;base64,PHNjcmlwdD4=", "data"), ("file:///etc/passwd", "file"), ("about:blank", "about"),
                              ("blob:https://example.com/1", "blob")] {
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == .refusedScheme(scheme), "\(url)")
        }
        #expect(MerchantURL.violation(in: "ftp://example.com", rules: .web) == .schemeNotAllowed("ftp"))
    }

    @Test func refuses_CharactersNoURIHolds() {
        let cases: [(String, Unicode.Scalar)] = [
            ("https://example.com/x\r\nSet-Cookie:a=1", "\r"), ("https://example.com/\n", "\n"), ("https://example.com/a b", " "),
            (" https://example.com", " "), ("https://example.com/\t", "\t"), ("https://example.com/\u{7F}", "\u{7F}"),
            ("https://example.com/x\u{0600}\" autofocus onfocus=alert(1) x=\u{0600}\"", "\u{0600}"),
            ("https://example.com/x\" onfocus=alert(1)", "\""), ("https://example.com/<script>", "<"), ("https://example.com/>", ">"),
            ("https://example.com/a\\b", "\\"), ("https://example.com/^", "^"), ("https://example.com/`", "`"), ("https://example.com/|", "|"),
            ("https://exämple.com/", "ä"), ("https://example.com/\u{2028}", "\u{2028}"), ("https://example.com/\u{200D}", "\u{200D}"),
        ]
        for (url, scalar) in cases {
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == .character(scalar), "\(url.debugDescription)")
        }
    }

    @Test func refuses_BadPercentEncoding_RelativeURLs_AndMissingHosts() {
        #expect(MerchantURL.violation(in: "https://example.com/%", rules: .web) == .percentEncoding)
        #expect(MerchantURL.violation(in: "https://example.com/%2", rules: .web) == .percentEncoding)
        #expect(MerchantURL.violation(in: "https://example.com/%zz", rules: .web) == .percentEncoding)
        #expect(MerchantURL.violation(in: "", rules: .web) == .empty)
        for url in ["/relative/path", "example.com/x", "//example.com/x", "1http://example.com", ":x"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect) == .noScheme, "\(url)")
        }
        for url in ["https:example.com", "https://", "https:///path", "http://:80/", "https://user@/x", "myapp:"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect) == .noHost, "\(url)")
        }
    }

    @Test func violation_DescribesTheProblem() {
        #expect(MerchantURL.Violation.refusedScheme("javascript").description == "the scheme javascript: is not allowed")
        #expect(MerchantURL.Violation.character("\u{0600}").description == "it holds U+0600, which a URL must percent-encode")
        #expect(MerchantURL.Violation.character("\"").description == "it holds '\"', which a URL must percent-encode")
    }
}
