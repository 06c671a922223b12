// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
internal import SandboxHTTP

/// Sends requests to a sandbox, in one of two modes with the same API:
/// - in-process (``init(sandbox:namespace:redirects:)``, ``inProcess(_:namespace:redirects:)``): no socket and no
///   port; each request goes straight to the sandbox's routes;
/// - live (``init(baseURL:controlToken:namespace:session:redirects:)``): a sandbox in Docker or another process, over
///   URLSession.
///
/// ``control`` chooses scenarios, moves the clock and reads the journal and state of ``namespace`` in both modes;
/// ``SandboxTest/run(_:configuration:namespace:redirects:_:)`` starts a sandbox in either mode for one test body.
/// Redirects are handled the same way in both modes: not followed unless ``redirects`` says so.
///
/// ```swift
/// let client = try SandboxClient.inProcess(namespace: "checkout-tests")
/// try await client.control.useScenario("reject")
/// let response = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: ("PK1_x", "secret"))
/// #expect(response.status == .ok)
/// let session = try response.decode(Session.self)
/// ```
public struct SandboxClient: Sendable {
    enum Transport: Sendable {
        case inProcess(PaymentSandbox)
        case live(URLSession)
    }

    let transport: Transport
    /// Where requests go: the live sandbox's address, or in-process a placeholder the sandbox's links are built on
    /// (absolute URLs it returns can be sent back through this client).
    public let baseURL: URL
    /// Sent as `Sandbox-Namespace` with every request (and every control call), unless a request names its own.
    public var namespace: String?
    /// Sent as `Sandbox-Control-Token` with every `/__sandbox/` call, for a sandbox started with a control token.
    public var controlToken: String?
    /// Which redirects ``send(_:)`` follows, the same in both modes; by default none.
    public var redirects: RedirectPolicy
    /// In-process, ``baseURL``'s `scheme://authority` as a path is resolved on it, and its `host[:port]`.
    let inProcessOrigin: (origin: String, authority: String)?

    /// The sandbox that in-process requests go to; nil in live mode.
    public var sandbox: PaymentSandbox? {
        if case .inProcess(let sandbox) = transport { return sandbox }
        return nil
    }

    /// In-process, to `sandbox` (which needs no `PaymentSandbox/start()`), with its state file loaded if it has one.
    /// Throws the sandbox's `ScenarioLoadFailure` when one of its scenario files is invalid, `StateFileError` when its
    /// state file cannot be loaded.
    public init(sandbox: PaymentSandbox, namespace: String? = nil, redirects: RedirectPolicy = .doNotFollow) throws {
        try sandbox.checkScenariosLoaded()
        try sandbox.loadStateFile()
        transport = .inProcess(sandbox)
        baseURL = sandbox.baseURL ?? URL(string: "http://localhost")!
        inProcessOrigin = Self.origin(resolvingPathsOn: baseURL)
        self.namespace = namespace
        controlToken = sandbox.configuration.controlToken
        self.redirects = redirects
    }

    /// In-process, to a new sandbox made with `configuration` (by default: the bundled scenarios, no socket).
    public static func inProcess(_ configuration: SandboxConfiguration = SandboxConfiguration(), namespace: String? = nil,
                                 redirects: RedirectPolicy = .doNotFollow) throws -> SandboxClient {
        try SandboxClient(sandbox: PaymentSandbox(configuration: configuration), namespace: namespace, redirects: redirects)
    }

    /// Live, to the sandbox at `baseURL` (e.g. `http://127.0.0.1:8080`), through `session`.
    ///
    /// The redirect policy is applied with a URLSession task delegate; on Linux, where swift-corelibs-foundation
    /// asks only a session's own delegate about redirects, each request goes through a session made from
    /// `session.configuration` (so `session`'s delegate, if it has one, is not asked there). Also on Linux, a 401 with
    /// a `Basic` or `Digest` challenge naming a realm (Klarna's) cannot be delivered by that URLSession (it would wait
    /// for a credential forever): it throws `URLError(.userAuthenticationRequired)` instead.
    public init(baseURL: URL, controlToken: String? = nil, namespace: String? = nil, session: URLSession = .shared,
                redirects: RedirectPolicy = .doNotFollow) {
        transport = .live(session)
        self.baseURL = baseURL
        inProcessOrigin = nil
        self.namespace = namespace
        self.controlToken = controlToken
        self.redirects = redirects
    }

    /// This client, for another namespace.
    public func namespace(_ name: String?) -> SandboxClient {
        var copy = self
        copy.namespace = name
        return copy
    }

    /// This client, with another redirect policy.
    public func redirects(_ policy: RedirectPolicy) -> SandboxClient {
        var copy = self
        copy.redirects = policy
        return copy
    }

    /// Typed calls to the control API (`/__sandbox/`) for ``namespace``.
    public var control: SandboxControl { SandboxControl(client: self) }

    /// Sends `method path` (path with its query, e.g. `/payments/v1/sessions/abc`, or an absolute URL) and returns
    /// the answer, whatever its status. A connection the sandbox drops throws `URLError(.networkConnectionLost)`.
    /// `basicAuth` sets `Authorization: Basic …` (Klarna's credentials).
    public func send(_ method: Method, _ path: String, headers: [String: String] = [:], body: Data? = nil,
                     basicAuth: (user: String, password: String)? = nil) async throws -> SandboxResponse {
        if case .inProcess(let sandbox) = transport, redirects == .doNotFollow,
           let request = directRequest(method, path, headers: headers, basicAuth: basicAuth) {
            return try await InProcessExchange.respond(sandbox, to: request, body: body ?? Data())
        }
        return try await send(urlRequest(method, path, headers: headers, body: body, basicAuth: basicAuth))
    }

    /// The `URLRequest` of ``send(_:_:headers:body:basicAuth:)``.
    func urlRequest(_ method: Method, _ path: String, headers: [String: String], body: Data?,
                    basicAuth: (user: String, password: String)?) throws -> URLRequest {
        var request = URLRequest(url: try url(for: path))
        request.httpMethod = method.rawValue
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let basicAuth { request.setValue(Self.basicCredentials(basicAuth), forHTTPHeaderField: "Authorization") }
        request.httpBody = body
        return request
    }

    /// In-process, the request ``send(_:_:headers:body:basicAuth:)`` sends, built without its `URLRequest` when
    /// that gives the same request (see `InProcessExchange.Request.init(method:path:fields:authority:origin:)`),
    /// else nil. ``prepared(_:)``'s fields are added as it adds them.
    func directRequest(_ method: Method, _ path: String, headers: [String: String],
                       basicAuth: (user: String, password: String)?) -> InProcessExchange.Request? {
        guard let inProcessOrigin else { return nil }
        // An absolute URL on the client's own origin (a link the sandbox returned) is its path.
        let path = path.hasPrefix(inProcessOrigin.origin + "/") ? String(path.dropFirst(inProcessOrigin.origin.count)) : path
        var fields = headers
        if let basicAuth { fields["Authorization"] = Self.basicCredentials(basicAuth) }
        if let namespace, fields["Sandbox-Namespace"] == nil { fields["Sandbox-Namespace"] = namespace }
        if let controlToken, InProcessExchange.Request.urlPath(of: path).hasPrefix("/__sandbox/"), fields["Sandbox-Control-Token"] == nil {
            fields["Sandbox-Control-Token"] = controlToken
        }
        return InProcessExchange.Request(method: method.rawValue, path: path, fields: fields, authority: inProcessOrigin.authority,
                                         origin: inProcessOrigin.origin)
    }

    private static func basicCredentials(_ credentials: (user: String, password: String)) -> String {
        "Basic " + Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
    }

    /// ``send(_:_:headers:body:basicAuth:)`` with a JSON body given as text (`Content-Type: application/json` unless
    /// `headers` say otherwise).
    public func send(_ method: Method, _ path: String, json: String, headers: [String: String] = [:],
                     basicAuth: (user: String, password: String)? = nil) async throws -> SandboxResponse {
        try await send(method, path, headers: Self.withJSONContentType(headers), body: Data(json.utf8), basicAuth: basicAuth)
    }

    /// ``send(_:_:headers:body:basicAuth:)`` with `value` encoded as the JSON body (`Content-Type: application/json`
    /// unless `headers` say otherwise).
    public func send<Body: Encodable>(_ method: Method, _ path: String, encoding value: Body, encoder: JSONEncoder = JSONEncoder(),
                                      headers: [String: String] = [:],
                                      basicAuth: (user: String, password: String)? = nil) async throws -> SandboxResponse {
        try await send(method, path, headers: Self.withJSONContentType(headers), body: try encoder.encode(value), basicAuth: basicAuth)
    }

    private static func withJSONContentType(_ headers: [String: String]) -> [String: String] {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) { headers["Content-Type"] = "application/json" }
        return headers
    }

    /// Sends a URLRequest (its URL's path and query count; in-process its host is ignored), following redirects as
    /// ``redirects`` says.
    public func send(_ request: URLRequest) async throws -> SandboxResponse {
        switch transport {
        case .live(let session):
            return try await sendLive(prepared(request), session: session)
        case .inProcess(let sandbox):
            var request = prepared(request)
            var followed = 0
            while true {
                let url = request.url
                var response = try await InProcessExchange.respond(sandbox, to: request, body: request.httpBody ?? Data())
                response.url = url
                guard case .follow(let max) = redirects,
                      let next = InProcessExchange.redirect(status: response.status.code, location: response.header("Location"),
                                                            from: request, body: request.httpBody ?? Data()),
                      followsTo(next.url)
                else { return response }
                guard followed < max else { throw URLError(.httpTooManyRedirects) }
                followed += 1
                request = prepared(next)
            }
        }
    }

    /// `request` with the client's namespace and control token (the SDK stand-ins, `/__sandbox/klarna/…`, sit behind
    /// the control token too), unless it names its own.
    func prepared(_ request: URLRequest) -> URLRequest {
        var request = request
        if let namespace, request.value(forHTTPHeaderField: "Sandbox-Namespace") == nil {
            request.setValue(namespace, forHTTPHeaderField: "Sandbox-Namespace")
        }
        if let controlToken, request.url?.path.hasPrefix("/__sandbox/") == true,
           request.value(forHTTPHeaderField: "Sandbox-Control-Token") == nil {
            request.setValue(controlToken, forHTTPHeaderField: "Sandbox-Control-Token")
        }
        return request
    }

    /// Whether a redirect to `url` is one ``RedirectPolicy/follow(max:)`` follows: http or https on ``baseURL``'s origin.
    func followsTo(_ url: URL?) -> Bool {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return Self.origin(of: url) == Self.origin(of: baseURL)
    }

    /// What `URL(string: "/…", relativeTo: base).absoluteURL` puts before the path, and `host[:port]` of `base`.
    private static func origin(resolvingPathsOn base: URL) -> (origin: String, authority: String)? {
        guard let root = URL(string: "/", relativeTo: base)?.absoluteURL.absoluteString, root.hasSuffix("/"),
              let components = URLComponents(url: base, resolvingAgainstBaseURL: false),
              let authority = InProcessExchange.authority(of: components) else { return nil }
        return (String(root.dropLast()), authority)
    }

    /// `scheme://host:port` with the scheme's default port written out, for comparing origins.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    private func sendLive(_ request: URLRequest, session: URLSession) async throws -> SandboxResponse {
        let delegate = RedirectDelegate(client: self)
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation asks only the session's delegate about redirects, never a task's.
        let own = URLSession(configuration: session.configuration, delegate: delegate, delegateQueue: nil)
        defer { own.finishTasksAndInvalidate() }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await own.data(for: request)
        } catch let error as URLError where error.code == .cancelled && delegate.refusedChallenge {
            throw URLError(.userAuthenticationRequired, userInfo: [
                NSLocalizedDescriptionKey: "the sandbox answered 401 with a Basic or Digest challenge naming a realm (Klarna's), which "
                    + "swift-corelibs-foundation's URLSession cannot deliver: it waits for a credential, so the client refused it",
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ])
        }
        #else
        let (data, response) = try await session.data(for: request, delegate: delegate)
        #endif
        if delegate.exceeded { throw URLError(.httpTooManyRedirects) }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [(String, String)] = []
        for case (let name as String, let value as String) in http.allHeaderFields { headers.append((name, value)) }
        return SandboxResponse(status: .init(code: http.statusCode), headerFields: headers, body: data, url: http.url ?? request.url)
    }

    func url(for path: String) throws -> URL {
        if path.hasPrefix("http://") || path.hasPrefix("https://") {
            guard let url = URL(string: path) else { throw URLError(.badURL) }
            return url
        }
        guard let url = URL(string: path.hasPrefix("/") ? path : "/" + path, relativeTo: baseURL)?.absoluteURL else {
            throw URLError(.badURL)
        }
        return url
    }
}

extension SandboxClient {
    /// An HTTP method: `.get`, `.post`, ... or any other token (`Method("PROPFIND")`). A string literal is one too, so
    /// `send("POST", …)` reads as `send(.post, …)`.
    public struct Method: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The method as sent, e.g. `POST` (methods are case-sensitive: this is not upper-cased).
        public var rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ name: String) { self.rawValue = name }
        public init(stringLiteral value: String) { self.rawValue = value }

        public var description: String { rawValue }

        public static let get: Method = "GET"
        public static let head: Method = "HEAD"
        public static let post: Method = "POST"
        public static let put: Method = "PUT"
        public static let patch: Method = "PATCH"
        public static let delete: Method = "DELETE"
        public static let options: Method = "OPTIONS"
    }

    /// Which redirects (301, 302, 303, 307, 308 with a `Location`) a client follows, the same in-process and live.
    ///
    /// Followed: only to http or https on the client's ``SandboxClient/baseURL`` origin (the sandbox itself), as
    /// URLSession follows them (303, and 301/302 after a POST, become a GET without a body). A redirect elsewhere (a
    /// merchant's confirmation page, an app's `myapp://` scheme) is never followed: the answer is the 3xx, whose
    /// `Location` the test can read. ``SandboxResponse/url`` is the URL of the answer returned.
    public enum RedirectPolicy: Sendable, Hashable {
        /// Every 3xx is the answer (the default).
        case doNotFollow
        /// Follows at most `max` redirects in a row; one more throws `URLError(.httpTooManyRedirects)`.
        case follow(max: Int)

        /// ``follow(max:)`` with URLSession's own limit, 20.
        public static var followAll: RedirectPolicy { .follow(max: 20) }
    }
}

/// Applies a client's ``SandboxClient/RedirectPolicy`` to one live request.
private final class RedirectDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let client: SandboxClient
    private let state = Locked((followed: 0, exceeded: false))

    init(client: SandboxClient) {
        self.client = client
    }

    /// The redirect chain was longer than ``SandboxClient/RedirectPolicy/follow(max:)`` allows.
    var exceeded: Bool { state.withLock { $0.exceeded } }

    #if canImport(FoundationNetworking)
    private let refused = Locked(false)
    /// An authentication challenge was refused (``urlSession(_:task:didReceive:completionHandler:)``).
    var refusedChallenge: Bool { refused.withLock { $0 } }

    /// swift-corelibs-foundation's URLSession cannot hand over a 401 with a `Basic` or `Digest` challenge that names a
    /// realm: by default it waits for a credential forever, and every other disposition cancels the task. Cancel it
    /// rather than hang; ``SandboxClient/send(_:)`` then throws `URLError(.userAuthenticationRequired)`.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        refused.withLock { $0 = true }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
    #endif

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard case .follow(let max) = client.redirects, client.followsTo(request.url) else {
            completionHandler(nil)
            return
        }
        let follow = state.withLock { state -> Bool in
            guard state.followed < max else {
                state.exceeded = true
                return false
            }
            state.followed += 1
            return true
        }
        completionHandler(follow ? request : nil)
    }
}
