// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// The control page, `/__sandbox/ui`: server-rendered HTML that reads without JavaScript.
///
/// - `GET /__sandbox/ui`: the namespaces that have objects, a moved clock, a default scenario or journal entries, by
///   name, a page at a time (`?limit=`, default 100, at most 1000; `?after=<last name shown>` for the next page);
/// - `GET /__sandbox/ui/namespace?name=N`: one namespace (a query, not a path segment: a browser rewrites a
///   namespace named `..` out of a path): its objects on its clock (500 a page, `&objects_offset=`), its journal as a
///   timeline (the newest 200, `&journal_before=<sequence>` for older ones), and forms;
/// - `POST /__sandbox/ui/scenario` (`scenario`), `POST /__sandbox/ui/clock` (`advance_seconds` or `now`),
///   `POST /__sandbox/ui/reset`: form-encoded, each with `namespace` and `csrf`; they do what `PUT /__sandbox/scenario`,
///   `POST /__sandbox/clock` and `POST /__sandbox/reset` do (the same ``ControlRoutes`` code) and answer 303 back to
///   the namespace's page (post/redirect/get).
///
/// Under a control token (``SandboxUIAccess``) the first visit is `/__sandbox/ui?token=<token>`, which sets a cookie
/// and redirects to the same page without the token. Every form carries `csrf`, a random value of this sandbox
/// instance that only a reader of the page knows, with or without a token: a page of another site cannot post to it.
struct SandboxUI: Sendable {
    static let pathPrefix = "/__sandbox/ui"
    /// How many journal entries and objects a namespace's page shows at most (the newest entries, the oldest objects).
    static let journalLimit = 200
    static let objectLimit = 500

    let control: ControlRoutes
    let secrets: SandboxUISecrets

    init(control: ControlRoutes) {
        self.control = control
        secrets = SandboxUISecrets()
    }

    func add(to router: inout Router) {
        if let token = control.controlToken {
            router.setAccessCheck(forPathPrefix: Self.pathPrefix, SandboxUIAccess(token: token, secrets: secrets).check)
        }
        let ui = self
        router.add("GET /__sandbox/ui") { request in
            let after = request.queryValue("after").flatMap { $0.isEmpty ? nil : $0 }
            let limit: Int
            do {
                limit = try request.queryValue("limit").map { try ControlRoutes.limit($0, max: ControlRoutes.maxNamespaceLimit) }
                    ?? ControlRoutes.namespaceLimit
            } catch {
                return Self.problemPage(error, namespace: nil)
            }
            let nonce = SandboxUISecrets.randomHex(bytes: 16)
            return Self.page(SandboxUIPages.overview(ui.control.namespaces(after: after, limit: limit), after: after, limit: limit,
                                                     now: ui.control.registry.baseClock.now(), nonce: nonce,
                                                     figures: ui.control.metrics.map { MetricsPage(metrics: $0, control: ui.control).figures() }),
                             nonce: nonce)
        }
        router.add("GET /__sandbox/ui/namespace") { request in
            guard let name = request.queryValue("name"), !name.isEmpty else {
                return Self.problemPage(HTTPError(.badRequest, "give the namespace as ?name=<namespace>"), namespace: nil)
            }
            let offset = request.queryValue("objects_offset").flatMap { Int($0) }.map { max(0, $0) } ?? 0
            let before = request.queryValue("journal_before").flatMap { Int($0) }
            let nonce = SandboxUISecrets.randomHex(bytes: 16)
            return Self.page(ui.namespacePage(Namespace(name), objectsOffset: offset, journalBefore: before, nonce: nonce), nonce: nonce)
        }
        router.add("POST /__sandbox/ui/scenario") { request in
            try await ui.form(request) { namespace, fields throws(HTTPError) in
                let name = fields["scenario"] ?? ""
                try ui.control.chooseDefaultScenario(name.isEmpty ? nil : name, for: namespace)
            }
        }
        router.add("POST /__sandbox/ui/clock") { request in
            try await ui.form(request) { namespace, fields throws(HTTPError) in
                let advance = fields["advance_seconds"].flatMap { $0.isEmpty ? nil : $0 }
                let now = fields["now"].flatMap { $0.isEmpty ? nil : $0 }
                var seconds: Double?
                if let advance {
                    guard let value = Double(advance), value.isFinite else {
                        throw HTTPError(.badRequest, "advance_seconds: \"\(advance)\" is not a number of seconds")
                    }
                    seconds = value
                }
                try ui.control.moveClock(namespace, advanceSeconds: seconds, now: now)
            }
        }
        router.add("POST /__sandbox/ui/reset") { request in
            try await ui.form(request) { namespace, _ in await ui.control.reset(namespace) }
        }
    }

    // MARK: Forms

    /// Checks a form post (form-encoded, `csrf`, `namespace`), runs `action` and answers 303 to the namespace's page;
    /// what `action` refuses is a page with the reason and a link back.
    private func form(_ request: HTTPRequest,
                      _ action: (Namespace, [String: String]) async throws(HTTPError) -> Void) async throws -> HTTPResponse {
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw HTTPError(.unsupportedMediaType, "the page's forms send application/x-www-form-urlencoded")
        }
        guard let fields = Self.formFields(request.body) else {
            throw HTTPError(.badRequest, "the form's body is not valid application/x-www-form-urlencoded")
        }
        guard let csrf = fields["csrf"], SandboxUISecrets.equal(csrf, secrets.csrf) else {
            throw HTTPError(.forbidden, "the form's csrf value is missing or not this sandbox's: reload the page and send it again")
        }
        guard let name = fields["namespace"], !name.isEmpty else { throw HTTPError(.badRequest, "the form names no namespace") }
        let namespace = Namespace(name)
        do {
            try await action(namespace, fields)
        } catch {
            return Self.problemPage(error, namespace: namespace)
        }
        var response = HTTPResponse(status: .seeOther, headers: ["Location": Self.namespaceHref(namespace)])
        response.headers.set(name: "Cache-Control", value: "no-store")
        return response
    }

    /// `application/x-www-form-urlencoded` (`+` is a space); nil when an escape is broken or a text is not UTF-8.
    /// A repeated name keeps its last value.
    static func formFields(_ body: Data) -> [String: String]? {
        guard let text = String(validUTF8: body) else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String? { part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else { return nil }
            fields[name] = value
        }
        return fields
    }

    // MARK: What the pages show

    typealias NamespaceRow = ControlRoutes.NamespaceRow

    /// The namespace's page: ``objectLimit`` of its objects from `objectsOffset`, and its newest ``journalLimit``
    /// entries (older than `journalBefore`, if given).
    func namespacePage(_ namespace: Namespace, objectsOffset: Int = 0, journalBefore: Int? = nil, nonce: String) -> String {
        var objects: [SandboxObjectSummary] = []
        for state in control.states { objects += state.objects(namespace) }
        let shown = Array(objects.dropFirst(objectsOffset).prefix(Self.objectLimit))
        let journal = control.journal.page(namespace, Journal.Filter(limit: Self.journalLimit, before: journalBefore))
        return SandboxUIPages.namespace(SandboxUIPages.NamespaceView(
            namespace: namespace, now: control.registry.now(namespace), offsetSeconds: control.registry.offset(namespace),
            defaultScenario: control.scenarios.defaultScenario(for: namespace),
            scenarios: control.scenarios.scenarios.map { ($0.name, $0.description) },
            objects: shown, objectTotal: objects.count, objectsOffset: objectsOffset,
            journal: journal.entries, journalBefore: journalBefore, olderJournal: journal.nextBefore, csrf: secrets.csrf), nonce: nonce)
    }

    // MARK: Answers

    /// A page with the headers every page of the UI carries: no caching (it shows live state), no framing (its
    /// buttons cannot be clicked through another site), no referrer, and a policy that runs only its own script (and
    /// loads no image: the browser does not ask for `/favicon.ico`, which would be a 404 journaled in `default`).
    static func page(_ html: String, status: HTTPStatus = .ok, nonce: String) -> HTTPResponse {
        var response = HTTPResponse.html(html, status: status)
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'; "
                             + "script-src 'nonce-\(nonce)'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
        response.headers.set(name: "X-Frame-Options", value: "DENY")
        response.headers.set(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    /// What a form or the address was refused for, as a page with a link back (an HTTPError's status and message).
    static func problemPage(_ error: any Error, namespace: Namespace?) -> HTTPResponse {
        let problem = error as? HTTPError ?? HTTPError(.internalServerError, "\(error)")
        let nonce = SandboxUISecrets.randomHex(bytes: 16)
        return page(SandboxUIPages.problem(status: problem.status.code, message: problem.message, namespace: namespace),
                    status: problem.status, nonce: nonce)
    }

    /// `/__sandbox/ui/namespace?name=<name, percent-encoded>`.
    static func namespaceHref(_ namespace: Namespace) -> String {
        "/__sandbox/ui/namespace?name=" + percentEncode(namespace.name)
    }

    /// Every byte but the unreserved characters (RFC 3986 §2.3) as %XX: safe in a query value and a Location.
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return out
    }
}

/// The random values of one sandbox instance's page: the cookie that stands for the control token and the form's
/// `csrf`. Made when the sandbox is made; a restart makes new ones (open `?token=` again).
struct SandboxUISecrets: Sendable {
    let cookie = SandboxUISecrets.randomHex(bytes: 32)
    let csrf = SandboxUISecrets.randomHex(bytes: 32)

    /// `bytes` bytes of the system's cryptographically secure generator, as lowercase hex.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var out = ""
        for _ in 0..<bytes {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }
        return out
    }

    /// Compares in time that depends only on the expected value's length.
    static func equal(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8), expected = Array(expected.utf8)
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}

/// The page's access check when a control token is set (`--control-token`). A browser cannot add a header to a
/// link or a form, so:
/// - `?token=<token>` on a GET of the page answers 303 to the same address without it and sets the cookie
///   `sandbox_ui` (HttpOnly, SameSite=Strict, Path=/__sandbox/ui; Secure when reached over https), whose value is a
///   random value of this instance, not the token; a wrong token is a 401;
/// - with that cookie every page and form is open (the forms still need their `csrf`);
/// - `Authorization: Bearer <token>` or `Sandbox-Control-Token: <token>` work as for the rest of `/__sandbox/`;
/// - anything else is the control API's 401 (``ControlTokenRefusal``), which shows none of the page.
struct SandboxUIAccess: Sendable {
    static let cookieName = "sandbox_ui"
    let token: String
    let secrets: SandboxUISecrets

    func check(_ request: inout HTTPRequest) throws {
        let cookies = request.headers.values(for: "Cookie").flatMap(Self.cookieValues(named: Self.cookieName))
        if cookies.contains(where: { SandboxUISecrets.equal($0, secrets.cookie) }) { return }
        if let given = request.queryValue("token"), request.method == .get || request.method == .head {
            guard SandboxUISecrets.equal(given, token) else {
                throw ControlTokenRefusal(message: "the token given in ?token= is not the control token", invalid: true)
            }
            throw SandboxUISignIn(location: Self.addressWithoutToken(request), cookie: secrets.cookie,
                                  secure: request.publicOrigin?.hasPrefix("https:") == true)
        }
        let headers = !request.headers.values(for: "Sandbox-Control-Token").isEmpty
            || request.headers.values(for: "Authorization").contains { Namespace.bearerToken(fromHeader: $0) != nil }
        if headers { return try ControlToken(token).check(&request) }
        throw ControlTokenRefusal(message: "the sandbox page needs the control token: open /__sandbox/ui?token=<token> once "
                                  + "(the browser then keeps a cookie)" + (cookies.isEmpty ? "" : "; the cookie sent is from another run")
                                  + ", or send \"Authorization: Bearer <token>\"", invalid: !cookies.isEmpty)
    }

    /// The values of `name` in one `Cookie` field (`a=1; b=2`, RFC 6265 §5.4).
    static func cookieValues(named name: String) -> (String) -> [String] {
        { field in
            field.split(separator: ";").compactMap { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { return nil }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// The request's path as sent, with its query less `token` (each item encoded again).
    static func addressWithoutToken(_ request: HTTPRequest) -> String {
        let kept = request.query.filter { $0.name != "token" }
        guard !kept.isEmpty else { return request.rawPath }
        return request.rawPath + "?" + kept.map { SandboxUI.percentEncode($0.name) + "=" + SandboxUI.percentEncode($0.value) }
            .joined(separator: "&")
    }
}

/// The answer to a right `?token=`: 303 to the page without the token, with the cookie. Thrown by the access
/// check, which answers instead of the handler.
struct SandboxUISignIn: HTTPResponseError {
    var location: String
    var cookie: String
    var secure: Bool

    func response(for request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(status: .seeOther, headers: ["Location": location])
        response.headers.set(name: "Set-Cookie", value: "\(SandboxUIAccess.cookieName)=\(cookie); Path=\(SandboxUI.pathPrefix); "
                             + "HttpOnly; SameSite=Strict" + (secure ? "; Secure" : ""))
        response.headers.set(name: "Cache-Control", value: "no-store")
        response.headers.set(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
