// SPDX-License-Identifier: MIT
import Foundation

/// A handler's note (``HTTPReply/note``) that names the namespace its call ran in: the journal files the call there,
/// not in the namespace the request names (a browser's call names none, its session or token says which).
package protocol JournalNote: CustomStringConvertible, Sendable {
    var namespace: Namespace? { get }
}

/// A note of a call that ran in ``namespace``, with the handler's own text (empty: no note).
package struct NamespaceNote: JournalNote {
    package let namespace: Namespace?
    /// Cut to ``Journal/textLimit`` bytes when made (a text may quote what a client sent).
    package let text: String
    package var description: String { text }

    package init(_ namespace: Namespace?, _ text: String = "") {
        self.namespace = namespace
        self.text = Journal.cutNote(text)
    }
}

/// Every call to a faked API, newest last, in a ring of fixed size shared by all namespaces of a server:
/// when it is full the oldest entry goes and ``dropped`` counts it (WireMock's unbounded journal is how
/// mock servers run out of memory). Read per namespace through `/__sandbox/journal`.
package final class Journal: Sendable, HTTPExchangeObserver {
    package struct Entry: Sendable {
        package var sequence: Int
        package var namespace: Namespace
        package var time: Date
        package var requestID: String
        package var method: String
        /// The request's path (decoded) and raw query, each cut to ``textLimit`` UTF-8 bytes in a copy of its own:
        /// a client may send 60 KB targets, and 10,000 entries of those would hold 600 MB.
        package var path: String
        package var pathTruncated: Bool
        package var query: String?
        package var queryTruncated: Bool
        package var status: Int
        package var durationSeconds: Double
        /// The first bytes of the request body (up to ``bodyLimit``), kept as received, decoded when read.
        /// A copy of its own: the entry never keeps the rest of the body alive.
        package var requestBodyBytes: Data
        package var requestBody: String { String(decoding: requestBodyBytes, as: UTF8.self) }
        package var requestBodyTruncated: Bool
        /// The request's headers in arrival order, while they add up to at most ``textLimit`` bytes (names and
        /// values): then the request's own list is shared, not copied. Past that, the first ones that fit
        /// (``headersTruncated``). Calls the sandbox makes itself (``record(_:method:path:status:note:body:requestID:durationSeconds:)``) have none.
        package var headers: HTTPHeaders = [:]
        package var headersTruncated = false
        /// What the sandbox decided, e.g. `scenario=reject <provider>.<api>.authorize: reject (rule 0)`;
        /// empty for calls no scenario looked at. Described when read, cut to ``textLimit`` bytes and then marked
        /// with ``truncationMarker``. A note given as text is cut when journaled (see ``append(_:noteIsText:)``).
        package var note: String {
            guard let noteSource else { return "" }
            return noteSource as? String ?? Journal.cutNote(String(describing: noteSource))
        }
        var noteSource: (any CustomStringConvertible & Sendable)?
    }

    package struct Filter: Sendable {
        package var method: String?
        package var pathPrefix: String?
        package var status: Int?
        /// At most this many (the newest that match); ``maxLimit`` at most.
        package var limit: Int
        /// Only entries older than this sequence number: the cursor of the next page (``Page/nextBefore``).
        package var before: Int?
        package init(method: String? = nil, pathPrefix: String? = nil, status: Int? = nil, limit: Int = Journal.defaultLimit,
                     before: Int? = nil) {
            self.method = method
            self.pathPrefix = pathPrefix
            self.status = status
            self.limit = limit
            self.before = before
        }
    }

    /// How many entries a read gives when it names no `limit`, and at most.
    package static let defaultLimit = 100
    package static let maxLimit = 1000

    /// One page of a namespace's entries: oldest first, the newest that match; `more` when older ones match too
    /// (read them with `before` = ``nextBefore``).
    package struct Page: Sendable {
        package var entries: [Entry]
        package var more: Bool
        /// The sequence of the oldest entry given, when there are more.
        package var nextBefore: Int? { more ? entries.first?.sequence : nil }
    }

    package let capacity: Int
    package let bodyLimit: Int
    /// How many UTF-8 bytes an entry keeps of the path, of the query and of the note (each).
    package static let textLimit = 2048
    /// Ends a note that was cut at ``textLimit`` bytes.
    package static let truncationMarker = "…[truncated]"
    private let registry: NamespaceRegistry
    private let state: Locked<Ring>

    /// Slots grow with use up to `capacity` (an idle sandbox does not hold 10,000 empty entries), then
    /// the oldest is overwritten.
    private struct Ring {
        var slots: [Entry?] = []
        var next = 0          // where the next entry goes
        var count = 0
        var sequence = 0
        var dropped = 0
        /// Held waits (``waitForEntry(_:after:timeout:where:)``), looked at by each append while there are any.
        var waiters: [Waiter] = []
        var nextWaiterID = 0
    }

    private struct Waiter: Sendable {
        var id: Int
        var namespace: Namespace
        var after: Int
        var matches: @Sendable (Entry) -> Bool
        var wait: HeldWait<Entry>
    }

    /// Prefixes under `/__sandbox/` that are providers' endpoints (see ``journal(sandboxPathPrefix:)``).
    private let journaledSandboxPrefixes = Locked<[String]>([])

    package init(capacity: Int = 10_000, bodyLimit: Int = 4096, registry: NamespaceRegistry) {
        self.capacity = max(1, capacity)
        self.bodyLimit = bodyLimit
        self.registry = registry
        state = Locked(Ring())
    }

    /// Journals the faked APIs, the SDK stand-ins and the providers' endpoints under `/__sandbox/`; the sandbox's
    /// own control and debug endpoints (health, echo, journal, clock, ...) are left out so they never push real
    /// calls out of the ring.
    func isJournaled(_ path: String) -> Bool {
        !path.hasPathPrefix("/__sandbox/") || journaledSandboxPrefixes.withLock { $0.contains { path.hasPathPrefix($0) } }
    }

    /// Calls under `prefix`, a provider's endpoints below `/__sandbox/`, are journaled.
    package func journal(sandboxPathPrefix prefix: String) {
        journaledSandboxPrefixes.withLock { $0.append(prefix) }
    }

    /// Journals one answered call with its note (the server calls it; so may an in-process caller of
    /// ``Router/respond(to:timeout:)``, see there). A dropped connection is journaled with status 499.
    package func exchangeCompleted(_ exchange: HTTPExchange, durationSeconds: Double) {
        guard let note = exchange.note else {
            return journal(exchange, durationSeconds: durationSeconds, noteNamespace: nil, noteIsText: false)
        }
        // The namespace the handler ran the call in, when its note names one (a browser's call names none itself).
        // The sandbox's own note type is tried first: a cast to a struct is far cheaper than to `any JournalNote`.
        if let note = note as? NamespaceNote {
            return journal(exchange, durationSeconds: durationSeconds, noteNamespace: note.namespace, noteIsText: false)
        }
        journal(exchange, durationSeconds: durationSeconds, noteNamespace: (note as? any JournalNote)?.namespace,
                noteIsText: note is String)
    }

    /// ``exchangeCompleted(_:durationSeconds:)`` for an observer that has cast the note to its own ``JournalNote``
    /// type already: `noteNamespace` is that note's ``JournalNote/namespace``, and the note is not looked at again.
    package func exchangeCompleted(_ exchange: HTTPExchange, durationSeconds: Double, noteNamespace: Namespace?) {
        journal(exchange, durationSeconds: durationSeconds, noteNamespace: noteNamespace, noteIsText: false)
    }

    /// Journals `exchange` in `noteNamespace`, else in the namespace its request names; `noteIsText`: its note is a
    /// `String`, cut now (see ``append(_:noteIsText:)``).
    private func journal(_ exchange: HTTPExchange, durationSeconds: Double, noteNamespace: Namespace?, noteIsText: Bool) {
        let request = exchange.request
        guard isJournaled(request.path) else { return }
        let namespace = noteNamespace ?? Namespace(for: request)
        let query = !Journal.hasQuery(request.target) ? nil : request.target.utf8.firstIndex(of: UInt8(ascii: "?")).map { Journal.ownedPrefix(request.target.utf8[request.target.utf8.index(after: $0)...]) }
        // The decoded path is a string of its own: kept as it is unless it must be cut.
        let path = request.path.utf8.count <= Journal.textLimit ? (text: request.path, truncated: false) : Journal.ownedPrefix(request.path.utf8[...])
        var entry = Entry(sequence: 0, namespace: namespace, time: registry.now(namespace), requestID: request.id,
                          method: request.method.rawValue, path: path.text, pathTruncated: path.truncated,
                          query: query?.text, queryTruncated: query?.truncated ?? false, status: exchange.status,
                          durationSeconds: durationSeconds, requestBodyBytes: Journal.ownedPrefix(request.body, bodyLimit),
                          requestBodyTruncated: request.body.count > bodyLimit,
                          noteSource: exchange.note)
        (entry.headers, entry.headersTruncated) = Journal.boundedHeaders(request.headers)
        append(&entry, noteIsText: noteIsText)
    }

    /// Whether `target` has a `?`, looked for in its bytes at once.
    private static func hasQuery(_ target: String) -> Bool {
        var target = target
        return target.withUTF8 { $0.contains(UInt8(ascii: "?")) }
    }

    /// Journals something the sandbox did that was not an answer to a call: an HPP status callback it sent
    /// (`method` "CALLBACK", `path` the target URL, `status` the answer's status or 0 when none came), a
    /// distribution it pretended to send ("DISTRIBUTION"). `note` says which attempt and what went wrong;
    /// `body` is what was sent.
    /// Returns the entry's sequence number (see ``update(_:note:body:)``).
    @discardableResult
    package func record(_ namespace: Namespace, method: String, path: String, status: Int, note: String,
                       body: Data = Data(), requestID: String = "", durationSeconds: Double = 0) -> Int {
        record(namespace, method: method, path: path, status: status, event: note, body: body, requestID: requestID,
               durationSeconds: durationSeconds)
    }

    /// ``record(_:method:path:status:note:body:requestID:durationSeconds:)`` with a note described when read (a
    /// sandbox's own value, such as a count of evictions that ``update(_:note:body:)`` keeps changing).
    @discardableResult
    package func record(_ namespace: Namespace, method: String, path: String, status: Int, event note: any CustomStringConvertible & Sendable,
                       body: Data = Data(), requestID: String = "", durationSeconds: Double = 0) -> Int {
        let path = Journal.ownedPrefix(path.utf8[...])
        var entry = Entry(sequence: 0, namespace: namespace, time: registry.now(namespace), requestID: requestID,
                          method: method, path: path.text, pathTruncated: path.truncated, query: nil, queryTruncated: false,
                          status: status, durationSeconds: durationSeconds,
                          requestBodyBytes: Journal.ownedPrefix(body, bodyLimit), requestBodyTruncated: body.count > bodyLimit, noteSource: note)
        return append(&entry, noteIsText: note is String)
    }

    /// Changes the note (and the body, unless nil) of the entry numbered `sequence` in place, for a burst of events
    /// journaled as one entry. False when the entry is no longer in the ring (pushed out, or its namespace reset).
    package func update(_ sequence: Int, note: any CustomStringConvertible & Sendable, body: Data? = nil) -> Bool {
        let body = body.map { (bytes: Journal.ownedPrefix($0, bodyLimit), truncated: $0.count > bodyLimit) }
        return state.withLock { ring in
            let age = ring.sequence - sequence
            guard sequence > 0, age >= 0, age < ring.count else { return false }
            // Entries sit in sequence order, except after a reset compacted the ring: then look for it.
            var index = ((ring.next - 1 - age) % capacity + capacity) % capacity
            if index >= ring.slots.count || ring.slots[index]?.sequence != sequence {
                guard let found = ring.slots.firstIndex(where: { $0?.sequence == sequence }) else { return false }
                index = found
            }
            ring.slots[index]!.noteSource = note
            if let body {
                ring.slots[index]!.requestBodyBytes = body.bytes
                ring.slots[index]!.requestBodyTruncated = body.truncated
            }
            return true
        }
    }

    /// The first `limit` bytes of `data` in a buffer of their own. `data.prefix(limit)` alone is a slice that
    /// shares, and so keeps alive, the whole body: 10,000 entries of 8 MiB requests would hold 80 GB.
    static func ownedPrefix(_ data: Data, _ limit: Int) -> Data {
        data.isEmpty ? Data() : data.prefix(max(0, limit)).withUnsafeBytes { Data($0) }
    }

    /// The first ``textLimit`` bytes of `utf8`, cut back to a whole Unicode scalar, as a new string: a
    /// Substring would keep the whole text alive.
    static func ownedPrefix(_ utf8: Substring.UTF8View) -> (text: String, truncated: Bool) {
        guard utf8.count > textLimit else { return (String(Substring(utf8)), false) }
        var end = utf8.index(utf8.startIndex, offsetBy: textLimit)
        while end > utf8.startIndex, UTF8.isContinuation(utf8[end]) { end = utf8.index(before: end) }
        return (String(decoding: Array(utf8[..<end]), as: UTF8.self), true)
    }

    /// `headers` while they add up to at most ``textLimit`` bytes; past that the first that fit, and true.
    static func boundedHeaders(_ headers: HTTPHeaders) -> (HTTPHeaders, Bool) {
        var total = 0
        for field in headers { total += field.name.utf8.count + field.value.utf8.count }
        guard total > textLimit else { return (headers, false) }
        var kept = HTTPHeaders(), used = 0
        for field in headers {
            let size = field.name.utf8.count + field.value.utf8.count
            guard used + size <= textLimit else { continue }
            used += size
            kept.add(name: field.name, value: field.value)
        }
        return (kept, true)
    }

    /// `note` cut to ``textLimit`` bytes, with ``truncationMarker`` when cut.
    static func cutNote(_ note: String) -> String {
        let cut = ownedPrefix(note.utf8[...])
        return cut.truncated ? cut.text + truncationMarker : note
    }

    /// Journals `entry`; a note given as text (`noteIsText`: a DISTRIBUTION's recipient, a callback's error) is cut
    /// now, so a 4 MiB e-mail address is not kept. Other notes are the sandbox's own values, described (and cut) when read.
    @discardableResult
    private func append(_ entry: inout Entry, noteIsText: Bool) -> Int {
        if noteIsText, let text = entry.noteSource as? String { entry.noteSource = Journal.cutNote(text) }
        let (sequence, woken) = state.withLock { ring -> (Int, [HeldWait<Entry>]) in
            ring.sequence += 1
            entry.sequence = ring.sequence
            if ring.count == capacity { ring.dropped += 1 } else { ring.count += 1 }
            if ring.next == ring.slots.count { ring.slots.append(entry) } else { ring.slots[ring.next] = entry }
            ring.next = (ring.next + 1) % capacity
            guard !ring.waiters.isEmpty else { return (ring.sequence, []) }
            var woken: [HeldWait<Entry>] = []
            ring.waiters.removeAll { waiter in
                guard waiter.namespace == entry.namespace, entry.sequence > waiter.after, waiter.matches(entry) else { return false }
                woken.append(waiter.wait)
                return true
            }
            return (ring.sequence, woken)
        }
        for wait in woken { wait.finish(entry) }
        return sequence
    }

    /// The namespace's oldest entry after sequence `after` that `matches`, as soon as there is one: one already in
    /// the ring at once, else the first journaled within `timeout` (nil when none comes, or the task is cancelled).
    /// A held wait is a suspended task. The ring's entries are copied under the lock and matched after it (a pattern may
    /// parse bodies); each append looks at the waits of its namespace under the lock it holds.
    package func waitForEntry(_ namespace: Namespace, after: Int = 0, timeout: Duration,
                              where matches: @escaping @Sendable (Entry) -> Bool) async -> Entry? {
        let (earlier, seen) = state.withLock { ring in (Self.entries(of: namespace, after: after, in: ring, capacity: capacity), ring.sequence) }
        if let found = earlier.first(where: matches) { return found }
        let wait = HeldWait<Entry>()
        let since = max(after, seen)
        let (found, id) = state.withLock { ring -> (Entry?, Int) in
            // What was journaled between the copy and now (a few entries): none slips between the two.
            if let entry = Self.entries(of: namespace, after: since, in: ring, capacity: capacity).first(where: matches) { return (entry, 0) }
            ring.nextWaiterID += 1
            ring.waiters.append(Waiter(id: ring.nextWaiterID, namespace: namespace, after: since, matches: matches, wait: wait))
            return (nil, ring.nextWaiterID)
        }
        if let found { return found }
        let entry = await wait.value(timeout: timeout)
        if entry == nil { state.withLock { ring in ring.waiters.removeAll { $0.id == id } } }
        return entry
    }

    /// The namespace's entries in the ring with a sequence above `after`, oldest first: walked from the newest back,
    /// so a recent `after` looks at the few entries since it.
    private static func entries(of namespace: Namespace, after: Int, in ring: Ring, capacity: Int) -> [Entry] {
        var found: [Entry] = []
        var offset = ring.count - 1
        while offset >= 0, let entry = ring.slots[(ring.next - ring.count + offset + 2 * capacity) % capacity], entry.sequence > after {
            if entry.namespace == namespace { found.append(entry) }
            offset -= 1
        }
        return found.reversed()
    }

    /// Every entry of the namespace in the ring, oldest first (at most ``capacity``): copied under the lock, read
    /// after it.
    package func allEntries(_ namespace: Namespace) -> [Entry] {
        state.withLock { ring in
            var entries: [Entry] = []
            for offset in 0..<ring.count {
                if let entry = ring.slots[(ring.next - ring.count + offset + 2 * capacity) % capacity], entry.namespace == namespace {
                    entries.append(entry)
                }
            }
            return entries
        }
    }

    /// Waits held now (``waitForEntry(_:after:timeout:where:)``).
    package var heldWaits: Int { state.withLock { $0.waiters.count } }

    /// Entries in the ring now (all namespaces).
    package var count: Int { state.withLock { $0.count } }

    /// The newest sequence number given so far (0: none yet).
    package var lastSequence: Int { state.withLock { $0.sequence } }

    /// The namespace's entries that pass `filter`, oldest first, at most `filter.limit` (the newest ones).
    package func entries(_ namespace: Namespace, _ filter: Filter) -> [Entry] { page(namespace, filter).entries }

    /// The namespace's entries that pass `filter` (older than `filter.before`, if given), oldest first: the newest
    /// `filter.limit` of them (at most ``maxLimit``), and whether older ones match too. Walks the ring newest first
    /// and copies only what it gives.
    package func page(_ namespace: Namespace, _ filter: Filter) -> Page {
        let limit = min(max(0, filter.limit), Journal.maxLimit)
        let method = filter.method?.uppercased()
        func matches(_ entry: Entry) -> Bool {
            entry.namespace == namespace && (filter.before.map { entry.sequence < $0 } ?? true)
                && (method.map { $0 == entry.method } ?? true)
                && (filter.pathPrefix.map { entry.path.hasPrefix($0) } ?? true)
                && (filter.status.map { $0 == entry.status } ?? true)
        }
        return state.withLock { ring -> Page in
            var newestFirst: [Entry] = []
            newestFirst.reserveCapacity(min(limit, ring.count))
            var offset = ring.count - 1
            while offset >= 0 {
                // After a reset compacted the ring, slots still run oldest to newest from `next - count`.
                if let entry = ring.slots[(ring.next - ring.count + offset + 2 * capacity) % capacity], matches(entry) {
                    if newestFirst.count == limit { return Page(entries: newestFirst.reversed(), more: true) }
                    newestFirst.append(entry)
                }
                offset -= 1
            }
            return Page(entries: newestFirst.reversed(), more: false)
        }
    }

    /// How many entries each namespace has in the ring now (for the control page's list).
    package var entryCounts: [Namespace: Int] {
        state.withLock { ring in
            var counts: [Namespace: Int] = [:]
            for case let entry? in ring.slots { counts[entry.namespace, default: 0] += 1 }
            return counts
        }
    }

    /// Entries that fell out of the ring since the server started (all namespaces).
    package var dropped: Int { state.withLock { $0.dropped } }

    /// Forgets the namespace's entries.
    package func reset(_ namespace: Namespace) {
        state.withLock { ring in
            let start = (ring.next - ring.count + capacity) % capacity
            var kept: [Entry] = []
            for offset in 0..<ring.count {
                if let entry = ring.slots[(start + offset) % capacity], entry.namespace != namespace { kept.append(entry) }
            }
            ring.slots = kept
            ring.count = kept.count
            ring.next = kept.count % capacity
        }
    }
}
