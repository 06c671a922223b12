// SPDX-License-Identifier: MIT
import Foundation

/// A response a handler returns. The server adds `Date`, `Content-Length` and `Connection` itself.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: Data
    /// Set by a handler that wants the connection dropped after this response (scenario faults use it).
    public var closesConnection: Bool
    /// Set to close the connection without sending anything (a simulated network fault).
    public var dropsConnection = false
    /// Never sent: a note for ``HTTPExchangeObserver``s on what the handler decided (the sandbox's journal
    /// shows it, e.g. which scenario rule applied). Any description, so a handler can hand over its values
    /// and the text is only made when someone reads it.
    public var diagnostic: (any CustomStringConvertible & Sendable)?
    /// Set by an ``Router/Handler/immediate`` handler that decided on the event loop but must wait before
    /// answering (a scenario's delay): the connection runs this as a task, under the handler timeout, and
    /// sends what it returns instead. The rest of this response is not sent.
    public var deferred: (@Sendable () async -> HTTPResponse)?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Data = Data(), closesConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closesConnection = closesConnection
    }

    /// A JSON body from raw bytes, for handlers that build their JSON by hand.
    public static func json(_ body: Data, status: HTTPStatus = .ok, contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: body)
    }

    /// A JSON body encoded from a value.
    ///
    /// ```swift
    /// return try .json(session, status: .ok)
    /// ```
    public static func json(
        _ value: some Encodable, status: HTTPStatus = .ok, contentType: String = "application/json",
        encoder: JSONEncoder = HTTPResponse.defaultEncoder
    ) throws -> HTTPResponse {
        json(try encoder.encode(value), status: status, contentType: contentType)
    }

    public static func text(_ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    public static func html(_ html: String, status: HTTPStatus = .ok) -> HTTPResponse {
        text(html, status: status, contentType: "text/html; charset=utf-8")
    }

    /// No answer at all: the connection is closed (scenarios' `drop_connection`).
    public static var dropConnection: HTTPResponse {
        var response = HTTPResponse(status: HTTPStatus(code: 499, reasonPhrase: "Connection Dropped"))
        response.dropsConnection = true
        return response
    }

    /// An answer that an `immediate` handler hands over to a task (see ``deferred``).
    public static func later(_ body: @escaping @Sendable () async -> HTTPResponse) -> HTTPResponse {
        var response = HTTPResponse(status: .accepted)
        response.deferred = body
        return response
    }

    /// This answer, sent `delay` later from a task (``later(_:)``); an answer that is already handed over to a
    /// task is awaited after the delay.
    public func delayed(by delay: Duration) -> HTTPResponse {
        let answer = self
        return .later {
            try? await Task.sleep(for: delay)
            if let deferred = answer.deferred { return await deferred() }
            return answer
        }
    }

    /// Sorted keys, ISO 8601 dates, no escaped slashes: stable output that diff tools and tests can compare.
    public static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
