// SPDX-License-Identifier: MIT
import Foundation

/// What the sandbox answered.
public struct SandboxResponse: Sendable {
    /// The HTTP status, e.g. `.ok`; compares with an integer literal too (`response.status == 404`).
    public var status: Status
    /// The header fields in the order sent (in-process) or as URLSession reports them (live).
    public var headerFields: [(name: String, value: String)]
    public var body: Data
    /// The URL that gave this answer: the one sent, or the last one reached when redirects were followed
    /// (``SandboxClient/RedirectPolicy``). nil when the answer was made without a request.
    public var url: URL?

    public init(status: Status, headerFields: [(name: String, value: String)], body: Data, url: URL? = nil) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.url = url
    }

    /// The first value of the header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headerFields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (nil when it is not one), for a quick look at an answer that has no type of its own.
    public func jsonObject() -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
    }

    /// The body decoded as `type`. A missing field, a field of another type or a body that is no JSON throws
    /// ``SandboxDecodingError``, which names the field (`entries[0].status`) and carries the body.
    ///
    /// ```swift
    /// struct Session: Decodable { var session_id: String; var client_token: String }
    /// let session = try response.decode(Session.self)
    /// ```
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try SandboxDecodingError.decode(type, from: body, decoder: decoder, context: url.map { "answer of \($0.absoluteString)" })
    }
}

extension SandboxResponse {
    /// An HTTP status code with names for the ones the sandbox answers. Compares with integer literals
    /// (`status == 201`, `case 404:`) as the `Int` it replaced did; ``code`` is the number.
    public struct Status: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        /// The number, e.g. 404.
        public var code: Int
        public var rawValue: Int { code }

        public init(code: Int) { self.code = code }
        public init(rawValue: Int) { self.code = rawValue }
        public init(integerLiteral value: Int) { self.code = value }

        /// 2xx.
        public var isSuccess: Bool { (200..<300).contains(code) }
        /// 3xx.
        public var isRedirection: Bool { (300..<400).contains(code) }
        /// 4xx.
        public var isClientError: Bool { (400..<500).contains(code) }
        /// 5xx.
        public var isServerError: Bool { (500..<600).contains(code) }

        /// The number, e.g. `404`.
        public var description: String { String(code) }

        public static let ok: Status = 200
        public static let created: Status = 201
        public static let accepted: Status = 202
        public static let noContent: Status = 204
        public static let movedPermanently: Status = 301
        public static let found: Status = 302
        public static let seeOther: Status = 303
        public static let notModified: Status = 304
        public static let temporaryRedirect: Status = 307
        public static let permanentRedirect: Status = 308
        public static let badRequest: Status = 400
        public static let unauthorized: Status = 401
        public static let paymentRequired: Status = 402
        public static let forbidden: Status = 403
        public static let notFound: Status = 404
        public static let methodNotAllowed: Status = 405
        public static let conflict: Status = 409
        public static let gone: Status = 410
        public static let contentTooLarge: Status = 413
        public static let unsupportedMediaType: Status = 415
        public static let unprocessableContent: Status = 422
        public static let tooManyRequests: Status = 429
        /// What the journal records for a connection the sandbox dropped (a `drop_connection` scenario).
        public static let clientClosedRequest: Status = 499
        public static let internalServerError: Status = 500
        public static let badGateway: Status = 502
        public static let serviceUnavailable: Status = 503
        public static let gatewayTimeout: Status = 504
        public static let insufficientStorage: Status = 507
    }
}

/// An answer that does not decode as the type asked for: a missing field, a field of another type (or null where a
/// value is required), or a body that is no JSON. Never a zero or an empty default in its place.
public struct SandboxDecodingError: Error, Sendable, CustomStringConvertible {
    /// The type asked for, e.g. `SandboxClockReading`.
    public var type: String
    /// The field, as a path from the top of the body: `now`, `entries[2].status`; empty for the body itself.
    public var field: String
    /// What is wrong with it: `missing`, `expected String, found a number`, ...
    public var problem: String
    /// What was decoded, e.g. `GET /__sandbox/clock`; nil when not known.
    public var context: String?
    /// The body (its first 2,000 characters).
    public var body: String

    public var description: String {
        let what = field.isEmpty ? "the body" : "field `\(field)`"
        return "\(context.map { "\($0): " } ?? "")cannot decode \(type): \(what) \(problem). Body: \(body)"
    }

    public init(type: String, field: String, problem: String, context: String? = nil, body: String) {
        self.type = type
        self.field = field
        self.problem = problem
        self.context = context
        self.body = body
    }

    /// `type` from `data`, a `DecodingError` turned into this error.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, decoder: JSONDecoder, context: String?) throws -> T {
        do {
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw SandboxDecodingError(error, type: String(describing: type), context: context, body: data)
        }
    }

    init(_ error: DecodingError, type: String, context: String?, body: Data) {
        let text = String(decoding: body.prefix(2000), as: UTF8.self)
        switch error {
        case .keyNotFound(let key, let details):
            self.init(type: type, field: Self.path(details.codingPath + [key]), problem: "is missing", context: context, body: text)
        case .typeMismatch(let expected, let details):
            self.init(type: type, field: Self.path(details.codingPath),
                      problem: "is not a \(String(describing: expected)) (\(details.debugDescription))", context: context, body: text)
        case .valueNotFound(let expected, let details):
            self.init(type: type, field: Self.path(details.codingPath),
                      problem: "is null where a \(String(describing: expected)) is required", context: context, body: text)
        case .dataCorrupted(let details):
            self.init(type: type, field: Self.path(details.codingPath), problem: "is invalid (\(details.debugDescription))",
                      context: context, body: text)
        @unknown default:
            self.init(type: type, field: "", problem: "cannot be read (\(error))", context: context, body: text)
        }
    }

    /// `entries[0].status` from a coding path.
    static func path(_ keys: [any CodingKey]) -> String {
        var path = ""
        for key in keys {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return path
    }
}
