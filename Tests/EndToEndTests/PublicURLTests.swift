// SPDX-License-Identifier: MIT
// SandboxConfiguration.publicBaseURL (--public-url) is the base of every link the sandbox hands out, over real sockets:
// Klarna Payments' redirect_url, the Hosted Payment Page's URLs, Order Management's Location, Swedbank Pay's hrefs.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Public base URL")
struct PublicURLTests {
    static let publicURL = "https://pay.example.test:8443"

    /// Every link of one flow of each API on `server`, which must all start with `base` + "/".
    static func expectLinks(on server: RunningServer, start base: String, headers: [(String, String)] = [],
                            sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let client = KlarnaClient(server, namespace: uniqueNamespace("public-url"))
        let redirect = try await ForwardedHeaderTests.klarnaRedirectURL(server, headers)
        #expect(redirect.hasPrefix("\(base)/__sandbox/klarna/payments/orders/"), "\(redirect)", sourceLocation: sourceLocation)

        let hpp = try await client.send("POST", "/hpp/v1/sessions", body: KlarnaHPPBodies.createBody(try await client.newSession(),
                                        merchantURLs: KlarnaHPPBodies.allMerchantURLs), headers: headers)
        try #require(hpp.status == 201, "create HPP session: \(hpp)", sourceLocation: sourceLocation)
        let hppLinks = try hpp.jsonObject().filter { $0.key.hasSuffix("_url") }.compactMap { $0.value as? String }
        #expect(hppLinks.count >= 4, "\(hpp.bodyText)", sourceLocation: sourceLocation)
        #expect(hppLinks.allSatisfy { $0.hasPrefix("\(base)/") }, "\(hppLinks)", sourceLocation: sourceLocation)
        let session = try #require(try hpp.jsonObject()["session_id"] as? String, sourceLocation: sourceLocation)
        #expect(try hpp.jsonObject()["redirect_url"] as? String == "\(base)/hpp/payments/\(session)", sourceLocation: sourceLocation)

        let orderID = try await client.placedOrder()
        let capture = try await client.send("POST", "/ordermanagement/v1/orders/\(orderID)/captures",
                                            body: #"{"captured_amount": 62400}"#, headers: headers)
        #expect(capture.status == 201, "\(capture)", sourceLocation: sourceLocation)
        #expect(capture.header("Location")?.hasPrefix("\(base)/ordermanagement/v1/orders/\(orderID)/captures/") == true,
                "\(capture.rawHead)", sourceLocation: sourceLocation)

        let hrefs = try await ForwardedHeaderTests.swedbankPayHrefs(server, headers)
        #expect(hrefs.allSatisfy { $0.hasPrefix("\(base)/") }, "\(hrefs)", sourceLocation: sourceLocation)
    }

    @Test("without a public base URL every link is http:// and Host")
    func unset_LinksFollowHost() async throws {
        try await withSandbox { server in
            try await Self.expectLinks(on: server, start: "http://127.0.0.1:\(server.port)")
        }
    }

    @Test("publicBaseURL (trailing / dropped) is the base of every link, whatever Host and a trusted proxy say")
    func set_EveryLinkOnIt() async throws {
        for trusted: TrustedForwardedHeaders in [[], .all] {
            try await withSandbox({ $0.publicBaseURL = Self.publicURL + "/"; $0.trustedForwardedHeaders = trusted }) { server in
                try await Self.expectLinks(on: server, start: Self.publicURL,
                                           headers: [("X-Forwarded-Proto", "http"), ("X-Forwarded-Host", "proxy.test")])
            }
        }
    }

    @Test("swedbankPay.publicBaseURL still sets Swedbank Pay's hrefs alone; publicBaseURL wins over it")
    func swedbankPayPublicBaseURL_IsTheFallback() async throws {
        try await withSandbox({ $0.swedbankPay.publicBaseURL = "https://swedbank-only.test" }) { server in
            let hrefs = try await ForwardedHeaderTests.swedbankPayHrefs(server, [])
            #expect(hrefs.allSatisfy { $0.hasPrefix("https://swedbank-only.test/") }, "\(hrefs)")
            let redirect = try await ForwardedHeaderTests.klarnaRedirectURL(server, [])
            #expect(redirect.hasPrefix("http://127.0.0.1:\(server.port)/"), "\(redirect)")
        }
        try await withSandbox({ $0.swedbankPay.publicBaseURL = "https://swedbank-only.test"; $0.publicBaseURL = Self.publicURL }) { server in
            let hrefs = try await ForwardedHeaderTests.swedbankPayHrefs(server, [])
            #expect(hrefs.allSatisfy { $0.hasPrefix("\(Self.publicURL)/") }, "\(hrefs)")
        }
    }
}
