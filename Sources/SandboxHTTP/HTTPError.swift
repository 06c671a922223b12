// SPDX-License-Identifier: MIT

/// An error that knows how to answer the client. Provider errors (an error envelope, RFC 7807
/// problems) conform to it, and the server renders whatever a handler throws through it.
package protocol HTTPResponseError: Error {
    func response(for request: HTTPRequest) -> HTTPResponse
}

/// A protocol-level failure that is not tied to a provider: unknown route, wrong method, bad framing,
/// limits, timeouts. The router's ``HTTPErrorRenderer`` for the request's path turns it into a response,
/// so each faked API answers in its own error format.
package struct HTTPError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        case notFound
        case methodNotAllowed(allowed: [HTTPMethod])
        /// Bad framing or syntax found by the parser (400, 413, 431, 408, 501, 505, 417).
        case malformedRequest
        /// No answer in time: the handler timed out, or the server stopped before the request was answered (503).
        case handlerTimeout
        case internalError
        case other
    }

    package var status: HTTPStatus
    package var kind: Kind
    package var message: String

    package init(_ status: HTTPStatus, _ message: String, kind: Kind = .other) {
        self.status = status
        self.message = message
        self.kind = kind
    }

    package static func notFound(_ path: String) -> HTTPError {
        HTTPError(.notFound, "No route for \(path)", kind: .notFound)
    }
    package static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(.methodNotAllowed, "Method \(method) is not allowed here", kind: .methodNotAllowed(allowed: allowed))
    }
    package var description: String { "\(status.code) \(message)" }
}

/// Renders protocol-level errors in one API's own format. Registered on a ``Router`` per path prefix.
package protocol HTTPErrorRenderer: Sendable {
    func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse
    /// An error that answers for itself, thrown under this renderer's prefix: a provider's renderer gives it the
    /// sandbox's injected ids. The default is the error's own ``HTTPResponseError/response(for:)``.
    func render(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse
}

extension HTTPErrorRenderer {
    package func render(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse { error.response(for: request) }
}

/// The renderer used where no provider claims the path: a small JSON body.
package struct DefaultErrorRenderer: HTTPErrorRenderer {
    package init() {}
    package func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse.json(
            JSONText.object([
                ("error", .string(error.status.reasonPhrase)),
                ("message", .string(error.message)),
                ("status", .int(error.status.code)),
            ]).data,
            status: error.status)
        if case let .methodNotAllowed(allowed) = error.kind {
            response.headers.set(name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
        }
        return response
    }
}
