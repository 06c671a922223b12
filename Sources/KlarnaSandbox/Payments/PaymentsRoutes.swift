// SPDX-License-Identifier: MIT
import Foundation

/// `/payments/v1/...` (klarna-api.md §2) and the sandbox's stand-in for the SDK's client-side calls
/// under `/__sandbox/klarna/payments/...`.
public struct KlarnaPaymentsRoutes: Sendable {
    public let store: KlarnaPaymentsStore

    public init(store: KlarnaPaymentsStore) { self.store = store }

    public func add(to router: inout Router) {
        router.setErrorRenderer(KlarnaErrorRenderer(), forPathPrefix: "/payments/")
        let store = self.store
        let encoder = KlarnaJSON.encoder()

        router.add("POST /payments/v1/sessions") { request in
            let namespace = try authorize(request, store.configuration)
            let fields = try KlarnaJSON.decode(KlarnaSessionFields.self, from: request.body)
            return try .json(await store.createSession(namespace, fields), encoder: encoder)
        }
        router.add("GET /payments/v1/sessions/:session_id") { request in
            let namespace = try authorize(request, store.configuration)
            return try .json(await store.readSession(namespace, try request.parameters.require("session_id")), encoder: encoder)
        }
        router.add("POST /payments/v1/sessions/:session_id") { request in
            let namespace = try authorize(request, store.configuration)
            let update = try KlarnaJSON.decode(KlarnaSessionFields.self, from: request.body)
            try await store.updateSession(namespace, try request.parameters.require("session_id"), update)
            return HTTPResponse(status: .noContent)
        }
        router.add("DELETE /payments/v1/sessions/:session_id") { request in
            let namespace = try authorize(request, store.configuration)
            try await store.cancelSession(namespace, try request.parameters.require("session_id"))
            return HTTPResponse(status: .noContent)
        }
        router.add("POST /payments/v1/authorizations/:token/order") { request in
            let namespace = try authorize(request, store.configuration)
            let body = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: request.body)
            let order = try await store.createOrder(namespace, token: try request.parameters.require("token"), body,
                                                    redirectBase: publicBaseURL(request))
            return try .json(order, encoder: encoder)
        }
        router.add("DELETE /payments/v1/authorizations/:token") { request in
            let namespace = try authorize(request, store.configuration)
            try await store.cancelAuthorization(namespace, token: try request.parameters.require("token"))
            return HTTPResponse(status: .noContent)
        }
        router.add("POST /payments/v1/authorizations/:token/customer-token") { request in
            let namespace = try authorize(request, store.configuration)
            let body = try KlarnaJSON.decode(KlarnaCustomerTokenRequest.self, from: request.body)
            return try .json(await store.createCustomerToken(namespace, token: try request.parameters.require("token"), body),
                             encoder: encoder)
        }

        // The SDK's authorize(), load() and finalize(), without the SDK (issue: "What Klarna's SDK would do").
        router.add("POST /__sandbox/klarna/payments/sessions/:session_id/authorize") { request in
            let body = try SDKRequest.decode(request.body)
            let result = await store.authorize(Namespace(for: request), sessionID: try request.parameters.require("session_id"),
                                               data: body.jsonData)
            return .json(result.json.data)
        }
        router.add("POST /__sandbox/klarna/payments/sessions/:session_id/finalize") { request in
            let body = try SDKRequest.decode(request.body)
            let result = await store.authorize(Namespace(for: request), sessionID: try request.parameters.require("session_id"),
                                               data: body.jsonData)
            return .json(result.json.data)
        }
        router.add("POST /__sandbox/klarna/payments/sessions/:session_id/load") { request in
            let body = try SDKRequest.decode(request.body)
            let result = await store.load(Namespace(for: request), sessionID: try request.parameters.require("session_id"),
                                          clientToken: body.clientToken, category: body.paymentMethodCategory)
            return .json(result.json.data)
        }
        // Where an order's redirect_url leads: a 303 to merchant_urls.confirmation with its placeholders filled.
        router.add("GET /__sandbox/klarna/payments/orders/:order_id/redirect") { request in
            let orderID = try request.parameters.require("order_id")
            guard let location = await store.confirmationURL(Namespace(for: request), orderID: orderID) else {
                throw HTTPError.notFound(request.path)
            }
            return HTTPResponse(status: .seeOther, headers: ["Location": location])
        }
    }
}

/// The body of the SDK stand-in endpoints: all optional. `jsonData` is what the app passes to
/// `authorize(autoFinalize:jsonData:)` (addresses, customer), as an object or a JSON string.
struct SDKRequest: Decodable {
    var jsonData: KlarnaSessionFields?
    var autoFinalize: Bool?
    var clientToken: String?
    var paymentMethodCategory: String?

    enum CodingKeys: String, CodingKey { case jsonData, autoFinalize, clientToken, paymentMethodCategory }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        autoFinalize = try container.decodeIfPresent(Bool.self, forKey: .autoFinalize)
        clientToken = try container.decodeIfPresent(String.self, forKey: .clientToken)
        paymentMethodCategory = try container.decodeIfPresent(String.self, forKey: .paymentMethodCategory)
        if let text = try? container.decodeIfPresent(String.self, forKey: .jsonData) {
            jsonData = try KlarnaJSON.decode(KlarnaSessionFields.self, from: Data(text.utf8))
        } else {
            jsonData = try container.decodeIfPresent(KlarnaSessionFields.self, forKey: .jsonData)
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
func authorize(_ request: HTTPRequest, _ configuration: KlarnaPaymentsConfiguration) throws(KlarnaError) -> Namespace {
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
    return Namespace(for: request)
}

/// This sandbox's base URL as the client sees it: `X-Forwarded-Proto` / `X-Forwarded-Host` behind a proxy, else Host.
func publicBaseURL(_ request: HTTPRequest) -> String? {
    guard let host = request.headers["X-Forwarded-Host"] ?? request.headers["Host"], !host.isEmpty else { return nil }
    let scheme = request.headers["X-Forwarded-Proto"] ?? "http"
    return "\(scheme)://\(host)"
}
