// SPDX-License-Identifier: MIT
// Merchant URLs over HTTP: each provider refuses one that is not an absolute ASCII URI with a scheme that leads
// somewhere (MerchantURL) with its own 400, before it can reach a Location header, a page or a callback; http,
// https, app schemes (where a consumer is sent) and Klarna's placeholders still pass.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import SandboxHTTP
import Testing

@Suite("Merchant URLs are validated before they reach a header or a page")
struct MerchantURLValidationTests {
    /// URLs no provider accepts: the reported attribute break-out, header splitting, markup, a space, raw non-ASCII,
    /// and the schemes that run script or show inline content.
    static let refused = [
        "https://example.com/x\u{0600}\" autofocus onfocus=alert(1) x=\u{0600}\"",
        "https://example.com/complete?x=1\r\nX-Injected: yes\r\n\r\n<script>alert(1)</script>",
        "https://example.com/\"><img src=x onerror=alert(1)>", "https://example.com/a b", "https://example.com/\u{2028}",
        "https://exämple.com/", "javascript:alert(document.domain)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)", "/relative", "https://",
    ]

    /// Broken authorities (RFC 3986 §3.2): an unclosed IP literal, ports above 65535, a percent-encoded NUL host.
    static let malformedAuthorities = ["http://[/x", "http://127.0.0.1:65536/", "http://a:99999999999999999999999/x", "http://%00/"]
    /// Braces that are not a `{name}` / `{{name}}` placeholder (klarna-api.md §2.1, §4.1).
    static let badPlaceholders = ["https://a.com/{x", "https://a.com/x}", "https://a.com/{{{{}}}}", "https://a.com/{a-b}"]

    // MARK: Klarna Payments

    static func kpSession(merchantURLs: [String: String]) -> String {
        KlarnaExamples.edit(KlarnaExamples.gbSession) { $0["merchant_urls"] = merchantURLs }
    }

    @Test func klarnaPayments_BadMerchantURLs_Are400BadValue_OnSessionOrderAndUpdate() async throws {
        try await withSandbox(transport: .inProcess, deterministic) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("kp-urls"))
            for url in Self.refused {
                for field in ["confirmation", "notification", "push", "authorization", "app_return_url"] {
                    let response = try await client.createSession(Self.kpSession(merchantURLs: [field: url]))
                    _ = expectKlarnaError(response, 400, "BAD_VALUE", ["Bad value: merchant_urls.\(field)"])
                }
            }
            // Callbacks are fetched over the web: an app scheme is refused there, accepted where the consumer goes.
            for field in ["notification", "push", "authorization"] {
                let response = try await client.createSession(Self.kpSession(merchantURLs: [field: "myapp://callback"]))
                _ = expectKlarnaError(response, 400, "BAD_VALUE", ["Bad value: merchant_urls.\(field)"])
            }
            let session = try await client.newSession(Self.kpSession(merchantURLs: [
                "confirmation": "myapp://done?sid={session.id}&oid={order.id}", "app_return_url": "myApp://klarna-redirect",
                "notification": "http://127.0.0.1:9/notify?sid={session.id}", "push": "https://example.com/push?oid={order.id}",
            ]))
            // An update is held to the same rule.
            let update = try await client.updateSession(session, #"{"merchant_urls": {"confirmation": "javascript:alert(1)"}}"#)
            _ = expectKlarnaError(update, 400, "BAD_VALUE", ["Bad value: merchant_urls.confirmation"])

            // The order's confirmation URL: refused, so the redirect never leads to javascript:.
            let token = try await client.newAuthorization(session)
            let order = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["merchant_urls"] = ["confirmation": "javascript:alert(document.cookie)"] }
            _ = expectKlarnaError(try await client.createOrder(token, order), 400, "BAD_VALUE", ["Bad value: merchant_urls.confirmation"])
            // An app scheme with placeholders: the redirect goes there, placeholders filled.
            let appOrder = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["merchant_urls"] = ["confirmation": "myapp://done?oid={order.id}"] }
            let orderID = try await client.newOrder(token, appOrder)
            let redirect = try await client.get("/__sandbox/klarna/payments/orders/\(orderID)/redirect")
            #expect(redirect.status == 303 && redirect.header("Location") == "myapp://done?oid=\(orderID)", "\(redirect)")
        }
    }

    @Test func klarnaPayments_MalformedAuthoritiesAndBraces_Are400BadValue() async throws {
        try await withSandbox(transport: .inProcess, deterministic) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("kp-authority"))
            for url in Self.malformedAuthorities + Self.badPlaceholders {
                for field in ["confirmation", "notification", "push", "authorization", "app_return_url"] {
                    let response = try await client.createSession(Self.kpSession(merchantURLs: [field: url]))
                    _ = expectKlarnaError(response, 400, "BAD_VALUE", ["Bad value: merchant_urls.\(field)"])
                }
            }
            // Still accepted: IPv6 with a port, percent-encoding, an app scheme, placeholders.
            let session = try await client.newSession(Self.kpSession(merchantURLs: [
                "confirmation": "http://[::1]:8080/done?sid={session.id}&oid={order.id}&n=%E2%82%AC",
                "app_return_url": "myapp://klarna-redirect/{session.id}", "notification": "http://127.0.0.1:65535/notify",
            ]))
            let token = try await client.newAuthorization(session)
            let order = KlarnaExamples.edit(KlarnaExamples.gbOrder) { $0["merchant_urls"] = ["confirmation": "https://a.com:99999/{order.id}"] }
            _ = expectKlarnaError(try await client.createOrder(token, order), 400, "BAD_VALUE", ["Bad value: merchant_urls.confirmation"])
        }
    }

    // MARK: Klarna HPP

    @Test func klarnaHPP_BadMerchantURLs_Are400BadValue() async throws {
        try await withSandbox(transport: .inProcess, deterministic) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("hpp-urls"))
            let kp = try await client.newSession()
            func create(_ urls: [String: String]) async throws -> RawResponse {
                try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaExamples.jsonText(urls)))
            }
            let createMessage = "We were unable to create a session with the provided data. Some field constraint was violated."
            for url in Self.refused {
                for field in ["success", "cancel", "back", "failure", "error", "status_update"] {
                    _ = expectKlarnaError(try await create([field: url]), 400, "BAD_VALUE", ["Bad value: merchant_urls.\(field)", createMessage])
                }
            }
            _ = expectKlarnaError(try await create(["status_update": "myapp://status"]), 400, "BAD_VALUE",
                                  ["Bad value: merchant_urls.status_update", createMessage])
            // Accepted: app schemes and {{placeholders}} where the consumer goes, http(s) callbacks, and empty (the generic page).
            let accepted = try await create(["success": "myapp://klarna-redirect?sid={{session_id}}&token={{authorization_token}}",
                                             "cancel": "", "back": "https://merchant.example/back?sid={{session_id}}",
                                             "status_update": "http://127.0.0.1:9/status?hppId={{session_id}}"])
            #expect(accepted.status == 201, "\(accepted)")
        }
    }

    /// The reviewer's case: a success URL with a broken authority and stray braces reached the pay action's `Location`.
    @Test func klarnaHPP_MalformedAuthoritiesAndBraces_Are400_AndNeverReachALocation() async throws {
        try await withSandbox(transport: .inProcess, deterministic) { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("hpp-authority"))
            let kp = try await client.newSession()
            func create(_ urls: [String: String]) async throws -> RawResponse {
                try await client.post("/hpp/v1/sessions", KlarnaHPPBodies.createBody(kp, merchantURLs: KlarnaExamples.jsonText(urls)))
            }
            let createMessage = "We were unable to create a session with the provided data. Some field constraint was violated."
            for url in Self.malformedAuthorities + Self.badPlaceholders + ["http://[/{x}{{{{}}}}"] {
                for field in ["success", "cancel", "back", "failure", "error", "status_update"] {
                    _ = expectKlarnaError(try await create([field: url]), 400, "BAD_VALUE", ["Bad value: merchant_urls.\(field)", createMessage])
                }
            }
            // A well-formed IPv6 success URL with a placeholder: pay redirects there, the placeholder filled.
            let id = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(
                kp, merchantURLs: KlarnaExamples.jsonText(["success": "http://[::1]:8080/done?sid={{session_id}}"])))
            let paid = try await KlarnaHPP.act(server, id, "pay")
            #expect(paid.status == 303 && paid.header("Location") == "http://[::1]:8080/done?sid=\(id)", "\(paid)")
        }
    }

    // MARK: Swedbank Pay

    static let swedbankURLs: [(String, String)] = [
        ("completeUrl", "https://example.com/complete"), ("cancelUrl", "https://example.com/cancel"),
        ("paymentUrl", "https://example.com/perform-payment"), ("callbackUrl", "https://api.example.com/callback"),
        ("logoUrl", "https://example.com/logo.png"), ("termsOfServiceUrl", "https://example.com/terms.pdf"),
    ]

    static func swedbankOrder(replacing key: String? = nil, with url: String = "", hostUrl: String = "https://example.com") -> String {
        var urls: [(String, JSONText)] = [("hostUrls", .array([.string(hostUrl)]))]
        for (name, value) in swedbankURLs { urls.append((name, .string(name == key ? url : value))) }
        let order = JSONText.object([("paymentorder", .object([
            ("operation", .string("Purchase")), ("currency", .string("SEK")), ("amount", .int(1500)), ("vatAmount", .int(375)),
            ("description", .string("Test Purchase")), ("userAgent", .string("Mozilla/5.0")), ("language", .string("sv-SE")),
            ("urls", .object(urls)),
            ("payeeInfo", .object([("payeeId", .string("5cabf558-5283-482f-b252-4d58e06f6f3b")), ("payeeReference", .string("AB832"))])),
        ]))])
        return String(decoding: order.bytes, as: UTF8.self)
    }

    static func expectInputError(_ response: RawResponse, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 400, "\(name): \(response)", sourceLocation: sourceLocation)
        let body = try? response.jsonObject()
        #expect(body?["type"] as? String == "https://api.payex.com/psp/errordetail/paymentorders/inputerror", "\(response.bodyText)",
                sourceLocation: sourceLocation)
        let problems = body?["problems"] as? [[String: String]]
        #expect(problems?.map { $0["name"] } == [name], "\(response.bodyText)", sourceLocation: sourceLocation)
        #expect(problems?.first?["description"]?.contains("must be an absolute http or https URL") == true || name.contains("HostUrls"),
                "\(response.bodyText)", sourceLocation: sourceLocation)
    }

    @Test func swedbankPay_BadUrls_AreInputErrorProblems() async throws {
        try await withSandbox(transport: .inProcess, deterministic) { server in
            let client = SwedbankPayClient(server)
            for url in Self.refused + ["myapp://complete"] {
                for (key, _) in Self.swedbankURLs {
                    let name = "PaymentOrder.Urls." + key.prefix(1).uppercased() + key.dropFirst()
                    Self.expectInputError(try await client.create(Self.swedbankOrder(replacing: key, with: url)), name)
                }
                Self.expectInputError(try await client.create(Self.swedbankOrder(hostUrl: url)), "PaymentOrder.Urls.HostUrls[0]")
            }
            // The reason is named.
            let scheme = try await client.create(Self.swedbankOrder(replacing: "completeUrl", with: "javascript:alert(1)"))
            #expect(scheme.bodyText.contains("The field CompleteUrl must be an absolute http or https URL: the scheme javascript: is not allowed."),
                    "\(scheme.bodyText)")
            let prepend = try await client.create(Self.swedbankOrder(replacing: "completeUrl", with: Self.refused[0]))
            #expect(prepend.bodyText.contains("it holds U+0600, which a URL must percent-encode"), "\(prepend.bodyText)")
            // Percent-encoded, the same text is a URL and passes.
            let encoded = try await client.create(Self.swedbankOrder(replacing: "completeUrl",
                                                                      with: "https://example.com/x%D8%80%22%20autofocus%20onfocus=alert(1)"))
            #expect(encoded.status == 200, "\(encoded)")
        }
    }

    @Test func swedbankPay_MalformedAuthorities_AreInputErrorProblems() async throws {
        try await withSandbox(transport: .inProcess, deterministic) { server in
            let client = SwedbankPayClient(server)
            for url in Self.malformedAuthorities + ["https://a.com/{x}"] {
                for (key, _) in Self.swedbankURLs {
                    let name = "PaymentOrder.Urls." + key.prefix(1).uppercased() + key.dropFirst()
                    Self.expectInputError(try await client.create(Self.swedbankOrder(replacing: key, with: url)), name)
                }
                Self.expectInputError(try await client.create(Self.swedbankOrder(hostUrl: url)), "PaymentOrder.Urls.HostUrls[0]")
            }
            let port = try await client.create(Self.swedbankOrder(replacing: "completeUrl", with: "http://127.0.0.1:65536/"))
            #expect(port.bodyText.contains("its port is not a number from 0 to 65535"), "\(port.bodyText)")
            let accepted = try await client.create(Self.swedbankOrder(replacing: "completeUrl", with: "http://[::1]:8080/complete"))
            #expect(accepted.status == 200, "\(accepted)")
        }
    }

    /// The page's redirect to a completeUrl that would split the response never happens: the order is refused.
    @Test func swedbankPay_CRLFInCompleteUrl_NeverReachesALocationHeader() async throws {
        try await withSwedbankPaySandbox(transport: .inProcess) { _, server in
            let client = SwedbankPayClient(server)
            let response = try await client.create(Self.swedbankOrder(replacing: "completeUrl", with: Self.refused[1]))
            Self.expectInputError(response, "PaymentOrder.Urls.CompleteUrl")
            #expect(response.header("X-Injected") == nil && !response.rawHead.contains("X-Injected"), "\(response.rawHead)")
            #expect(response.bodyText.contains("U+000D"), "\(response.bodyText)")
        }
    }
}
