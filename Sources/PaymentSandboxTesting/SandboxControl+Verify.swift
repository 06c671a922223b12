// SPDX-License-Identifier: MIT
import Foundation

extension SandboxControl {
    /// Whether the namespace's journal holds `count` requests matching `pattern` (`POST /__sandbox/verify`); when it
    /// does not, ``SandboxVerification/nearMisses`` says which requests came nearest and why each missed.
    ///
    /// ```swift
    /// let check = try await sandbox.control.verify(
    ///     SandboxRequestPattern(method: .post, path: "/payments/v1/sessions", body: [.equals("order_lines[0].quantity", 1)]),
    ///     count: .exactly(1))
    /// #expect(check.held, "\(check.message): \(check.nearMisses.map(\.summary))")
    /// ```
    public func verify(_ pattern: SandboxRequestPattern, count: SandboxExpectedCount = .atLeast(1)) async throws -> SandboxVerification<SandboxJournalEntry> {
        let body = try JSONSerialization.data(withJSONObject: ["pattern": pattern.json, "count": count.json])
        return try await call(.post, "/__sandbox/verify", body: body)
    }

    /// The same for the callbacks in the namespace's outbox (`POST /__sandbox/callbacks/verify`).
    public func verifyCallbacks(_ pattern: SandboxCallbackPattern, count: SandboxExpectedCount = .atLeast(1)) async throws -> SandboxVerification<SandboxCallback> {
        let body = try JSONSerialization.data(withJSONObject: ["pattern": pattern.json, "count": count.json])
        return try await call(.post, "/__sandbox/callbacks/verify", body: body)
    }

    /// The namespace's oldest request matching `pattern` (after journal sequence `after`), as soon as there is one
    /// (`GET /__sandbox/journal/wait`); throws ``SandboxControlError`` with status 408 when none comes within
    /// `timeout` (at most 30 seconds).
    public func waitForRequest(_ pattern: SandboxRequestPattern, after: Int? = nil, timeout: Duration = .seconds(10)) async throws -> SandboxJournalEntry {
        var items = pattern.queryItems + [URLQueryItem(name: "timeout", value: Self.seconds(timeout))]
        if let after { items.append(URLQueryItem(name: "after", value: String(after))) }
        let answer: SandboxWaitAnswer<SandboxJournalEntry> = try await call(.get, Self.target("/__sandbox/journal/wait", items))
        return answer.found
    }

    /// The namespace's oldest callback matching `pattern`, as soon as there is one (`GET /__sandbox/callbacks/wait`);
    /// 408 as ``waitForRequest(_:after:timeout:)``.
    public func waitForCallback(_ pattern: SandboxCallbackPattern, timeout: Duration = .seconds(10)) async throws -> SandboxCallback {
        let items = pattern.queryItems + [URLQueryItem(name: "timeout", value: Self.seconds(timeout))]
        let answer: SandboxWaitAnswer<SandboxCallback> = try await call(.get, Self.target("/__sandbox/callbacks/wait", items))
        return answer.found
    }

    private static func seconds(_ duration: Duration) -> String {
        String(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    private static func target(_ path: String, _ items: [URLQueryItem]) -> String {
        var components = URLComponents()
        components.path = path
        components.queryItems = items
        // `+` in a value would read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? path
    }
}

/// A JSON value a field condition compares with.
public enum SandboxFieldValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    case string(String), int(Int), double(Double), bool(Bool), null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }

    var json: Any {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .null: NSNull()
        }
    }

    /// As a wait's query writes it: JSON text, a string as itself.
    var queryText: String {
        switch self {
        case .string(let value): value
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        }
    }
}

/// A condition on a JSON body's field, by its path as scenario files write them (`order_lines[0].quantity`).
public struct SandboxFieldCondition: Sendable, Equatable {
    public var path: String
    public var test: Test

    public enum Test: Sendable, Equatable {
        case equals(SandboxFieldValue)
        /// A string field that contains the text, or an array with an element equal to the value.
        case contains(SandboxFieldValue)
        case absent
    }

    public static func equals(_ path: String, _ value: SandboxFieldValue) -> Self { Self(path: path, test: .equals(value)) }
    public static func contains(_ path: String, _ value: SandboxFieldValue) -> Self { Self(path: path, test: .contains(value)) }
    public static func absent(_ path: String) -> Self { Self(path: path, test: .absent) }

    var json: [String: Any] {
        switch test {
        case .equals(let value): ["path": path, "equals": value.json]
        case .contains(let value): ["path": path, "contains": value.json]
        case .absent: ["path": path, "absent": true]
        }
    }

    /// A wait's query takes `equals` only (`body.<path>=<value>`).
    var queryItem: URLQueryItem {
        guard case .equals(let value) = test else { preconditionFailure("a wait's query takes equals conditions only") }
        return URLQueryItem(name: "body.\(path)", value: value.queryText)
    }
}

/// What a verification or a wait looks for in the journal; every criterion given must hold.
public struct SandboxRequestPattern: Sendable, Equatable {
    public var method: SandboxClient.Method?
    /// Exact, or with `{name}` segments that match any one segment (`/payments/v1/sessions/{id}`).
    public var path: String?
    public var pathPrefix: String?
    public var status: SandboxResponse.Status?
    public var query: [String: String]
    public var headers: [String: String]
    /// Conditions on the request's JSON body (a wait takes `equals` ones only).
    public var body: [SandboxFieldCondition]

    public init(method: SandboxClient.Method? = nil, path: String? = nil, pathPrefix: String? = nil, status: SandboxResponse.Status? = nil,
                query: [String: String] = [:], headers: [String: String] = [:], body: [SandboxFieldCondition] = []) {
        self.method = method
        self.path = path
        self.pathPrefix = pathPrefix
        self.status = status
        self.query = query
        self.headers = headers
        self.body = body
    }

    var json: [String: Any] {
        var json: [String: Any] = [:]
        if let method { json["method"] = method.rawValue }
        if let path { json["path"] = path }
        if let pathPrefix { json["path_prefix"] = pathPrefix }
        if let status { json["status"] = status.code }
        if !query.isEmpty { json["query"] = query }
        if !headers.isEmpty { json["headers"] = headers }
        if !body.isEmpty { json["body"] = body.map(\.json) }
        return json
    }

    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let method { items.append(URLQueryItem(name: "method", value: method.rawValue)) }
        if let path { items.append(URLQueryItem(name: "path", value: path)) }
        if let pathPrefix { items.append(URLQueryItem(name: "path_prefix", value: pathPrefix)) }
        if let status { items.append(URLQueryItem(name: "status", value: String(status.code))) }
        items += query.sorted { $0.key < $1.key }.map { URLQueryItem(name: "query.\($0.key)", value: $0.value) }
        items += headers.sorted { $0.key < $1.key }.map { URLQueryItem(name: "header.\($0.key)", value: $0.value) }
        return items + body.map(\.queryItem)
    }
}

/// What a verification or a wait looks for in the outbox.
public struct SandboxCallbackPattern: Sendable, Equatable {
    public var operation: String?
    public var object: String?
    /// `pending`, `held`, `delivered` or `failed`.
    public var state: String?
    public var url: String?
    public var body: [SandboxFieldCondition]

    public init(operation: String? = nil, object: String? = nil, state: String? = nil, url: String? = nil, body: [SandboxFieldCondition] = []) {
        self.operation = operation
        self.object = object
        self.state = state
        self.url = url
        self.body = body
    }

    var json: [String: Any] {
        var json: [String: Any] = [:]
        if let operation { json["operation"] = operation }
        if let object { json["object"] = object }
        if let state { json["state"] = state }
        if let url { json["url"] = url }
        if !body.isEmpty { json["body"] = body.map(\.json) }
        return json
    }

    var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let operation { items.append(URLQueryItem(name: "operation", value: operation)) }
        if let object { items.append(URLQueryItem(name: "object", value: object)) }
        if let state { items.append(URLQueryItem(name: "state", value: state)) }
        if let url { items.append(URLQueryItem(name: "url", value: url)) }
        return items + body.map(\.queryItem)
    }
}

/// How many matches a verification expects.
public enum SandboxExpectedCount: Sendable, Equatable {
    case exactly(Int), atLeast(Int), atMost(Int), between(Int, Int)

    var json: [String: Any] {
        switch self {
        case .exactly(let count): ["exactly": count]
        case .atLeast(let count): ["at_least": count]
        case .atMost(let count): ["at_most": count]
        case .between(let low, let high): ["at_least": low, "at_most": high]
        }
    }
}

/// A verification's answer: whether the count held, the matches (the newest 100), and when too few matched, the
/// nearest misses with why each missed.
public struct SandboxVerification<Entry: Decodable & Sendable>: Decodable, Sendable {
    public var namespace: String
    public var held: Bool
    public var count: Int
    public var expected: Expected
    /// "0 matched, expected exactly 1; the nearest misses say why".
    public var message: String
    public var matches: [Entry]
    public var matchesTruncated: Bool
    public var nearMisses: [SandboxNearMiss<Entry>]
    /// How many entries were compared.
    public var searched: Int

    public struct Expected: Decodable, Sendable, Equatable {
        public var atLeast: Int
        public var atMost: Int?

        enum CodingKeys: String, CodingKey {
            case atLeast = "at_least"
            case atMost = "at_most"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            atLeast = try container.decode(Int.self, forKey: .atLeast)
            // Always sent; null when there is no upper bound.
            atMost = try container.decode(Int?.self, forKey: .atMost)
        }
    }

    enum CodingKeys: String, CodingKey {
        case namespace, held, count, expected, message, matches, searched
        case matchesTruncated = "matches_truncated"
        case nearMisses = "near_misses"
    }
}

/// An entry that came near a pattern, and why it missed.
public struct SandboxNearMiss<Entry: Decodable & Sendable>: Decodable, Sendable {
    public var entry: Entry
    /// The criteria that held (`method`, `path`, `body order_lines[0].quantity`, ...).
    public var matched: [String]
    /// Why each other one missed: "body field `order_lines[0].quantity` was 2, wanted 1".
    public var reasons: [String]
    /// "method and path matched, body field `order_lines[0].quantity` was 2, wanted 1".
    public var summary: String
}

/// A callback of the outbox (`GET /__sandbox/callbacks`), as verifications and waits give it.
public struct SandboxCallback: Decodable, Sendable, Equatable {
    public var id: String
    public var object: String
    public var operation: String
    public var description: String
    public var url: String
    /// `pending`, `held`, `delivered` or `failed`.
    public var state: String
    public var attemptCount: Int

    enum CodingKeys: String, CodingKey {
        case id, object, operation, description, url, state
        case attemptCount = "attempt_count"
    }
}

struct SandboxWaitAnswer<Found: Decodable & Sendable>: Decodable, Sendable {
    var namespace: String
    var found: Found

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        namespace = try container.decode(String.self, forKey: Key(stringValue: "namespace"))
        // A request wait answers "entry", a callback wait "callback".
        let key = Found.self == SandboxCallback.self ? "callback" : "entry"
        found = try container.decode(Found.self, forKey: Key(stringValue: key))
    }
}
