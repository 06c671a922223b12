// SPDX-License-Identifier: MIT
// Hrefs follow Forwarded / X-Forwarded-* only behind a trusted proxy (--trust-proxy); --public-url wins over all.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Forwarded headers")
struct ForwardedHeaderTests {
    /// What Swedbank Pay's PHP SDK sends on every call (SwedbankPay/swedbank-pay-sdk-php: src/SwedbankPay/Api/Client/Client.php).
    static let phpSDKForwarded = ("Forwarded", "for=1.2.3.4; proto=https")

    static func swedbankPayHrefs(_ server: RunningServer, _ headers: [(String, String)]) async throws -> [String] {
        let response = try await SwedbankPayClient(server).create(headers: headers)
        #expect(response.status == 200, "\(response)")
        let operations = try #require(try response.jsonObject()["operations"] as? [[String: Any]], "\(response)")
        let hrefs = operations.compactMap { $0["href"] as? String }
        #expect(operations.contains { $0["rel"] as? String == "redirect-checkout" }, "\(operations)")
        #expect(!hrefs.isEmpty)
        return hrefs
    }

    static func klarnaRedirectURL(_ server: RunningServer, _ headers: [(String, String)]) async throws -> String {
        let client = KlarnaClient(server, namespace: uniqueNamespace("forwarded"))
        let (_, token) = try await client.authorizedSession()
        let order = try await client.send("POST", "/payments/v1/authorizations/\(token)/order", body: KlarnaExamples.gbOrder, headers: headers)
        #expect(order.status == 200, "\(order)")
        return try #require(try order.jsonObject()["redirect_url"] as? String, "\(order)")
    }

    @Test("the PHP SDK's Forwarded: proto=https on a plain sandbox: every href stays http:// on the Host")
    func phpSDKForwarded_PlainSandbox_HTTPHrefs() async throws {
        try await withSandbox(transport: .inProcess) { server in
            let origin = "http://127.0.0.1:\(server.port)/"
            for headers in [[Self.phpSDKForwarded], [("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "evil.test")]] {
                let hrefs = try await Self.swedbankPayHrefs(server, headers)
                #expect(hrefs.allSatisfy { $0.hasPrefix(origin) }, "\(headers): \(hrefs)")
                #expect(try await Self.klarnaRedirectURL(server, headers).hasPrefix(origin), "\(headers)")
            }
        }
    }

    @Test("behind a trusted proxy its values count: the last Forwarded element, else the last X-Forwarded-* value")
    func trustedProxy_ItsValuesCount() async throws {
        try await withSandbox(transport: .inProcess, { $0.trustedForwardedHeaders = .all }) { server in
            // nginx (docker/nginx.conf) replaces the client's headers with its own single values.
            let proxied = [("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "localhost:8443")]
            let proxiedHrefs = try await Self.swedbankPayHrefs(server, proxied)
            #expect(proxiedHrefs.allSatisfy { $0.hasPrefix("https://localhost:8443/") }, "\(proxiedHrefs)")
            #expect(try await Self.klarnaRedirectURL(server, proxied).hasPrefix("https://localhost:8443/"))
            // A proxy that appends: the client's own element comes first and does not count.
            let appended = [("Forwarded", #"for=1.2.3.4;proto=http;host=evil.test, for=10.0.0.2;proto=https;host="pay.example:8443""#)]
            #expect(try await Self.swedbankPayHrefs(server, appended).allSatisfy { $0.hasPrefix("https://pay.example:8443/") })
            let listed = [("X-Forwarded-Proto", "http, https"), ("X-Forwarded-Host", "evil.test, pay.example:8443")]
            #expect(try await Self.swedbankPayHrefs(server, listed).allSatisfy { $0.hasPrefix("https://pay.example:8443/") })
            // The PHP SDK's header through a proxy that sets nothing of its own: proto=https is all there is.
            #expect(try await Self.swedbankPayHrefs(server, [Self.phpSDKForwarded]).allSatisfy { $0.hasPrefix("https://127.0.0.1:\(server.port)/") })
        }
    }

    @Test("--public-url wins over Host and every forwarded header, trusted or not")
    func publicURL_WinsOverEverything() async throws {
        for trusted: TrustedForwardedHeaders in [[], .all] {
            try await withSandbox(transport: .inProcess, { $0.trustedForwardedHeaders = trusted; $0.swedbankPay.publicBaseURL = "https://pay.example.test:8443" }) { server in
                let headers = [Self.phpSDKForwarded, ("X-Forwarded-Proto", "http"), ("X-Forwarded-Host", "proxy.test")]
                let hrefs = try await Self.swedbankPayHrefs(server, headers)
                #expect(hrefs.allSatisfy { $0.hasPrefix("https://pay.example.test:8443/") }, "trusted \(trusted): \(hrefs)")
            }
        }
    }
}
