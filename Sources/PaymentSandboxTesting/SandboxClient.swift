// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox

/// Sends requests to a sandbox, in one of two modes with the same API:
/// - in-process (``init(sandbox:namespace:)``, ``inProcess(_:namespace:)``): no socket and no port; each request
///   goes straight to the sandbox's routes;
/// - live (``init(baseURL:controlToken:namespace:session:)``): a sandbox in Docker or another process, over URLSession.
///
/// ``control`` chooses scenarios, moves the clock and reads the journal and state of ``namespace`` in both modes.
///
/// ```swift
/// let client = try SandboxClient.inProcess(namespace: "checkout-tests")
/// try await client.control.useScenario("reject")
/// let response = try await client.send("POST", "/payments/v1/sessions", json: cart, basicAuth: ("PK1_x", "secret"))
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

    /// The sandbox that in-process requests go to; nil in live mode.
    public var sandbox: PaymentSandbox? {
        if case .inProcess(let sandbox) = transport { return sandbox }
        return nil
    }

    /// In-process, to `sandbox` (which needs no ``PaymentSandbox/start()``), with its state file loaded if it has one.
    /// Throws the sandbox's `ScenarioLoadFailure` when one of its scenario files is invalid, `StateFileError` when its
    /// state file cannot be loaded.
    public init(sandbox: PaymentSandbox, namespace: String? = nil) throws {
        try sandbox.checkScenariosLoaded()
        try sandbox.loadStateFile()
        transport = .inProcess(sandbox)
        baseURL = sandbox.baseURL ?? URL(string: "http://localhost")!
        self.namespace = namespace
        controlToken = sandbox.configuration.controlToken
    }

    /// In-process, to a new sandbox made with `configuration` (by default: the bundled scenarios, no socket).
    public static func inProcess(_ configuration: SandboxConfiguration = SandboxConfiguration(),
                                 namespace: String? = nil) throws -> SandboxClient {
        try SandboxClient(sandbox: PaymentSandbox(configuration: configuration), namespace: namespace)
    }

    /// Live, to the sandbox at `baseURL` (e.g. `http://127.0.0.1:8080`).
    public init(baseURL: URL, controlToken: String? = nil, namespace: String? = nil, session: URLSession = .shared) {
        transport = .live(session)
        self.baseURL = baseURL
        self.namespace = namespace
        self.controlToken = controlToken
    }

    /// This client, for another namespace.
    public func namespace(_ name: String?) -> SandboxClient {
        var copy = self
        copy.namespace = name
        return copy
    }

    /// Typed calls to the control API (`/__sandbox/`) for ``namespace``.
    public var control: SandboxControl { SandboxControl(client: self) }

    /// Sends `method path` (path with its query, e.g. `/payments/v1/sessions/abc`, or an absolute URL) and returns
    /// the answer, whatever its status. A connection the sandbox drops throws `URLError(.networkConnectionLost)`.
    /// `basicAuth` sets `Authorization: Basic …` (Klarna's credentials).
    public func send(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil,
                     basicAuth: (user: String, password: String)? = nil) async throws -> SandboxResponse {
        var request = URLRequest(url: try url(for: path))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let (user, password) = basicAuth {
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        request.httpBody = body
        return try await send(request)
    }

    /// ``send(_:_:headers:body:basicAuth:)`` with a JSON body (`Content-Type: application/json` unless `headers` say otherwise).
    public func send(_ method: String, _ path: String, json: String, headers: [String: String] = [:],
                     basicAuth: (user: String, password: String)? = nil) async throws -> SandboxResponse {
        var headers = headers
        if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) { headers["Content-Type"] = "application/json" }
        return try await send(method, path, headers: headers, body: Data(json.utf8), basicAuth: basicAuth)
    }

    /// Sends a URLRequest (its URL's path and query count; in-process its host is ignored).
    public func send(_ request: URLRequest) async throws -> SandboxResponse {
        var request = request
        if let namespace, request.value(forHTTPHeaderField: "Sandbox-Namespace") == nil {
            request.setValue(namespace, forHTTPHeaderField: "Sandbox-Namespace")
        }
        // The SDK stand-ins (`/__sandbox/klarna/…`) sit behind the control token too.
        if let controlToken, request.url?.path.hasPrefix("/__sandbox/") == true,
           request.value(forHTTPHeaderField: "Sandbox-Control-Token") == nil {
            request.setValue(controlToken, forHTTPHeaderField: "Sandbox-Control-Token")
        }
        switch transport {
        case .live(let session):
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            var headers: [(String, String)] = []
            for case (let name as String, let value as String) in http.allHeaderFields { headers.append((name, value)) }
            return SandboxResponse(status: http.statusCode, headerFields: headers, body: data)
        case .inProcess(let sandbox):
            return try await InProcessExchange.respond(sandbox, to: request, body: request.httpBody ?? Data())
        }
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

/// What the sandbox answered.
public struct SandboxResponse: Sendable {
    public var status: Int
    /// The header fields in the order sent (in-process) or as URLSession reports them (live).
    public var headerFields: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headerFields: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headerFields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (nil when it is not one).
    public func jsonObject() -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    /// The body decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }
}
