// SPDX-License-Identifier: MIT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox

/// How ``SandboxTest/run(_:configuration:namespace:redirects:_:)`` reaches its sandbox.
public enum SandboxMode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No socket, no port: each request goes straight to the sandbox's routes.
    case inProcess
    /// A real server on the configuration's address (by default 127.0.0.1, a free port), over URLSession.
    case live

    public var description: String { rawValue }
}

/// Starts a sandbox for one test body and always stops it after, in either ``SandboxMode``, so one body runs against
/// both (in the spirit of Hummingbird's `app.test(.router)` / `app.test(.live)`):
///
/// ```swift
/// @Test(arguments: SandboxMode.allCases)
/// func rejectedCustomer(mode: SandboxMode) async throws {
///     try await SandboxTest.run(mode, namespace: "checkout") { client in
///         try await client.control.useScenario("reject")
///         let created = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: credentials)
///         #expect(created.status == .ok)
///     }
/// }
/// ```
public enum SandboxTest {
    /// Runs `body` with a client of a new sandbox made with `configuration`, and returns what it returns.
    ///
    /// - ``SandboxMode/inProcess``: ``SandboxClient/init(sandbox:namespace:redirects:)``; nothing listens.
    /// - ``SandboxMode/live``: `PaymentSandbox/start()` (a real server on `configuration`'s host and port; by
    ///   default 127.0.0.1, port 0), a client on its base URL with the configuration's control token over an
    ///   ephemeral URLSession of its own (no cache, no cookies kept, as in-process), and `PaymentSandbox/stop()`
    ///   after the body, also when it throws.
    ///
    /// Throws what starting the sandbox throws (an invalid scenario file, a state file that cannot be loaded, a port
    /// in use), then what `body` throws.
    public static func run<T>(_ mode: SandboxMode, configuration: SandboxConfiguration = SandboxConfiguration(),
                              namespace: String? = nil, redirects: SandboxClient.RedirectPolicy = .doNotFollow,
                              _ body: (SandboxClient) async throws -> T) async throws -> T {
        try await withSandbox(mode, configuration: configuration, namespace: namespace, redirects: redirects) { client, _ in
            try await body(client)
        }
    }

    /// `run(_:configuration:namespace:redirects:_:)` whose body also gets the sandbox itself (in both modes), e.g.
    /// to read its `PaymentSandbox/baseURL` or hand it to ``SandboxURLProtocol``.
    public static func run<T>(_ mode: SandboxMode, configuration: SandboxConfiguration = SandboxConfiguration(),
                              namespace: String? = nil, redirects: SandboxClient.RedirectPolicy = .doNotFollow,
                              _ body: (SandboxClient, PaymentSandbox) async throws -> T) async throws -> T {
        try await withSandbox(mode, configuration: configuration, namespace: namespace, redirects: redirects, body)
    }

    private static func withSandbox<T>(_ mode: SandboxMode, configuration: SandboxConfiguration, namespace: String?,
                                       redirects: SandboxClient.RedirectPolicy,
                                       _ body: (SandboxClient, PaymentSandbox) async throws -> T) async throws -> T {
        let sandbox = PaymentSandbox(configuration: configuration)
        switch mode {
        case .inProcess:
            return try await body(try SandboxClient(sandbox: sandbox, namespace: namespace, redirects: redirects), sandbox)
        case .live:
            let baseURL = try sandbox.start()
            // Its own session, as in-process: no cache, no cookie jar shared with other tests.
            let sessionConfiguration = URLSessionConfiguration.ephemeral
            sessionConfiguration.urlCache = nil
            sessionConfiguration.httpCookieStorage = nil
            sessionConfiguration.httpShouldSetCookies = false
            let session = URLSession(configuration: sessionConfiguration)
            let client = SandboxClient(baseURL: baseURL, controlToken: configuration.controlToken, namespace: namespace,
                                       session: session, redirects: redirects)
            do {
                let result = try await body(client, sandbox)
                session.finishTasksAndInvalidate()
                await sandbox.stop()
                return result
            } catch {
                session.invalidateAndCancel()
                await sandbox.stop()
                throw error
            }
        }
    }
}
