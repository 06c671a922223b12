// SPDX-License-Identifier: MIT
// ControlRequestCheck's byte paths for ASCII values (ASCIIAuthority, isJSON) against the Unicode ones they stand in for.
import Foundation
@testable import PaymentSandbox
import Testing

@Suite("Control hosts on ASCII bytes")
struct ControlHostsASCIITests {
    static let authorities = [
        "localhost", "LOCALHOST.:8080", "localhost:", "[::1]:443", "[::1", "[zz]", "[::1]x", "[A:B]", "127.0.0.1", "256.1.1.1",
        "1.2.3", "a..b", "evil.example", "Evil.Example:", "evil.example:65536", "evil.example:0080", "evil.example:123456", "sandbox",
        "x.localhost", "host:12ab", "", ".", "a b", "ex_ample.com", "a%41.b", "host:8080:1", "[::1]:", ":80", "x.",
    ]

    @Test(arguments: authorities)
    func theHostIsTheUnicodePaths(_ text: String) {
        let expected = ControlHosts.Authority(text)?.host
        switch ASCIIAuthority.host(of: text) {
        case .notASCII: Issue.record("\(text) is ASCII")
        case .invalid: #expect(expected == nil, "\(text)")
        case .host(let host): #expect(String(decoding: host, as: UTF8.self) == expected, "\(text)")
        }
    }

    @Test func aValueBeyondASCIITakesTheUnicodePath() {
        guard case .notASCII = ASCIIAuthority.host(of: "bücher.example") else { Issue.record("not ASCII"); return }
        #expect(ControlHosts(allowedHosts: ["bücher.example"], publicBaseURL: nil).allows(authority: "BÜCHER.example"))
        #expect(!ControlHosts(allowedHosts: [], publicBaseURL: nil).allows(authority: "bücher.example"))
    }

    @Test func allowsAsBefore() {
        let hosts = ControlHosts(allowedHosts: ["shop.example"], publicBaseURL: "https://sandbox.example:8443")
        for allowed in ["127.0.0.1:80", "[::1]", "localhost", "a.localhost:1", "sandbox", "SHOP.example", "sandbox.example:9"] {
            #expect(hosts.allows(authority: allowed), "\(allowed)")
        }
        for refused in ["evil.example", "256.0.0.1", "1.2.3.4.5", "evil.example:99999", "a b"] {
            #expect(!hosts.allows(authority: refused), "\(refused)")
        }
    }

    @Test(arguments: authorities + ["LocalHost", "X.LOCALHOST.", "xlocalhost", "a.localhost:65535", "SHOP.EXAMPLE.:1", "shop.example:",
                                    "1.2.3.4", "01.2.3.4", "1.2.3.4:", "1.2.3.", ".1.2.3", "1.2.3.4.", "999.1.1.1", "0.0.0.0:0", "[::1]:65536"])
    func allowsOnBytesAsOnCharacters(_ text: String) {
        for hosts in [ControlHosts(allowedHosts: ["shop.example"], publicBaseURL: "https://sandbox.example:8443"),
                      ControlHosts(allowedHosts: [], publicBaseURL: nil)] {
            #expect(ASCIIAuthority.allows(text, names: hosts.names) == hosts.allowsText(text), "\(text)")
        }
    }

    @Test func jsonOnBytesAsOnCharacters() {
        for value in ["application/json", "APPLICATION/JSON", "application/json;", " application/json ; x=1", "application/a+json",
                      "application/+json", "application/x+jsonx", "application/jso", "application", "application/json5", ";application/json",
                      "text/plain; application/json", "\tapplication/vnd.api+JSON", "", " ", "application/ json", "application /json"] {
            #expect(ControlRequestCheck.isJSON(value) == ControlRequestCheck.isJSONText(value), "\(value)")
        }
    }

    @Test func jsonContentTypes() {
        for json in ["application/json", "Application/JSON; charset=utf-8", " application/vnd.api+json ", "\tapplication/problem+JSON\t;x",
                     "application/ä+json"] {
            #expect(ControlRequestCheck.isJSON(json), "\(json)")
        }
        for other in ["application/+json", "application/json5", "text/json", "application/x-www-form-urlencoded", "", "json",
                      "application/", "application/ json", "application/jsön"] {
            #expect(!ControlRequestCheck.isJSON(other), "\(other)")
        }
    }
}
