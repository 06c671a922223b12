// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// Everything the sandbox adds beyond the faked APIs lives under `/__sandbox/`.
struct ControlRoutes: Sendable {
    let startedAt: ContinuousClock.Instant
    let registry: NamespaceRegistry
    let journal: Journal
    let scenarios: ScenarioEngine
    let states: [any NamespacedState]
    let retention: ObjectRetention
    let outbox: CallbackOutbox
    /// `--control-token`: the page (`/__sandbox/ui`) takes it once and keeps a cookie (SandboxUI.swift).
    var controlToken: String? = nil
    /// Written by `POST /__sandbox/snapshot`; nil when none is configured.
    var stateFile: SandboxStateFile? = nil
    /// The providers whose routes under `/__sandbox/` the OpenAPI document adds (ControlAPIDocument).
    var providerKinds: [any SandboxProvider.Type] = []
    /// The request figures of `GET /__sandbox/metrics`; nil: no such route.
    var metrics: SandboxMetrics? = nil
    /// The last health body and the figures it shows: made again only when one of them changed.
    private let healthBody = Locked<(figures: HealthFigures, body: Data)?>(nil)

    func add(to router: inout Router) {
        SnapshotRoutes(stateFile: stateFile).add(to: &router)
        let healthPrefix = Self.healthPrefix
        router.addImmediate("GET /__sandbox/health") { _ in health(prefix: healthPrefix) }
        let providerKinds = providerKinds
        router.addImmediate("GET /__sandbox/openapi.json") { _ in .json(ControlAPIDocument.cached(providers: providerKinds)) }
        // Any method: what the server parsed, for debugging clients and for the parser tests.
        router.addImmediate("* /__sandbox/echo") { request in .json(Self.echo(request).data) }
        router.addImmediate("* /__sandbox/echo/*") { request in .json(Self.echo(request).data) }
        SandboxUI(control: self).add(to: &router)
        router.add("POST /__sandbox/reset") { request in await reset(request) }
        router.addImmediate("GET /__sandbox/clock") { request in .json(Self.clock(Namespace(for: request), registry).data) }
        router.addImmediate("POST /__sandbox/clock") { request in try moveClock(request) }
        router.addImmediate("GET /__sandbox/journal") { request in try journalPage(request) }
        router.addImmediate("GET /__sandbox/namespaces") { request in try namespaceList(request) }
        router.addImmediate("GET /__sandbox/scenarios") { request in .json(Self.scenarioList(scenarios, Namespace(for: request)).data) }
        router.addImmediate("PUT /__sandbox/scenario") { request in try chooseDefaultScenario(request) }
        router.add("POST /__sandbox/scenarios/reload") { request in await reloadScenarios(request) }
        CallbackRoutes(outbox: outbox, journal: journal).add(to: &router)
        router.add("GET /__sandbox/state") { request in try await state(request) }
        ObservationRoutes(control: self, metrics: metrics).add(to: &router)
    }

    // MARK: Routes

    /// `{"status":"ok","version":…,"uptime_seconds":` : health checks and load balancers call it often, so it is
    /// written as bytes, the same bytes JSONText writes.
    private static let healthPrefix = Array((#"{"status":"ok","version":"# + String(decoding: JSONText.string(SandboxVersion.current).data, as: UTF8.self)
        + #","uptime_seconds":"#).utf8)

    private struct HealthFigures: Equatable {
        var uptime: Int, held: Int, max: Int?, evicted: Int
    }

    /// GET /__sandbox/health -> {"status":"ok","version":…,"uptime_seconds":…,"objects":{"held":…,"max":…,"evicted":…}}
    private func health(prefix: [UInt8]) -> HTTPResponse {
        let objects = retention.counts
        let figures = HealthFigures(uptime: Int((ContinuousClock.now - startedAt).components.seconds), held: objects.held,
                                    max: objects.max, evicted: objects.evicted)
        if let kept = healthBody.withLock({ $0 }), kept.figures == figures { return .json(kept.body) }
        var body = prefix
        body.reserveCapacity(prefix.count + 80)
        body.appendDecimal(figures.uptime)
        body.append(contentsOf: #","objects":{"held":"#.utf8)
        body.appendDecimal(figures.held)
        body.append(contentsOf: #","max":"#.utf8)
        if let max = figures.max { body.appendDecimal(max) } else { body.append(contentsOf: "null".utf8) }
        body.append(contentsOf: #","evicted":"#.utf8)
        body.appendDecimal(figures.evicted)
        body.append(contentsOf: "}}".utf8)
        let data = Data(body)
        healthBody.withLock { $0 = (figures, data) }
        return .json(data)
    }

    /// POST /__sandbox/reset: clears the namespace's objects, clock offset, default scenario and journal.
    private func reset(_ request: HTTPRequest) async -> HTTPResponse {
        let namespace = Namespace(for: request)
        await reset(namespace)
        return .json(JSONText.object([("namespace", .string(namespace.name)), ("reset", .bool(true))]).data)
    }

    /// POST /__sandbox/clock: {"advance_seconds": N} moves the namespace's clock by N seconds; {"now":
    /// "2026-11-22T10:00:00Z"} sets it. Either must land within SandboxClockRange (1970 to the start of 9999), else
    /// 400 naming the range.
    private func moveClock(_ request: HTTPRequest) throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        guard let change = Self.jsonObject(request.body),
              case let advance = change.read("advance_seconds", .number), !advance.isWrongType,
              case let now = change.read("now", .string), !now.isWrongType
        else {
            throw HTTPError(.badRequest, #"expected a JSON object: {"advance_seconds": N} (a number of seconds) or {"now": "<ISO 8601>"}"#)
        }
        try moveClock(namespace, advanceSeconds: advance.value, now: now.value)
        return .json(Self.clock(namespace, registry).data)
    }

    /// GET /__sandbox/journal?method=POST&path_prefix=/payments/&status=409&limit=50: the namespace's newest matching
    /// calls, oldest first. A page: at most `limit` (default 100, at most 1000); "more" says older ones match too,
    /// read them with ?before=<next_before>.
    private func journalPage(_ request: HTTPRequest) throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        let filter = try Self.journalFilter(request.query)
        let page = journal.page(namespace, filter)
        return .json(JSONText.object([
            ("namespace", .string(namespace.name)),
            ("capacity", .int(journal.capacity)),
            ("dropped", .int(journal.dropped)),
            ("entries", .array(page.entries.map(Self.journalEntry))),
            ("limit", .int(min(filter.limit, Journal.maxLimit))),
            ("more", .bool(page.more)),
            ("next_before", page.nextBefore.map(JSONText.int) ?? .null),
        ]).data)
    }

    private static func journalFilter(_ query: [HTTPRequest.QueryItem]) throws -> Journal.Filter {
        var filter = Journal.Filter()
        for item in query {
            switch item.name {
            case "method": filter.method = item.value
            case "path_prefix": filter.pathPrefix = item.value
            case "status":
                guard let status = Int(item.value) else { throw HTTPError(.badRequest, "status must be a number, not \"\(item.value)\"") }
                filter.status = status
            case "limit": filter.limit = try limit(item.value, max: Journal.maxLimit)
            case "before":
                guard let before = Int(item.value) else {
                    throw HTTPError(.badRequest, "before must be an entry's sequence number (next_before), not \"\(item.value)\"")
                }
                filter.before = before
            default:
                throw HTTPError(.badRequest, "unknown filter \"\(item.name)\" (use method, path_prefix, status, limit, before)")
            }
        }
        return filter
    }

    /// GET /__sandbox/namespaces: every namespace that holds something (objects, a moved clock, a default scenario,
    /// journal entries), by name: ?limit= (default 100, at most 1000) and ?after=<next_after> for the next page.
    private func namespaceList(_ request: HTTPRequest) throws -> HTTPResponse {
        var after: String?, limit = Self.namespaceLimit
        for item in request.query {
            switch item.name {
            case "after": after = item.value
            case "limit": limit = try Self.limit(item.value, max: Self.maxNamespaceLimit)
            default: throw HTTPError(.badRequest, "unknown parameter \"\(item.name)\" (use limit, after)")
            }
        }
        let listing = namespaces(after: after, limit: limit)
        return .json(JSONText.object([
            ("total", .int(listing.total)),
            ("namespaces", .array(listing.rows.map { row in
                .object([("name", .string(row.namespace.name)), ("objects", .int(row.objects)),
                         ("journal_entries", .int(row.journalEntries)), ("offset_seconds", .double(row.offsetSeconds)),
                         ("default_scenario", row.defaultScenario.map(JSONText.string) ?? .null)])
            })),
            ("limit", .int(limit)),
            ("more", .bool(listing.more)),
            ("next_after", listing.nextAfter.map(JSONText.string) ?? .null),
        ]).data)
    }

    /// PUT /__sandbox/scenario: {"name": "reject"} makes it the namespace's default; {"name": null} clears it.
    private func chooseDefaultScenario(_ request: HTTPRequest) throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        guard let choice = Self.jsonObject(request.body), case let name = choice.read("name", .string), !name.isWrongType else {
            throw HTTPError(.badRequest, #"expected a JSON object: {"name": "<scenario>"} or {"name": null}"#)
        }
        try chooseDefaultScenario(name.value, for: namespace)
        return .json(JSONText.object([("namespace", .string(namespace.name)),
                                      ("default_scenario", name.value.map(JSONText.string) ?? .null)]).data)
    }

    /// POST /__sandbox/scenarios/reload: reads the scenario files again now (they are also watched). An invalid set
    /// leaves the last good one. The files are read on the engine's own queue: file-system work never runs on a
    /// thread that serves requests.
    private func reloadScenarios(_ request: HTTPRequest) async -> HTTPResponse {
        switch await scenarios.reloadOffLoop() {
        case .success:
            return .json(Self.scenarioList(scenarios, Namespace(for: request)).data)
        case .failure(let failure):
            return .json(JSONText.object([
                ("error", .string("Unprocessable Content")),
                ("message", .string("the scenario files have problems; the previous set stays loaded")),
                ("status", .int(422)),
                ("problems", .array(failure.problems.map { .string($0.description) })),
            ]).data, status: HTTPStatus(code: 422))
        }
    }

    /// GET /__sandbox/state: every store's objects of the namespace. Each store's lists are a page: ?offset= (default
    /// 0) and ?limit= (default 1000, at most 10000) apply to each list; "more" says a list has more past this page
    /// (?offset=<next_offset>).
    private func state(_ request: HTTPRequest) async throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        var offset = 0, limit = Self.stateLimit
        for item in request.query {
            switch item.name {
            case "offset":
                guard let value = Int(item.value), value >= 0 else {
                    throw HTTPError(.badRequest, "offset must be a whole number ≥ 0, not \"\(item.value)\"")
                }
                offset = value
            case "limit": limit = try Self.limit(item.value, max: Self.maxStateLimit)
            default: throw HTTPError(.badRequest, "unknown parameter \"\(item.name)\" (use offset, limit)")
            }
        }
        var members: [(String, JSONText)] = [("namespace", .string(namespace.name)),
                                             ("now", .string(Self.iso8601(registry.now(namespace))))]
        var more = false
        for state in states {
            let (page, cut) = Self.page(await state.snapshot(namespace), offset: offset, limit: limit)
            more = more || cut
            members.append((state.stateName, page))
        }
        members += [("offset", .int(offset)), ("limit", .int(limit)), ("more", .bool(more)),
                    ("next_offset", more ? .int(offset + limit) : .null)]
        return .json(JSONText.object(members).data)
    }

    // MARK: Pages of lists

    /// The namespaces a page lists by default, and at most.
    static let namespaceLimit = 100
    static let maxNamespaceLimit = 1000
    /// The objects each list of `GET /__sandbox/state` gives by default, and at most.
    static let stateLimit = 1000
    static let maxStateLimit = 10_000

    /// A `limit` query value: a whole number ≥ 0, at most `max` (a larger one gives `max`).
    static func limit(_ text: String, max: Int) throws(HTTPError) -> Int {
        guard let limit = Int(text), limit >= 0 else {
            throw HTTPError(.badRequest, "limit must be a whole number ≥ 0, not \"\(text)\"")
        }
        return Swift.min(limit, max)
    }

    /// `snapshot` (a store's object of lists) with each list that is a member of it cut to `limit` items from
    /// `offset`; true when a list had more past them.
    static func page(_ snapshot: JSONText, offset: Int, limit: Int) -> (JSONText, more: Bool) {
        guard case .object(let members) = snapshot else { return (snapshot, false) }
        var more = false
        let paged = members.map { name, value -> (String, JSONText) in
            guard case .array(let items) = value else { return (name, value) }
            if items.count > offset + limit { more = true }
            return (name, .array(Array(items.dropFirst(offset).prefix(limit))))
        }
        return (.object(paged), more)
    }

    /// One namespace in the overview (the page's and `GET /__sandbox/namespaces`).
    struct NamespaceRow: Sendable {
        var namespace: Namespace
        var objects: Int
        var journalEntries: Int
        var offsetSeconds: TimeInterval
        var defaultScenario: String?
    }

    /// One page of the namespaces that hold something, by name.
    struct NamespaceListing: Sendable {
        var rows: [NamespaceRow]
        /// Namespaces that hold something, on every page.
        var total: Int
        /// More follow this page: ask with `after` = ``nextAfter``.
        var more: Bool
        var nextAfter: String? { more ? rows.last?.namespace.name : nil }
    }

    /// The first `limit` namespaces by name (after `after`, if given) of every namespace with objects, a moved clock,
    /// a default scenario or journal entries. Picks them without sorting every name (a sorted buffer of `limit + 1`),
    /// and counts the objects and entries of those only: the cost of a page grows with the number of namespaces,
    /// its size does not.
    func namespaces(after: String?, limit: Int) -> NamespaceListing {
        let counts = journal.entryCounts
        var names = Set(counts.keys)
        for state in states { names.formUnion(state.namespacesWithState) }
        names.formUnion(registry.namespacesWithOffset)
        names.formUnion(scenarios.namespacesWithDefault)
        var first: [Namespace] = []
        let keep = limit + 1
        first.reserveCapacity(keep)
        for namespace in names {
            if let after, namespace.name <= after { continue }
            if first.count == keep, let last = first.last, namespace.name >= last.name { continue }
            var low = 0, high = first.count
            while low < high {
                let middle = (low + high) / 2
                if first[middle].name < namespace.name { low = middle + 1 } else { high = middle }
            }
            first.insert(namespace, at: low)
            if first.count > keep { first.removeLast() }
        }
        let more = first.count > limit
        let rows = first.prefix(limit).map { namespace in
            NamespaceRow(namespace: namespace, objects: states.reduce(0) { $0 + $1.objectCount(namespace) },
                         journalEntries: counts[namespace] ?? 0, offsetSeconds: registry.offset(namespace),
                         defaultScenario: scenarios.defaultScenario(for: namespace))
        }
        return NamespaceListing(rows: rows, total: names.count, more: more)
    }

    // MARK: What the JSON endpoints and the page (SandboxUI.swift) both do

    /// `POST /__sandbox/reset`: the namespace's objects, clock offset, default scenario and journal.
    func reset(_ namespace: Namespace) async {
        registry.reset(namespace)
        journal.reset(namespace)
        scenarios.reset(namespace)
        for state in states { await state.reset(namespace) }
    }

    /// `POST /__sandbox/clock`: moves the clock by `advanceSeconds` or sets it to `now` (ISO 8601), exactly one of
    /// them, within SandboxClockRange (1970 to the start of 9999); else 400 naming the range.
    func moveClock(_ namespace: Namespace, advanceSeconds: Double?, now: String?) throws(HTTPError) {
        switch (advanceSeconds, now) {
        case let (seconds?, nil):
            let (now, moved) = registry.advanceWithinRange(namespace, by: seconds)
            guard moved || !registry.isFull(for: namespace) else { throw Self.tooManyClocks(registry) }
            guard moved else {
                let lowest = SandboxClockRange.earliest.timeIntervalSince(now).rounded(.up)
                let highest = SandboxClockRange.latest.timeIntervalSince(now).rounded(.down)
                throw HTTPError(.badRequest, "advance_seconds: \(seconds) would move the clock outside the range it can show, "
                    + "\(SandboxClockRange.description); from \(Self.iso8601(now)) that allows \(Int(lowest)) to \(Int(highest))")
            }
        case let (nil, text?):
            guard let date = Self.parseISO8601(text) else {
                throw HTTPError(.badRequest, "now: \"\(text)\" is not an ISO 8601 date-time such as 2026-11-22T10:00:00Z")
            }
            guard SandboxClockRange.contains(date) else {
                throw HTTPError(.badRequest, "now: \"\(text)\" is outside the range the clock can show, \(SandboxClockRange.description)")
            }
            guard registry.set(namespace, to: date) else { throw Self.tooManyClocks(registry) }
        default:
            throw HTTPError(.badRequest, #"give exactly one of "advance_seconds" (a number) or "now" (ISO 8601)"#)
        }
    }

    /// `PUT /__sandbox/scenario`: `name` becomes the namespace's default (nil clears it); 422 for an unknown one,
    /// 507 when the bound on namespaces with a default is reached.
    func chooseDefaultScenario(_ name: String?, for namespace: Namespace) throws(HTTPError) {
        do {
            try scenarios.setDefault(name, for: namespace)
        } catch let error as ScenarioEngine.TooManyDefaults {
            throw HTTPError(Self.insufficientStorage, "\(error)")
        } catch {
            throw HTTPError(HTTPStatus(code: 422), "\(error)")
        }
    }

    /// RFC 4918 §11.5: the server cannot keep what the request asks it to (a bound on what clients may grow is reached).
    static let insufficientStorage = HTTPStatus(code: 507, reasonPhrase: "Insufficient Storage")

    static func tooManyClocks(_ registry: NamespaceRegistry) -> HTTPError {
        HTTPError(insufficientStorage, "\(registry.maxNamespaces) namespaces have a moved clock already (the sandbox's bound): "
                  + "reset one (POST /__sandbox/reset) first")
    }

    static func scenarioList(_ scenarios: ScenarioEngine, _ namespace: Namespace) -> JSONText {
        .object([
            ("namespace", .string(namespace.name)),
            ("default_scenario", scenarios.defaultScenario(for: namespace).map(JSONText.string) ?? .null),
            ("directories", .array(scenarios.directories.map { .string($0.path) })),
            ("scenarios", .array(scenarios.scenarios.map { scenario in
                .object([("name", .string(scenario.name)), ("description", .string(scenario.description)),
                         ("file", .string(scenario.file)),
                         ("operations", .array(Array(Set(scenario.rules.map(\.operation.rawValue))).sorted().map(JSONText.string)))])
            })),
            ("reload_problems", .array(scenarios.lastReloadProblems.map { .string($0.description) })),
        ])
    }

    static func journalEntry(_ entry: Journal.Entry) -> JSONText {
        .object([
            ("sequence", .int(entry.sequence)), ("time", .string(iso8601(entry.time))), ("request_id", .string(entry.requestID)),
            ("method", .string(entry.method)), ("path", .string(entry.path)), ("path_truncated", .bool(entry.pathTruncated)),
            ("query", entry.query.map(JSONText.string) ?? .null), ("query_truncated", .bool(entry.queryTruncated)),
            ("status", .int(entry.status)), ("duration_ms", .double((entry.durationSeconds * 1_000_000).rounded() / 1000)),
            ("request_body", .string(entry.requestBody)), ("request_body_truncated", .bool(entry.requestBodyTruncated)),
            ("note", .string(entry.note)),
        ])
    }

    static func clock(_ namespace: Namespace, _ registry: NamespaceRegistry) -> JSONText {
        .object([("namespace", .string(namespace.name)), ("now", .string(iso8601(registry.now(namespace)))),
                 ("offset_seconds", .double(registry.offset(namespace)))])
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// A control request's body as a JSON object (``JSONDocument``, the parser of every request body); nil when
    /// it is not one.
    static func jsonObject(_ body: Data) -> JSONObjectReader? {
        (try? JSONDocument.parse(body)).flatMap(JSONObjectReader.init)
    }

    static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    static func echo(_ request: HTTPRequest) -> JSONText {
        func pairs(_ headers: HTTPHeaders) -> JSONText {
            .array(headers.map { .array([.string($0.name), .string($0.value)]) })
        }
        return .object([
            ("request_id", .string(request.id)),
            ("method", .string(request.method.rawValue)),
            ("target", .string(request.target)),
            ("path", .string(request.path)),
            ("query", .array(request.query.map { .array([.string($0.name), .string($0.value)]) })),
            ("version", .string(request.version.description)),
            ("headers", pairs(request.headers)),
            ("trailers", pairs(request.trailers)),
            ("body_length", .int(request.body.count)),
            ("body_base64", .string(request.body.base64EncodedString())),
        ])
    }
}
