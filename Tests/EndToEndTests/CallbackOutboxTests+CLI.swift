// SPDX-License-Identifier: MIT
// The outbox's bounds through the executable: --callback-outbox, --callback-outbox-per-namespace and their
// PAYMENT_SANDBOX_* variables.
import Foundation
import PaymentSandbox
import SandboxTestSupport
import Testing

extension CLITests {
    /// Starts the executable with `arguments`, runs `body` with the port it listens on, and stops it.
    static func withListening<T>(_ arguments: [String], environment: [String: String?] = [:],
                                 _ body: (RunningServer) async throws -> T) async throws -> T {
        try await withChild(["--port", "0", "--quiet"] + arguments, environment: environment) { child in
            let line = try #require(try await child.firstStdoutLine(timeout: ChildProcess.startupTimeout), "no startup line; stderr: \(child.stderr)")
            let port = try #require(listeningPort(line), "\(line)")
            let result = try await body(RunningServer(port: port, inProcess: nil))
            child.terminate()
            try await expectStopsCleanly(child)
            return result
        }
    }

    @Test("--callback-outbox(-per-namespace) and their variables set the bounds GET /__sandbox/callbacks reports; the flag wins")
    func callbackOutboxBounds() async throws {
        func bounds(_ arguments: [String], _ environment: [String: String?]) async throws -> [Int?] {
            try await Self.withListening(arguments, environment: environment) { server in
                let listing = try await RawClient.exchange(port: server.port, rawRequest("GET", "/__sandbox/callbacks")).jsonObject()
                return [listing["capacity"] as? Int, listing["capacity_per_namespace"] as? Int]
            }
        }
        #expect(try await bounds([], [:]) == [SandboxConfiguration.defaultCallbackOutboxCapacity,
                                              SandboxConfiguration.defaultCallbackOutboxCapacityPerNamespace])
        #expect(try await bounds([], ["PAYMENT_SANDBOX_CALLBACK_OUTBOX": "50", "PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE": "5"]) == [50, 5])
        #expect(try await bounds(["--callback-outbox", "40", "--callback-outbox-per-namespace=4"],
                                 ["PAYMENT_SANDBOX_CALLBACK_OUTBOX": "50", "PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE": "5"]) == [40, 4])
    }

    @Test("bad outbox bounds exit 2 naming the flag or variable", arguments: [
        (["--callback-outbox", "0"], [String: String?](), "--callback-outbox must be a positive whole number, not '0'"),
        (["--callback-outbox=-3"], [:], "--callback-outbox must be a positive whole number, not '-3'"),
        (["--callback-outbox"], [:], "--callback-outbox needs a value"),
        (["--callback-outbox-per-namespace", "many"], [:], "--callback-outbox-per-namespace must be a positive whole number, not 'many'"),
        ([], ["PAYMENT_SANDBOX_CALLBACK_OUTBOX": "1.5"], "PAYMENT_SANDBOX_CALLBACK_OUTBOX must be a positive whole number, not '1.5'"),
        ([], ["PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE": "0"],
         "PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE must be a positive whole number, not '0'"),
    ])
    func badCallbackOutboxBounds(arguments: [String], environment: [String: String?], message: String) async throws {
        let result = try await Self.run(arguments, environment: environment)
        #expect(result.status == 2, "stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == "payment-sandbox: \(message)", "stderr: \(result.stderr)")
        #expect(result.stderr.contains("usage: payment-sandbox"), "stderr: \(result.stderr)")
    }

    @Test("--help shows the outbox's flags, variables and defaults")
    func callbackOutboxHelp() async throws {
        let result = try await Self.run(["--help"])
        #expect(result.status == 0)
        for text in ["--callback-outbox N", "PAYMENT_SANDBOX_CALLBACK_OUTBOX, default 10000",
                     "--callback-outbox-per-namespace N", "PAYMENT_SANDBOX_CALLBACK_OUTBOX_PER_NAMESPACE, default 1000"] {
            #expect(result.stdout.contains(text), "\(text) not in: \(result.stdout)")
        }
    }

    @Test("--callback-outbox-per-namespace 2: a CLI-started sandbox keeps the last 2 callbacks of a namespace")
    func callbackOutboxPerNamespaceKeepsTheLast() async throws {
        try await Self.withListening(["--callback-outbox-per-namespace", "2"]) { server in
            let client = KlarnaClient(server, namespace: "cli-outbox")
            // Held (not sent): the callbacks stay in the outbox without a merchant listening.
            try await client.useScenario("callback-not-sent")
            var sessions: [String] = []
            for _ in 0..<3 {
                let kp = try await client.newSession()
                let urls = #"{"status_update": "https://merchant.example/status/{{session_id}}"}"#
                let id = try await KlarnaHPP.newHPPSession(client, KlarnaHPPBodies.createBody(kp, merchantURLs: urls))
                expectNoContent(try await client.delete("/hpp/v1/sessions/\(id)"))   // DISABLED: one callback each
                sessions.append(id)
            }
            let listing = try await client.get("/__sandbox/callbacks").jsonObject()
            #expect(listing["capacity_per_namespace"] as? Int == 2 && listing["capacity"] as? Int == 10_000, "\(listing)")
            #expect(listing["evicted"] as? Int == 1, "\(listing)")
            let callbacks = try #require(listing["callbacks"] as? [[String: Any]])
            #expect(callbacks.map { $0["object"] as? String } == Array(sessions.suffix(2)), "the oldest went: \(callbacks)")
            #expect(callbacks.map { $0["id"] as? String } == ["cb_2", "cb_3"])
            #expect(states(callbacks) == ["held", "held"])
        }
    }
}
