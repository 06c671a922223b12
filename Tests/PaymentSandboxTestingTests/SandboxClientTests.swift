// SPDX-License-Identifier: MIT
// The testing product: the same checks in-process (no socket) and live (over a socket, with a control token).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PaymentSandbox
import PaymentSandboxTesting
import Testing

private let auth = (user: "PK12345_0123456789ab", password: "secret")
private let cart = """
    {"purchase_country":"SE","purchase_currency":"SEK","locale":"sv-SE","order_amount":10000,"order_tax_amount":0,
     "order_lines":[{"name":"Socks","quantity":1,"unit_price":10000,"total_amount":10000}]}
    """

/// Runs `body` with a client of `mode` on a fresh sandbox with the bundled scenarios (live: on port 0, with a
/// control token, stopped afterwards).
private func withClient(_ mode: SandboxMode, namespace: String, _ body: (SandboxClient) async throws -> Void) async throws {
    var configuration = SandboxConfiguration()
    if mode == .live { configuration.controlToken = "control-secret" }
    try await SandboxTest.run(mode, configuration: configuration, namespace: namespace, body)
}

private struct CreatedSession: Decodable {
    var session_id: String
}

private struct SDKAnswer: Decodable {
    var approved: Bool
    var authorization_token: String?
}

private func createSession(_ client: SandboxClient) async throws -> String {
    let response = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: auth)
    try #require(response.status == .ok, "\(response.status) \(response.text)")
    return try response.decode(CreatedSession.self).session_id
}

@Test(arguments: SandboxMode.allCases)
func bundledScenarioByNameRejectsTheAuthorization(mode: SandboxMode) async throws {
    try await withClient(mode, namespace: "reject-\(mode)") { client in
        #expect(try await client.control.scenarioNames().contains("reject"))
        let session = try await createSession(client)
        try await client.control.useScenario("reject")
        #expect(try await client.control.defaultScenario() == "reject")
        let authorize = try await client.send(.post, "/__sandbox/klarna/payments/sessions/\(session)/authorize", json: "{}", basicAuth: auth)
        #expect(authorize.status == .ok)
        let rejected = try authorize.decode(SDKAnswer.self)
        #expect(rejected.approved == false)
        #expect(rejected.authorization_token == nil)

        try await client.control.useScenario(nil)
        let approved = try await client.send(.post, "/__sandbox/klarna/payments/sessions/\(try await createSession(client))/authorize",
                                             json: "{}", basicAuth: auth)
        #expect(try approved.decode(SDKAnswer.self).approved == true)
    }
}

@Test(arguments: SandboxMode.allCases)
func movingTheClockExpiresTheSession(mode: SandboxMode) async throws {
    try await withClient(mode, namespace: "clock-\(mode)") { client in
        let session = try await createSession(client)
        let before = try await client.control.clock()
        #expect(try await client.send(.get, "/payments/v1/sessions/\(session)", basicAuth: auth).status == .ok)
        // Sessions live 48 h after their last update (docs/klarna.md, "Klarna Payments").
        let after = try await client.control.advanceClock(by: .seconds(48 * 3600 + 1))
        #expect(after.offsetSeconds == before.offsetSeconds + 48 * 3600 + 1)
        #expect(after.namespace == "clock-\(mode)")
        let expired = try await client.send(.get, "/payments/v1/sessions/\(session)", basicAuth: auth)
        #expect(expired.status == .notFound)
        let target = Date(timeIntervalSince1970: 1_900_000_000)
        let set = try await client.control.setClock(to: target)
        // The clock runs on from the time it was set to: the answer is read a moment later (milliseconds under TSan).
        #expect(set.now >= target && set.now < target.addingTimeInterval(60))
    }
}

@Test(arguments: SandboxMode.allCases)
func journalStateAndResetReadBack(mode: SandboxMode) async throws {
    try await withClient(mode, namespace: "journal-\(mode)") { client in
        let session = try await createSession(client)
        let entries = try await client.control.journal(method: .post, pathPrefix: "/payments/")
        #expect(entries.map(\.path) == ["/payments/v1/sessions"])
        #expect(entries.first?.status == .ok)
        #expect(entries.first?.requestBody.contains("Socks") == true)
        #expect(String(decoding: try await client.control.state().json, as: UTF8.self).contains(session))
        // Another namespace sees nothing of it.
        #expect(try await client.namespace("elsewhere-\(mode)").control.journal().isEmpty)

        try await client.control.reset()
        #expect(try await client.control.journal().isEmpty)
        #expect(!String(decoding: try await client.control.state().json, as: UTF8.self).contains(session))
        #expect(try await client.send(.get, "/payments/v1/sessions/\(session)", basicAuth: auth).status == .notFound)
    }
}

@Test(arguments: SandboxMode.allCases)
func controlRefusalsAreThrown(mode: SandboxMode) async throws {
    try await withClient(mode, namespace: "refusals-\(mode)") { client in
        await #expect(throws: SandboxControlError.self) { try await client.control.useScenario("no-such-scenario") }
        var withoutToken = client
        withoutToken.controlToken = nil
        if mode == .live {
            let error = await #expect(throws: SandboxControlError.self) { try await withoutToken.control.journal() }
            #expect(error?.status == .unauthorized)
        }
    }
}

@Test func inProcessControlTokenIsChecked() async throws {
    var configuration = SandboxConfiguration()
    configuration.controlToken = "in-process-secret"
    let client = try SandboxClient.inProcess(configuration)
    #expect(try await client.control.journal().isEmpty)  // the client sends the sandbox's token
    var withoutToken = client
    withoutToken.controlToken = nil
    let error = await #expect(throws: SandboxControlError.self) { try await withoutToken.control.reset() }
    #expect(error?.status == .unauthorized)
}

@Test func inProcessDroppedConnectionIsANetworkConnectionLost() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-testing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("""
        {"name": "drop-create", "description": "drops session creation",
         "rules": [{"operation": "klarna.payments.create_session", "outcome": "drop_connection"}]}
        """.utf8).write(to: directory.appendingPathComponent("drop-create.json"))
    var configuration = SandboxConfiguration(scenarioDirectories: [directory])
    configuration.scenarioWatchInterval = nil
    let client = try SandboxClient.inProcess(configuration, namespace: "drop")
    #expect(try await client.control.scenarioNames().contains("reject"))  // bundled first, then the directory
    try await client.control.useScenario("drop-create")
    let error = await #expect(throws: URLError.self) {
        _ = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: auth)
    }
    #expect(error?.code == .networkConnectionLost)
    #expect(try await client.control.journal().first?.status == .clientClosedRequest)
}

@Test func anInvalidScenarioFileIsThrownByTheInProcessClient() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-testing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("{".utf8).write(to: directory.appendingPathComponent("broken.json"))
    #expect(throws: ScenarioLoadFailure.self) { _ = try SandboxClient.inProcess(SandboxConfiguration(scenarioDirectories: [directory])) }
}

@Test func theDefaultConfigurationPlaysTheBundledScenariosOnPortZero() async throws {
    let configuration = SandboxConfiguration()
    #expect(configuration.port == 0)
    #expect(configuration.includesBundledScenarios)
    let names = try await SandboxClient.inProcess().control.scenarioNames()
    #expect(names.contains("reject") && names.contains("expire-token") && names.contains("swedbankpay-testdata"))
    var without = SandboxConfiguration()
    without.includesBundledScenarios = false
    #expect(try await SandboxClient.inProcess(without).control.scenarioNames().isEmpty)
}
