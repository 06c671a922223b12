// SPDX-License-Identifier: MIT
// The control page, /__sandbox/ui (PaymentSandbox/Control/SandboxUI.swift): the namespaces, one namespace's objects
// on its clock and its journal, the forms (post/redirect/get, csrf), escaping of hostile names, and the control
// token's cookie. In-process where the wire does not matter; the token's cookie over real sockets.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Sandbox UI")
struct SandboxUITests {
    // MARK: Helpers

    static func get(_ server: RunningServer, _ target: String, headers: [(String, String)] = []) async throws -> RawResponse {
        try await server.exchange(rawRequest("GET", target, headers: headers))
    }

    /// A form post as a browser sends it: each value percent-encoded, `+` for a space.
    static func post(_ server: RunningServer, _ path: String, _ fields: [(String, String)],
                     headers: [(String, String)] = [], contentType: String = "application/x-www-form-urlencoded") async throws -> RawResponse {
        let body = fields.map { formEncode($0.0) + "=" + formEncode($0.1) }.joined(separator: "&")
        return try await server.exchange(rawRequest("POST", path, headers: [("Content-Type", contentType)] + headers, body: body))
    }

    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~ ")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(of: " ", with: "+")
    }

    static func queryEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func namespacePath(_ name: String) -> String { "/__sandbox/ui/namespace?name=" + queryEncode(name) }

    /// The csrf value the namespace's page puts in its forms.
    static func csrf(_ page: RawResponse) throws -> String {
        let text = page.bodyText
        let marker = #"name="csrf" value=""#
        let start = try #require(text.range(of: marker), "no csrf field in \(page)").upperBound
        let end = try #require(text[start...].firstIndex(of: "\""))
        return String(text[start..<end])
    }

    /// A 200 HTML page with the UI's headers.
    static func expectPage(_ response: RawResponse, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == 200, "\(what): \(response)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8", "\(what)", sourceLocation: sourceLocation)
        #expect(response.header("Cache-Control") == "no-store", "\(what)", sourceLocation: sourceLocation)
        let policy = response.header("Content-Security-Policy") ?? ""
        #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'nonce-"),
                "\(what): \(policy)", sourceLocation: sourceLocation)
        #expect(response.bodyText.hasPrefix("<!DOCTYPE html>") && response.bodyText.contains(#"name="viewport""#),
                "\(what)", sourceLocation: sourceLocation)
    }

    /// The `data-*` attributes of each element that has `data-kind` (the objects' rows).
    static func objectRows(_ html: String) -> [(kind: String, id: String, status: String)] {
        html.components(separatedBy: #"<tr class="object"#).dropFirst().compactMap { row in
            func attribute(_ name: String) -> String? {
                guard let start = row.range(of: "\(name)=\"")?.upperBound, let end = row[start...].firstIndex(of: "\"") else { return nil }
                return String(row[start..<end])
            }
            guard let kind = attribute("data-kind"), let id = attribute("data-id"), let status = attribute("data-status") else { return nil }
            return (kind, id, status)
        }
    }

    // MARK: Pages

    @Test("GET /__sandbox/ui lists the namespaces with objects, a moved clock, a default scenario or journal entries, and no others")
    func overview_ListsNamespaces() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let empty = try await Self.get(server, "/__sandbox/ui")
            Self.expectPage(empty, "no namespaces yet")
            #expect(empty.bodyText.contains(#"id="no-namespaces""#))

            let withObjects = KlarnaClient(server, namespace: "ui-objects")
            _ = try await withObjects.newSession()
            let clocked = KlarnaClient(server, namespace: "ui-clocked")
            try await clocked.advanceClock(seconds: 3600)
            let chosen = try await server.exchange(rawRequest("PUT", "/__sandbox/scenario", headers: [("Sandbox-Namespace", "ui-chosen"),
                                                                                                     ("Content-Type", "application/json")],
                                                              body: #"{"name": "reject"}"#))
            #expect(chosen.status == 200, "\(chosen)")
            // A refused call is journaled but leaves no object.
            let refused = try await server.exchange(rawRequest("GET", "/payments/v1/sessions/unknown", headers: [("Sandbox-Namespace", "ui-journal")]))
            #expect(refused.status == 401, "\(refused)")
            // Reading the clock makes nothing.
            _ = try await server.exchange(rawRequest("GET", "/__sandbox/clock", headers: [("Sandbox-Namespace", "ui-untouched")]))

            let page = try await Self.get(server, "/__sandbox/ui")
            Self.expectPage(page, "overview")
            let html = page.bodyText
            for name in ["ui-objects", "ui-clocked", "ui-chosen", "ui-journal"] {
                #expect(html.contains(#"<li class="namespace" data-namespace="\#(name)"><a href="/__sandbox/ui/namespace?name=\#(name)">"#),
                        "\(name) is not listed: \(html)")
            }
            #expect(!html.contains("ui-untouched"))
            #expect(html.contains("1 object · 1 journal entry"), "\(html)")
            #expect(html.contains("clock +1 h 0 min"))
            #expect(html.contains("scenario reject"))
            // Sorted by name.
            let order = ["ui-chosen", "ui-clocked", "ui-journal", "ui-objects"].compactMap { html.range(of: "data-namespace=\"\($0)\"")?.lowerBound }
            #expect(order.count == 4 && order == order.sorted())
        }
    }

    @Test("a namespace's page lists every provider's objects with status, created, expiry and time left on its clock, and the journal newest first")
    func namespacePage_ObjectsAndJournal() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let klarna = KlarnaClient(server, namespace: "ui-shop")
            let (session, token) = try await klarna.authorizedSession()
            let order = try await klarna.newOrder(token)
            let second = try await klarna.newSession()
            let hpp = try await KlarnaHPP.newHPPSession(klarna, KlarnaHPPBodies.createBody(second))
            let swedbank = SwedbankPayClient(server, namespace: "ui-shop")
            let created = try await swedbank.create()
            try #require(created.status == 200, "\(created)")
            let paymentOrder = try #require((try created.jsonObject()["paymentOrder"] as? [String: Any])?["id"] as? String)
            let operations = try #require(try created.jsonObject()["operations"] as? [[String: Any]])
            let sessionHref = try #require(operations.first { $0["rel"] as? String == "view-paymentsession" }?["href"] as? String)
            let sessionToken = String(try #require(sessionHref.split(separator: "/").last))
            let read = try await server.exchange(rawRequest("GET", "/psp/paymentsessions/" + sessionToken))
            #expect(read.status == 200, "\(read)")
            try await klarna.advanceClock(seconds: 3600)

            let page = try await Self.get(server, Self.namespacePath("ui-shop"))
            Self.expectPage(page, "namespace page")
            let html = page.bodyText
            let rows = Self.objectRows(html)
            let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(byID[session]?.kind == "Klarna payment session" && byID[session]?.status == "complete", "\(rows)")
            #expect(byID[second]?.status == "incomplete", "\(rows)")
            #expect(byID[token]?.kind == "Klarna authorization token" && byID[token]?.status == "used for an order", "\(rows)")
            #expect(byID[order]?.kind == "Klarna order" && byID[order]?.status == "AUTHORIZED", "\(rows)")
            #expect(byID[hpp]?.kind == "Klarna HPP session" && byID[hpp]?.status == "WAITING", "\(rows)")
            #expect(byID[paymentOrder]?.kind == "Swedbank Pay payment order" && byID[paymentOrder]?.status == "Initialized", "\(rows)")
            #expect(byID[sessionToken]?.kind == "Swedbank Pay payment session" && byID[sessionToken]?.status == "idle", "\(rows)")
            #expect(rows.count == 7, "\(rows)")
            // Times on the namespace's clock, an hour on: a session made at the start expires 48 h after it.
            #expect(html.contains(#"<time id="now" datetime="2027-01-15T09:00:00Z">"#), "\(html)")
            #expect(html.contains(#"<span id="offset" data-seconds="3600">moved +1 h 0 min</span>"#))
            #expect(html.contains(#"<td data-label="Created"><time datetime="2027-01-15T08:00:00Z">"#))
            #expect(html.contains(#"<td data-label="Expires"><time datetime="2027-01-17T08:00:00Z">"#))
            #expect(html.contains(#"<td data-label="Time left" class="left">1 d 23 h</td>"#))

            // The seam itself: the same objects, oldest first per store.
            let sandbox = try #require(server.inProcess)
            let payments = sandbox.klarnaPayments.objects(Namespace("ui-shop")).map(\.id)
            let orders = sandbox.klarnaOrderManagement.objects(Namespace("ui-shop")).map(\.id)
            let elsewhere = sandbox.klarnaPayments.objects(Namespace("ui-elsewhere"))
            #expect(payments == [session, second, token])
            #expect(orders == [order])
            #expect(sandbox.klarnaPayments.namespacesWithState == [Namespace("ui-shop")])
            #expect(elsewhere.isEmpty)

            // Journal: newest first, with method, path, status and the scenario decision.
            let entries = html.components(separatedBy: #"<li class="entry"#).dropFirst()
            #expect(entries.count == 7, "\(entries.count) entries")
            #expect(entries.first?.contains(#"data-method="GET" data-status="200""#) == true
                    && entries.first?.contains("<code>/psp/paymentsessions/\(sessionToken)</code>") == true, "\(entries.first ?? "")")
            #expect(entries.last?.contains("<code>/payments/v1/sessions</code>") == true)
            #expect(entries.last?.contains(#"<div class="note">scenario=- klarna.payments.create_session: approve (no rule)</div>"#) == true,
                    "\(entries.last ?? "")")

            // Expired objects read so.
            try await klarna.advanceClock(seconds: 48 * 3600)
            let later = try await Self.get(server, Self.namespacePath("ui-shop")).bodyText
            #expect(Self.objectRows(later).first { $0.id == second }?.status == "expired")
            #expect(later.contains("expired 1 h 0 min ago"), "\(later)")
        }
    }

    @Test("hostile namespace names, scenario descriptions, journal paths, queries and notes are shown as text")
    func hostileText_Escaped() async throws {
        try await withScenarioDirectory { directory in
            try directory.write("hostile.json", scenarioFile("hostile", #"<img src=x onerror=alert(2)> \"quoted\" & 'single'"#,
                                                             rules: [#"{"operation": "klarna.payments.authorize", "outcome": "reject"}"#]))
            try await withSandbox(transport: .inProcess, { configuration in
                deterministic(&configuration)
                configuration.scenarioDirectories = [directory.url]
            }) { server in
                let hostile = #"<script>alert(1)</script>"'&amp;"#
                let client = KlarnaClient(server, namespace: hostile)
                _ = try await client.newSession()
                _ = try await client.get("/payments/v1/sessions/%3Cimg%20src%3Dx%20onerror%3Dalert(3)%3E?q=%3C/code%3E%3Cb%3E")
                let chose = try await server.exchange(rawRequest("PUT", "/__sandbox/scenario", headers: [("Sandbox-Namespace", hostile),
                                                                                                        ("Content-Type", "application/json")],
                                                                 body: #"{"name": "hostile"}"#))
                #expect(chose.status == 200, "\(chose)")

                for target in ["/__sandbox/ui", Self.namespacePath(hostile)] {
                    let page = try await Self.get(server, target)
                    Self.expectPage(page, target)
                    let html = page.bodyText
                    for raw in ["<script>alert", "<img src", "<b>", "</code><b>", #""'&amp;"#] {
                        #expect(!html.contains(raw), "\(target) has \(raw) raw")
                    }
                    #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;amp;"), "\(target)")
                    // The only script is the page's own, with its nonce.
                    #expect(html.components(separatedBy: "<script").count == 2)
                }
                let html = try await Self.get(server, Self.namespacePath(hostile)).bodyText
                #expect(html.contains(#"<main id="namespace" data-namespace="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;amp;">"#))
                #expect(html.contains("<code>/payments/v1/sessions/&lt;img src=x onerror=alert(3)&gt;?q=%3C/code%3E%3Cb%3E</code>"), "\(html)")
                #expect(html.contains(#"title="&lt;img src=x onerror=alert(2)&gt; &quot;quoted&quot; &amp; &#39;single&#39;""#))
                #expect(html.contains(#"<p id="default-scenario-description" class="muted">&lt;img src=x onerror=alert(2)&gt;"#))
                // The namespace in the forms and links.
                #expect(html.contains(#"<input type="hidden" name="namespace" value="&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;amp;">"#))
                let overview = try await Self.get(server, "/__sandbox/ui").bodyText
                #expect(overview.contains(#"href="/__sandbox/ui/namespace?name=%3Cscript%3Ealert%281%29%3C%2Fscript%3E%22%27%26amp%3B""#), "\(overview)")
            }
        }
    }

    // MARK: Forms

    @Test("the forms choose the default scenario, move and set the clock and reset, answering 303 to the namespace's page")
    func forms_ChangeState() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let name = "ui forms/ä"
            let client = KlarnaClient(server, namespace: name)
            _ = try await client.newSession()
            let csrf = try Self.csrf(try await Self.get(server, Self.namespacePath(name)))
            let back = "/__sandbox/ui/namespace?name=ui%20forms%2F%C3%A4"

            func submit(_ path: String, _ fields: [(String, String)]) async throws -> RawResponse {
                try await Self.post(server, path, [("namespace", name), ("csrf", csrf)] + fields)
            }
            func expectBack(_ response: RawResponse, _ what: String) {
                #expect(response.status == 303 && response.header("Location") == back, "\(what): \(response)")
            }

            expectBack(try await submit("/__sandbox/ui/scenario", [("scenario", "reject")]), "choose")
            let scenarios = try await client.get("/__sandbox/scenarios").jsonObject()
            #expect(scenarios["default_scenario"] as? String == "reject")
            #expect(try await Self.get(server, back).bodyText.contains(#"<strong id="default-scenario">reject</strong>"#))

            expectBack(try await submit("/__sandbox/ui/clock", [("advance_seconds", "90.5")]), "advance")
            #expect(try await client.clock()["offset_seconds"] as? Double == 90.5)
            expectBack(try await submit("/__sandbox/ui/clock", [("now", "2030-01-01T00:00:00Z")]), "set")
            #expect(try await client.clock()["now"] as? String == "2030-01-01T00:00:00.000Z")

            expectBack(try await submit("/__sandbox/ui/scenario", [("scenario", "")]), "clear")
            #expect(try await client.get("/__sandbox/scenarios").jsonObject()["default_scenario"] is NSNull)

            expectBack(try await submit("/__sandbox/ui/reset", []), "reset")
            let state = try await client.get("/__sandbox/state").jsonObject()
            #expect((state["klarna_payments"] as? [String: Any])?["sessions"] as? [Any] != nil)
            #expect(((state["klarna_payments"] as? [String: Any])?["sessions"] as? [Any])?.isEmpty == true, "\(state)")
            #expect(try await client.clock()["offset_seconds"] as? Double == 0)
            #expect(!(try await Self.get(server, "/__sandbox/ui").bodyText.contains("data-namespace=\"ui forms/ä\"")))
        }
    }

    @Test("a form without this sandbox's csrf is 403, a refused change a 4xx page, another content type 415; none changes anything")
    func forms_Refused() async throws {
        try await withSandbox(transport: .inProcess, { deterministic(&$0) }) { server in
            let client = KlarnaClient(server, namespace: "ui-refused")
            _ = try await client.newSession()
            let csrf = try Self.csrf(try await Self.get(server, Self.namespacePath("ui-refused")))

            for fields in [[("namespace", "ui-refused"), ("advance_seconds", "60")],
                           [("namespace", "ui-refused"), ("csrf", (csrf.hasPrefix("0") ? "1" : "0") + csrf.dropFirst()), ("advance_seconds", "60")]] {
                let response = try await Self.post(server, "/__sandbox/ui/clock", fields)
                #expect(response.status == 403 && response.header("Content-Type") == "application/json", "\(response)")
            }
            let json = try await server.exchange(rawRequest("POST", "/__sandbox/ui/reset", headers: [("Content-Type", "application/json")],
                                                             body: #"{"namespace": "ui-refused", "csrf": "\#(csrf)"}"#))
            #expect(json.status == 415, "\(json)")

            let unknown = try await Self.post(server, "/__sandbox/ui/scenario", [("namespace", "ui-refused"), ("csrf", csrf), ("scenario", "<nope>")])
            #expect(unknown.status == 422 && unknown.header("Content-Type") == "text/html; charset=utf-8", "\(unknown)")
            #expect(unknown.bodyText.contains("unknown scenario &quot;&lt;nope&gt;&quot;") && !unknown.bodyText.contains("<nope>"))
            #expect(unknown.bodyText.contains(#"<a href="/__sandbox/ui/namespace?name=ui-refused">Back to ui-refused</a>"#))

            for fields in [[("now", "yesterday")], [("advance_seconds", "soon")], [("advance_seconds", "1e30")], [("advance_seconds", "1"), ("now", "2030-01-01T00:00:00Z")]] {
                let response = try await Self.post(server, "/__sandbox/ui/clock", [("namespace", "ui-refused"), ("csrf", csrf)] + fields)
                #expect(response.status == 400 && response.bodyText.contains(#"<main id="problem" data-status="400">"#), "\(fields): \(response)")
            }
            let missing = try await Self.get(server, "/__sandbox/ui/namespace")
            #expect(missing.status == 400, "\(missing)")

            #expect(try await client.clock()["offset_seconds"] as? Double == 0)
            #expect(try await client.get("/__sandbox/scenarios").jsonObject()["default_scenario"] is NSNull)
            #expect(try await Self.get(server, Self.namespacePath("ui-refused")).bodyText.contains("Objects (1)"))
        }
    }

    // MARK: The control token

    static let token = "ui-Token_42"

    @Test("under a control token the page and its forms are 401 without it, and nothing of the namespaces leaks")
    func token_Required() async throws {
        try await withSandbox({ $0.controlToken = Self.token }) { server in
            let client = KlarnaClient(server, namespace: "ui-secret-namespace")
            let session = try await client.newSession()
            let auth = [("Sandbox-Control-Token", Self.token)]
            let csrf = try Self.csrf(try await Self.get(server, Self.namespacePath("ui-secret-namespace"), headers: auth))

            var refused: [RawResponse] = []
            for target in ["/__sandbox/ui", Self.namespacePath("ui-secret-namespace"), "/__sandbox/%75i"] {
                refused.append(try await Self.get(server, target))
                refused.append(try await Self.get(server, target, headers: [("Cookie", "sandbox_ui=\(Self.token)")]))
                refused.append(try await Self.get(server, target, headers: [("Authorization", "Bearer wrong")]))
            }
            refused.append(try await Self.get(server, "/__sandbox/ui?token=wrong"))
            for path in ["/__sandbox/ui/clock", "/__sandbox/ui/reset", "/__sandbox/ui/scenario"] {
                refused.append(try await Self.post(server, path, [("namespace", "ui-secret-namespace"), ("csrf", csrf),
                                                                  ("advance_seconds", "60"), ("scenario", "reject")]))
            }
            for response in refused {
                #expect(response.status == 401, "\(response)")
                #expect(response.header("Content-Type") == "application/json", "\(response)")
                #expect(response.header("WWW-Authenticate")?.hasPrefix("Bearer ") == true)
                #expect(response.header("Set-Cookie") == nil)
                for secret in ["ui-secret-namespace", session, csrf, Self.token, "<html"] {
                    #expect(!response.bodyText.contains(secret), "\(response)")
                }
            }
            // Nothing changed.
            let clock = try await server.exchange(rawRequest("GET", "/__sandbox/clock", headers: auth + [("Sandbox-Namespace", "ui-secret-namespace")]))
            #expect((try clock.jsonObject())["offset_seconds"] as? Double == 0)
            #expect(try await Self.get(server, Self.namespacePath("ui-secret-namespace"), headers: auth).bodyText.contains("Objects (1)"))
        }
    }

    @Test("?token= sets an HttpOnly, SameSite=Strict cookie and redirects without the token; the cookie opens the page and its forms, nothing else")
    func token_Cookie() async throws {
        try await withSandbox({ $0.controlToken = Self.token }) { server in
            let signIn = try await Self.get(server, "/__sandbox/ui/namespace?name=ui-cookie&token=\(Self.token)&x=a%20b")
            #expect(signIn.status == 303, "\(signIn)")
            #expect(signIn.header("Location") == "/__sandbox/ui/namespace?name=ui-cookie&x=a%20b")
            let setCookie = try #require(signIn.header("Set-Cookie"))
            let parts = setCookie.components(separatedBy: "; ")
            #expect(Set(parts.dropFirst()) == ["Path=/__sandbox/ui", "HttpOnly", "SameSite=Strict"], "\(setCookie)")
            let cookie = try #require(parts.first)
            #expect(cookie.hasPrefix("sandbox_ui=") && !cookie.contains(Self.token) && cookie.count == "sandbox_ui=".count + 64, "\(cookie)")
            #expect(!signIn.bodyText.contains(Self.token))

            let page = try await Self.get(server, "/__sandbox/ui/namespace?name=ui-cookie", headers: [("Cookie", "other=1; \(cookie)")])
            Self.expectPage(page, "with the cookie")
            #expect(try await Self.get(server, "/__sandbox/ui", headers: [("Cookie", cookie)]).status == 200)
            let moved = try await Self.post(server, "/__sandbox/ui/clock", [("namespace", "ui-cookie"), ("csrf", try Self.csrf(page)),
                                                                           ("advance_seconds", "60")], headers: [("Cookie", cookie)])
            #expect(moved.status == 303, "\(moved)")
            let clock = try await server.exchange(rawRequest("GET", "/__sandbox/clock", headers: [("Sandbox-Control-Token", Self.token),
                                                                                                 ("Sandbox-Namespace", "ui-cookie")]))
            #expect((try clock.jsonObject())["offset_seconds"] as? Double == 60)
            // The cookie is no control token for the JSON API.
            let state = try await server.exchange(rawRequest("GET", "/__sandbox/state", headers: [("Cookie", cookie)]))
            #expect(state.status == 401, "\(state)")
            // Bearer works for the page as for the rest of /__sandbox/.
            #expect(try await Self.get(server, "/__sandbox/ui", headers: [("Authorization", "Bearer \(Self.token)")]).status == 200)
        }
    }

    @Test("behind a trusted https proxy the cookie is also Secure; a forwarded https from an untrusted client is not believed")
    func token_SecureBehindHTTPS() async throws {
        for trusted in [true, false] {
            try await withSandbox(transport: .inProcess, { configuration in
                configuration.controlToken = Self.token
                if trusted { configuration.http.trustedForwardedHeaders = .xForwarded }
            }) { server in
                let signIn = try await Self.get(server, "/__sandbox/ui?token=\(Self.token)", headers: [("X-Forwarded-Proto", "https")])
                #expect(signIn.status == 303, "\(signIn)")
                #expect(signIn.header("Set-Cookie")?.hasSuffix("; HttpOnly; SameSite=Strict; Secure") == trusted, "\(signIn)")
            }
        }
    }

    @Test("without a control token the page is open and ?token= is ignored")
    func noToken_Open() async throws {
        try await withSandbox(transport: .inProcess) { server in
            let page = try await Self.get(server, "/__sandbox/ui?token=anything")
            Self.expectPage(page, "no token configured")
            #expect(page.header("Set-Cookie") == nil)
        }
    }
}
