// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// Verification, waiting and metrics (docs/control-api.md, "Verify and wait" and "Metrics"). They read the journal
/// and the outbox, nothing else.
///
/// - `POST /__sandbox/verify`, `POST /__sandbox/callbacks/verify`: `{"pattern": {…}, "count": {"exactly": 1}}`;
///   whether the count held, the matches, and when it did not, the nearest entries with why each missed.
/// - `GET /__sandbox/journal/wait`, `GET /__sandbox/callbacks/wait`: the pattern in the query; the first match as
///   soon as there is one, or 408 after `timeout` seconds (default 10, at most ``maxWaitSeconds``). A held request
///   is a suspended task on an open connection: it counts against the connection limit and ends at stop.
/// - `GET /__sandbox/metrics`: the Prometheus text format (``MetricsPage``).
struct ObservationRoutes: Sendable {
    let control: ControlRoutes
    let metrics: SandboxMetrics?

    static let defaultWaitSeconds = 10.0
    static let maxWaitSeconds = 30.0
    /// Matches an answer lists at most (the newest), and near misses.
    static let matchLimit = 100
    static let nearMissLimit = 3

    func add(to router: inout Router) {
        let routes = self
        router.add("POST /__sandbox/verify") { request in try routes.verifyRequests(request) }
        router.add("POST /__sandbox/callbacks/verify") { request in try routes.verifyCallbacks(request) }
        router.add("GET /__sandbox/journal/wait") { request in try await routes.waitForRequest(request) }
        router.add("GET /__sandbox/callbacks/wait") { request in try await routes.waitForCallback(request) }
        if let metrics {
            router.add("GET /__sandbox/metrics") { _ in MetricsPage(metrics: metrics, control: routes.control).response() }
        }
    }

    // MARK: Verify

    private func verifyRequests(_ request: HTTPRequest) throws -> HTTPResponse {
        let (body, namespace, expectation) = try Self.verification(request, patternKeys: PatternReader.requestKeys)
        let pattern = try PatternReader.requestPattern(body)
        let entries = control.journal.allEntries(namespace)
        let compared = entries.map { ($0, pattern.compare($0)) }
        let matches = compared.filter { $0.1.isMatch }.map(\.0)
        let misses = expectation.wantsMore(than: matches.count) ? Self.nearest(compared.filter { !$0.1.isMatch }) : []
        return .json(Self.answer(namespace, expectation, matches: matches.map(ControlRoutes.journalEntry), searched: entries.count,
                                 nearMisses: misses.map { Self.nearMiss(ControlRoutes.journalEntry($0.0), $0.1) },
                                 source: ("journal", .object([("capacity", .int(control.journal.capacity)),
                                                              ("dropped", .int(control.journal.dropped))]))).data)
    }

    private func verifyCallbacks(_ request: HTTPRequest) throws -> HTTPResponse {
        let (body, namespace, expectation) = try Self.verification(request, patternKeys: PatternReader.callbackKeys)
        let pattern = try PatternReader.callbackPattern(body)
        let entries = control.outbox.entries(namespace)
        let compared = entries.map { ($0, pattern.compare($0)) }
        let matches = compared.filter { $0.1.isMatch }.map(\.0)
        let misses = expectation.wantsMore(than: matches.count) ? Self.nearest(compared.filter { !$0.1.isMatch }) : []
        return .json(Self.answer(namespace, expectation, matches: matches.map(CallbackRoutes.json), searched: entries.count,
                                 nearMisses: misses.map { Self.nearMiss(CallbackRoutes.json($0.0), $0.1) },
                                 source: ("outbox", .object([("capacity_per_namespace", .int(control.outbox.capacityPerNamespace)),
                                                             ("evicted", .int(control.outbox.evicted))]))).data)
    }

    /// The body's pattern, namespace (the body's `namespace`, else the request's) and expected count.
    private static func verification(_ request: HTTPRequest, patternKeys: [String]) throws -> (JSONNode, Namespace, CountExpectation) {
        guard let root = try? JSONDocument.parse(request.body) else {
            throw HTTPError(.badRequest, #"expected a JSON object: {"pattern": {…}, "count": {"exactly": N} | {"at_least": N, "at_most": M}, "namespace": "…"}"#)
        }
        let members = try PatternReader.object(root, "the body", keys: ["pattern", "count", "namespace"])
        let namespace = try PatternReader.string(members["namespace"], "namespace").map { name throws(HTTPError) -> Namespace in
            guard name.utf8.count <= Namespace.maxLength else {
                throw HTTPError(.badRequest, "namespace: longer than \(Namespace.maxLength) bytes, so no namespace has that name")
            }
            return Namespace(name)
        } ?? Namespace(for: request)
        return (members["pattern"] ?? JSONNode(.object([])), namespace, try CountExpectation(members["count"]))
    }

    /// The nearest misses: most criteria held first (method and path weigh most), the newest first among equals.
    static func nearest<Entry>(_ misses: [(Entry, PatternComparison)]) -> [(Entry, PatternComparison)] {
        let ranked = misses.enumerated().sorted { left, right in
            left.element.1.score != right.element.1.score ? left.element.1.score > right.element.1.score : left.offset > right.offset
        }
        return ranked.prefix(nearMissLimit).map(\.element)
    }

    static func nearMiss(_ entry: JSONText, _ comparison: PatternComparison) -> JSONText {
        .object([("entry", entry), ("matched", .array(comparison.matched.map(JSONText.string))),
                 ("reasons", .array(comparison.reasons.map(JSONText.string))), ("summary", .string(comparison.summary))])
    }

    static func answer(_ namespace: Namespace, _ expectation: CountExpectation, matches: [JSONText], searched: Int,
                       nearMisses: [JSONText], source: (String, JSONText)) -> JSONText {
        let held = expectation.holds(matches.count)
        let message = held ? "\(matches.count) matched, as expected (\(expectation))"
            : "\(matches.count) matched, expected \(expectation)" + (nearMisses.isEmpty ? "" : "; the nearest misses say why")
        return .object([
            ("namespace", .string(namespace.name)),
            ("held", .bool(held)),
            ("count", .int(matches.count)),
            ("expected", expectation.json),
            ("message", .string(message)),
            ("matches", .array(Array(matches.suffix(matchLimit)))),
            ("matches_truncated", .bool(matches.count > matchLimit)),
            ("near_misses", .array(nearMisses)),
            ("searched", .int(searched)),
            source,
        ])
    }

    // MARK: Wait

    private func waitForRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        let timeout = try Self.timeout(request)
        let after = try request.queryValue("after").map { text throws(HTTPError) -> Int in
            guard let after = Int(text) else { throw HTTPError(.badRequest, "after must be a journal sequence number, not \"\(text)\"") }
            return after
        } ?? 0
        let pattern = try PatternReader.requestPattern(PatternReader.patternNode(request.query, skipping: ["timeout", "after"]))
        if let entry = await control.journal.waitForEntry(namespace, after: after, timeout: .seconds(timeout), where: { pattern.compare($0).isMatch }) {
            return .json(JSONText.object([("namespace", .string(namespace.name)), ("entry", ControlRoutes.journalEntry(entry))]).data)
        }
        try Task.checkCancellation()
        let misses = Self.nearest(control.journal.allEntries(namespace).filter { $0.sequence > after }.map { ($0, pattern.compare($0)) })
        return Self.timedOut("no request matching the pattern came within \(PrometheusText.number(timeout)) s", timeout,
                             misses.map { Self.nearMiss(ControlRoutes.journalEntry($0.0), $0.1) })
    }

    private func waitForCallback(_ request: HTTPRequest) async throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        let timeout = try Self.timeout(request)
        let pattern = try PatternReader.callbackPattern(PatternReader.patternNode(request.query, skipping: ["timeout"]))
        if let entry = await control.outbox.waitForCallback(namespace, timeout: .seconds(timeout), where: { pattern.compare($0).isMatch }) {
            return .json(JSONText.object([("namespace", .string(namespace.name)), ("callback", CallbackRoutes.json(entry))]).data)
        }
        try Task.checkCancellation()
        let misses = Self.nearest(control.outbox.entries(namespace).map { ($0, pattern.compare($0)) })
        return Self.timedOut("no callback matching the pattern came within \(PrometheusText.number(timeout)) s", timeout,
                             misses.map { Self.nearMiss(CallbackRoutes.json($0.0), $0.1) })
    }

    /// `timeout` in seconds: default ``defaultWaitSeconds``, at most ``maxWaitSeconds``.
    private static func timeout(_ request: HTTPRequest) throws(HTTPError) -> Double {
        guard let text = request.queryValue("timeout") else { return defaultWaitSeconds }
        guard let seconds = Double(text), seconds >= 0, seconds <= maxWaitSeconds else {
            throw HTTPError(.badRequest, "timeout must be a number of seconds from 0 to \(Int(maxWaitSeconds)), not \"\(text)\"")
        }
        return seconds
    }

    /// 408 in the control API's error format, with the wait's bound and the nearest misses.
    private static func timedOut(_ message: String, _ timeout: Double, _ nearMisses: [JSONText]) -> HTTPResponse {
        .json(JSONText.object([("error", .string("Request Timeout")), ("message", .string(message)), ("status", .int(408)),
                               ("timeout_seconds", .double(timeout)), ("near_misses", .array(nearMisses))]).data,
              status: HTTPStatus(code: 408))
    }
}

/// How many matches a verification expects: `{"exactly": N}`, or `{"at_least": N}` and/or `{"at_most": M}`;
/// at least 1 when none is given.
struct CountExpectation: Sendable, CustomStringConvertible {
    var atLeast: Int
    var atMost: Int?

    init(_ node: JSONNode?) throws(HTTPError) {
        guard let node, !node.isNull else {
            atLeast = 1
            return
        }
        let members = try PatternReader.object(node, "count", keys: ["exactly", "at_least", "at_most"])
        let exactly = try PatternReader.int(members["exactly"], "count.exactly")
        let least = try PatternReader.int(members["at_least"], "count.at_least")
        let most = try PatternReader.int(members["at_most"], "count.at_most")
        if let exactly {
            guard least == nil, most == nil else { throw HTTPError(.badRequest, "count: give exactly, or at_least and/or at_most") }
            (atLeast, atMost) = (exactly, exactly)
        } else {
            guard least != nil || most != nil else { throw HTTPError(.badRequest, "count: give exactly, at_least or at_most") }
            (atLeast, atMost) = (least ?? 0, most)
        }
        guard atLeast >= 0, (atMost ?? atLeast) >= atLeast else {
            throw HTTPError(.badRequest, "count: the numbers must be ≥ 0, and at_most ≥ at_least")
        }
    }

    func holds(_ count: Int) -> Bool { count >= atLeast && count <= (atMost ?? .max) }
    /// Fewer matched than wanted: the nearest misses are worth showing.
    func wantsMore(than count: Int) -> Bool { count < atLeast }

    var description: String {
        if let atMost, atMost == atLeast { return "exactly \(atLeast)" }
        if let atMost { return atLeast == 0 ? "at most \(atMost)" : "from \(atLeast) to \(atMost)" }
        return "at least \(atLeast)"
    }

    var json: JSONText {
        .object([("at_least", .int(atLeast)), ("at_most", atMost.map(JSONText.int) ?? .null)])
    }
}
