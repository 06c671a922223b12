// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
internal import SandboxHTTP

/// Sends an app's own URLSession requests (and an SDK's on `URLSession.shared`) for the hosts you name to a sandbox
/// in this process, with no socket and no port: the path ``SandboxClient``'s in-process mode takes
/// (`PaymentSandbox/respond(to:)`, InProcessExchange.swift).
///
/// ```swift
/// let sandbox = PaymentSandbox()   // never started
/// SandboxURLProtocol.register(sandbox, forHosts: ["api.playground.klarna.com", "api.externalintegration.payex.com"])
/// defer { SandboxURLProtocol.unregister() }
/// let (data, response) = try await URLSession.shared.data(for: request)   // answered by `sandbox`
/// ```
///
/// - Links in the answers (hrefs, `redirect_url`, `Location`) carry the scheme and authority of the request's URL,
///   over the sandbox's `SandboxConfiguration/publicBaseURL`.
/// - A connection the sandbox drops (`commit_then_drop`) fails the task with `URLError(.networkConnectionLost)`.
/// - A body comes from `httpBody` or `httpBodyStream`; one over the sandbox's `maxBodyBytes` (which a server answers
///   413) fails the task with `URLError(.dataLengthExceedsMaximum)`. On Linux an upload task's body never reaches a
///   URLProtocol: send it as `httpBody` or `httpBodyStream`.
/// - A 301, 302, 303, 307 or 308 whose `Location` is http or https is followed as URLSession follows a server's
///   (303, and 301/302 after a POST, become a GET without a body). On Apple platforms through
///   `urlProtocol(_:wasRedirectedTo:redirectResponse:)`, so URLSession and its delegate decide. On Linux,
///   swift-corelibs-foundation's URLSession stops the process when a protocol reports a redirect, so the redirect is
///   followed here, at most 20 times, when its host is registered; one that leaves the registered hosts is answered
///   with the 3xx itself. Any other `Location` (an app's `myapp://…`) is never followed: the task gets the 3xx.
/// - On Linux a 401 comes without a `Basic`/`Digest` `WWW-Authenticate` that names a realm: with it, that URLSession
///   waits forever for a credential (as it does with a real server's).
///
/// - On Linux, where URLSession.shared reads a copy of the registered classes made when it was first used,
///   ``register(_:forHosts:)`` puts this class first in that copy too, so registering late works there as well.
///
/// Cookies are delivered as `Set-Cookie` headers, not stored or sent.
public final class SandboxURLProtocol: URLProtocol {
    private struct Registration: Sendable {
        var sandbox: PaymentSandbox
        var hosts: Set<String>
        /// Why the sandbox cannot answer (a scenario file or its state file failed to load); every request fails with it.
        var failure: String?
    }

    private static let registration = Locked<Registration?>(nil)
    /// The answer being worked out; ``stopLoading()`` cancels it.
    private let loading = Locked<Task<Void, Never>?>(nil)

    /// Requests to these hosts (any scheme, any port; case-insensitive) go to `sandbox`, in-process. Replaces an
    /// earlier registration. Registers the class with URLProtocol.registerClass so URLSession.shared honours it.
    ///
    /// `sandbox` needs no `PaymentSandbox/start()`; its state file, if it has one, is loaded now. When a scenario
    /// file or the state file fails to load, every request fails with `URLError(.cannotLoadFromNetwork)` saying why.
    public static func register(_ sandbox: PaymentSandbox, forHosts hosts: [String]) {
        var failure: String?
        do {
            try sandbox.checkScenariosLoaded()
            try sandbox.loadStateFile()
        } catch {
            failure = "\(error)"
        }
        let registration = Registration(sandbox: sandbox, hosts: Set(hosts.map { $0.lowercased() }), failure: failure)
        Self.registration.withLock { $0 = registration }
        _ = URLProtocol.registerClass(SandboxURLProtocol.self)
        #if canImport(FoundationNetworking)
        sharedSessionPrepared.withLock { prepared in
            guard !prepared else { return }
            // swift-corelibs-foundation's URLSession.shared copies the registered classes once, when first used, and
            // asks them in order, its own HTTP protocol first when another session came before: a class registered
            // later is never asked about http(s). Its `configuration` is the object it reads, so put this class first
            // there, once (it answers only for registered hosts, so staying there after unregister() is harmless).
            enable(on: URLSession.shared.configuration)
            prepared = true
        }
        #endif
    }

    #if canImport(FoundationNetworking)
    private static let sharedSessionPrepared = Locked(false)
    #endif

    /// Stops intercepting (URLProtocol.unregisterClass) and forgets the sandbox.
    public static func unregister() {
        URLProtocol.unregisterClass(SandboxURLProtocol.self)
        registration.withLock { $0 = nil }
    }

    /// Puts the protocol first in `configuration.protocolClasses`, for sessions made from a configuration
    /// (URLSession(configuration:)), which do not see registerClass on Apple platforms (nor, for http and https, on
    /// Linux, where a configuration lists URLSession's own HTTP protocol).
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.ephemeral
    /// SandboxURLProtocol.enable(on: configuration)
    /// let session = URLSession(configuration: configuration)
    /// ```
    public static func enable(on configuration: URLSessionConfiguration) {
        let others = (configuration.protocolClasses ?? []).filter { ObjectIdentifier($0) != ObjectIdentifier(SandboxURLProtocol.self) }
        configuration.protocolClasses = [SandboxURLProtocol.self] + others
    }

    /// The registration when `url`'s host is one of its hosts.
    private static func registration(for url: URL?) -> Registration? {
        guard let host = url?.host?.lowercased() else { return nil }
        return registration.withLock { $0 }.flatMap { $0.hosts.contains(host) ? $0 : nil }
    }

    override public class func canInit(with request: URLRequest) -> Bool {
        registration(for: request.url) != nil
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override public func startLoading() {
        let request = self.request
        // The task only calls the client, which the URL loading system lets a protocol call from its own threads.
        nonisolated(unsafe) let urlProtocol = self
        let task = Task {
            let outcome: Result<Answer, any Error>
            do {
                outcome = .success(try await Self.answer(request))
            } catch {
                outcome = .failure(error)
            }
            guard !Task.isCancelled, let client = urlProtocol.client else { return }
            switch outcome {
            case .failure(let error):
                client.urlProtocol(urlProtocol, didFailWithError: error)
            case .success(.redirect(let next, let response)):
                // Then this load ends; URLSession starts a new one for `next` (the way Apple's CustomHTTPProtocol sample does).
                client.urlProtocol(urlProtocol, wasRedirectedTo: next, redirectResponse: response)
                client.urlProtocol(urlProtocol, didFailWithError: NSError(domain: NSCocoaErrorDomain, code: NSUserCancelledError))
            case .success(.response(let response, let body)):
                client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                // In one piece: swift-corelibs-foundation keeps only the last piece for a completion handler.
                if !body.isEmpty { client.urlProtocol(urlProtocol, didLoad: body) }
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
        }
        loading.withLock { $0 = task }
    }

    override public func stopLoading() {
        loading.withLock { $0?.cancel(); $0 = nil }
    }

    // MARK: The answer

    private enum Answer {
        case response(HTTPURLResponse, body: Data)
        /// For URLSession to follow (``urlSessionFollowsRedirects``).
        case redirect(URLRequest, HTTPURLResponse)
    }

    #if canImport(FoundationNetworking)
    /// swift-corelibs-foundation's URLSession stops the process when a protocol reports a redirect: follow it here.
    private static let urlSessionFollowsRedirects = false
    /// Its URLSession waits forever for a credential after a 401 with a `Basic`/`Digest` challenge that names a realm.
    private static let urlSessionWaitsForCredentials = true
    #else
    private static let urlSessionFollowsRedirects = true
    private static let urlSessionWaitsForCredentials = false
    #endif
    /// Most redirects one request follows here, as URLSession's own limit.
    private static let maxRedirects = 20

    private static func answer(_ original: URLRequest) async throws -> Answer {
        var request = original
        var body = try Self.body(of: original, limit: registration(for: original.url)?.sandbox.configuration.http.limits.maxBodyBytes)
        for _ in 0...maxRedirects {
            // Unregistered meanwhile: nothing answers.
            guard let registration = registration(for: request.url), let url = request.url else { throw URLError(.cannotConnectToHost) }
            if let failure = registration.failure {
                throw URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: failure])
            }
            let answer = try await InProcessExchange.respond(registration.sandbox, to: request, body: body,
                                                             publicOrigin: InProcessExchange.origin(of: url))
            let response = try httpURLResponse(answer, url: url)
            guard let next = redirect(answer, from: request, body: body) else { return .response(response, body: answer.body) }
            if urlSessionFollowsRedirects { return .redirect(next, response) }
            guard Self.registration(for: next.url) != nil else { return .response(response, body: answer.body) }
            request = next
            body = next.httpBody ?? Data()
        }
        throw URLError(.httpTooManyRedirects)
    }

    /// The request a 3xx leads to as URLSession builds it, or nil when it is no redirect to follow.
    private static func redirect(_ answer: SandboxResponse, from request: URLRequest, body: Data) -> URLRequest? {
        InProcessExchange.redirect(status: answer.status.code, location: answer.header("Location"), from: request, body: body)
    }

    private static func httpURLResponse(_ answer: SandboxResponse, url: URL) throws -> HTTPURLResponse {
        // One field per name, repeated ones joined with ", " as URLSession reports them (RFC 9110 §5.3).
        var fields: [String: String] = [:]
        var names: [String: String] = [:]
        for (name, value) in answer.headerFields {
            if urlSessionWaitsForCredentials, answer.status == 401, name.lowercased() == "www-authenticate",
               Self.startsCredentialWait(value) { continue }
            let key = names[name.lowercased()] ?? name
            names[name.lowercased()] = key
            fields[key] = fields[key].map { "\($0), \(value)" } ?? value
        }
        guard let response = HTTPURLResponse(url: url, statusCode: answer.status.code, httpVersion: "HTTP/1.1", headerFields: fields) else {
            throw URLError(.badServerResponse)
        }
        return response
    }

    /// A `Basic` or `Digest` challenge with a realm (``urlSessionWaitsForCredentials``).
    private static func startsCredentialWait(_ challenge: String) -> Bool {
        let lowered = challenge.lowercased()
        return (lowered.hasPrefix("basic") || lowered.hasPrefix("digest")) && lowered.contains("realm=")
    }

    /// `httpBody`, else what `httpBodyStream` holds; more than `limit` bytes throw `URLError(.dataLengthExceedsMaximum)`.
    private static func body(of request: URLRequest, limit: Int?) throws -> Data {
        let limit = limit ?? Int.max
        if let body = request.httpBody {
            guard body.count <= limit else { throw URLError(.dataLengthExceedsMaximum) }
            return body
        }
        guard let stream = request.httpBodyStream else { return Data() }
        stream.open()
        defer { stream.close() }
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { throw stream.streamError ?? URLError(.cannotDecodeRawData) }
            if count == 0 { return body }
            guard body.count + count <= limit else { throw URLError(.dataLengthExceedsMaximum) }
            body.append(contentsOf: buffer[..<count])
        }
    }
}
