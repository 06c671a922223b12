// SPDX-License-Identifier: MIT
import Foundation

/// `/payments/v1/...` (klarna-api.md §2) and the sandbox's stand-in for the SDK's client-side calls
/// under `/__sandbox/klarna/payments/...`.
package struct KlarnaPaymentsRoutes: Sendable {
    package let store: KlarnaPaymentsStore
    package let scenarios: ScenarioEngine
    private let play: ScenarioPlayer<KlarnaErrorFormat>

    package init(store: KlarnaPaymentsStore, scenarios: ScenarioEngine) {
        self.store = store
        self.scenarios = scenarios
        play = ScenarioPlayer(engine: scenarios, ids: store.ids)
    }

    package func add(to router: inout Router) {
        router.addImmediate("POST /payments/v1/sessions") { try createSession($0) }
        router.addImmediate("GET /payments/v1/sessions/:session_id") { try readSession($0) }
        router.addImmediate("POST /payments/v1/sessions/:session_id") { try updateSession($0) }
        router.addImmediate("DELETE /payments/v1/sessions/:session_id") { try cancelSession($0) }
        router.addImmediate("POST /payments/v1/authorizations/:token/order") { try createOrder($0) }
        router.addImmediate("DELETE /payments/v1/authorizations/:token") { try cancelAuthorization($0) }
        router.addImmediate("POST /payments/v1/authorizations/:token/customer-token") { try createCustomerToken($0) }
        addStandIns(to: &router)
    }

    /// The SDK's calls, without the SDK (klarna-mobile-sdk.md §1), keyed by the client token the app holds (or the
    /// session id), and where an order's `redirect_url` leads.
    private func addStandIns(to router: inout Router) {
        let (store, play) = (self.store, self.play)
        // Scenario conditions see the session as the customer authorizes it (stored fields + jsonData).
        router.addImmediate("POST /__sandbox/klarna/payments/sessions/:session_id/initialize") {
            try standIn(.initialize, $0, store: store, play: play)
        }
        router.addImmediate("POST /__sandbox/klarna/payments/sessions/:session_id/load") { try standIn(.load, $0, store: store, play: play) }
        router.addImmediate("POST /__sandbox/klarna/payments/sessions/:session_id/authorize") {
            try standIn(.authorize, $0, store: store, play: play)
        }
        router.addImmediate("POST /__sandbox/klarna/payments/sessions/:session_id/reauthorize") {
            try standIn(.reauthorize, $0, store: store, play: play)
        }
        router.addImmediate("POST /__sandbox/klarna/payments/sessions/:session_id/finalize") {
            try standIn(.finalize, $0, store: store, play: play)
        }
        // A 303 to merchant_urls.confirmation with its placeholders filled.
        router.addImmediate("GET /__sandbox/klarna/payments/orders/:order_id/redirect") { request in
            let orderID = try request.parameters.require("order_id")
            guard let location = store.confirmationURL(orderID: orderID) else { throw HTTPError.notFound(request.path) }
            return HTTPResponse(status: .seeOther, headers: ["Location": location])
        }
    }

    // MARK: Sessions

    private func createSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let sticky = try play.scenarioForNewObject(request, namespace)
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaPaymentsCreateSession, request, namespace, subject: try? body.get(), object: "new-session", sticky: sticky) {
            [store] _ in
            let fields = try KlarnaJSON.decode(KlarnaSessionFields.self, from: body.get())
            return .klarna(try store.createSession(namespace, fields, scenario: sticky))
        }
    }

    private func readSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let id = try request.parameters.require("session_id")
        return play(.klarnaPaymentsReadSession, request, namespace, object: id, sticky: store.scenarioOf(namespace, sessionID: id)) {
            [store] _ in .klarna(try store.readSession(namespace, id))
        }
    }

    private func updateSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let id = try request.parameters.require("session_id")
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaPaymentsUpdateSession, request, namespace, subject: try? body.get(), object: id,
                    sticky: store.scenarioOf(namespace, sessionID: id)) { [store] _ in
            let update = try KlarnaJSON.decode(KlarnaSessionFields.self, from: body.get())
            try store.updateSession(namespace, id, update)
            return HTTPResponse(status: .noContent)
        }
    }

    private func cancelSession(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let id = try request.parameters.require("session_id")
        return play(.klarnaPaymentsCancelSession, request, namespace, object: id, sticky: store.scenarioOf(namespace, sessionID: id)) {
            [store] _ in
            try store.cancelSession(namespace, id)
            return HTTPResponse(status: .noContent)
        }
    }

    // MARK: Authorizations

    private func createOrder(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let token = try request.parameters.require("token")
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaPaymentsCreateOrder, request, namespace, subject: try? body.get(), object: token,
                    sticky: store.scenarioOf(namespace, token: token)) { [store] outcome in
            let order = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: body.get())
            return .klarna(try store.createOrder(namespace, token: token, order, redirectBase: request.publicOrigin, outcome: outcome))
        }
    }

    private func cancelAuthorization(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let token = try request.parameters.require("token")
        return play(.klarnaPaymentsCancelAuthorization, request, namespace, object: token, sticky: store.scenarioOf(namespace, token: token)) {
            [store] outcome in
            try store.cancelAuthorization(namespace, token: token, outcome: outcome)
            return HTTPResponse(status: .noContent)
        }
    }

    private func createCustomerToken(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try authenticate(request, store.configuration)
        let token = try request.parameters.require("token")
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaPaymentsCreateCustomerToken, request, namespace, subject: try? body.get(), object: token,
                    sticky: store.scenarioOf(namespace, token: token)) { [store] outcome in
            let tokenRequest = try KlarnaJSON.decode(KlarnaCustomerTokenRequest.self, from: body.get())
            return .klarna(try store.createCustomerToken(namespace, token: token, tokenRequest, outcome: outcome))
        }
    }
}

/// One SDK call played for `request`. A key that names no live session of the request's namespace (garbage, unknown,
/// expired, tampered or another namespace's) is a 404 in Klarna's format naming the namespace: the mobile stand-in
/// reports it as the SDK does, InvalidClientTokenError. Every other answer is the SDK's result, as the scenario decides.
private func standIn(_ call: KlarnaSDKCall, _ request: HTTPRequest, store: KlarnaPaymentsStore, play: ScenarioPlayer<KlarnaErrorFormat>) throws -> HTTPReply {
    let namespace = Namespace(for: request)
    let key = try request.parameters.require("session_id")
    // The session and its fields under one lock; the customer's view of them (with `jsonData`) is made here.
    guard let (id, stored, sticky) = store.sdkSession(forKey: key, namespace) else { throw KlarnaError.unknownSDKSession(in: namespace) }
    let body = try SDKRequest.decode(request.body)
    var fields = stored
    if let data = body.jsonData { fields.merge(data) }
    let view = fields
    // Of the session as a tree, only the members a scenario's conditions look at.
    return play(call.operation, request, namespace, subjectMember: { key in view.jsonMember(key).map(JSONNode.init) }, object: id,
                sticky: sticky) { outcome in
        let result: KlarnaSDKResult
        switch call {
        case .initialize:
            result = store.initialize(namespace, sessionID: id, outcome: outcome)
        case .load:
            result = store.load(namespace, sessionID: id, clientToken: body.clientToken, category: body.paymentMethodCategory, outcome: outcome)
        case .authorize, .reauthorize, .finalize:
            result = store.authorize(namespace, sessionID: id, data: body.jsonData, outcome: outcome, call: call)
        }
        return HTTPReply(HTTPResponse.json(Data(result.jsonBytes)))
    }
}

/// The body of the SDK stand-in endpoints: all optional. `jsonData` is what the app passes to
/// `authorize(autoFinalize:jsonData:)` (addresses, customer), as an object or a JSON string. Each key is
/// read in snake_case (`auto_finalize`, `client_token`, `payment_method_category`) or as the SDK spells its
/// parameters (`autoFinalize`, ..., `jsonData`).
struct SDKRequest: KlarnaJSONDecodable {
    var jsonData: KlarnaSessionFields?
    var autoFinalize: Bool?
    var clientToken: String?
    var paymentMethodCategory: String?

    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        func key(_ snake: String, _ camel: String) -> String { o.node(snake) == nil ? camel : snake }
        autoFinalize = try o.bool(key("auto_finalize", "autoFinalize"))
        clientToken = try o.string(key("client_token", "clientToken"))
        paymentMethodCategory = try o.string(key("payment_method_category", "paymentMethodCategory"))
        let dataKey = key("json_data", "jsonData")
        if case .string(let text)? = o.node(dataKey)?.value {
            jsonData = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(text.utf8))
        } else {
            jsonData = try o.object(dataKey)
        }
    }

    init() {}

    static func decode(_ body: Data) throws(KlarnaError) -> SDKRequest {
        body.isEmpty ? SDKRequest() : try KlarnaJSON.decode(SDKRequest.self, from: body)
    }
}

/// HTTP Basic, as Klarna requires (klarna-api.md §1.2). Missing or unacceptable credentials: 401 in
/// Klarna's envelope (the playground sends an HTML page; the JSON envelope is what clients parse).
/// Returns the request's namespace.
func authenticate(_ request: HTTPRequest, _ configuration: KlarnaPaymentsConfiguration) throws(KlarnaError) -> Namespace {
    let unauthorized = KlarnaError(.unauthorized, code: "UNAUTHORIZED")
    let credentials: BasicCredentials
    if let basic = BasicCredentials(request) {
        credentials = basic
    } else if let header = request.headers["Authorization"], header.lowercased().hasPrefix("basic "),
              case let key = header.dropFirst(6).trimmingCharacters(in: .whitespaces), key.hasPrefix("klarna_") {
        // Newer API keys may be sent as `Basic <key>` without base64 (§1.2, §9.12).
        credentials = BasicCredentials(user: key, password: key)
    } else {
        throw unauthorized
    }
    switch configuration.credentials {
    case .anyNonEmpty:
        guard !credentials.user.isEmpty, !credentials.password.isEmpty else { throw unauthorized }
    case .only(let accepted):
        guard accepted[credentials.user] == credentials.password else { throw unauthorized }
    }
    // The header, else the user already decoded above (not decoded a second time).
    return Namespace(header: request) ?? Namespace(credentials.user)
}

