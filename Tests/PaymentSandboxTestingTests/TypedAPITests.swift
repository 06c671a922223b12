// SPDX-License-Identifier: MIT
// The typed testing API: methods, statuses, decoding that names the missing field, one redirect policy for both modes,
// and the scoped runner in both modes.
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

/// The cart as a create-order request whose order leads to `confirmation` (klarna-api.md §2.5).
private func order(confirmation: String) -> String {
    String(cart.dropLast()) + #", "merchant_urls": {"confirmation": "\#(confirmation)"}}"#
}

private struct Created: Decodable { var session_id: String }
private struct Authorized: Decodable { var authorization_token: String }
private struct Placed: Decodable { var order_id: String; var redirect_url: String }
private struct Echo: Decodable { var method: String; var path: String }

/// A Klarna Payments order whose confirmation URL is `confirmation` ({order.id} filled in): its create-order answer.
private func placeOrder(_ client: SandboxClient, confirmation: String) async throws -> Placed {
    let session = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: auth).decode(Created.self)
    let token = try await client.send(.post, "/__sandbox/klarna/payments/sessions/\(session.session_id)/authorize", json: "{}",
                                      basicAuth: auth).decode(Authorized.self).authorization_token
    let placed = try await client.send(.post, "/payments/v1/authorizations/\(token)/order", json: order(confirmation: confirmation),
                                       basicAuth: auth)
    try #require(placed.status == .ok, "\(placed.status) \(placed.text)")
    return try placed.decode(Placed.self)
}

// MARK: Method and status

@Test func methodsAreTypedAndStringLiteralsStillRead() {
    let literal: SandboxClient.Method = "POST"
    #expect(literal == .post)
    #expect(SandboxClient.Method.get.rawValue == "GET")
    #expect(SandboxClient.Method("PROPFIND").description == "PROPFIND")
    #expect(SandboxClient.Method("post") != .post, "methods are case-sensitive")
}

@Test func statusNamesCompareWithCodesAndClassify() {
    let status: SandboxResponse.Status = 404
    #expect(status == .notFound && status.code == 404 && "\(status)" == "404")
    #expect(SandboxResponse.Status.noContent.isSuccess && !SandboxResponse.Status.noContent.isRedirection)
    #expect(SandboxResponse.Status.seeOther.isRedirection && !SandboxResponse.Status.seeOther.isSuccess)
    #expect(status.isClientError && !status.isSuccess && !status.isServerError)
    #expect(SandboxResponse.Status.badGateway.isServerError)
    switch status {
    case 200: Issue.record("404 matched 200")
    case .notFound: break
    default: Issue.record("404 did not match .notFound")
    }
}

@Test(arguments: SandboxMode.allCases)
func answersCarryTypedStatuses(mode: SandboxMode) async throws {
    try await SandboxTest.run(mode, namespace: "typed-status-\(mode)") { client in
        let created = try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: auth)
        #expect(created.status == .ok && created.status.isSuccess)
        let missing = try await client.send(.get, "/payments/v1/sessions/no-such-session", basicAuth: auth)
        #expect(missing.status == .notFound && missing.status.isClientError)
        #if canImport(FoundationNetworking)
        if mode == .live {
            // swift-corelibs-foundation cannot deliver Klarna's 401 (Basic, with a realm): a thrown error, not a hang.
            let error = await #expect(throws: URLError.self) { try await client.send(.post, "/payments/v1/sessions", json: cart) }
            #expect(error?.code == .userAuthenticationRequired)
        } else {
            #expect(try await client.send(.post, "/payments/v1/sessions", json: cart).status == .unauthorized)
        }
        #else
        #expect(try await client.send(.post, "/payments/v1/sessions", json: cart).status == .unauthorized)
        #endif
        let entries = try await client.control.journal(method: .post, status: .unauthorized)
        #expect(entries.map(\.status) == [.unauthorized])
        #expect(entries.first?.requestID.isEmpty == false)
        #expect(entries.first?.query == nil)
    }
}

// MARK: Decoding

private struct Health: Decodable { var status: String; var objects: Objects }
private struct Objects: Decodable { var held: Int }
private struct HealthWithNumber: Decodable { var status: Int }
private struct HealthWithTextCount: Decodable { var objects: TextCount }
private struct TextCount: Decodable { var held: String }

@Test(arguments: SandboxMode.allCases)
func decodeNamesAMissingOrWronglyTypedField(mode: SandboxMode) async throws {
    try await SandboxTest.run(mode) { client in
        let health = try await client.send(.get, "/__sandbox/health")
        #expect(try health.decode(Health.self).status == "ok")

        let missing = #expect(throws: SandboxDecodingError.self) { try health.decode(SandboxClockReading.self) }
        #expect(missing?.field == "namespace", "\(String(describing: missing))")
        #expect(missing?.problem == "is missing")
        #expect(missing?.description.contains("`namespace`") == true)
        #expect(missing?.body.contains(#""status""#) == true)

        let wrongType = #expect(throws: SandboxDecodingError.self) { try health.decode(HealthWithNumber.self) }
        #expect(wrongType?.field == "status", "\(String(describing: wrongType))")
        let nested = #expect(throws: SandboxDecodingError.self) { try health.decode(HealthWithTextCount.self) }
        #expect(nested?.field == "objects.held", "\(String(describing: nested))")

        let echo = try await client.send(.get, "/__sandbox/echo")
        #expect(try echo.decode(Echo.self).method == "GET")
        let array = SandboxResponse(status: .ok, headerFields: [], body: Data("[1]".utf8))
        let notAnObject = #expect(throws: SandboxDecodingError.self) { try array.decode(Health.self) }
        #expect(notAnObject?.field == "", "the body itself")
    }
}

/// Answers every request with the body `answers` holds for its path: a "sandbox" whose control answers lack fields.
final class ShortAnswerProtocol: URLProtocol {
    static let answers: [String: String] = [
        "/__sandbox/clock": #"{"namespace": "short", "now": "2027-01-15T08:00:00Z"}"#,
        "/__sandbox/journal": #"""
            {"namespace": "short", "capacity": 10, "dropped": 0, "limit": 100, "more": false, "next_before": null,
             "entries": [{"sequence": 1, "time": "2027-01-15T08:00:00Z", "request_id": "r1", "method": "GET", "path": "/x",
                          "query": null, "status": "200", "request_body": "", "request_body_truncated": false, "note": ""}]}
            """#,
        "/__sandbox/scenarios": #"{"namespace": "short", "directories": [], "scenarios": [], "reload_problems": []}"#,
    ]

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "short.sandbox.test" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        let body = Data((Self.answers[request.url?.path ?? ""] ?? "{}").utf8)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "application/json", "Content-Length": String(body.count)])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

@Test func liveControlAnswersMissingAFieldThrowNamingIt() async throws {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [ShortAnswerProtocol.self] + (configuration.protocolClasses ?? [])
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    let client = SandboxClient(baseURL: URL(string: "http://short.sandbox.test")!, session: session)

    let clock = await #expect(throws: SandboxDecodingError.self) { try await client.control.clock() }
    #expect(clock?.field == "offset_seconds", "\(String(describing: clock))")
    #expect(clock?.type == "SandboxClockReading")
    #expect(clock?.context == "GET /__sandbox/clock")

    let journal = await #expect(throws: SandboxDecodingError.self) { try await client.control.journal() }
    #expect(journal?.field == "entries[0].status", "\(String(describing: journal))")

    let scenarios = await #expect(throws: SandboxDecodingError.self) { try await client.control.defaultScenario() }
    #expect(scenarios?.field == "default_scenario", "\(String(describing: scenarios))")
    #expect(scenarios?.problem == "is missing")
}

// MARK: Redirects

@Test(arguments: SandboxMode.allCases)
func redirectsAreNotFollowedByDefault(mode: SandboxMode) async throws {
    try await SandboxTest.run(mode, namespace: "redirect-default-\(mode)") { client in
        #expect(client.redirects == .doNotFollow)
        let confirmation = client.baseURL.absoluteString + "/__sandbox/echo?order={order.id}"
        let placed = try await placeOrder(client, confirmation: confirmation)
        let answer = try await client.send(.get, placed.redirect_url)
        #expect(answer.status == .seeOther)
        #expect(answer.header("Location") == client.baseURL.absoluteString + "/__sandbox/echo?order=\(placed.order_id)")
        #expect(answer.url?.absoluteString == placed.redirect_url)
    }
}

@Test(arguments: SandboxMode.allCases)
func followedRedirectsReachTheSandboxPageAsAGet(mode: SandboxMode) async throws {
    try await SandboxTest.run(mode, namespace: "redirect-follow-\(mode)", redirects: .follow(max: 1)) { client in
        let target = client.baseURL.absoluteString + "/__sandbox/echo?order={order.id}"
        let placed = try await placeOrder(client, confirmation: target)
        let followed = try await client.send(.get, placed.redirect_url)
        #expect(followed.status == .ok, "\(followed.text)")
        let echo = try followed.decode(Echo.self)
        #expect(echo.path == "/__sandbox/echo" && echo.method == "GET")
        #expect(followed.url?.absoluteString == client.baseURL.absoluteString + "/__sandbox/echo?order=\(placed.order_id)")

        // One redirect more than allowed.
        let error = await #expect(throws: URLError.self) { try await client.redirects(.follow(max: 0)).send(.get, placed.redirect_url) }
        #expect(error?.code == .httpTooManyRedirects)
    }
}

@Test(arguments: SandboxMode.allCases)
func redirectsLeavingTheSandboxAreNotFollowed(mode: SandboxMode) async throws {
    try await SandboxTest.run(mode, namespace: "redirect-away-\(mode)", redirects: .followAll) { client in
        for confirmation in ["https://merchant.example/confirmation?order={order.id}", "myapp://klarna/done?order={order.id}"] {
            let placed = try await placeOrder(client, confirmation: confirmation)
            let answer = try await client.send(.get, placed.redirect_url)
            #expect(answer.status == .seeOther, "\(confirmation)")
            #expect(answer.header("Location") == confirmation.replacingOccurrences(of: "{order.id}", with: placed.order_id))
        }
    }
}

// MARK: The scoped runner

@Test(arguments: SandboxMode.allCases)
func runnerStartsTheModeAndStopsAfterTheBody(mode: SandboxMode) async throws {
    var configuration = SandboxConfiguration()
    configuration.controlToken = "runner-secret"
    let sandbox = try await SandboxTest.run(mode, configuration: configuration, namespace: "runner-\(mode)") { client, sandbox in
        #expect(client.namespace == "runner-\(mode)")
        #expect(client.controlToken == "runner-secret")
        switch mode {
        case .inProcess:
            #expect(client.sandbox === sandbox)
            #expect(sandbox.baseURL == nil, "in-process: nothing listens")
        case .live:
            #expect(client.sandbox == nil)
            let baseURL = try #require(sandbox.baseURL)
            #expect(client.baseURL == baseURL && baseURL.host == "127.0.0.1" && baseURL.port != 0)
        }
        try await client.control.useScenario("reject")
        #expect(try await client.control.defaultScenario() == "reject")
        #expect(try await client.send(.post, "/payments/v1/sessions", json: cart, basicAuth: auth).status == .ok)
        #expect(try await client.control.journal(method: .post).map(\.path) == ["/payments/v1/sessions"])
        return sandbox
    }
    #expect(sandbox.baseURL == nil, "stopped after the body")
}

private struct Thrown: Error {}

@Test func liveRunnerStopsTheServerWhenTheBodyThrows() async throws {
    let captured = Captured()
    await #expect(throws: Thrown.self) {
        try await SandboxTest.run(.live) { client, sandbox in
            captured.sandbox = sandbox
            #expect(try await client.send(.get, "/__sandbox/health").status == .ok)
            throw Thrown()
        }
    }
    let sandbox = try #require(captured.sandbox)
    #expect(sandbox.baseURL == nil)
}

private final class Captured: @unchecked Sendable {
    var sandbox: PaymentSandbox?
}

@Test func runnerRefusesAnInvalidScenarioFileInBothModes() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-runner-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("{".utf8).write(to: directory.appendingPathComponent("broken.json"))
    for mode in SandboxMode.allCases {
        await #expect(throws: ScenarioLoadFailure.self, "\(mode)") {
            try await SandboxTest.run(mode, configuration: SandboxConfiguration(scenarioDirectories: [directory])) { _ in
                Issue.record("the body ran with an invalid scenario file (\(mode))")
            }
        }
    }
}
