// SPDX-License-Identifier: MIT
// Scenario outcomes as the connection sees them, on a socket: drop_connection closes it, an http_error answer keeps it.
// The rest of the scenario sequence tests run in-process in KlarnaSandboxTests.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SandboxTestSupport
import SwedbankPaySandbox
import Testing

@Suite("Klarna scenarios: the connection")
struct KlarnaScenarioConnectionTests {
    static let files: [(String, String)] = [
        ("e2e-custom-error.json", scenarioFile("e2e-custom-error", rules: [
            #"{"operation": "klarna.payments.create_order", "outcome": "http_error", "status": 429, "body": {"error": "slow down"}, "headers": {"Retry-After": "7"}}"#,
        ])),
        ("e2e-drop.json", scenarioFile("e2e-drop", rules: [
            #"{"operation": "klarna.payments.create_order", "outcome": "drop_connection"}"#,
        ])),
    ]

    /// A listening sandbox with the bundled scenarios and ``files``.
    func withSequenceSandbox<T>(_ body: (RunningServer) async throws -> T) async throws -> T {
        try await withScenarioDirectory { directory in
            for (name, text) in Self.files { try directory.write(name, text) }
            return try await withScenarioSandbox(extra: [directory.url]) { _, server in try await body(server) }
        }
    }

    @Test("http_error with a body and headers keeps the connection: the server framed the answer itself")
    func customErrorKeepsConnection() async throws {
        try await withSequenceSandbox { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("custom-error-keepalive"))
            let (_, token) = try await client.authorizedSession()
            let response = try await client.createOrder(token, scenario: "e2e-custom-error")
            #expect(response.status == 429, "\(response)")
            #expect(!response.closesConnection, "\(response.rawHead)")
        }
    }

    @Test("drop_connection: the client sees the connection closed without a byte; the journal records 499")
    func dropConnection() async throws {
        try await withSequenceSandbox { server in
            let namespace = uniqueNamespace("drop")
            let client = KlarnaClient(server, namespace: namespace)
            let (_, token) = try await client.authorizedSession()
            let request = klarnaRequest("POST", "/payments/v1/authorizations/\(token)/order", port: server.port,
                                        headers: client.headers([("Sandbox-Scenario", "e2e-drop"), ("Content-Type", "application/json")]),
                                        body: KlarnaExamples.gbOrder)
            let raw = try await RawClient.connect(port: server.port, sending: request)
            defer { raw.close() }
            let observation = try await raw.readUntilClose(timeout: .seconds(3))
            #expect(observation == .closed(received: []), "expected a clean close with nothing received, got \(observation)")
            #expect((try await client.paymentsState()["orders"] as? [Any])?.isEmpty == true)
            let entries = try await client.journal("status=499")
            #expect(entries.map { journalLine($0, fullNote: false) } == [
                "POST /payments/v1/authorizations/\(token)/order 499 scenario=e2e-drop klarna.payments.create_order: drop_connection",
            ])
        }
    }

    @Test("drop_connection on a keep-alive connection: earlier answers arrive, then the close")
    func dropAfterKeepAlive() async throws {
        try await withSequenceSandbox { server in
            let client = KlarnaClient(server, namespace: uniqueNamespace("drop-keepalive"))
            let (session, token) = try await client.authorizedSession()
            let raw = try await RawClient.connect(port: server.port)
            defer { raw.close() }
            try await raw.send(klarnaRequest("GET", "/payments/v1/sessions/\(session)", port: server.port, headers: client.headers()))
            #expect(try await raw.readResponse().status == 200)
            try await raw.send(klarnaRequest("POST", "/payments/v1/authorizations/\(token)/order", port: server.port,
                                             headers: client.headers([("Sandbox-Scenario", "e2e-drop"), ("Content-Type", "application/json")]),
                                             body: KlarnaExamples.gbOrder))
            let observation = try await raw.readUntilClose(timeout: .seconds(3))
            #expect(observation == .closed(received: []), "got \(observation)")
        }
    }
}
