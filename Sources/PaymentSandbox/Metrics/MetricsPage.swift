// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// `GET /__sandbox/metrics`: the sandbox's figures in the Prometheus text format 0.0.4 (docs/control-api.md,
/// "Metrics"). Labels are bounded: providers, operations, outcomes, status classes and states, never a namespace or
/// an id (the namespaces are one gauge).
struct MetricsPage: Sendable {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    let metrics: SandboxMetrics
    let control: ControlRoutes

    /// Everything the page shows, read once (the page `/__sandbox/ui` shows the same figures).
    struct Figures {
        var requests: [(provider: String, operation: String, statusClass: String, count: Int)] = []
        var outcomes: [(operation: String, outcome: String, count: Int)] = []
        var latency: [(provider: String, buckets: [Int], sumSeconds: Double)] = []
        var callbacks: CallbackOutbox.Counters
        var callbacksByState: [CallbackOutbox.State: Int]
        var outboxKept: Int
        var objects: (held: Int, max: Int?, evicted: Int)
        var journalEntries: Int
        var journalDropped: Int
        var namespaces: Int
        var heldWaits: Int
        var uptimeSeconds: Int
        var requestTotal: Int { requests.reduce(0) { $0 + $1.count } }
    }

    func figures() -> Figures {
        let totals = metrics.totals(), layout = metrics.layout
        let outbox = control.outbox.figures
        var figures = Figures(callbacks: outbox.counters, callbacksByState: outbox.byState, outboxKept: outbox.kept,
                              objects: control.retention.counts, journalEntries: control.journal.count,
                              journalDropped: control.journal.dropped, namespaces: control.namespaces(after: nil, limit: 0).total,
                              heldWaits: control.journal.heldWaits + control.outbox.heldWaits,
                              uptimeSeconds: Int((ContinuousClock.now - control.startedAt).components.seconds))
        for (index, row) in layout.rows.enumerated() {
            for (column, statusClass) in SandboxMetrics.statusClasses.enumerated() {
                let count = totals[layout.requestSlot(row: index, statusClass: column)]
                if count > 0 { figures.requests.append((row.provider, row.operation, statusClass, count)) }
            }
            for (column, outcome) in layout.outcomeNames.enumerated() {
                let count = totals[layout.outcomeSlot(row: index, column: column)]
                if count > 0 { figures.outcomes.append((row.operation, outcome, count)) }
            }
        }
        for (index, provider) in layout.providerNames.enumerated() {
            let start = layout.latencySlot(provider: index)
            let buckets = Array(totals[start..<start + SandboxMetrics.latencyBuckets.count + 1])
            guard buckets.contains(where: { $0 > 0 }) else { continue }
            figures.latency.append((provider, buckets, Double(totals[start + buckets.count]) / 1_000_000))
        }
        return figures
    }

    func response() -> HTTPResponse {
        .text(Self.render(figures(), journalCapacity: control.journal.capacity, outbox: control.outbox), contentType: Self.contentType)
    }

    static func render(_ figures: Figures, journalCapacity: Int, outbox: CallbackOutbox) -> String {
        var page = PrometheusText()
        page.family("sandbox_requests_total", "counter", "Requests answered, by provider, operation (the scenario operation, else other) and status class.")
        for row in figures.requests {
            page.sample("sandbox_requests_total", [("provider", row.provider), ("operation", row.operation), ("status_class", row.statusClass)], row.count)
        }
        page.family("sandbox_request_duration_seconds", "histogram", "Time from a request's arrival to its answer, by provider.")
        for row in figures.latency {
            var cumulative = 0
            for (index, bound) in SandboxMetrics.latencyBuckets.enumerated() {
                cumulative += row.buckets[index]
                page.sample("sandbox_request_duration_seconds_bucket", [("provider", row.provider), ("le", PrometheusText.number(bound))], cumulative)
            }
            cumulative += row.buckets[SandboxMetrics.latencyBuckets.count]
            page.sample("sandbox_request_duration_seconds_bucket", [("provider", row.provider), ("le", "+Inf")], cumulative)
            page.sample("sandbox_request_duration_seconds_sum", [("provider", row.provider)], row.sumSeconds)
            page.sample("sandbox_request_duration_seconds_count", [("provider", row.provider)], cumulative)
        }
        page.family("sandbox_scenario_outcomes_total", "counter", "Scenario decisions the answered requests played, by operation and outcome.")
        for row in figures.outcomes {
            page.sample("sandbox_scenario_outcomes_total", [("operation", row.operation), ("outcome", row.outcome)], row.count)
        }
        renderCallbacks(figures, outbox: outbox, into: &page)
        page.gauge("sandbox_objects_held", "Objects the providers hold now, all namespaces.", figures.objects.held)
        if let max = figures.objects.max { page.gauge("sandbox_objects_max", "The bound on objects held (--max-objects).", max) }
        page.counter("sandbox_objects_evicted_total", "Objects evicted to stay within the bound.", figures.objects.evicted)
        page.gauge("sandbox_journal_entries", "Entries in the journal's ring now, all namespaces.", figures.journalEntries)
        page.gauge("sandbox_journal_capacity", "The journal ring's size.", journalCapacity)
        page.counter("sandbox_journal_dropped_total", "Journal entries pushed out of the full ring.", figures.journalDropped)
        page.gauge("sandbox_namespaces", "Namespaces that hold objects, a moved clock, a default scenario or journal entries.", figures.namespaces)
        page.gauge("sandbox_held_waits", "Requests held by /__sandbox/journal/wait and /__sandbox/callbacks/wait now.", figures.heldWaits)
        page.gauge("sandbox_uptime_seconds", "Seconds since the sandbox started.", figures.uptimeSeconds)
        return page.text
    }

    private static func renderCallbacks(_ figures: Figures, outbox: CallbackOutbox, into page: inout PrometheusText) {
        let counters = figures.callbacks
        page.counter("sandbox_callbacks_made_total", "Callbacks the providers made.", counters.made)
        page.family("sandbox_callback_calls_total", "counter", "Calls to merchants' callback URLs (retries and deliveries by hand included), by result.")
        page.sample("sandbox_callback_calls_total", [("result", "delivered")], counters.callsDelivered)
        page.sample("sandbox_callback_calls_total", [("result", "failed")], counters.callsFailed)
        page.counter("sandbox_callback_retries_total", "Calls of a callback's schedule after its first.", counters.retries)
        page.counter("sandbox_callbacks_failed_total", "Callbacks whose every scheduled call failed.", counters.failed)
        page.family("sandbox_callbacks", "gauge", "Callbacks the outbox keeps now, by state.")
        for state in [CallbackOutbox.State.pending, .held, .delivered, .failed] {
            page.sample("sandbox_callbacks", [("state", state.rawValue)], figures.callbacksByState[state] ?? 0)
        }
        page.gauge("sandbox_outbox_callbacks", "Callbacks the outbox keeps now, all namespaces.", figures.outboxKept)
        page.gauge("sandbox_outbox_capacity", "The outbox's bound.", outbox.capacity)
        page.counter("sandbox_outbox_evicted_total", "Callbacks dropped to stay within the outbox's bounds.", outbox.evicted)
    }
}

/// Builds a page of the Prometheus text exposition format 0.0.4.
struct PrometheusText {
    private(set) var text = ""

    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Int) {
        sample(name, labels, String(value))
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: Double) {
        sample(name, labels, Self.number(value))
    }

    mutating func sample(_ name: String, _ labels: [(String, String)], _ value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " \(value)\n"
    }

    mutating func gauge(_ name: String, _ help: String, _ value: Int) {
        family(name, "gauge", help)
        sample(name, [], value)
    }

    mutating func counter(_ name: String, _ help: String, _ value: Int) {
        family(name, "counter", help)
        sample(name, [], value)
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A number as Prometheus reads it (Go's float syntax): `0.005`, `1`, `2.5`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
