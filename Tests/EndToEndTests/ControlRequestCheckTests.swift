// SPDX-License-Identifier: MIT
// The control API against a browser's cross-site requests and DNS rebinding (ControlRequestCheck), over real sockets:
// writes with a body need a JSON Content-Type, writes naming another origin are refused, and /__sandbox/ answers
// only to the names the sandbox serves (--allowed-host, SandboxConfiguration.allowedHosts).
import Foundation
import PaymentSandbox
import SandboxTestSupport
import Testing

@Suite("Control request check")
struct ControlRequestCheckTests {
    /// Every call here is in this namespace.
    static let namespace = "request-check"

    /// One request in ``namespace``; `host` nil: `127.0.0.1:<port>`, as a client that names the port sends it.
    static func send(_ server: RunningServer, _ method: String, _ target: String, host: String? = nil,
                     headers: [(String, String)] = [], body: String? = nil) async throws -> RawResponse {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(server.port)")\r\nSandbox-Namespace: \(namespace)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        return try await server.exchange(text)
    }

    /// A refusal in the control API's error format, its message naming `hint`.
    static func expectRefused(_ response: RawResponse, _ status: Int, _ hint: String, _ what: String,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == status, "\(what): \(response)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(what): \(response)", sourceLocation: sourceLocation)
        let json = try response.jsonObject()
        #expect(Set(json.keys) == ["error", "message", "status"] && json["status"] as? Int == status, "\(what): \(json)",
                sourceLocation: sourceLocation)
        #expect((json["message"] as? String ?? "").contains(hint), "\(what): \(json)", sourceLocation: sourceLocation)
    }

    static func offset(_ server: RunningServer) async throws -> Double? {
        try await send(server, "GET", "/__sandbox/clock").jsonObject()["offset_seconds"] as? Double
    }

    static let advance = #"{"advance_seconds": 60}"#

    @Test("a form-encoded, text/plain, multipart or untyped body to reset and clock is 415 and changes nothing")
    func nonJSONBody_Refused() async throws {
        try await withSandbox({ deterministic(&$0) }) { server in
            let client = KlarnaClient(server, namespace: Self.namespace)
            _ = try await client.newSession()
            for type in ["application/x-www-form-urlencoded", "text/plain", "text/plain;charset=UTF-8", "multipart/form-data; boundary=x",
                         "application/jsonx", "text/json", "application/+json", nil] {
                let headers = type.map { [("Content-Type", $0)] } ?? []
                for path in ["/__sandbox/clock", "/__sandbox/reset"] {
                    try Self.expectRefused(try await Self.send(server, "POST", path, headers: headers, body: Self.advance),
                                           415, "Content-Type: application/json", "\(path) \(type ?? "no type")")
                }
                try Self.expectRefused(try await Self.send(server, "PUT", "/__sandbox/scenario", headers: headers, body: #"{"name": "reject"}"#),
                                       415, "Content-Type: application/json", "scenario \(type ?? "no type")")
            }
            #expect(try await Self.offset(server) == 0)
            let state = try await Self.send(server, "GET", "/__sandbox/state")
            #expect(state.bodyText.contains(sequentialID(1)), "reset did not run: \(state.bodyText)")
            #expect(try await client.get("/__sandbox/scenarios").jsonObject()["default_scenario"] is NSNull)
        }
    }

    @Test("the same writes with a JSON Content-Type (any case, parameters, +json) pass")
    func jsonBody_Accepted() async throws {
        try await withSandbox({ deterministic(&$0) }) { server in
            for (index, type) in ["application/json", "Application/JSON; charset=utf-8", "application/vnd.example+json",
                                  "application/json;version=3.1"].enumerated() {
                let moved = try await Self.send(server, "POST", "/__sandbox/clock", headers: [("Content-Type", type)], body: Self.advance)
                #expect(moved.status == 200 && (try? moved.jsonObject()["offset_seconds"] as? Double) == Double(60 * (index + 1)),
                        "\(type): \(moved)")
            }
            let chosen = try await Self.send(server, "PUT", "/__sandbox/scenario", headers: [("Content-Type", "application/json")],
                                             body: #"{"name": "reject"}"#)
            #expect(chosen.status == 200, "\(chosen)")
            let reset = try await Self.send(server, "POST", "/__sandbox/reset", headers: [("Content-Type", "application/json")], body: "{}")
            #expect(reset.status == 200, "\(reset)")
            #expect(try await Self.offset(server) == 0)
        }
    }

    @Test("a write from another site's page is 403 (Origin, Origin: null, Sec-Fetch-Site: cross-site); the same origin passes")
    func crossSiteWrite_Refused() async throws {
        try await withSandbox({ deterministic(&$0) }) { server in
            let json = [("Content-Type", "application/json")]
            for (headers, body) in [([("Origin", "https://evil.example")], nil), ([("Origin", "null")], nil),
                                    ([("Origin", "http://127.0.0.1:\(server.port + 1)")], nil), ([("Origin", "http://localhost:\(server.port)")], nil),
                                    ([("Sec-Fetch-Site", "cross-site")], nil), ([("Origin", "https://evil.example")] + json, Self.advance)] {
                for path in ["/__sandbox/clock", "/__sandbox/reset"] {
                    try Self.expectRefused(try await Self.send(server, "POST", path, headers: headers, body: body), 403, "another site",
                                           "\(path) \(headers)")
                }
            }
            #expect(try await Self.offset(server) == 0)
            // No Origin (curl, tests), the request's own origin, a same-origin fetch: accepted.
            for headers in [[], [("Origin", "http://127.0.0.1:\(server.port)")], [("Sec-Fetch-Site", "same-origin")]] {
                let reset = try await Self.send(server, "POST", "/__sandbox/reset", headers: headers)
                #expect(reset.status == 200, "\(headers): \(reset)")
                let moved = try await Self.send(server, "POST", "/__sandbox/clock", headers: headers + json, body: Self.advance)
                #expect(moved.status == 200, "\(headers): \(moved)")
                #expect(try await Self.offset(server) == 60)
            }
        }
    }

    @Test("the SDK stand-ins take an empty or JSON body, not another; health, echo, the browser addresses and the page stay open")
    func openAddresses() async throws {
        try await withSandbox({ deterministic(&$0) }) { server in
            let client = KlarnaClient(server, namespace: Self.namespace)
            let session = try await client.newSession()
            let load = "/__sandbox/klarna/payments/sessions/\(session)/load"
            #expect(try await Self.send(server, "POST", load).status == 200)
            #expect(try await Self.send(server, "POST", load, headers: [("Content-Type", "application/json")], body: "{}").status == 200)
            try Self.expectRefused(try await Self.send(server, "POST", load, headers: [("Content-Type", "text/plain")], body: "{}"),
                                   415, "application/json", "stand-in text/plain")
            try Self.expectRefused(try await Self.send(server, "POST", load, headers: [("Origin", "https://evil.example")]),
                                   403, "another site", "stand-in cross-site")

            let hostile = [("Origin", "https://evil.example"), ("Sec-Fetch-Site", "cross-site"),
                           ("Content-Type", "application/x-www-form-urlencoded")]
            // Unknown ids: each answers its own 404, not the check's 403 or 415, whatever the Host.
            for host in [nil, "evil.example"] {
                let pay = try await Self.send(server, "POST", "/__sandbox/klarna/hpp/sessions/no-such-session/pay", host: host,
                                              headers: hostile, body: "x=1")
                #expect(pay.status == 404, "\(host ?? "own host"): \(pay)")
                let redirect = try await Self.send(server, "GET", "/__sandbox/klarna/payments/orders/no-such-order/redirect", host: host)
                #expect(redirect.status == 404, "\(redirect)")
                let health = try await Self.send(server, "GET", "/__sandbox/health", host: host)
                #expect(health.status == 200, "\(health)")
                let echo = try await Self.send(server, "POST", "/__sandbox/echo/x", host: host, headers: hostile, body: "a=b")
                #expect(echo.status == 200, "\(echo)")
            }
            // The page's forms are form-encoded with their csrf value: a cross-site Origin is for that value to stop.
            let page = try await Self.send(server, "GET", SandboxUITests.namespacePath(Self.namespace))
            let form = "namespace=\(Self.namespace)&csrf=\(try SandboxUITests.csrf(page))&advance_seconds=60"
            let posted = try await Self.send(server, "POST", "/__sandbox/ui/clock", headers: hostile, body: form)
            #expect(posted.status == 303, "\(posted)")
            #expect(try await Self.offset(server) == 60)
        }
    }

    @Test("Host: IP literals, localhost, *.localhost and names without a dot are served; another name is 403 on /__sandbox/ only")
    func host_Checked() async throws {
        try await withSandbox { server in
            let port = server.port
            for host in ["127.0.0.1:\(port)", "127.0.0.1", "[::1]:\(port)", "[::1]", "10.0.2.2:8080", "localhost", "localhost:\(port)",
                         "LOCALHOST.", "app.localhost:\(port)", "sandbox", "payment-sandbox:8080"] {
                let state = try await Self.send(server, "GET", "/__sandbox/state", host: host)
                #expect(state.status == 200, "\(host): \(state)")
            }
            for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.nip.io", "localhost.evil.example", "sandbox.example.test"] {
                try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", host: host), 403, "--allowed-host", host)
                // A write is refused on its Host before anything else.
                try Self.expectRefused(try await Self.send(server, "POST", "/__sandbox/clock", host: host,
                                                           headers: [("Content-Type", "application/json")], body: Self.advance),
                                       403, "--allowed-host", host)
            }
            try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/ui", host: "evil.example"), 403, "--allowed-host", "page")
            #expect(try await Self.offset(server) == 0)
            // The faked APIs and their pages answer any Host: SDKs call them by whatever name.
            let klarna = try await Self.send(server, "GET", "/payments/v1/sessions/unknown", host: "api.playground.klarna.com",
                                             headers: [("Authorization", "Basic " + Data("PK1_x:secret".utf8).base64EncodedString())])
            #expect(klarna.status == 404, "\(klarna)")
            let checkout = try await Self.send(server, "GET", "/checkout/unknown", host: "evil.example")
            #expect(checkout.status == 404, "\(checkout)")
        }
    }

    @Test("allowedHosts and the --public-url host are served; * serves any")
    func allowedHosts_Configured() async throws {
        try await withSandbox({ $0.allowedHosts = ["sandbox.example.test", "Other.Example.TEST"]; $0.publicBaseURL = "https://pay.example.test:8443" }) { server in
            for host in ["sandbox.example.test", "sandbox.example.test:8080", "other.example.test", "pay.example.test", "pay.example.test:8443"] {
                #expect(try await Self.send(server, "GET", "/__sandbox/state", host: host).status == 200, "\(host)")
            }
            try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", host: "evil.example"), 403, "--allowed-host evil.example", "")
            // A page of the public URL's origin is the sandbox's own (a TLS proxy in front says Host: 127.0.0.1).
            let moved = try await Self.send(server, "POST", "/__sandbox/reset", headers: [("Origin", "https://pay.example.test:8443")])
            #expect(moved.status == 200, "\(moved)")
        }
        try await withSandbox({ $0.allowedHosts = ["*"] }) { server in
            let any = try await Self.send(server, "GET", "/__sandbox/state", host: "evil.example")
            #expect(any.status == 200, "\(any)")
        }
    }

    @Test("behind a trusted proxy the forwarded host is checked too, and the proxy's origin is the sandbox's own")
    func trustedProxy() async throws {
        try await withSandbox({ $0.trustedForwardedHeaders = .xForwarded }) { server in
            let proxied = [("X-Forwarded-Proto", "https"), ("X-Forwarded-Host", "localhost:8443")]
            let moved = try await Self.send(server, "POST", "/__sandbox/clock", host: "localhost",
                                            headers: proxied + [("Origin", "https://localhost:8443"), ("Content-Type", "application/json")],
                                            body: Self.advance)
            #expect(moved.status == 200, "\(moved)")
            try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", host: "localhost",
                                                       headers: [("X-Forwarded-Host", "evil.example")]), 403, "forwarded host", "forwarded")
        }
    }

    @Test("under a control token the checks apply too, after the Host and with the token")
    func withControlToken() async throws {
        try await withSandbox({ $0.controlToken = "s3cret" }) { server in
            let token = ("Sandbox-Control-Token", "s3cret")
            try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", host: "evil.example", headers: [token]),
                                   403, "--allowed-host", "host")
            try Self.expectRefused(try await Self.send(server, "POST", "/__sandbox/clock", headers: [token, ("Content-Type", "text/plain")],
                                                       body: Self.advance), 415, "application/json", "type")
            // Without the token a form post is the token's 401, which says nothing of what else would be wrong.
            let untokened = try await Self.send(server, "POST", "/__sandbox/clock", headers: [("Content-Type", "text/plain")], body: Self.advance)
            #expect(untokened.status == 401, "\(untokened)")
            let moved = try await Self.send(server, "POST", "/__sandbox/clock", headers: [token, ("Content-Type", "application/json")],
                                            body: Self.advance)
            #expect(moved.status == 200, "\(moved)")
        }
    }

    @Test("CLI: --allowed-host and PAYMENT_SANDBOX_ALLOWED_HOSTS serve a named host")
    func commandLine() async throws {
        let binary = try #require(CLIBinary.locate(), "\(CLIBinary.notFoundMessage)")
        for (arguments, environment) in [(["--allowed-host", "sandbox.example.test", "--allowed-host=b.example"], [String: String?]()),
                                         ([], ["PAYMENT_SANDBOX_ALLOWED_HOSTS": "a.example, sandbox.example.test"])] {
            try await alone {
                let child = try ChildProcess(binary, ["--port", "0", "--quiet"] + arguments, environment: environment)
                defer { child.kill() }
                let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
                let server = RunningServer(port: try #require(CLITests.listeningPort(line), "\(line)"))
                #expect(try await Self.send(server, "GET", "/__sandbox/state", host: "sandbox.example.test").status == 200, "\(arguments)")
                try Self.expectRefused(try await Self.send(server, "GET", "/__sandbox/state", host: "evil.example"), 403,
                                       "--allowed-host evil.example", "\(arguments)")
                child.terminate()
                try await CLITests.expectStopsCleanly(child)
            }
        }
    }

    @Test("CLI: a host name with a port, a path or a space is a usage error", arguments: [
        (["--allowed-host", "sandbox:8080"], [String: String]()), (["--allowed-host", "http://sandbox"], [:]),
        (["--allowed-host", ""], [:]), ([], ["PAYMENT_SANDBOX_ALLOWED_HOSTS": "a.example,,b.example"]),
        ([], ["PAYMENT_SANDBOX_ALLOWED_HOSTS": "*.example"]),
    ])
    func commandLine_BadHost(arguments: [String], environment: [String: String]) async throws {
        let result = try await runCLI(arguments, workingDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                                      environment: environment)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first?.contains("must be a host name") == true, "stderr: \(result.stderr)")
    }
}
