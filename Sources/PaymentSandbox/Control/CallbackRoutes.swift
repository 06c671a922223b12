// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// The callback outbox under `/__sandbox/callbacks`, per namespace (`Namespace(for:)`), for test machines the
/// sandbox cannot reach: read the callbacks the providers made and have one delivered now.
///
/// - `GET /__sandbox/callbacks` (`?object=<id>`: only those about that object, also given as a resource path
///   ending in the id), oldest first, a page at a time: `?limit=` (default 100, at most 1000, the outbox's bound per
///   namespace) and `?after=<next_after>` (the last id of the page before); `more` says more follow.
/// - `GET /__sandbox/callbacks/{id}`.
/// - `POST /__sandbox/callbacks/{id}/deliver`, optionally `{"url": "http(s)://…"}` (at most ``MerchantURL/maxLength``
///   bytes) to send it elsewhere: one call now (journaled as `CALLBACK`), answered with the call's result and the
///   callback as it now stands. A 2xx marks it delivered, which ends any retries still waiting. A callback keeps its
///   last ``CallbackOutbox/keptAttempts`` calls and counts them all (`attempt_count`).
struct CallbackRoutes: Sendable {
    let outbox: CallbackOutbox
    let journal: Journal
    /// How long a delivery by hand waits for the merchant's answer.
    static let deliveryTimeout: TimeInterval = 10

    func add(to router: inout Router) {
        let client = CallbackHTTPClient(timeout: Self.deliveryTimeout)
        router.addImmediate("GET /__sandbox/callbacks") { request in try list(request) }
        router.addImmediate("GET /__sandbox/callbacks/:id") { request in
            .json(Self.json(try Self.entry(outbox, Namespace(for: request), try request.parameters.require("id"))).data)
        }
        router.add("POST /__sandbox/callbacks/:id/deliver") { request in try await deliver(request, client: client) }
    }

    /// GET /__sandbox/callbacks: a page of the namespace's callbacks, oldest first.
    private func list(_ request: HTTPRequest) throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        var object: String?, after: Int?, limit = Self.listLimit
        for item in request.query {
            switch item.name {
            case "object":
                // A payment order's id may come as its resource path (`/psp/…/<id>`): its last segment.
                object = item.value.split(separator: "/").last.map(String.init) ?? item.value
            case "limit": limit = try ControlRoutes.limit(item.value, max: Self.maxListLimit)
            case "after":
                guard let number = Self.number(item.value) else {
                    throw HTTPError(.badRequest, "after must be a callback id (cb_<n>, next_after), not \"\(item.value)\"")
                }
                after = number
            default: throw HTTPError(.badRequest, "unknown filter \"\(item.name)\" (use object, limit, after)")
            }
        }
        var entries = outbox.entries(namespace, object: object)[...]
        if let after { entries = entries.drop { (Self.number($0.id) ?? 0) <= after } }
        let page = entries.prefix(limit)
        let more = entries.count > page.count
        return .json(JSONText.object([
            ("namespace", .string(namespace.name)),
            ("capacity", .int(outbox.capacity)),
            ("capacity_per_namespace", .int(outbox.capacityPerNamespace)),
            ("evicted", .int(outbox.evicted)),
            ("callbacks", .array(page.map(Self.json))),
            ("limit", .int(limit)),
            ("more", .bool(more)),
            ("next_after", more ? page.last.map { .string($0.id) } ?? .null : .null),
        ]).data)
    }

    /// POST /__sandbox/callbacks/{id}/deliver: one call now, to the callback's URL or the body's `url`.
    private func deliver(_ request: HTTPRequest, client: CallbackHTTPClient) async throws -> HTTPResponse {
        let namespace = Namespace(for: request)
        let entry = try Self.entry(outbox, namespace, try request.parameters.require("id"))
        let target = try Self.deliveryTarget(request.body) ?? entry.url
        let startedAt = outbox.now(namespace)
        let started = ContinuousClock.now
        let answer = await client.post(entry.body, to: target)
        let (status, problem) = (answer.status, answer.problem)
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        // The callback's own URL is shared with its entry rather than copied into each attempt.
        let attempt = CallbackOutbox.Attempt(time: startedAt, url: target == entry.url ? entry.url : target, status: status == 0 ? nil : status,
                                             error: problem, manual: true, durationSeconds: elapsed, answer: answer.answerText)
        var note = "\(entry.description), delivered by hand (\(entry.id))"
        if let problem { note += ": \(problem)" } else if !attempt.delivered { note += ": answered \(status)" }
        journal.record(namespace, method: "CALLBACK", path: target, status: status, note: note, body: entry.body,
                       requestID: request.id, durationSeconds: elapsed)
        let now = outbox.recordManual(namespace, entry.id, attempt) ?? entry
        return .json(JSONText.object([("attempt", Self.json(attempt)), ("callback", Self.json(now))]).data)
    }

    /// The `url` of a delivery's body (nil: no body, or none given), checked as a merchant URL.
    private static func deliveryTarget(_ body: Data) throws -> String? {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        struct Delivery: Decodable { var url: String? }
        guard let delivery = try? JSONDecoder().decode(Delivery.self, from: body) else {
            throw HTTPError(.badRequest, #"expected no body, or a JSON object: {"url": "https://…"} (where to send it instead)"#)
        }
        guard let url = delivery.url else { return nil }
        if let violation = MerchantURL.violation(in: url, rules: .web) {
            let shown = url.count > 200 ? "\(url.prefix(200))…" : url
            throw HTTPError(.badRequest, "url: \"\(shown)\" is not an absolute http(s) URL: \(violation)")
        }
        return url
    }

    /// The callbacks a list gives by default, and at most.
    static let listLimit = 100
    static let maxListLimit = 1000

    /// The number of a callback id, `cb_<n>` (ids grow with each callback, across namespaces).
    static func number(_ id: String) -> Int? {
        id.hasPrefix("cb_") ? Int(id.dropFirst(3)) : nil
    }

    private static func entry(_ outbox: CallbackOutbox, _ namespace: Namespace, _ id: String) throws -> CallbackOutbox.Entry {
        guard let entry = outbox.entry(namespace, id) else {
            throw HTTPError(.notFound, "no callback \"\(id)\" in namespace \"\(namespace.name)\" (GET /__sandbox/callbacks lists them; "
                + "the oldest go once the outbox is full)")
        }
        return entry
    }

    static func json(_ entry: CallbackOutbox.Entry) -> JSONText {
        let body = (try? JSONDocument.parse(entry.body)).map(\.jsonText) ?? .string(String(decoding: entry.body, as: UTF8.self))
        return .object([
            ("id", .string(entry.id)),
            ("object", .string(entry.object)),
            ("operation", .string(entry.operation)),
            ("description", .string(entry.description)),
            ("url", .string(entry.url)),
            ("headers", .object(entry.headers.map { ($0.name, .string($0.value)) })),
            ("body", body),
            ("created", .string(ControlRoutes.iso8601(entry.created))),
            ("state", .string(entry.state.rawValue)),
            ("due", entry.due.map { .string(ControlRoutes.iso8601($0)) } ?? .null),
            ("scenario", entry.scenario.map(JSONText.string) ?? .null),
            ("attempts", .array(entry.attempts.map(json))),
            ("attempt_count", .int(entry.attemptCount)),
            ("last_result", entry.attempts.last.map(json) ?? .null),
        ])
    }

    static func json(_ attempt: CallbackOutbox.Attempt) -> JSONText {
        .object([
            ("time", .string(ControlRoutes.iso8601(attempt.time))),
            ("url", .string(attempt.url)),
            ("status", attempt.status.map(JSONText.int) ?? .null),
            ("error", attempt.error.map(JSONText.string) ?? .null),
            ("delivered", .bool(attempt.delivered)),
            ("simulated", .bool(attempt.simulated)),
            ("manual", .bool(attempt.manual)),
            ("duration_ms", .double((attempt.durationSeconds * 1_000_000).rounded() / 1000)),
            ("note", attempt.note.map(JSONText.string) ?? .null),
            ("answer", attempt.answer.map(JSONText.string) ?? .null),
        ])
    }
}
