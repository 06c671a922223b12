// SPDX-License-Identifier: MIT
import Foundation

/// The control API (`/__sandbox/`, docs/control-api.md) as typed calls, for the
/// client's namespace. The same requests in both modes: in-process they reach the same routes without a socket.
///
/// Every answer is decoded into its type: a refusal (any status but 2xx) throws ``SandboxControlError``; an answer
/// missing a field, or with a field of another type, throws ``SandboxDecodingError`` naming the field (never a zero
/// or an empty default in its place).
public struct SandboxControl: Sendable {
    let client: SandboxClient

    /// Makes `name` (a bundled or loaded scenario, e.g. `"reject"`) the namespace's default; nil clears it.
    @discardableResult
    public func useScenario(_ name: String?) async throws -> SandboxScenarioChoice {
        let body = try JSONSerialization.data(withJSONObject: ["name": name.map { $0 as Any } ?? NSNull()])
        return try await call(.put, "/__sandbox/scenario", body: body)
    }

    /// The loaded scenarios, the namespace's default and the last reload's problems (`GET /__sandbox/scenarios`).
    public func scenarios() async throws -> SandboxScenarioList {
        try await call(.get, "/__sandbox/scenarios")
    }

    /// The names of the loaded scenarios.
    public func scenarioNames() async throws -> [String] {
        try await scenarios().scenarios.map(\.name)
    }

    /// The namespace's default scenario (nil: none chosen).
    public func defaultScenario() async throws -> String? {
        try await scenarios().defaultScenario
    }

    /// Reads the scenario directories again (`POST /__sandbox/scenarios/reload`) and returns what is loaded now. An
    /// invalid set is refused (422, ``SandboxControlError``) and the previous one stays.
    @discardableResult
    public func reloadScenarios() async throws -> SandboxScenarioList {
        try await call(.post, "/__sandbox/scenarios/reload")
    }

    /// The namespace's clock.
    public func clock() async throws -> SandboxClockReading {
        try await call(.get, "/__sandbox/clock")
    }

    /// Moves the namespace's clock forward (or back, for a negative duration).
    @discardableResult
    public func advanceClock(by duration: Duration) async throws -> SandboxClockReading {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let body = try JSONSerialization.data(withJSONObject: ["advance_seconds": seconds])
        return try await call(.post, "/__sandbox/clock", body: body)
    }

    /// Sets the namespace's clock to `date`.
    @discardableResult
    public func setClock(to date: Date) async throws -> SandboxClockReading {
        let body = try JSONSerialization.data(withJSONObject: ["now": SandboxClockReading.format(date)])
        return try await call(.post, "/__sandbox/clock", body: body)
    }

    /// The namespace's journal entries, oldest first, filtered as `GET /__sandbox/journal` filters (the newest
    /// `limit`, by default 100; ``journalPage(method:pathPrefix:status:limit:before:)`` reads older pages).
    public func journal(method: SandboxClient.Method? = nil, pathPrefix: String? = nil, status: SandboxResponse.Status? = nil,
                        limit: Int? = nil) async throws -> [SandboxJournalEntry] {
        try await journalPage(method: method, pathPrefix: pathPrefix, status: status, limit: limit).entries
    }

    /// One page of the namespace's journal: the newest `limit` matching entries older than `before` (an entry's
    /// ``SandboxJournalEntry/sequence``, ``SandboxJournalPage/nextBefore``), oldest first.
    public func journalPage(method: SandboxClient.Method? = nil, pathPrefix: String? = nil, status: SandboxResponse.Status? = nil,
                            limit: Int? = nil, before: Int? = nil) async throws -> SandboxJournalPage {
        var components = URLComponents()
        components.path = "/__sandbox/journal"
        var items: [URLQueryItem] = []
        if let method { items.append(URLQueryItem(name: "method", value: method.rawValue)) }
        if let pathPrefix { items.append(URLQueryItem(name: "path_prefix", value: pathPrefix)) }
        if let status { items.append(URLQueryItem(name: "status", value: String(status.code))) }
        if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let before { items.append(URLQueryItem(name: "before", value: String(before))) }
        components.queryItems = items.isEmpty ? nil : items
        return try await call(.get, components.string ?? "/__sandbox/journal")
    }

    /// The namespace's objects (`GET /__sandbox/state`: sessions, authorizations, orders, ...), as JSON.
    public func state() async throws -> SandboxState {
        SandboxState(json: try await rawCall(.get, "/__sandbox/state").body)
    }

    /// Forgets the namespace's objects, clock offset, default scenario and journal.
    @discardableResult
    public func reset() async throws -> SandboxReset {
        try await call(.post, "/__sandbox/reset")
    }

    func call<Answer: Decodable>(_ method: SandboxClient.Method, _ path: String, body: Data? = nil,
                                         as type: Answer.Type = Answer.self) async throws -> Answer {
        let response = try await rawCall(method, path, body: body)
        return try SandboxDecodingError.decode(type, from: response.body, decoder: JSONDecoder(), context: "\(method) \(path)")
    }

    func rawCall(_ method: SandboxClient.Method, _ path: String, body: Data? = nil) async throws -> SandboxResponse {
        var headers: [String: String] = [:]
        if body != nil { headers["Content-Type"] = "application/json" }
        let response = try await client.redirects(.doNotFollow).send(method, path, headers: headers, body: body)
        guard response.status.isSuccess else {
            throw SandboxControlError(method: method.rawValue, path: path, status: response.status, body: response.text)
        }
        return response
    }
}

/// A control call the sandbox refused (e.g. an unknown scenario, a clock out of range, a missing control token).
public struct SandboxControlError: Error, Sendable, CustomStringConvertible {
    public var method: String
    public var path: String
    public var status: SandboxResponse.Status
    public var body: String
    public var description: String { "\(method) \(path): \(status) \(body)" }
}

/// A namespace's clock: its time now and how far it is from the sandbox's clock (`GET`/`POST /__sandbox/clock`).
public struct SandboxClockReading: Decodable, Sendable, Equatable {
    public var namespace: String
    public var now: Date
    public var offsetSeconds: Double

    enum CodingKeys: String, CodingKey {
        case namespace, now
        case offsetSeconds = "offset_seconds"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        namespace = try container.decode(String.self, forKey: .namespace)
        let text = try container.decode(String.self, forKey: .now)
        guard let now = Self.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .now, in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date-time")
        }
        self.now = now
        offsetSeconds = try container.decode(Double.self, forKey: .offsetSeconds)
    }

    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

/// One call the journal recorded (docs/operations.md, "Namespaces, clock, state and journal").
public struct SandboxJournalEntry: Decodable, Sendable, Equatable {
    /// Its place in the whole journal (every namespace), increasing; ``SandboxControl/journalPage(method:pathPrefix:status:limit:before:)``'s `before`.
    public var sequence: Int
    /// When the sandbox's clock said the call came (the namespace's offset aside).
    public var time: Date
    /// The request id of the journal, the log and error bodies (`inproc-…` in-process).
    public var requestID: String
    /// The HTTP method, or `CALLBACK` / `DECISION` for the entries that are not requests.
    public var method: String
    public var path: String
    public var query: String?
    public var status: SandboxResponse.Status
    /// The first 4 KiB of the request body (``requestBodyTruncated`` says whether there was more).
    public var requestBody: String
    public var requestBodyTruncated: Bool
    /// What the sandbox decided, e.g. which scenario rule applied.
    public var note: String

    enum CodingKeys: String, CodingKey {
        case sequence, time, method, path, query, status, note
        case requestID = "request_id"
        case requestBody = "request_body"
        case requestBodyTruncated = "request_body_truncated"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sequence = try container.decode(Int.self, forKey: .sequence)
        let text = try container.decode(String.self, forKey: .time)
        guard let time = SandboxClockReading.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date-time")
        }
        self.time = time
        requestID = try container.decode(String.self, forKey: .requestID)
        method = try container.decode(String.self, forKey: .method)
        path = try container.decode(String.self, forKey: .path)
        // Always sent; null when the request had no query.
        query = try container.decode(String?.self, forKey: .query)
        status = SandboxResponse.Status(code: try container.decode(Int.self, forKey: .status))
        requestBody = try container.decode(String.self, forKey: .requestBody)
        requestBodyTruncated = try container.decode(Bool.self, forKey: .requestBodyTruncated)
        note = try container.decode(String.self, forKey: .note)
    }
}

/// One page of a namespace's journal (`GET /__sandbox/journal`).
public struct SandboxJournalPage: Decodable, Sendable, Equatable {
    public var namespace: String
    /// Entries the journal keeps across all namespaces.
    public var capacity: Int
    /// Entries dropped so far to stay within ``capacity`` (all namespaces).
    public var dropped: Int
    /// Oldest first.
    public var entries: [SandboxJournalEntry]
    public var limit: Int
    /// Older entries match too: ask with `before:` ``nextBefore``.
    public var more: Bool
    public var nextBefore: Int?

    enum CodingKeys: String, CodingKey {
        case namespace, capacity, dropped, entries, limit, more
        case nextBefore = "next_before"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        namespace = try container.decode(String.self, forKey: .namespace)
        capacity = try container.decode(Int.self, forKey: .capacity)
        dropped = try container.decode(Int.self, forKey: .dropped)
        entries = try container.decode([SandboxJournalEntry].self, forKey: .entries)
        limit = try container.decode(Int.self, forKey: .limit)
        more = try container.decode(Bool.self, forKey: .more)
        nextBefore = try container.decode(Int?.self, forKey: .nextBefore)
    }
}

/// The loaded scenarios and the namespace's default (`GET /__sandbox/scenarios`, `POST /__sandbox/scenarios/reload`).
public struct SandboxScenarioList: Decodable, Sendable, Equatable {
    public var namespace: String
    /// nil: none chosen.
    public var defaultScenario: String?
    /// The scenario directories read, in load order (the bundled scenarios' first).
    public var directories: [String]
    public var scenarios: [SandboxScenario]
    /// Why the last reload failed; empty when it did not.
    public var reloadProblems: [String]

    enum CodingKeys: String, CodingKey {
        case namespace, directories, scenarios
        case defaultScenario = "default_scenario"
        case reloadProblems = "reload_problems"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        namespace = try container.decode(String.self, forKey: .namespace)
        defaultScenario = try container.decode(String?.self, forKey: .defaultScenario)
        directories = try container.decode([String].self, forKey: .directories)
        scenarios = try container.decode([SandboxScenario].self, forKey: .scenarios)
        reloadProblems = try container.decode([String].self, forKey: .reloadProblems)
    }
}

/// One loaded scenario.
public struct SandboxScenario: Decodable, Sendable, Equatable {
    public var name: String
    public var description: String
    /// The file it came from.
    public var file: String
    /// The operations its rules decide (`klarna.payments.authorize`, ...), sorted.
    public var operations: [String]
}

/// The answer to ``SandboxControl/useScenario(_:)``: the namespace and its default scenario now.
public struct SandboxScenarioChoice: Decodable, Sendable, Equatable {
    public var namespace: String
    /// nil: cleared.
    public var defaultScenario: String?

    enum CodingKeys: String, CodingKey {
        case namespace
        case defaultScenario = "default_scenario"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        namespace = try container.decode(String.self, forKey: .namespace)
        defaultScenario = try container.decode(String?.self, forKey: .defaultScenario)
    }
}

/// The answer to ``SandboxControl/reset()``.
public struct SandboxReset: Decodable, Sendable, Equatable {
    public var namespace: String
    /// Always true in an answer (a failed reset is an error status).
    public var reset: Bool
}

/// A namespace's state as `GET /__sandbox/state` reports it.
public struct SandboxState: Sendable {
    /// The JSON document.
    public var json: Data

    /// The document as an object, for a quick look.
    public func jsonObject() -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
    }

    /// The document decoded as `type`; a missing or wrongly typed field throws ``SandboxDecodingError`` naming it.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try SandboxDecodingError.decode(type, from: json, decoder: decoder, context: "GET /__sandbox/state")
    }
}
