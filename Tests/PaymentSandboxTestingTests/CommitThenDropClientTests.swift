// SPDX-License-Identifier: MIT
// commit_then_drop through the testing product's in-process client: the same URLError a URLSession client gets live,
// and the call's effect there to read.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
import PaymentSandboxTesting
import Testing

@Test func inProcessCommitThenDrop_IsANetworkConnectionLost_AndTheSessionExists() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-testing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("""
        {"name": "commit-drop-create", "description": "creates the session, then drops the connection",
         "rules": [{"operation": "klarna.payments.create_session", "outcome": "commit_then_drop"}]}
        """.utf8).write(to: directory.appendingPathComponent("commit-drop-create.json"))
    var configuration = SandboxConfiguration(scenarioDirectories: [directory])
    configuration.scenarioWatchInterval = nil
    let client = try SandboxClient.inProcess(configuration, namespace: "commit-drop")
    try await client.control.useScenario("commit-drop-create")
    let cart = """
        {"purchase_country":"SE","purchase_currency":"SEK","locale":"sv-SE","order_amount":10000,"order_tax_amount":0,
         "order_lines":[{"name":"Socks","quantity":1,"unit_price":10000,"total_amount":10000}]}
        """
    let error = await #expect(throws: URLError.self) {
        _ = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: (user: "PK12345_0123456789ab", password: "secret"))
    }
    #expect(error?.code == .networkConnectionLost)
    let sessions = try await client.control.state().jsonObject()["klarna_payments"] as? [String: Any]
    #expect((sessions?["sessions"] as? [Any])?.count == 1, "\(String(describing: sessions))")
    #expect(try await client.control.journal().first?.status == .clientClosedRequest)
}
