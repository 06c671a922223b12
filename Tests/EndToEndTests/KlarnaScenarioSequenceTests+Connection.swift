// SPDX-License-Identifier: MIT
// drop_connection as the connection sees it: on a socket; the rest of the suite runs in-process.
import Foundation
import PaymentSandbox
import KlarnaSandbox
import SandboxHTTP
import SandboxScenarios
import SwedbankPaySandbox
import Testing

extension KlarnaScenarioSequenceTests {
    @Test("drop_connection: the client sees the connection closed without a byte; the journal records 499")
    func dropConnection() async throws {
        try await withSequenceSandbox(transport: .socket) { server in
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
        try await withSequenceSandbox(transport: .socket) { server in
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
