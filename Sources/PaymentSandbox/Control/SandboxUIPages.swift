// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// The HTML of the control page (``SandboxUI``), in the one page shell (``HTMLPage``). Every value is escaped where it
/// lands: text and attribute values with ``HTMLText/escape(_:)``, a URL's query value percent-encoded first
/// (``SandboxUI/percentEncode(_:)``) and then escaped as an attribute. The one script is constant.
///
/// Hooks for tests and scripts: `main#namespaces[data-total]` with `li.namespace[data-namespace]` and, when more
/// follow, `a#next-namespaces`; `main#namespace[data-namespace]` with `#now[datetime]`, `#offset[data-seconds]`,
/// `#default-scenario`, `form#scenario-form`, `form#clock-advance-form`, `form#clock-set-form`, `form#reset-form`,
/// `#objects[data-total] tr.object[data-kind][data-id][data-status]` (`a#next-objects` to the next page),
/// `#journal li.entry[data-sequence][data-method][data-status]` (newest first; `a#older-journal` to older entries).
enum SandboxUIPages {
    struct NamespaceView {
        var namespace: Namespace
        var now: Date
        var offsetSeconds: TimeInterval
        var defaultScenario: String?
        var scenarios: [(name: String, description: String)]
        /// One page of the namespace's objects: ``objectTotal`` in all, these from ``objectsOffset``.
        var objects: [SandboxObjectSummary]
        var objectTotal: Int
        var objectsOffset: Int = 0
        /// Its newest entries (older than ``journalBefore``, if given); ``olderJournal``: where older ones start.
        var journal: [Journal.Entry]
        var journalBefore: Int? = nil
        var olderJournal: Int? = nil
        var csrf: String
    }

    static func e(_ text: String) -> String { HTMLText.escape(text) }

    /// The figures of `GET /__sandbox/metrics` at a glance.
    static func figuresSection(_ figures: MetricsPage.Figures) -> String {
        let byStatus = Dictionary(grouping: figures.requests, by: \.statusClass).mapValues { $0.reduce(0) { $0 + $1.count } }
        let facts: [(String, String, String)] = [
            ("requests", "Requests answered", "\(figures.requestTotal)"
                + (byStatus.isEmpty ? "" : " (" + byStatus.keys.sorted().map { "\($0) \(byStatus[$0]!)" }.joined(separator: ", ") + ")")),
            ("namespaces", "Namespaces", "\(figures.namespaces)"),
            ("objects", "Objects held", "\(figures.objects.held)" + (figures.objects.max.map { " of \($0)" } ?? "")
                + ", \(figures.objects.evicted) evicted"),
            ("journal", "Journal entries", "\(figures.journalEntries), \(figures.journalDropped) dropped"),
            ("callbacks", "Callbacks", "\(figures.callbacks.made) made, \(figures.callbacksByState[.pending] ?? 0) pending, "
                + "\(figures.callbacks.failed) failed, \(figures.callbacks.retries) retries"),
            ("waits", "Held waits", "\(figures.heldWaits)"),
        ]
        return #"<section id="figures"><h2>Figures</h2><dl class="figures">"#
            + facts.map { #"<dt>\#($0.1)</dt><dd id="figure-\#($0.0)">\#(e($0.2))</dd>"# }.joined()
            + #"</dl><p class="muted">The same as <a href="/__sandbox/metrics">/__sandbox/metrics</a> (Prometheus).</p></section>"#
    }

    static func overview(_ listing: ControlRoutes.NamespaceListing, after: String? = nil, limit: Int = ControlRoutes.namespaceLimit,
                         now: Date, nonce: String, figures: MetricsPage.Figures? = nil) -> String {
        let rows = listing.rows
        var body = header(crumb: nil)
        body += #"<main id="namespaces" data-total="\#(listing.total)"><h1>Namespaces</h1>"# + refreshControl
        if listing.total > rows.count || after != nil {
            body += #"<p id="namespaces-count" class="muted">\#(listing.total) namespaces; \#(rows.count) shown"#
                + (after.map { ", after " + e($0) } ?? "") + ".</p>"
        }
        if rows.isEmpty && after == nil {
            body += #"<p id="no-namespaces" class="muted">No namespace has objects, a moved clock, a default scenario or "#
                + "journal entries yet. Calls name theirs with the <code>Sandbox-Namespace</code> header, the Basic user or the "
                + "Bearer token; without one they are in <code>default</code>.</p>"
        } else {
            body += #"<ul class="namespaces">"#
            for row in rows {
                var facts = ["\(row.objects) object" + (row.objects == 1 ? "" : "s"),
                             "\(row.journalEntries) journal entr" + (row.journalEntries == 1 ? "y" : "ies")]
                if row.offsetSeconds != 0 { facts.append("clock " + signedDuration(row.offsetSeconds)) }
                if let scenario = row.defaultScenario { facts.append("scenario " + scenario) }
                body += #"<li class="namespace" data-namespace="\#(e(row.namespace.name))">"#
                    + #"<a href="\#(e(SandboxUI.namespaceHref(row.namespace)))">\#(e(row.namespace.name))</a>"#
                    + #"<span class="facts">\#(e(facts.joined(separator: " · ")))</span></li>"#
            }
            body += "</ul>"
        }
        if after != nil || listing.more {
            body += #"<p class="pages">"#
            if after != nil { body += #"<a id="first-namespaces" href="/__sandbox/ui">First page</a> "# }
            if let next = listing.nextAfter {
                let href = "/__sandbox/ui?after=" + SandboxUI.percentEncode(next)
                    + (limit == ControlRoutes.namespaceLimit ? "" : "&limit=\(limit)")
                body += #"<a id="next-namespaces" href="\#(e(href))">Next \#(limit)</a>"#
            }
            body += "</p>"
        }
        body += #"<form id="open-form" class="inline" method="get" action="/__sandbox/ui/namespace">"#
            + #"<label for="open-name">Open a namespace by name</label> "#
            + #"<input id="open-name" name="name" required autocomplete="off" placeholder="default"> "#
            + #"<button type="submit">Open</button></form>"#
        body += #"<p class="muted">Sandbox clock: <time datetime="\#(iso(now))">\#(iso(now))</time> (each namespace's clock "#
            + "runs from it, moved by its offset).</p>"
        if let figures { body += figuresSection(figures) }
        body += "</main>"
        return HTMLPage.document(title: "payment-sandbox: namespaces", style: style, body: body + script(nonce))
    }

    static func namespace(_ view: NamespaceView, nonce: String) -> String {
        let name = view.namespace.name
        var body = header(crumb: name)
        body += #"<main id="namespace" data-namespace="\#(e(name))"><h1>Namespace <code>\#(e(name))</code></h1>"# + refreshControl
        body += controls(view)
        body += objects(view)
        body += journal(view)
        body += "</main>"
        return HTMLPage.document(title: "payment-sandbox: \(name)", style: style, body: body + script(nonce))
    }

    static func problem(status: Int, message: String, namespace: Namespace?) -> String {
        var body = header(crumb: namespace?.name)
        body += #"<main id="problem" data-status="\#(status)"><h1>Not done (\#(status))</h1>"#
            + #"<p id="problem-message">\#(e(message))</p>"#
        if let namespace {
            body += #"<p><a href="\#(e(SandboxUI.namespaceHref(namespace)))">Back to \#(e(namespace.name))</a></p>"#
        } else {
            body += #"<p><a href="/__sandbox/ui">Back to the namespaces</a></p>"#
        }
        body += "</main>"
        return HTMLPage.document(title: "payment-sandbox: not done", style: style, body: body)
    }

    // MARK: Parts

    static func header(crumb: String?) -> String {
        var nav = #"<header><nav><a href="/__sandbox/ui">payment-sandbox</a>"#
        if let crumb { nav += " / <span>\(e(crumb))</span>" }
        return nav + #" <span class="muted">\#(e(SandboxVersion.current))</span></nav></header>"#
    }

    /// Hidden fields every form carries.
    static func hidden(_ view: NamespaceView) -> String {
        #"<input type="hidden" name="namespace" value="\#(e(view.namespace.name))">"#
            + #"<input type="hidden" name="csrf" value="\#(e(view.csrf))">"#
    }

    static func controls(_ view: NamespaceView) -> String {
        var html = #"<section id="controls" class="cards">"#
        // The clock.
        html += #"<div class="card"><h2>Clock</h2><p>Now <time id="now" datetime="\#(iso(view.now))">\#(iso(view.now))</time>"#
            + #"<br><span id="offset" data-seconds="\#(number(view.offsetSeconds))">\#(view.offsetSeconds == 0 ? "not moved" : "moved " + signedDuration(view.offsetSeconds))</span></p>"#
        html += #"<form id="clock-advance-form" method="post" action="/__sandbox/ui/clock">\#(hidden(view))<div class="buttons">"#
        for (label, seconds) in [("+1 min", 60), ("+1 h", 3600), ("+1 day", 86_400), ("+48 h", 172_800), ("+28 days", 2_419_200)] {
            html += #"<button type="submit" name="advance_seconds" value="\#(seconds)">\#(label)</button>"#
        }
        html += "</div></form>"
        html += #"<form id="clock-advance-by-form" class="inline" method="post" action="/__sandbox/ui/clock">\#(hidden(view))"#
            + #"<label for="advance-seconds">Advance by seconds</label> "#
            + #"<input id="advance-seconds" name="advance_seconds" type="number" step="any" required inputmode="decimal" placeholder="-3600"> "#
            + #"<button type="submit">Advance</button></form>"#
        html += #"<form id="clock-set-form" class="inline" method="post" action="/__sandbox/ui/clock">\#(hidden(view))"#
            + #"<label for="clock-now">Set to (ISO 8601)</label> "#
            + #"<input id="clock-now" name="now" required autocomplete="off" placeholder="2026-11-22T10:00:00Z" value="\#(iso(view.now))"> "#
            + #"<button type="submit">Set</button></form></div>"#
        // The default scenario.
        html += #"<div class="card"><h2>Default scenario</h2><p>Now: <strong id="default-scenario">\#(e(view.defaultScenario ?? "none"))</strong></p>"#
        html += #"<form id="scenario-form" class="inline" method="post" action="/__sandbox/ui/scenario">\#(hidden(view))"#
            + #"<label for="scenario">Scenario</label> <select id="scenario" name="scenario">"#
            + #"<option value=""\#(view.defaultScenario == nil ? " selected" : "")>none (content rules, then approve)</option>"#
        for scenario in view.scenarios {
            let selected = scenario.name == view.defaultScenario ? " selected" : ""
            html += #"<option value="\#(e(scenario.name))" title="\#(e(scenario.description))"\#(selected)>\#(e(scenario.name))</option>"#
        }
        html += #"</select> <button type="submit">Choose</button></form>"#
        if let chosen = view.scenarios.first(where: { $0.name == view.defaultScenario }) {
            html += #"<p id="default-scenario-description" class="muted">\#(e(chosen.description))</p>"#
        }
        html += "</div>"
        // Reset.
        html += #"<div class="card"><h2>Reset</h2><p class="muted">Forgets the namespace's objects, clock offset, default "#
            + "scenario and journal.</p>"
            + #"<form id="reset-form" method="post" action="/__sandbox/ui/reset">\#(hidden(view))"#
            + #"<button type="submit" class="danger">Reset \#(e(view.namespace.name))</button></form></div>"#
        return html + "</section>"
    }

    static func objects(_ view: NamespaceView) -> String {
        var html = #"<section id="objects" data-total="\#(view.objectTotal)"><h2>Objects (\#(view.objectTotal))</h2>"#
        guard !view.objects.isEmpty else {
            return html + #"<p class="muted">\#(view.objectTotal == 0 ? "None." : "None past \(view.objectsOffset).")</p></section>"#
        }
        html += "<table><thead><tr><th>Kind</th><th>Id</th><th>Status</th><th>Created</th><th>Expires</th><th>Time left</th></tr></thead><tbody>"
        for object in view.objects {
            let left: String
            if let expires = object.expires {
                let seconds = expires.timeIntervalSince(view.now)
                left = seconds > 0 ? duration(seconds) : "expired " + duration(-seconds) + " ago"
            } else {
                left = "no expiry"
            }
            let expired = object.expires.map { $0 <= view.now } ?? false
            html += #"<tr class="object\#(expired ? " expired" : "")" data-kind="\#(e(object.kind))" data-id="\#(e(object.id))" data-status="\#(e(object.status))">"#
                + #"<td data-label="Kind">\#(e(object.kind))</td><td data-label="Id" class="id"><code>\#(e(object.id))</code></td>"#
                + #"<td data-label="Status"><span class="status">\#(e(object.status))</span></td>"#
                + #"<td data-label="Created">\#(time(object.created))</td><td data-label="Expires">\#(time(object.expires))</td>"#
                + #"<td data-label="Time left" class="left">\#(e(left))</td></tr>"#
        }
        html += "</tbody></table>"
        let shownEnd = view.objectsOffset + view.objects.count
        if view.objectsOffset > 0 || shownEnd < view.objectTotal {
            html += #"<p class="muted">Objects \#(view.objectsOffset + 1)–\#(shownEnd) of \#(view.objectTotal) (GET /__sandbox/state "#
                + "pages them too).</p>"
        }
        if shownEnd < view.objectTotal {
            let href = SandboxUI.namespaceHref(view.namespace) + "&objects_offset=\(shownEnd)"
            html += #"<p class="pages"><a id="next-objects" href="\#(e(href))">Next \#(SandboxUI.objectLimit) objects</a></p>"#
        }
        return html + "</section>"
    }

    static func journal(_ view: NamespaceView) -> String {
        var html = #"<section id="journal"><h2>Journal</h2>"#
        guard !view.journal.isEmpty else {
            return html + #"<p class="muted">\#(view.journalBefore == nil ? "No calls yet." : "No older calls.")</p></section>"#
        }
        html += #"<p class="muted">The newest \#(view.journal.count) call\#(view.journal.count == 1 ? "" : "s")"#
            + (view.journalBefore.map { " before entry \($0)" } ?? "") + " first; "
            + "times on the namespace's clock. GET /__sandbox/journal has the bodies.</p>"
        html += #"<ol class="timeline" reversed>"#
        for entry in view.journal.reversed() {
            let kind = entry.status >= 500 || entry.status == 0 || entry.status == 499 ? "bad" : entry.status >= 400 ? "refused" : "good"
            var target = entry.path + (entry.pathTruncated ? "…" : "")
            if let query = entry.query { target += "?" + query + (entry.queryTruncated ? "…" : "") }
            html += #"<li class="entry \#(kind)" data-sequence="\#(entry.sequence)" data-method="\#(e(entry.method))" data-status="\#(entry.status)">"#
                + #"<div class="line"><time datetime="\#(iso(entry.time))">\#(e(clockTime(entry.time)))</time> "#
                + #"<span class="method">\#(e(entry.method))</span> <span class="code">\#(entry.status == 0 ? "no answer" : String(entry.status))</span> "#
                + #"<span class="ms">\#(number((entry.durationSeconds * 10_000).rounded() / 10)) ms</span></div>"#
                + #"<div class="path"><code>\#(e(target))</code></div>"#
            if !entry.note.isEmpty { html += #"<div class="note">\#(e(entry.note))</div>"# }
            html += "</li>"
        }
        html += "</ol>"
        if let older = view.olderJournal {
            let href = SandboxUI.namespaceHref(view.namespace) + "&journal_before=\(older)"
            html += #"<p class="pages"><a id="older-journal" href="\#(e(href))">Older entries</a></p>"#
        }
        return html + "</section>"
    }

    /// A box that only the script shows: without JavaScript the page is reloaded by hand.
    static let refreshControl = #"<p id="auto-refresh" hidden><label><input type="checkbox" id="auto-refresh-on"> "#
        + "Refresh every 5 seconds</label></p>"

    /// Reloads the page every 5 s while the box is ticked (kept for the tab), the tab is visible and no field of a form
    /// has the focus.
    static func script(_ nonce: String) -> String {
        #"<script nonce="\#(nonce)">(function(){var box=document.getElementById("auto-refresh");if(!box)return;box.hidden=false;"#
            + #"var on=document.getElementById("auto-refresh-on");on.checked=sessionStorage.getItem("sandbox-ui-refresh")==="1";"#
            + #"on.addEventListener("change",function(){sessionStorage.setItem("sandbox-ui-refresh",on.checked?"1":"0");});"#
            + #"setInterval(function(){var a=document.activeElement;if(on.checked&&!document.hidden&&!(a&&a.form))location.reload();},5000);})();</script>"#
    }

    // MARK: Text

    static func iso(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

    static func time(_ date: Date?) -> String {
        guard let date else { return #"<span class="muted">–</span>"# }
        return #"<time datetime="\#(iso(date))">\#(e(iso(date)))</time>"#
    }

    /// `2026-11-22 10:00:05` (UTC): the journal's times, one line each.
    static func clockTime(_ date: Date) -> String {
        iso(date).replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }

    /// `12`, `0.5`, `-3600`: no trailing `.0`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `45 s`, `12 min 5 s`, `3 h 20 min`, `2 d 4 h`.
    /// Beyond what an `Int` holds (or not finite) it is the seconds as a number: never a trap.
    static func duration(_ seconds: TimeInterval) -> String {
        guard let total = Int(exactly: seconds.rounded(.down)) else { return "\(seconds) s" }
        let days = total / 86_400, hours = total % 86_400 / 3600, minutes = total % 3600 / 60, rest = total % 60
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(rest) s" }
        return "\(rest) s"
    }

    static func signedDuration(_ seconds: TimeInterval) -> String {
        (seconds < 0 ? "−" : "+") + duration(abs(seconds))
    }

    // MARK: Style

    /// Phone first: one column, tables as cards below 40 rem, long ids and paths wrap anywhere (no sideways scroll).
    static let style = """
    :root{color-scheme:light dark;--fg:#1b1f24;--muted:#5b6470;--line:#d6dbe1;--bg:#fff;--card:#f6f8fa;--good:#1a7f37;--refused:#9a6700;--bad:#cf222e;--accent:#0969da}
    @media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9aa4af;--line:#30363d;--bg:#0d1117;--card:#161b22;--good:#3fb950;--refused:#d29922;--bad:#f85149;--accent:#4493f8}}
    *{box-sizing:border-box}
    body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;color:var(--fg);background:var(--bg)}
    header{border-bottom:1px solid var(--line);padding:.6rem 1rem}
    header a{color:var(--fg);font-weight:600;text-decoration:none}
    main{max-width:72rem;margin:0 auto;padding:0 1rem 2rem}
    h1{font-size:1.35rem;margin:1rem 0 .6rem;overflow-wrap:anywhere}
    h2{font-size:1.05rem;margin:1.2rem 0 .5rem}
    .card h2{margin-top:0}
    code{font:13px/1.4 ui-monospace,"DejaVu Sans Mono","Liberation Mono",monospace;overflow-wrap:anywhere;word-break:break-word}
    a{color:var(--accent)}
    .muted{color:var(--muted)}
    .cards{display:grid;gap:.8rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,20rem),1fr))}
    .card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8rem;min-width:0}
    form{margin:.5rem 0}
    form.inline{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
    form.inline label{flex-basis:100%;font-size:.9rem;color:var(--muted)}
    input,select{font:inherit;padding:.35rem .5rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);min-width:0;flex:1 1 10rem;max-width:100%}
    button{font:inherit;padding:.35rem .8rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg);cursor:pointer}
    button:hover{border-color:var(--accent)}
    button.danger{color:var(--bad);border-color:var(--bad)}
    .buttons{display:flex;flex-wrap:wrap;gap:.4rem}
    ul.namespaces{list-style:none;padding:0;margin:0}
    li.namespace{display:flex;flex-wrap:wrap;gap:.2rem 1rem;padding:.6rem 0;border-bottom:1px solid var(--line)}
    li.namespace a{font-weight:600;overflow-wrap:anywhere;min-width:0}
    .facts{color:var(--muted)}
    table{border-collapse:collapse;width:100%}
    th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
    td.id{overflow-wrap:anywhere}
    td time,th{white-space:nowrap}
    tr.expired td{color:var(--muted)}
    .status{font-weight:600}
    @media (max-width:40rem){
      thead{display:none}
      table,tbody,tr,td{display:block;width:100%}
      tr{border:1px solid var(--line);border-radius:8px;margin:.5rem 0;padding:.3rem .2rem;background:var(--card)}
      td{border:0;padding:.15rem .5rem;display:flex;gap:.6rem}
      td::before{content:attr(data-label);flex:0 0 5.5rem;color:var(--muted)}
      td>*{min-width:0}
    }
    ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
    li.entry{position:relative;padding:.35rem 0 .5rem .9rem}
    li.entry::before{content:"";position:absolute;left:-.45rem;top:.75rem;width:.6rem;height:.6rem;border-radius:50%;background:var(--good)}
    li.entry.refused::before{background:var(--refused)}
    li.entry.bad::before{background:var(--bad)}
    .line{display:flex;flex-wrap:wrap;gap:.2rem .6rem;align-items:baseline}
    .line time,.ms{color:var(--muted);font-size:.88rem}
    .method{font-weight:600}
    li.good .code{color:var(--good)} li.refused .code{color:var(--refused)} li.bad .code{color:var(--bad)}
    #auto-refresh{margin:0 0 .6rem;color:var(--muted);font-size:.9rem}
    .note{font-size:.88rem;color:var(--muted);overflow-wrap:anywhere;white-space:pre-wrap}
    """
}
