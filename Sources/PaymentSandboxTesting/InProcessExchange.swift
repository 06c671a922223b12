// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
internal import SandboxHTTP

/// How a `URLRequest` reaches a sandbox with no socket, for ``SandboxClient``'s in-process mode and
/// ``SandboxURLProtocol``: the request as the server would have parsed it, `PaymentSandbox/respond(to:)`, and the
/// answer as an HTTP client sees it.
enum InProcessExchange {
    /// A request as the server would have parsed it, before its id: the method as sent, the target (path and query,
    /// percent-encoded), `Host` and the other fields, and the URL the answer reports.
    struct Request {
        var method: String
        var target: String
        var headerFields: [(name: String, value: String)]
        var url: URL

        /// `request` (its URL's path and query; `Host` from its URL).
        /// - Throws: `URLError(.badURL)` when the URL is no request target.
        init(_ request: URLRequest) throws {
            guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw URLError(.badURL)
            }
            target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
            method = request.httpMethod ?? "GET"
            headerFields = [("Host", InProcessExchange.authority(of: components) ?? "localhost")]
            for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "host" { headerFields.append((name, value)) }
            self.url = url
        }

        init(method: String, target: String, headerFields: [(name: String, value: String)], url: URL) {
            self.method = method
            self.target = target
            self.headerFields = headerFields
            self.url = url
        }
    }

    /// Answers `request` (its URL's path and query; `Host` from its URL) with `body`.
    ///
    /// - Parameter publicOrigin: the origin the answer's links are built on (``HTTPRequest/publicOriginOverride``);
    ///   nil: the sandbox's `SandboxConfiguration/publicBaseURL`, else `Host`, as over a socket.
    /// - Throws: `URLError(.badURL)` when the URL is no request target; `URLError(.networkConnectionLost)` when the
    ///   sandbox drops the connection (`commit_then_drop`).
    static func respond(_ sandbox: PaymentSandbox, to request: URLRequest, body: Data,
                        publicOrigin: String? = nil) async throws -> SandboxResponse {
        try await respond(sandbox, to: Request(request), body: body, publicOrigin: publicOrigin)
    }

    /// Answers `request` with `body` (see ``respond(_:to:body:publicOrigin:)``).
    static func respond(_ sandbox: PaymentSandbox, to request: Request, body: Data,
                        publicOrigin: String? = nil) async throws -> SandboxResponse {
        var headers = HTTPHeaders()
        for (name, value) in request.headerFields { headers.add(name: name, value: value) }
        if !body.isEmpty && headers["Content-Length"] == nil { headers.add(name: "Content-Length", value: String(body.count)) }
        var parsed: HTTPRequest
        do {
            parsed = try HTTPRequest(method: HTTPMethod(request.method), target: request.target, headers: headers, body: body,
                                     id: nextRequestID())
        } catch {
            throw URLError(.badURL)
        }
        parsed.publicOriginOverride = publicOrigin
        let response = try await sandbox.respond(to: parsed)
        var fields = response.headers.map { ($0.name, $0.value) }
        let noBody = parsed.method == .head || response.status.code == 204 || response.status.code == 304
        fields.append(("Content-Length", String(response.body.count)))
        return SandboxResponse(status: .init(code: response.status.code), headerFields: fields, body: noBody ? Data() : response.body,
                               url: request.url)
    }

    /// The request a 3xx leads to as URLSession builds it, or nil when it is no redirect to follow: not 301, 302,
    /// 303, 307 or 308, or a `Location` that is not http or https (RFC 9110 §15.4). 303, and 301/302 after a POST,
    /// become a GET without a body; 307 and 308 keep the method and `body`.
    static func redirect(status: Int, location: String?, from request: URLRequest, body: Data) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(status), let location,
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        var next = request
        next.url = target
        next.httpBodyStream = nil
        next.httpBody = body.isEmpty ? nil : body
        let method = (request.httpMethod ?? "GET").uppercased()
        if status == 303 && method != "HEAD" || (status == 301 || status == 302) && method == "POST" {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        return next
    }

    /// `scheme://host[:port]` of `url` (the port only when it names one), or nil without a scheme and host.
    static func origin(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme,
              let authority = authority(of: components) else { return nil }
        return scheme.lowercased() + "://" + authority
    }

    /// `host[:port]`, an IPv6 literal in brackets (RFC 3986 §3.2.2).
    static func authority(of components: URLComponents) -> String? {
        guard var host = components.host, !host.isEmpty else { return nil }
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    private static let requestCounter = Locked(0)

    /// `inproc-1`, `inproc-2`, ...: what the journal and error bodies show as the request id.
    private static func nextRequestID() -> String {
        "inproc-\(requestCounter.withLock { $0 += 1; return $0 })"
    }
}
