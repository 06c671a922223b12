// SPDX-License-Identifier: MIT
// Escaping on every Swedbank Pay checkout page, in-process: merchant-supplied texts (payee name, description,
// payer fields, completeUrl / cancelUrl), payer-supplied input (the Swish number typed on the page, the SDK's error
// code), scenario-author texts (fail_attempt title / detail) and request data (X-Forwarded-Host, ?culture=,
// Sandbox-Scenario, path segments) carry HTML and script payloads. Each page that shows one must show it as text
// (HTMLText.escape's character references) and never as markup; the JavaScript that embeds one (the result page's
// postMessage, the view-checkout script) must keep it inside a JSON string. The interpolation points are those of
// Sources/SwedbankPaySandbox/Pages/CheckoutPage.swift; SwedbankPayCheckoutPageTests covers the menu's description,
// and scripts/browser/test_swedbankpay_pages.py the same pages in headless Chromium. URLs that are not absolute ASCII URIs
// (CR LF, `"`, U+0600, `javascript:`) never reach a page: MerchantURLValidationTests.
import Foundation
import PaymentSandbox
import PaymentSandboxTesting
import SandboxTestSupport
@testable import SwedbankPaySandbox
import Testing

@Suite("Swedbank Pay checkout pages: escaping")
struct SwedbankPayCheckoutPageEscapingTests {
    // MARK: Payloads

    /// Hostile text for one field: the label (which field leaked), a script element, an attribute break-out with an
    /// event handler, both quotes, and `&` before an entity that must stay text (`&amp;&lt;x`).
    static func payload(_ label: String) -> String {
        #"\#(label)<script>alert("\#(label)")</script>"><img src=x onerror=alert('\#(label)')>'&amp;&lt;x"#
    }

    /// A query for completeUrl / cancelUrl that URL validation accepts (an absolute ASCII URI, MerchantURL): `'` and `&`
    /// raw, as a URI may hold them, and a percent-encoded attribute break-out, script end tag, comment opener, U+2028.
    /// A raw `"`, `<`, space or non-ASCII character is refused when the order is created (MerchantURLValidationTests).
    static func hostileQuery(_ label: String) -> String {
        "next=\(label)%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E&q='%3C/script%3E%3Cscript%3Ealert(1)%3C/script%3E&c=%3C!--&u=%E2%80%A8"
    }

    static let completeUrl = "https://example.com/complete?" + hostileQuery("complete")
    static let cancelUrl = "https://example.com/cancel?" + hostileQuery("cancel")

    /// The character references the pages use (HTMLText.escape, written out again here, by code point).
    static func escaped(_ text: String) -> String { EscapingPayloads.escaped(text) }

    /// An attribute value or text as a browser reads it (the references `escaped` writes).
    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The raw value of `name` in the first tag that contains `marker` (up to the closing quote: the value is escaped).
    static func rawAttribute(_ name: String, after marker: String, in html: String) -> String? {
        guard let at = html.range(of: marker), let tagEnd = html[at.upperBound...].firstIndex(of: ">"),
              let start = html.range(of: " \(name)=\"", range: at.lowerBound..<tagEnd) else { return nil }
        return html[start.upperBound...].firstIndex(of: "\"").map { String(html[start.upperBound..<$0]) }
    }

    /// Every text the hostile order carries, by field.
    struct Texts {
        var payeeName = payload("payee")
        var description = payload("description")
        var firstName = payload("first")
        var lastName = payload("last")
        var email = payload("email")
        var msisdn = payload("msisdn")
        var completeUrl = SwedbankPayCheckoutPageEscapingTests.completeUrl
        var cancelUrl = SwedbankPayCheckoutPageEscapingTests.cancelUrl

        var all: [String] { [payeeName, description, firstName, lastName, email, msisdn, completeUrl, cancelUrl] }
        /// Without the URLs: the result page's script holds them verbatim in a JSON string, where their `'` and `&` are
        /// plain text (their href is checked escaped).
        var allButURLs: [String] { [payeeName, description, firstName, lastName, email, msisdn] }
    }

    // MARK: Orders and requests

    static func namespace(_ label: String) -> String { "spay-escape-\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// POST /psp/paymentorders with `texts` in payeeInfo, description, payer and urls; returns the checkout token.
    static func order(_ client: SandboxClient, _ label: String, _ texts: Texts = Texts(), scenario: String? = nil,
                      sourceLocation: SourceLocation = #_sourceLocation) async throws -> (namespace: String, token: String, page: String) {
        let namespace = namespace(label)
        let token = try await SwedbankPayTestOrder.create(
            client, namespace: namespace, description: texts.description, msisdn: texts.msisdn,
            payerFields: [("firstName", texts.firstName), ("lastName", texts.lastName), ("email", texts.email)],
            payeeName: texts.payeeName, urls: (texts.completeUrl, texts.cancelUrl), scenario: scenario, sourceLocation: sourceLocation)
        return (namespace, token, "/checkout/\(token)")
    }

    /// One request with extra header lines (a browser behind a proxy, the SDK's JSON calls).
    static func send(_ client: SandboxClient, _ method: String, _ target: String, body: String = "",
                     contentType: String = "application/x-www-form-urlencoded", headers: [(String, String)] = []) async throws -> SandboxResponse {
        var fields = Dictionary(headers, uniquingKeysWith: { $1 })
        if method == "POST" { fields["Content-Type"] = contentType }
        return try await client.namespace(nil).send(SandboxClient.Method(method), target, headers: fields,
                                                    body: method == "POST" ? Data(body.utf8) : nil)
    }

    static func form(_ fields: [(String, String)]) -> String {
        fields.map { "\(SwedbankPaySessionDriver.formEncode($0.0))=\(SwedbankPaySessionDriver.formEncode($0.1))" }.joined(separator: "&")
    }

    /// The SDK's calls (JSON, no auth): prepare-payment as iOS, then one more call on the session.
    static func session(_ client: SandboxClient, _ token: String, _ path: String, _ body: String,
                        sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let response = try await send(client, "POST", "/psp/paymentsessions/\(token)\(path)", body: body, contentType: "application/json",
                                      headers: [("Accept", "application/json")])
        #expect(response.status == 200, "POST \(path): \(response)", sourceLocation: sourceLocation)
    }

    static func prepare(_ client: SandboxClient, _ token: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await session(client, token, "/preparepayment", SwedbankPaySDKWalker(platform: .iOS, choice: nil).prepareBody,
                          sourceLocation: sourceLocation)
    }

    // MARK: Checks

    /// No payload as markup: none of `raw` verbatim, no injected `<img`, no `<script>alert`, no comment opener.
    static func expectInert(_ html: String, _ raw: [String], _ page: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in raw {
            #expect(!html.contains(text), "\(page): raw payload \(text.debugDescription)", sourceLocation: sourceLocation)
        }
        #expect(!html.contains("<img"), "\(page): an injected <img>", sourceLocation: sourceLocation)
        #expect(!html.lowercased().contains("<script>alert"), "\(page): an injected <script>", sourceLocation: sourceLocation)
        #expect(!html.contains("<!--"), "\(page): a comment opener", sourceLocation: sourceLocation)
    }

    /// `fragment` (with the escaped text already in it) is in the page.
    static func expectShown(_ html: String, _ fragment: String, _ page: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.contains(fragment), "\(page): no \(fragment.debugDescription) in\n\(html)", sourceLocation: sourceLocation)
    }

    /// The JSON object a page's script assigns to `variable` (`var <variable> = {...};` + newline), decoded.
    static func scriptObject(_ script: String, _ variable: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let start = try #require(script.range(of: "var \(variable) = "), "no var \(variable) in \(script)", sourceLocation: sourceLocation)
        let end = try #require(script.range(of: ";\n", range: start.upperBound..<script.endIndex), sourceLocation: sourceLocation)
        let json = script[start.upperBound..<end.lowerBound]
        #expect(!json.contains("<"), "`<` inside a script: \(json)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) as? [String: Any],
                            sourceLocation: sourceLocation)
    }

    // MARK: The menu and the new-card form

    @Test func menuAndCardForm_ShowEveryMerchantAndPayerTextEscaped() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            let (_, _, page) = try await Self.order(client, "menu", texts)
            let invalidCard = [("pan", "4925000000000005"), ("expiry", "12/33"), ("cvc", "123")]
            for (label, response) in [("menu", try await browser.get(page)), ("embedded menu", try await browser.get("\(page)?embed=1")),
                                      ("card form 400", try await browser.post("\(page)/card", invalidCard)),
                                      ("embedded card form 400", try await browser.post("\(page)/card?embed=1", invalidCard))] {
                let html = response.text
                #expect(CheckoutPageClient.mainID(html) == "swedbankpay-checkout", "\(label): \(response)")
                Self.expectInert(html, texts.all, label)
                Self.expectShown(html, #"<h1 id="payee-name">\#(Self.escaped(texts.payeeName))</h1>"#, label)
                Self.expectShown(html, #"<p id="order-description">\#(Self.escaped(texts.description))</p>"#, label)
                // The merchant's payer.msisdn prefills the Swish number: an attribute value.
                Self.expectShown(html, #"id="swish-msisdn" name="msisdn" type="tel" value="\#(Self.escaped(texts.msisdn))""#, label)
                #expect(Self.rawAttribute("value", after: #"id="swish-msisdn""#, in: html).map(Self.unescaped) == texts.msisdn, "\(label)")
            }
            let rejected = try await browser.post("\(page)/card", invalidCard).text
            Self.expectShown(rejected, #"<p id="card-error" class="error" role="alert">The card number is not valid.</p>"#, "card form 400")
        }
    }

    /// The reported bypass: payee name, description (text) and payer.msisdn (an attribute value) with U+0600 / U+0301 /
    /// U+200D around every special character, on the menu (redirect-checkout), the embedded menu, and the 3-D Secure page
    /// (whose CSP allows inline script): text only.
    @Test func menuEmbeddedMenuAndACS_EscapeByCodePoint_NotByGraphemeCluster() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            var texts = Texts()
            texts.payeeName = EscapingPayloads.clusters("payee")
            texts.description = EscapingPayloads.clusters("description")
            texts.msisdn = EscapingPayloads.clusters("msisdn")  // the Swish number's value="…" (an attribute)
            let (_, _, page) = try await Self.order(client, "clusters", texts)
            for (label, target) in [("menu", page), ("embedded menu", "\(page)?embed=1")] {
                let response = try await browser.get(target)
                let html = response.text
                #expect(response.status == 200 && CheckoutPageClient.mainID(html) == "swedbankpay-checkout", "\(label): \(response)")
                EscapingPayloads.expectNoRawSpecialBesideAJoiner(html, label)
                Self.expectShown(html, #"<h1 id="payee-name">\#(Self.escaped(texts.payeeName))</h1>"#, label)
                Self.expectShown(html, #"<p id="order-description">\#(Self.escaped(texts.description))</p>"#, label)
                Self.expectShown(html, #"id="swish-msisdn" name="msisdn" type="tel" value="\#(Self.escaped(texts.msisdn))""#, label)
            }
            let submitted = try await browser.post("\(page)/card", [("pan", "4761739001010416"), ("expiry", "12/33"), ("cvc", "123")])
            #expect(submitted.status == 303, "\(submitted)")
            let challenge = try await browser.get(browser.path(try #require(submitted.header("Location"))))
            #expect(challenge.status == 200 && CheckoutPageClient.mainID(challenge.text) == "acs-challenge", "\(challenge)")
            EscapingPayloads.expectNoRawSpecialBesideAJoiner(challenge.text, "ACS")
            Self.expectShown(challenge.text, #"<dd id="acs-merchant">\#(Self.escaped(texts.payeeName))</dd>"#, "ACS")
        }
    }

    // MARK: 3-D Secure

    /// #acs-merchant shows the payee name; the forms post to an address built from X-Forwarded-Host.
    @Test func acsChallenge_EscapesThePayeeName_AndAForwardedHost() async throws {
        try await withSwedbankPaySandbox { sandbox, client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            for embed in ["", "?embed=1"] {
                let (_, token, page) = try await Self.order(client, "acs", texts)
                let submitted = try await browser.post("\(page)/card\(embed)", [("pan", "4761739001010416"), ("expiry", "12/33"), ("cvc", "123")])
                #expect(submitted.status == 303)
                let acs = browser.path(try #require(submitted.header("Location")))
                let challenge = try await browser.get(acs)
                #expect(challenge.status == 200)
                let html = challenge.text
                #expect(CheckoutPageClient.mainID(html) == "acs-challenge")
                Self.expectInert(html, texts.all, "ACS\(embed)")
                Self.expectShown(html, #"<dd id="acs-merchant">\#(Self.escaped(texts.payeeName))</dd>"#, "ACS\(embed)")

                // Behind a proxy that forwards a hostile host: the form action (an attribute value) is built on it. The
                // sandbox may ignore a host that is not host[:port]; either way nothing of it is markup.
                let host = #"evil.example"><img src=x onerror=alert('host')>"#
                for header in [("X-Forwarded-Host", host), ("Forwarded", #"proto=https;host="\#(host)""#)] {
                    let proxied = try await Self.send(client, "GET", acs, headers: [header]).text
                    Self.expectInert(proxied, texts.all + [host], "ACS via a proxy (\(header.0))\(embed)")
                    let action = try #require(Self.rawAttribute("action", after: "<form", in: proxied), "\(proxied)")
                    let path = "/checkout/\(token)/card/cres\(embed)"
                    let base = client.baseURL.absoluteString
                    #expect([Self.escaped("http://\(host)\(path)"), Self.escaped("https://\(host)\(path)"),
                             base + path, "https" + base.dropFirst("http".count) + path].contains(action),
                            "\(header.0): action=\(action)")
                }

                // Approve: top level, a 303 to the hostile completeUrl; embedded, the result page (checked below).
                let approve = try #require(CheckoutPageClient.form(containing: #"id="acs-approve""#, in: html))
                let done = try await browser.post(browser.path(approve.action), approve.fields)
                #expect(SwedbankPayTestOrder.status(sandbox, token: token) == .paid)
                if embed.isEmpty {
                    #expect(done.status == 303 && done.header("Location") == texts.completeUrl, "\(done)")
                } else {
                    #expect(done.status == 200 && CheckoutPageClient.mainID(done.text) == "result")
                    Self.expectInert(done.text, texts.allButURLs, "result after ACS")
                }
                // The ended page shows none of the order's texts; the challenge is over.
                let ended = try await browser.get(page + embed).text
                #expect(CheckoutPageClient.attribute("data-reason", after: "<main", in: ended) == "paid")
                Self.expectInert(ended, texts.all, "ended page")
                let over = try await browser.get(acs)
                #expect(over.status == 400 && CheckoutPageClient.mainID(over.text) == "acs-error")
                Self.expectInert(over.text, texts.all, "ACS error page")
            }
        }
    }

    // MARK: Swish

    /// #swish-number shows the number Swish waits for: the merchant's payer.msisdn when the app started Swish without one
    /// (the only way a number that is not +<digits> gets there: the page and the SDK's typed numbers are checked).
    @Test func swishWaitingPage_EscapesTheMerchantsPayerMsisdn() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            let (_, token, page) = try await Self.order(client, "swish", texts)
            try await Self.prepare(client, token)
            try await Self.session(client, token, "/methods/swish/startpaymentattempt",
                                   #"{"culture":"sv-SE","msisdn":null,"client":{"userAgent":"SDK","clientType":"Native"}}"#)
            for target in [page, "\(page)?embed=1", "\(page)/swish/status", "\(page)/swish/status?embed=1"] {
                let response = try await browser.get(target)
                let html = response.text
                #expect(response.status == 200 && CheckoutPageClient.mainID(html) == "swish-waiting", "\(target): \(response)")
                Self.expectInert(html, texts.all, target)
                Self.expectShown(html, #"<span id="swish-number">\#(Self.escaped(texts.msisdn))</span>"#, target)
            }
        }
    }

    /// A number typed on the page is Swish's inputerror unless it is +<digits>: it is never shown back.
    @Test func swishForm_HostileTypedNumber_IsRejectedAndNotReflected() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            var texts = Texts()
            texts.msisdn = "+46739000001"
            let (_, _, page) = try await Self.order(client, "swish-typed", texts)
            let typed = Self.payload("typedmsisdn")
            for embed in ["", "?embed=1"] {
                let response = try await browser.post("\(page)/swish\(embed)", [("msisdn", typed)])
                let html = response.text
                #expect(CheckoutPageClient.mainID(html) == "swedbankpay-checkout", "\(response)")
                #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: html)
                        == "https://api.payex.com/psp/errordetail/inputerror")
                Self.expectInert(html, texts.all.filter { $0 != texts.msisdn } + [typed, typed.filter { !$0.isWhitespace }], "Swish form\(embed)")
                #expect(!html.contains("typedmsisdn"), "the typed number is shown back")
            }
        }
    }

    // MARK: #attempt-error

    /// The SDK's fail-payment-attempt TechnicalError carries the device's errorCode into the problem detail (payer-side
    /// input, PaymentSessionFlows.swift); the page shows that problem in #attempt-error.
    @Test func attemptError_EscapesTheDevicesErrorCode() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            let (_, token, page) = try await Self.order(client, "errorcode", texts)
            try await Self.prepare(client, token)
            try await Self.session(client, token, "/methods/swish/startpaymentattempt",
                                   #"{"culture":"sv-SE","msisdn":"+46739000001","client":{"userAgent":"SDK","clientType":"Native"}}"#)
            let code = Self.payload("errorcode")
            let body = String(decoding: JSONText.object([("problemType", .string("TechnicalError")), ("errorCode", .string(code))]).bytes,
                              as: UTF8.self)
            try await Self.session(client, token, "/methods/swish/failpaymentattempt", body)
            for target in [page, "\(page)?embed=1"] {
                let html = try await browser.get(target).text
                #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: html)
                        == "https://api.payex.com/psp/errordetail/systemerror", "\(html)")
                Self.expectInert(html, texts.all + [code], target)
                Self.expectShown(html, "<strong>System error</strong> The payer&#39;s device reported a technical error: \(Self.escaped(code)).",
                                 target)
            }
        }
    }

    /// A scenario's fail_attempt title, detail and original_detail are free text (the scenario author's).
    @Test func attemptError_EscapesAScenariosProblemTexts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spay-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (title, detail, original) = (Self.payload("title"), Self.payload("detail"), Self.payload("original"))
        let scenario = JSONText.object([
            ("name", .string("pages-escaping-problem")), ("description", .string("fail_attempt with HTML in its texts")),
            ("rules", .array([.object([
                ("operation", .string("swedbankpay.web.pay")), ("outcome", .string("fail_attempt")),
                ("problem_type", .string("webpay/escaping")), ("title", .string(title)), ("detail", .string(detail)),
                ("original_detail", .string(original)),
            ])])),
        ])
        try scenario.data.write(to: directory.appendingPathComponent("pages-escaping-problem.json"))
        try await SandboxTest.run(.inProcess, configuration: manualClockConfiguration(scenarioDirectories: [directory])) { client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            let (_, _, page) = try await Self.order(client, "scenario", texts, scenario: "pages-escaping-problem")
            for embed in ["", "?embed=1"] {
                let html = try await browser.post("\(page)/web/Trustly\(embed)", [("ssn", "199710202392")]).text
                #expect(CheckoutPageClient.attribute("data-problem-type", after: #"id="attempt-error""#, in: html)
                        == "https://api.payex.com/psp/errordetail/webpay/escaping", "\(html)")
                Self.expectInert(html, texts.all + [title, detail, original], "menu after fail_attempt\(embed)")
                Self.expectShown(html, "<strong>\(Self.escaped(title))</strong> \(Self.escaped(detail)) Try again", "#attempt-error\(embed)")
            }
        }
    }

    // MARK: The end of a payment

    /// Inside the view-checkout iframe the end is the result page: completeUrl / cancelUrl in #continue's href and in the
    /// postMessage's JSON. In the page's own window it is a 303 to that URL.
    @Test func resultPage_KeepsTheRedirectUrlInTheLinkAndInsideTheScriptsJSON() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            for (action, status, url) in [("web/Trustly", "Paid", texts.completeUrl), ("abort", "Aborted", texts.cancelUrl)] {
                let (_, _, page) = try await Self.order(client, "result", texts)
                let response = try await browser.post("\(page)/\(action)?embed=1", [("ssn", "199710202392")])
                let html = response.text
                #expect(response.status == 200 && CheckoutPageClient.mainID(html) == "result", "\(action): \(response)")
                #expect(CheckoutPageClient.attribute("data-status", after: "<main", in: html) == status)
                Self.expectShown(html, #"<a id="continue" href="\#(Self.escaped(url))" target="_top">"#, "result \(status)")
                // The page's own script is the only one: the URL's `</script><script>` stays in the JSON string.
                #expect(html.components(separatedBy: "<script>").count - 1 == 1 && html.components(separatedBy: "</script>").count - 1 == 1,
                        "result \(status): \(html)")
                let script = String(try #require(html.range(of: "<script>").map { html[$0.upperBound...] }))
                let message = try Self.scriptObject(script, "message")
                #expect(message["redirectUrl"] as? String == url, "result \(status): \(message)")
                Self.expectInert(html, texts.allButURLs, "result \(status)")

                // Top level: a 303 whose Location is the URL as given.
                let (_, _, other) = try await Self.order(client, "result-303", texts)
                let redirect = try await browser.post("\(other)/\(action)", [("ssn", "199710202392")])
                #expect(redirect.status == 303 && redirect.header("Location") == url && redirect.body.isEmpty, "\(action): \(redirect)")
            }
        }
    }

    // MARK: view-checkout

    /// The script embeds completeUrl, cancelUrl and a menu URL built from X-Forwarded-Host and ?culture= in a JSON
    /// object: nothing may end a script element (`</script`, `<!--`) and every value must read back exactly.
    /// U+2028 / U+2029 are escaped too: web views older than ES2019 would end a string literal at them.
    @Test func viewCheckoutScript_KeepsEveryValueInsideItsJSONStrings() async throws {
        try await withSwedbankPaySandbox { _, client in
            let texts = Texts()
            let (_, token, _) = try await Self.order(client, "script", texts)
            let host = #"evil.example"</script><script>alert('host')</script>"#
            let culture = #"sv-SE"</script><script>alert('culture')</script>"#
            let response = try await Self.send(client, "GET", "/checkout/client/\(token)?culture=\(SwedbankPaySessionDriver.formEncode(culture))",
                                               headers: [("X-Forwarded-Host", host)])
            #expect(response.status == 200 && response.header("Content-Type") == "application/javascript; charset=utf-8")
            let script = response.text
            #expect(!script.lowercased().contains("</script"), "\(script)")
            #expect(!script.contains("<!--") && !script.contains("-->"), "\(script)")
            let config = try Self.scriptObject(script, "config")
            #expect(config["completeUrl"] as? String == texts.completeUrl)
            #expect(config["cancelUrl"] as? String == texts.cancelUrl)
            // A forwarded host that is not host[:port] is ignored: the menu URL is built on Host.
            let menuPath = "/checkout/\(token)?embed=1&culture=\(SwedbankPaySessionDriver.formEncode(culture))"
            #expect(config["menuUrl"] as? String == "\(client.baseURL.absoluteString)\(menuPath)", "\(config)")
            // The only line terminators in the script are its own newlines.
            #expect(!script.contains { $0 == "\u{2028}" || $0 == "\u{2029}" })

            // An unknown (hostile) token: the error script, with nothing of the token in it.
            let missing = try await Self.send(client, "GET", "/checkout/client/%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E")
            #expect(missing.status == 200 && missing.text.contains(#""menuUrl":null"#))
            #expect(!missing.text.lowercased().contains("</script") && !missing.text.contains("alert(1)"))
        }
    }

    // MARK: Error pages

    /// The pages' answers to what a request names: an unknown token, an unknown web method, an unknown Sandbox-Scenario,
    /// a path no route knows.
    @Test func errorPages_ShowNothingTheRequestNamedAsMarkup() async throws {
        try await withSwedbankPaySandbox { _, client in
            let browser = CheckoutPageClient(client)
            let texts = Texts()
            let (_, _, page) = try await Self.order(client, "errors", texts)
            let hostile = #"x"><img src=x onerror=alert('path')><script>alert(1)</script>"#
            let encoded = SwedbankPaySessionDriver.formEncode(hostile)

            let unknown = try await browser.get("/checkout/\(encoded)")
            #expect(unknown.status == 404 && CheckoutPageClient.mainID(unknown.text) == "swedbankpay-unavailable")
            Self.expectInert(unknown.text, [hostile], "unknown token")

            let method = try await browser.post("\(page)/web/\(encoded)", [])
            #expect(method.status == 409 && CheckoutPageClient.mainID(method.text) == "swedbankpay-error", "\(method)")
            Self.expectInert(method.text, texts.all + [hostile], "unknown web method")

            // An unknown scenario named by a page request: the error page quotes the name (SwedbankPayProblem.unknownScenario).
            let scenario = #"<img src=x onerror=alert('scenario')>"#
            let named = try await Self.send(client, "POST", "\(page)/web/Trustly", body: Self.form([("ssn", "199710202392")]),
                                            headers: [("Sandbox-Scenario", scenario)])
            #expect(named.status == 400 && CheckoutPageClient.mainID(named.text) == "swedbankpay-error", "\(named)")
            Self.expectInert(named.text, texts.all + [scenario], "Sandbox-Scenario on a page action")
            Self.expectShown(named.text, "Sandbox-Scenario: unknown scenario &quot;\(Self.escaped(scenario))&quot;", "Sandbox-Scenario")
            // The page itself: the menu, or (where the page plays its scenario rules) the same error page.
            let loaded = try await Self.send(client, "GET", page, headers: [("Sandbox-Scenario", scenario)])
            Self.expectInert(loaded.text, texts.all + [scenario], "Sandbox-Scenario on the page")
            if CheckoutPageClient.mainID(loaded.text) == "swedbankpay-error" {
                Self.expectShown(loaded.text, "Sandbox-Scenario: unknown scenario &quot;\(Self.escaped(scenario))&quot;", "Sandbox-Scenario")
            }

            // No route: a JSON problem, never HTML that repeats the path.
            let noRoute = try await browser.get("\(page)/\(encoded)/x")
            #expect(noRoute.status == 404 || noRoute.status == 405, "\(noRoute)")
            #expect(noRoute.header("Content-Type")?.hasPrefix("text/html") != true, "\(noRoute)")
        }
    }
}
