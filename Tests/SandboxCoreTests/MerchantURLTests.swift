// SPDX-License-Identifier: MIT
import SandboxCore
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

    /// RFC 3986 §3.2: what the reviewer's URLs got wrong (`http://[/x`, port 65536, a 23-digit port, `%00` host) and kin.
    @Test func refuses_MalformedAuthorities_InEveryScheme() {
        let cases: [(String, MerchantURL.Violation)] = [
            ("http://[/x", .host), ("http://[::1/x", .host), ("http://[::1]x/", .host), ("http://[::1]]/", .host), ("http://a]/", .host),
            ("http://a[b/", .host), ("http://[]/", .host), ("http://[1:2:3:4:5:6:7:8:9]/", .host), ("http://[1:2:3:4:5:6:7]/", .host),
            ("http://[1::2::3]/", .host), ("http://[:::1]/", .host), ("http://[1:]/", .host), ("http://[12345::]/", .host),
            ("http://[::g]/", .host), ("http://[::1.2.3.256]/", .host), ("http://[::1.2.3]/", .host), ("http://[::01.2.3.4]/", .host),
            ("http://[1:2:3:4:5:6:7:1.2.3.4]/", .host), ("http://[1.2.3.4::]/", .host), ("http://[v1]/", .host), ("http://[v.x]/", .host),
            ("http://[vg.x]/", .host), ("http://[fe80::1%25eth0]/", .host), ("http://%00/", .host), ("http://a%0Ab/", .host),
            ("http://a%7f/", .host), ("myapp://[/x", .host), ("https://a:1@[::1/", .host),
            ("http://127.0.0.1:65536/", .port), ("http://a:99999999999999999999999/x", .port), ("http://a:8o/", .port),
            ("http://a:-1/", .port), ("http://a:80:80/", .port), ("http://[::1]:65536/", .port), ("myapp://h:70000", .port),
            ("myapp://:99999/x", .port), ("http://a[b@c/", .userinfo), ("http://a@b@c/", .userinfo), ("http://a]@c/", .userinfo),
        ]
        for (url, violation) in cases {
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == violation, "\(url)")
            #expect(MerchantURL.violation(in: url, rules: .web) == (url.hasPrefix("myapp") ? .schemeNotAllowed("myapp") : violation), "\(url)")
        }
        // Braces of a placeholder's shape still do not make a host or a port.
        #expect(MerchantURL.violation(in: "https://{session.id}.example/", rules: .redirect.withPlaceholders()) == .host)
        #expect(MerchantURL.violation(in: "https://example.com:{port}/", rules: .redirect.withPlaceholders()) == .port)
    }

    @Test func accepts_WellFormedAuthorities() {
        for url in ["http://127.0.0.1:65535/", "http://a:0/", "http://a:/x", "http://a:00080/", "http://[::1]:8080/cb", "http://[::]/",
                    "http://[::ffff:192.0.2.1]/", "http://[2001:DB8:0:0:0:0:2:1]/", "http://[1:2:3:4:5:6:7::]/", "http://[::2:3:4:5:6:7:8]/",
                    "http://[1:2:3:4:5:6:1.2.3.4]/", "http://[v7.fe80::a+en1]/", "http://[V1A.x~!]/", "http://192.0.2.1/",
                    "http://user:p%40ss;x=1@example.com/", "http://@example.com/", "http://ex%41mple.com/", "http://a.b-c_d~e!$&'()*+,;=/",
                    "http://example.com?q", "http://example.com#f", "http://example.com:8080?q#f"] {
            #expect(MerchantURL.violation(in: url, rules: .web) == nil, "\(url)")
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == nil, "\(url)")
        }
        for url in ["myapp:///path", "myapp://host:1/x", "myapp://[::1]/x", "com.example.app:/callback"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect) == nil, "\(url)")
        }
    }

    /// klarna-api.md §2.1 `{session.id}` `{order.id}`, §4.1 `{{session_id}}` `{{authorization_token}}` `{{order_id}}`:
    /// only `{name}` and `{{name}}` (letters, digits, `.`, `_`) pass; any other brace is refused.
    @Test func placeholders_OnlyTheDocumentedBraceForms() {
        for url in ["https://a.com/c?sid={session.id}&oid={order.id}", "https://a.com/{checkout.order.id}", "https://a.com/{x}",
                    "https://a.com/{{session_id}}{{order_id}}?t={{authorization_token}}#{{Name_2.x}}", "myapp://r/{session.id}"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == nil, "\(url)")
        }
        for url in ["https://a.com/{", "https://a.com/}", "https://a.com/{}", "https://a.com/{{}}", "https://a.com/{{{x}}}",
                    "https://a.com/{{x}", "https://a.com/{x}}", "https://a.com/{x{y}}", "https://a.com/{{x}y}", "https://a.com/{a-b}",
                    "https://a.com/{a b}", "https://a.com/{a%41}", "https://a.com/x}{y", "http://[/{x}{{{{}}}}", "https://a.com/{{{{}}}}"] {
            #expect(MerchantURL.violation(in: url, rules: .redirect.withPlaceholders()) == .placeholder, "\(url)")
            #expect(MerchantURL.violation(in: url, rules: .redirect) == .character(url.unicodeScalars.first { $0 == "{" || $0 == "}" }!), "\(url)")
        }
    }

    @Test func violation_DescribesTheProblem() {
        #expect(MerchantURL.Violation.refusedScheme("javascript").description == "the scheme javascript: is not allowed")
        #expect(MerchantURL.Violation.character("\u{0600}").description == "it holds U+0600, which a URL must percent-encode")
        #expect(MerchantURL.Violation.character("\"").description == "it holds '\"', which a URL must percent-encode")
        #expect(MerchantURL.Violation.port.description == "its port is not a number from 0 to 65535")
        #expect(MerchantURL.Violation.host.description == "its host is not a valid host name or IP literal")
    }

    @Test func length_AtMost8KiB() {
        let base = "https://example.com/"
        let longest = base + String(repeating: "a", count: MerchantURL.maxLength - base.utf8.count)
        #expect(MerchantURL.maxLength == 8192)
        for rules in [MerchantURL.Rules.web, .redirect, .redirect.withPlaceholders()] {
            #expect(MerchantURL.violation(in: longest, rules: rules) == nil)
            #expect(MerchantURL.violation(in: longest + "a", rules: rules) == .tooLong(8193))
            // Counted in bytes, before anything else is looked at (a 7 MiB URL is not scanned).
            #expect(MerchantURL.violation(in: longest + "\u{E9}", rules: rules) == .tooLong(8194))
        }
        #expect(MerchantURL.Violation.tooLong(8193).description == "it is 8193 bytes long, more than the 8192 allowed")
    }
}
