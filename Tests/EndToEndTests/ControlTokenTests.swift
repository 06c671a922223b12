// SPDX-License-Identifier: MIT
// The optional control token (--control-token, SandboxConfiguration.controlToken) over real sockets.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

@Suite("Control token")
struct ControlTokenTests {
    static let token = "s3cret-Token_42"

    static func withProtectedSandbox<T>(_ body: (RunningServer) async throws -> T) async throws -> T {
        try await withSandbox({ $0.controlToken = token }, body)
    }

    static func send(_ server: RunningServer, _ method: String, _ target: String, headers: [(String, String)] = [],
                     body: String? = nil) async throws -> RawResponse {
        try await RawClient.exchange(port: server.port, rawRequest(method, target, headers: headers, body: body))
    }

    /// A 401 in the control API's error format, with the Bearer challenge.
    static func expectRefused(_ response: RawResponse, invalidToken: Bool, _ what: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == 401, "\(what): \(response)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(what)", sourceLocation: sourceLocation)
        let challenge = response.header("WWW-Authenticate") ?? ""
        #expect(challenge.hasPrefix("Bearer "), "\(what): \(challenge)", sourceLocation: sourceLocation)
        #expect(challenge.contains(#"error="invalid_token""#) == invalidToken, "\(what): \(challenge)", sourceLocation: sourceLocation)
        let json = try response.jsonObject()
        #expect(json["error"] as? String == "Unauthorized" && json["status"] as? Int == 401, "\(what): \(json)",
                sourceLocation: sourceLocation)
        #expect(Set(json.keys) == ["error", "message", "status"], sourceLocation: sourceLocation)
        #expect(!(json["message"] as? String ?? "").contains(token), sourceLocation: sourceLocation)
    }

    static let protectedCalls: [(String, String, String?)] = [
        ("GET", "/__sandbox/clock", nil), ("POST", "/__sandbox/clock", #"{"advance_seconds": 60}"#),
        ("POST", "/__sandbox/reset", nil), ("GET", "/__sandbox/journal", nil), ("GET", "/__sandbox/state", nil),
        ("GET", "/__sandbox/scenarios", nil), ("PUT", "/__sandbox/scenario", #"{"name": null}"#),
        ("POST", "/__sandbox/scenarios/reload", nil), ("GET", "/__sandbox/echo", nil), ("POST", "/__sandbox/echo/x", "abc"),
        ("POST", "/__sandbox/klarna/payments/sessions/some-session/authorize", "{}"),
        // Percent-encoding the prefix routes to the same handler: still refused.
        ("GET", "/%5F_sandbox/clock", nil),
    ]

    @Test("without the token every /__sandbox/ call but health is 401 with a JSON body and WWW-Authenticate: Bearer")
    func withoutToken_Refused() async throws {
        try await Self.withProtectedSandbox { server in
            for (method, target, body) in Self.protectedCalls {
                try Self.expectRefused(try await Self.send(server, method, target, body: body), invalidToken: false, "\(method) \(target)")
            }
            // Refused calls changed nothing: the clock was not moved.
            let clock = try await Self.send(server, "GET", "/__sandbox/clock", headers: [("Sandbox-Control-Token", Self.token)])
            #expect(clock.status == 200 && (try? clock.jsonObject()["offset_seconds"] as? Double) == 0, "\(clock)")
        }
    }

    @Test("health stays open, with or without a token")
    func health_Open() async throws {
        try await Self.withProtectedSandbox { server in
            for (method, headers) in [("GET", []), ("HEAD", []), ("GET", [("Authorization", "Bearer wrong")])] {
                let response = try await RawClient.exchange(port: server.port, rawRequest(method, "/__sandbox/health", headers: headers),
                                                            toHEAD: method == "HEAD")
                #expect(response.status == 200, "\(method) \(headers): \(response)")
            }
        }
    }

    @Test("both header forms are accepted, Bearer in any case")
    func bothHeaderForms_Accepted() async throws {
        try await Self.withProtectedSandbox { server in
            for header in [("Authorization", "Bearer \(Self.token)"), ("Authorization", "bearer \(Self.token)"),
                           ("Authorization", "BEARER  \(Self.token)"), ("Sandbox-Control-Token", Self.token)] {
                for (method, target, body) in Self.protectedCalls.dropLast(2) {  // not the SDK stand-in's unknown session
                    let json = body == nil ? [] : [("Content-Type", "application/json")]
                    let response = try await Self.send(server, method, target, headers: [header] + json, body: body)
                    #expect(response.status == 200, "\(header.0): \(header.1) \(method) \(target): \(response)")
                }
            }
            let moved = try await Self.send(server, "POST", "/__sandbox/clock",
                                            headers: [("Sandbox-Control-Token", Self.token), ("Content-Type", "application/json")],
                                            body: #"{"advance_seconds": 60}"#)
            #expect(moved.status == 200 && (try? moved.jsonObject()["offset_seconds"] as? Double) == 60, "\(moved)")
        }
    }

    @Test("the control token is no namespace: Bearer <control token> is dropped; a merchant's Bearer still names its namespace")
    func bearerControlToken_IsNotTheNamespace() async throws {
        try await Self.withProtectedSandbox { server in
            let byBearer = try await Self.send(server, "GET", "/__sandbox/clock", headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(try byBearer.jsonObject()["namespace"] as? String == "default", "\(byBearer)")
            let echo = try await Self.send(server, "GET", "/__sandbox/echo", headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(!echo.bodyText.contains(Self.token), "\(echo.bodyText)")
            let merchant = try await Self.send(server, "GET", "/__sandbox/clock",
                                               headers: [("Authorization", "Bearer my-token"), ("Sandbox-Control-Token", Self.token)])
            #expect(try merchant.jsonObject()["namespace"] as? String == "my-token", "\(merchant)")
        }
    }

    @Test("a wrong token is refused: other text, a prefix, an extension, another scheme, a different case")
    func wrongToken_Refused() async throws {
        try await Self.withProtectedSandbox { server in
            for header in [("Authorization", "Bearer nope"), ("Authorization", "Bearer \(Self.token.dropLast())"),
                           ("Authorization", "Bearer \(Self.token)x"), ("Authorization", "Bearer \(Self.token.uppercased())"),
                           ("Sandbox-Control-Token", "nope"), ("Sandbox-Control-Token", "")] {
                try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", headers: [header]),
                                       invalidToken: true, "\(header.0): \(header.1)")
            }
            // Another scheme is no token at all.
            try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", headers: [("Authorization", "Basic \(Self.token)")]),
                                   invalidToken: false, "Basic")
        }
    }

    @Test("the addresses a consumer's browser is sent to stay open: the hosted page's buttons and redirect_url")
    func browserAddresses_Open() async throws {
        try await Self.withProtectedSandbox { server in
            // Unknown ids: each answers its own "not found", not the token's 401.
            let redirect = try await Self.send(server, "GET", "/__sandbox/klarna/payments/orders/no-such-order/redirect")
            #expect(redirect.status == 404, "\(redirect)")
            let pay = try await Self.send(server, "POST", "/__sandbox/klarna/hpp/sessions/no-such-session/pay", body: "")
            #expect(pay.status == 404, "\(pay)")
            // The faked APIs are not the control API: Klarna answers its own 401 for missing credentials.
            let api = try await Self.send(server, "GET", "/payments/v1/sessions/x")
            #expect(api.status == 401 && api.header("WWW-Authenticate")?.hasPrefix("Bearer") != true, "\(api)")
        }
    }

    @Test("without a configured token the control API stays open")
    func noToken_Open() async throws {
        try await withSandbox { server in
            let state = try await Self.send(server, "GET", "/__sandbox/state")
            #expect(state.status == 200, "\(state)")
        }
    }

    @Test("CLI: PAYMENT_SANDBOX_CONTROL_TOKEN and --control-token protect the control API; healthcheck still passes")
    func commandLine() async throws {
        let binary = try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
        for (arguments, environment) in [(["--control-token", Self.token], [String: String?]()),
                                         ([], ["PAYMENT_SANDBOX_CONTROL_TOKEN": Self.token])] {
            try await alone {
                let child = try ChildProcess(binary, ["--port", "0", "--quiet"] + arguments, environment: environment)
                defer { child.kill() }
                let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                let port = try #require(CLITests.listeningPort(line), "\(line)")
                let server = RunningServer(port: port)
                try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state"), invalidToken: false, "\(arguments)")
                #expect(try await Self.send(server, "GET", "/__sandbox/state", headers: [("Authorization", "Bearer \(Self.token)")]).status == 200)
                let health = try await ChildProcess.run(binary, ["healthcheck", "--port", String(port)], environment: environment,
                                                        timeout: .seconds(10))
                #expect(health.status == 0, "healthcheck: \(health.stderr)")
                child.terminate()
                try await CLITests.expectStopsCleanly(child)
            }
        }
    }

    @Test("CLI: an empty or spaced token is a usage error", arguments: [
        (["--control-token", ""], [String: String]()), (["--control-token", "two words"], [:]),
        ([], ["PAYMENT_SANDBOX_CONTROL_TOKEN": "tab\there"]),
    ])
    func commandLine_BadToken(arguments: [String], environment: [String: String]) async throws {
        let result = try await runCLI(arguments, workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                      environment: environment)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.contains("must be visible ASCII") == true, "stderr: \(result.stderr)")
    }
}
