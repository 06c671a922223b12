// SPDX-License-Identifier: MIT
import Foundation

/// An error in Klarna's envelope (KP and OM, klarna-api.md §1.4):
/// `{"error_code":"BAD_VALUE","error_messages":["Bad value: order_amount"],"correlation_id":"<uuid>"}`.
package struct KlarnaError: Error, ProviderError, Equatable, Sendable {
    package var status: HTTPStatus
    package var code: String
    package var messages: [String]
    /// The `correlation_id` it answers with; nil (every error as made): a new one from the generator each time it is
    /// answered. An error kept as an idempotent first answer (Order Management, ``IdempotentAnswer``) keeps the one it
    /// first answered with, so that its replay is the same bytes.
    package var correlationID: String?

    package init(_ status: HTTPStatus, code: String, messages: [String] = [], correlationID: String? = nil) {
        self.status = status
        self.code = code
        self.messages = messages
        self.correlationID = correlationID
    }

    /// The answer with its correlation id, or one from `ids`, the sandbox's injected generator.
    package func response(for request: HTTPRequest, ids: any IDGenerator) -> HTTPResponse {
        response(correlationID: correlationID ?? ids.errorID())
    }

    /// The answer with `correlationID`: the envelope, and for a 401 the scheme to use.
    func response(correlationID: String) -> HTTPResponse {
        var response = KlarnaError.envelope(status: status, code: code, messages: messages, correlationID: correlationID)
        // RFC 9110 §11.6.1: a 401 names the scheme the client should use.
        if status == .unauthorized { response.headers.add(name: "WWW-Authenticate", value: "Basic realm=\"Klarna\"") }
        return response
    }

    static func envelope(status: HTTPStatus, code: String, messages: [String], correlationID: String) -> HTTPResponse {
        HTTPResponse.json(JSONText.object([
            ("error_code", .string(code)),
            ("error_messages", .array(messages.map(JSONText.string))),
            ("correlation_id", .string(correlationID)),
        ]).data, status: status)
    }

    // Klarna Payments' catalogue (klarna-api.md §3.1).
    package static func badValue(_ path: String) -> KlarnaError { KlarnaError(.badRequest, code: "BAD_VALUE", messages: ["Bad value: \(path)"]) }
    package static let invalidSessionID = KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Invalid session id"])
    /// The SDK stand-ins' answer to a client token or session id that names no live session where it was looked for.
    static func unknownSDKSession(in namespace: Namespace) -> KlarnaError {
        KlarnaError(.notFound, code: "NOT_FOUND", messages: [
            "Invalid session id",
            "No live session has this client token or session id in namespace \"\(namespace.name)\" (unknown, expired after "
                + "48 hours, changed, or created in another namespace: send the namespace the session was created in)",
        ])
    }
    package static let invalidAuthorizationToken = KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Invalid authorization token"])
    package static let sessionCompleted = KlarnaError(.notFound, code: "SESSION_COMPLETED", messages: ["Session has already been completed"])
    package static let rejected = KlarnaError(.forbidden, code: "REJECTED", messages: ["Rejected"])
    package static let differentRequestBody = KlarnaError(.conflict, code: "BAD_VALUE",
                                                         messages: ["The order has been already completed with different request body"])
    package static func notMatching(_ fields: [String]) -> KlarnaError {
        KlarnaError(.conflict, code: "BAD_VALUE", messages: ["Not matching fields: [\(fields.joined(separator: ", "))]"])
    }
    package static let internalError = KlarnaError(.internalServerError, code: "INTERNAL_SERVER_ERROR", messages: ["Internal error"])

    /// A `Sandbox-Namespace` header longer than a namespace name may be (``NamespaceRefusal``): Klarna's envelope
    /// for a bad value, naming the header.
    package static func namespaceRefused(_ refusal: NamespaceRefusal) -> KlarnaError {
        KlarnaError(.badRequest, code: "BAD_VALUE", messages: ["Bad value: \(Namespace.headerName)", refusal.message])
    }

    /// A `Sandbox-Scenario` header naming no loaded scenario.
    static func unknownScenario(_ error: ScenarioEngine.UnknownScenario) -> KlarnaError {
        KlarnaError(.badRequest, code: "BAD_VALUE", messages: ["Sandbox-Scenario: \(error)"])
    }

    /// The envelope a scenario's `http_error` without a body sends: Klarna's code for that status
    /// (KP and OM catalogues, klarna-api.md §3).
    package static func forStatus(_ status: Int) -> KlarnaError {
        let code: String, messages: [String]
        switch status {
        case 400: (code, messages) = ("BAD_REQUEST", [])
        case 401: (code, messages) = ("UNAUTHORIZED", [])
        case 403: (code, messages) = ("FORBIDDEN", [])
        case 404: (code, messages) = ("NOT_FOUND", [])
        case 409: (code, messages) = ("CONFLICT", [])
        case 413: (code, messages) = ("REQUEST_TOO_LARGE", ["Request is too large"])
        case 429: (code, messages) = ("TOO_MANY_REQUESTS", ["Too many requests"])
        case 500: (code, messages) = ("INTERNAL_SERVER_ERROR", ["Internal error"])
        case 502, 503, 504: (code, messages) = ("TEMPORARILY_UNAVAILABLE", ["Temporarily unavailable"])
        default: (code, messages) = (status >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST", [])
        }
        return KlarnaError(HTTPStatus(code: status), code: code, messages: messages)
    }
}

/// Klarna's errors, all in Klarna's envelope: 404, 405, framing errors, timeouts and uncaught errors under a Klarna
/// path, the errors its handlers throw, and the scenario player's own answers. Klarna documents no body for 404 on
/// unknown paths or 405; the codes below are the sandbox's choice, in the format every Klarna client already parses.
package struct KlarnaErrorFormat: ProviderErrorFormat {
    /// Where correlation ids come from: the sandbox's injected generator.
    package let ids: any IDGenerator
    package init(ids: any IDGenerator) { self.ids = ids }

    package func render(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse {
        if let refusal = error as? NamespaceRefusal { return KlarnaError.namespaceRefused(refusal).response(for: request, ids: ids) }
        return ids.answer(error, for: request)
    }

    package func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse {
        KlarnaError.unknownScenario(error).response(for: request, ids: ids)
    }
    package func error(status: Int, for request: HTTPRequest) -> HTTPResponse { KlarnaError.forStatus(status).response(for: request, ids: ids) }
    package func internalError(for request: HTTPRequest) -> HTTPResponse { KlarnaError.internalError.response(for: request, ids: ids) }

    package func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse {
        let code: String
        switch error.kind {
        case .notFound: code = "NOT_FOUND"
        case .methodNotAllowed: code = "METHOD_NOT_ALLOWED"
        case .malformedRequest: code = error.status == .contentTooLarge ? "REQUEST_TOO_LARGE" : "BAD_REQUEST"
        case .handlerTimeout: code = "TEMPORARILY_UNAVAILABLE"
        case .internalError: code = "INTERNAL_SERVER_ERROR"
        case .other: code = error.status.code >= 500 ? "INTERNAL_SERVER_ERROR" : "BAD_REQUEST"
        }
        var response = KlarnaError.envelope(status: error.status, code: code, messages: [error.message], correlationID: ids.errorID())
        if case let .methodNotAllowed(allowed) = error.kind {
            response.headers.set(name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
        }
        return response
    }
}

extension ScenarioPlayer where Format == KlarnaErrorFormat {
    init(engine: ScenarioEngine, ids: any IDGenerator) { self.init(engine: engine, format: KlarnaErrorFormat(ids: ids)) }
}
