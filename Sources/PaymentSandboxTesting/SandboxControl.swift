// SPDX-License-Identifier: MIT
import Foundation

/// The control API (`/__sandbox/`, docs/control-api.md) as typed calls, for the
/// client's namespace. The same requests in both modes: in-process they reach the same routes without a socket.
public struct SandboxControl: Sendable {
    let client: SandboxClient

    /// Makes `name` (a bundled or loaded scenario, e.g. `"reject"`) the namespace's default; nil clears it.
    public func useScenario(_ name: String?) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["name": name.map { $0 as Any } ?? NSNull()])
        _ = try await call("PUT", "/__sandbox/scenario", body: body)
    }

    /// The names of the loaded scenarios.
    public func scenarioNames() async throws -> [String] {
        let object = try await call("GET", "/__sandbox/scenarios")
        return (object["scenarios"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// The namespace's default scenario (nil: none chosen).
    public func defaultScenario() async throws -> String? {
        try await call("GET", "/__sandbox/scenarios")["default_scenario"] as? String
    }

    /// Reads the scenario directories again (`POST /__sandbox/scenarios/reload`).
    public func reloadScenarios() async throws {
        _ = try await call("POST", "/__sandbox/scenarios/reload")
    }

    /// The namespace's clock.
    public func clock() async throws -> SandboxClockReading {
        try SandboxClockReading(try await call("GET", "/__sandbox/clock"))
    }

    /// Moves the namespace's clock forward (or back, for a negative duration).
    @discardableResult
    public func advanceClock(by duration: Duration) async throws -> SandboxClockReading {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let body = try JSONSerialization.data(withJSONObject: ["advance_seconds": seconds])
        return try SandboxClockReading(try await call("POST", "/__sandbox/clock", body: body))
    }

    /// Sets the namespace's clock to `date`.
    @discardableResult
    public func setClock(to date: Date) async throws -> SandboxClockReading {
        let body = try JSONSerialization.data(withJSONObject: ["now": SandboxClockReading.format(date)])
        return try SandboxClockReading(try await call("POST", "/__sandbox/clock", body: body))
    }

    /// The namespace's journal entries, oldest first, filtered as `GET /__sandbox/journal` filters.
    public func journal(method: String? = nil, pathPrefix: String? = nil, status: Int? = nil,
                        limit: Int? = nil) async throws -> [SandboxJournalEntry] {
        var components = URLComponents()
        components.path = "/__sandbox/journal"
        var items: [URLQueryItem] = []
        if let method { items.append(URLQueryItem(name: "method", value: method)) }
        if let pathPrefix { items.append(URLQueryItem(name: "path_prefix", value: pathPrefix)) }
        if let status { items.append(URLQueryItem(name: "status", value: String(status))) }
        if let limit { items.append(URLQueryItem(name: "limit", value: String(limit))) }
        components.queryItems = items.isEmpty ? nil : items
        let object = try await call("GET", components.string ?? "/__sandbox/journal")
        return (object["entries"] as? [[String: Any]] ?? []).map(SandboxJournalEntry.init)
    }

    /// The namespace's objects (`GET /__sandbox/state`: sessions, authorizations, orders, ...), as JSON.
    public func state() async throws -> SandboxState {
        SandboxState(json: try await rawCall("GET", "/__sandbox/state").body)
    }

    /// Forgets the namespace's objects, clock offset, default scenario and journal.
    public func reset() async throws {
        _ = try await call("POST", "/__sandbox/reset")
    }

    private func call(_ method: String, _ path: String, body: Data? = nil) async throws -> [String: Any] {
        let response = try await rawCall(method, path, body: body)
        return response.jsonObject() ?? [:]
    }

    private func rawCall(_ method: String, _ path: String, body: Data? = nil) async throws -> SandboxResponse {
        var headers: [String: String] = [:]
        if body != nil { headers["Content-Type"] = "application/json" }
        let response = try await client.send(method, path, headers: headers, body: body)
        guard (200..<300).contains(response.status) else {
            throw SandboxControlError(method: method, path: path, status: response.status, body: response.text)
        }
        return response
    }
}

/// A control call the sandbox refused (e.g. an unknown scenario, a clock out of range, a missing control token).
public struct SandboxControlError: Error, Sendable, CustomStringConvertible {
    public var method: String
    public var path: String
    public var status: Int
    public var body: String
    public var description: String { "\(method) \(path): \(status) \(body)" }
}

/// A namespace's clock: its time now and how far it is from the sandbox's clock.
public struct SandboxClockReading: Sendable, Equatable {
    public var namespace: String
    public var now: Date
    public var offsetSeconds: Double

    init(_ object: [String: Any]) throws {
        guard let text = object["now"] as? String, let now = SandboxClockReading.parse(text) else {
            throw SandboxControlError(method: "GET", path: "/__sandbox/clock", status: 200, body: "no time in the answer")
        }
        namespace = object["namespace"] as? String ?? ""
        self.now = now
        offsetSeconds = (object["offset_seconds"] as? NSNumber)?.doubleValue ?? 0
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
public struct SandboxJournalEntry: Sendable, Equatable {
    public var sequence: Int
    /// The HTTP method, or `CALLBACK` / `DECISION` for the entries that are not requests.
    public var method: String
    public var path: String
    public var query: String?
    public var status: Int
    public var requestBody: String
    /// What the sandbox decided, e.g. which scenario rule applied.
    public var note: String

    init(_ object: [String: Any]) {
        sequence = (object["sequence"] as? NSNumber)?.intValue ?? 0
        method = object["method"] as? String ?? ""
        path = object["path"] as? String ?? ""
        query = object["query"] as? String
        status = (object["status"] as? NSNumber)?.intValue ?? 0
        requestBody = object["request_body"] as? String ?? ""
        note = object["note"] as? String ?? ""
    }
}

/// A namespace's state as `GET /__sandbox/state` reports it.
public struct SandboxState: Sendable {
    /// The JSON document.
    public var json: Data

    /// The document as an object.
    public func jsonObject() -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
    }

    /// The document decoded as `type`.
    public func decode<T: Decodable>(_ type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: json)
    }
}
