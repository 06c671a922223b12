// SPDX-License-Identifier: MIT
import Foundation

/// What the client sees of an answer: status, headers and body. The server adds `Date`, `Content-Length` and
/// `Connection` itself; a handler's `Connection: close` closes the connection after this answer. What a handler
/// decides beyond that (a later answer, a dropped connection, a note for the journal) is an ``HTTPReply``.
package struct HTTPResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: Data

    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body from raw bytes, for handlers that build their JSON by hand.
    package static func json(_ body: Data, status: HTTPStatus = .ok, contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: contentType == jsonType ? jsonHeaders : ["Content-Type": contentType], body: body)
    }

    private static let jsonType = "application/json"
    /// Shared by every JSON answer: no header array made per response.
    private static let jsonHeaders: HTTPHeaders = ["Content-Type": jsonType]

    /// A JSON body encoded from a value.
    ///
    /// ```swift
    /// return try .json(session, status: .ok)
    /// ```
    package static func json(
        _ value: some Encodable, status: HTTPStatus = .ok, contentType: String = "application/json",
        encoder: JSONEncoder = HTTPResponse.defaultEncoder
    ) throws -> HTTPResponse {
        json(try encoder.encode(value), status: status, contentType: contentType)
    }

    package static func text(_ text: String, status: HTTPStatus = .ok, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }

    package static func html(_ html: String, status: HTTPStatus = .ok) -> HTTPResponse {
        text(html, status: status, contentType: "text/html; charset=utf-8")
    }

    /// Sorted keys, ISO 8601 dates, no escaped slashes: stable output that diff tools and tests can compare.
    package static var defaultEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

/// Kept answers (an idempotency key's first answer) survive a restart in the state file.
extension HTTPResponse: Codable {}
