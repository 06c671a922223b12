// SPDX-License-Identifier: MIT
// Every case of Klarna's error-handling page (docs/klarna-mobile-sdk.md §3), played by CheckoutScreen (app code that
// knows only Klarna's SDK API) against a sandbox in-process, and once live over a socket. The backend's part (create
// the session, place the order) goes over HTTP as a backend would send it. KlarnaStandIn is process-wide, so the
// suite runs one test at a time.
import Foundation
import PaymentSandbox
import PaymentSandboxKlarnaMobile
import PaymentSandboxTesting
import Testing

private let auth = (user: "PK12345_0123456789ab", password: "secret")
private let cart = """
    {"purchase_country":"SE","purchase_currency":"SEK","locale":"sv-SE","order_amount":10000,"order_tax_amount":0,
     "order_lines":[{"name":"Socks","quantity":1,"unit_price":10000,"total_amount":10000}]}
    """

/// The merchant's backend: creates sessions and places orders with Klarna's credentials.
private struct Backend {
    let client: SandboxClient

    func createSession() async throws -> (id: String, clientToken: String) {
        let response = try await client.send("POST", "/payments/v1/sessions", json: cart, basicAuth: auth)
        try #require(response.status == 200, "\(response.status) \(response.text)")
        let object = try #require(response.jsonObject())
        return (try #require(object["session_id"] as? String), try #require(object["client_token"] as? String))
    }

    func placeOrder(_ authToken: String) async throws -> SandboxResponse {
        try await client.send("POST", "/payments/v1/authorizations/\(authToken)/order", json: cart, basicAuth: auth)
    }
}

@MainActor
@Suite(.serialized)
struct KlarnaPaymentViewTests {
    /// A fresh in-process sandbox, the stand-in connected to it in `namespace`.
    private func connect(_ namespace: String) throws -> Backend {
        let client = try SandboxClient.inProcess(namespace: namespace)
        KlarnaStandIn.connect(client)
        return Backend(client: client)
    }

    private func expectEvents(_ screen: CheckoutScreen, _ expected: [CheckoutScreen.Event],
                              sourceLocation: SourceLocation = #_sourceLocation) async {
        for event in expected {
            let next = await screen.nextEvent()
            #expect(next == event, sourceLocation: sourceLocation)
        }
    }

    @Test("approved: initialized, loaded, resized, authorized with a token that places the order")
    func approved() async throws {
        let backend = try connect("msdk-approve")
        let session = try await backend.createSession()
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: session.clientToken)
        await expectEvents(screen, [.initialized])
        #expect(!screen.paymentView.isLoaded)
        screen.paymentView.load()
        await expectEvents(screen, [.loaded, .resized(48)])
        #expect(screen.paymentView.isLoaded && screen.paymentView.contentHeight == 48)
        screen.paymentView.authorize()
        guard case .authorized(true, let token?, false)? = await screen.nextEvent() else {
            Issue.record("not approved")
            return
        }
        let order = try await backend.placeOrder(token)
        #expect(order.status == 200, "\(order.text)")
        #expect(order.jsonObject()?["fraud_status"] as? String == "ACCEPTED")
        #expect(screen.paymentView.category == "klarna")
        #expect(screen.paymentView.returnURL == URL(string: "msdk-demo://order-confirmation"))
    }

    @Test("calls made back to back answer in order, one event each")
    func callsInOrder() async throws {
        let backend = try connect("msdk-order")
        let session = try await backend.createSession()
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: session.clientToken)
        screen.paymentView.load(jsonData: nil)
        screen.paymentView.loadPaymentReview()
        screen.paymentView.authorize(autoFinalize: true, jsonData: nil)
        await expectEvents(screen, [.initialized, .loaded, .resized(48), .loadedPaymentReview])
        guard case .authorized(true, _?, false)? = await screen.nextEvent() else {
            Issue.record("not approved")
            return
        }
    }

    @Test("a garbage, changed, unknown or expired client token: InvalidClientTokenError on initialize, not fatal",
          arguments: ["garbage", "changed", "unknown", "expired"])
    func invalidClientToken(kind: String) async throws {
        let backend = try connect("msdk-token-\(kind)")
        let session = try await backend.createSession()
        let token: String
        switch kind {
        case "garbage": token = "not a token/at all"
        case "changed": token = String(session.clientToken.dropLast()) + (session.clientToken.hasSuffix("A") ? "B" : "A")
        case "unknown": token = UUID().uuidString.lowercased()
        default:
            try await backend.client.control.advanceClock(by: .seconds(48 * 3600 + 1))
            token = session.clientToken
        }
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: token)
        await expectEvents(screen, [.failed(name: "InvalidClientTokenError", action: "Initialize", isFatal: false)])
        #expect(screen.lastErrorMessage?.hasPrefix("Error performing Klarna.Payments.init()") == true)
    }

    @Test("a client token of another namespace is invalid there; the message names the namespace looked in")
    func otherNamespace() async throws {
        let backend = try connect("msdk-ns-a")
        let session = try await backend.createSession()
        KlarnaStandIn.connect(backend.client.namespace("msdk-ns-b"))
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: session.clientToken)
        await expectEvents(screen, [.failed(name: "InvalidClientTokenError", action: "Initialize", isFatal: false)])
        #expect(screen.lastErrorMessage?.contains(#""msdk-ns-b""#) == true)
    }

    @Test("invalid-client-token: initialize passes, load and authorize answer InvalidClientTokenError")
    func invalidClientTokenScenario() async throws {
        let backend = try connect("msdk-ict")
        try await backend.client.control.useScenario("invalid-client-token")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.load()
        screen.paymentView.authorize()
        await expectEvents(screen, [.initialized, .failed(name: "InvalidClientTokenError", action: "Initialize", isFatal: false),
                                    .failed(name: "InvalidClientTokenError", action: "Authorize", isFatal: false)])
    }

    @Test("a category the session does not offer: ShowFormFalseError on load, fatal")
    func categoryNotOffered() async throws {
        let backend = try connect("msdk-category")
        let screen = CheckoutScreen(category: "pay_over_time")
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.load()
        await expectEvents(screen, [.initialized, .failed(name: "ShowFormFalseError", action: "Load", isFatal: true)])
        #expect(screen.lastErrorMessage == "Error performing Klarna.Payments.load()")
        #expect(!screen.paymentView.isLoaded)
    }

    @Test("Klarna's playground +red customer: ShowFormFalseError on load")
    func playgroundRed() async throws {
        let backend = try connect("msdk-red")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.load(jsonData: #"{"billing_address":{"email":"customer+red@example.com"}}"#)
        await expectEvents(screen, [.initialized, .failed(name: "ShowFormFalseError", action: "Load", isFatal: true)])
    }

    @Test("a rejected customer: ShowFormFalseError on authorize, fatal")
    func rejected() async throws {
        let backend = try connect("msdk-reject")
        try await backend.client.control.useScenario("reject")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.authorize()
        await expectEvents(screen, [.initialized, .failed(name: "ShowFormFalseError", action: "Authorize", isFatal: true)])
        #expect(screen.lastErrorMessage == "Error performing Klarna.Payments.authorize()")
    }

    @Test("the customer closes the form (or gives up on invalid card data or missing fields): approved false, the view stays usable")
    func customerClosesTheForm() async throws {
        let backend = try connect("msdk-cancel")
        // Created before the scenario is chosen, the session follows the namespace's default (not sticky to "cancel").
        let session = try await backend.createSession()
        try await backend.client.control.useScenario("cancel")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: session.clientToken)
        screen.paymentView.authorize()
        await expectEvents(screen, [.initialized, .authorized(approved: false, authToken: nil, finalizeRequired: false)])
        try await backend.client.control.useScenario(nil)
        screen.paymentView.authorize()
        guard case .authorized(true, _?, false)? = await screen.nextEvent() else {
            Issue.record("the retry was not approved")
            return
        }
    }

    @Test("finalize-required: authorize says finalizeRequired, finalise gives the token that places the order")
    func finalizeRequired() async throws {
        let backend = try connect("msdk-finalize")
        try await backend.client.control.useScenario("finalize-required")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.authorize(autoFinalize: false)
        await expectEvents(screen, [.initialized, .authorized(approved: false, authToken: nil, finalizeRequired: true)])
        screen.paymentView.finalise()
        guard case .finalized(true, let token?)? = await screen.nextEvent() else {
            Issue.record("finalise was not approved")
            return
        }
        #expect(try await backend.placeOrder(token).status == 200)
    }

    @Test("reauthorize after the order data changed: a new token")
    func reauthorize() async throws {
        let backend = try connect("msdk-reauthorize")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.authorize()
        await expectEvents(screen, [.initialized])
        guard case .authorized(true, let first?, false)? = await screen.nextEvent() else {
            Issue.record("not approved")
            return
        }
        screen.paymentView.reauthorize(jsonData: #"{"shipping_address":{"city":"Malmö"}}"#)
        guard case .reauthorized(true, let second?)? = await screen.nextEvent() else {
            Issue.record("not reauthorized")
            return
        }
        #expect(second != first)
    }

    @Test("a call before initialize fails as out of order; after initialize it works")
    func outOfOrder() async throws {
        let backend = try connect("msdk-out-of-order")
        let screen = CheckoutScreen()
        screen.paymentView.load()
        screen.paymentView.authorize()
        await expectEvents(screen, [.failed(name: "NotInitializedError", action: "Load", isFatal: false),
                                    .failed(name: "NotInitializedError", action: "Authorize", isFatal: false)])
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.load()
        await expectEvents(screen, [.initialized, .loaded, .resized(48)])
    }

    @Test("an http_error scenario on authorize is a NetworkError, not fatal")
    func serverError() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msdk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(#"{"name":"authorize-fails","description":"authorize answers 503","rules":[{"operation":"klarna.payments.authorize","outcome":"http_error","status":503}]}"#.utf8)
            .write(to: directory.appendingPathComponent("authorize-fails.json"))
        var configuration = SandboxConfiguration()
        configuration.scenarioDirectories = [directory]
        let backend = Backend(client: try SandboxClient.inProcess(configuration, namespace: "msdk-http-error"))
        KlarnaStandIn.connect(backend.client)
        try await backend.client.control.useScenario("authorize-fails")
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
        screen.paymentView.authorize()
        await expectEvents(screen, [.initialized, .failed(name: "NetworkError", action: "Authorize", isFatal: false)])
        #expect(screen.lastErrorMessage?.contains("503") == true)
    }

    @Test("not connected: SandboxNotConnectedError")
    func notConnected() async throws {
        KlarnaStandIn.disconnect()
        let screen = CheckoutScreen()
        screen.paymentView.initialize(clientToken: "anything")
        await expectEvents(screen, [.failed(name: "SandboxNotConnectedError", action: "Initialize", isFatal: true)])
    }

    @Test("live: the same flow over a socket, behind a control token")
    func live() async throws {
        var configuration = SandboxConfiguration(port: 0)
        configuration.controlToken = "control-secret"
        let sandbox = PaymentSandbox(configuration: configuration)
        let baseURL = try sandbox.start()
        let client = SandboxClient(baseURL: baseURL, controlToken: "control-secret", namespace: "msdk-live")
        KlarnaStandIn.connect(client)
        let backend = Backend(client: client)
        let screen = CheckoutScreen()
        do {
            screen.paymentView.initialize(clientToken: try await backend.createSession().clientToken)
            screen.paymentView.authorize()
            await expectEvents(screen, [.initialized])
            if case .authorized(true, let token?, false)? = await screen.nextEvent() {
                #expect(try await backend.placeOrder(token).status == 200)
            } else {
                Issue.record("not approved")
            }
        } catch {
            Issue.record(error)
        }
        await sandbox.stop()
    }
}
