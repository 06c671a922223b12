// SPDX-License-Identifier: MIT
import Foundation

/// Every callback the providers make, kept per namespace so a test machine the sandbox cannot reach can read
/// them (`GET /__sandbox/callbacks`) and have one delivered now, to its own URL or another
/// (`POST /__sandbox/callbacks/{id}/deliver`). Bounded: at most ``capacityPerNamespace`` per namespace and
/// ``capacity`` in all; the oldest go first. A namespace reset forgets its callbacks. The state file keeps them
/// (``savedSection()``); one still waiting for a call comes back `held` (``restoreSection(from:)``).
package final class CallbackOutbox: NamespacedState, Sendable {
    /// Where a callback stands.
    package enum State: String, Sendable, Codable {
        /// Being delivered, or waiting for its first call or a retry.
        case pending
        /// Not sent (a scenario's `callback_not_sent`), or restored from the state file while pending: it waits to
        /// be delivered by hand.
        case held
        /// A call got a 2xx.
        case delivered
        /// Every call of the schedule failed.
        case failed
    }

    /// One call of a callback.
    package struct Attempt: Sendable, Codable {
        /// When it started, on the namespace's sandbox clock.
        package var time: Date
        package var url: String
        /// The answer's status; nil when none came.
        package var status: Int?
        /// What went wrong without an answer (refused, timed out), or why the failure was simulated.
        package var error: String?
        /// Simulated by a scenario (`callback_failing`): the merchant was not called.
        package var simulated: Bool
        /// Delivered by hand (`POST /__sandbox/callbacks/{id}/deliver`).
        package var manual: Bool
        package var durationSeconds: Double
        /// What happened to the callback after this call: why a restored callback is `held`.
        package var note: String?
        /// The start of the answer's body (at most ``CallbackHTTPClient/answerPrefixBytes``); the rest is not read.
        package var answer: String?

        package init(time: Date, url: String, status: Int?, error: String?, simulated: Bool = false, manual: Bool = false,
                    durationSeconds: Double = 0, note: String? = nil, answer: String? = nil) {
            self.time = time
            self.url = url
            self.status = status
            self.error = error
            self.simulated = simulated
            self.manual = manual
            self.durationSeconds = durationSeconds
            self.note = note
            self.answer = answer
        }

        package var delivered: Bool { status.map { (200..<300).contains($0) } ?? false }
    }

    /// One kept callback.
    package struct Entry: Sendable {
        package let id: String
        /// Order of arrival over the whole outbox (eviction goes by it).
        let number: Int
        package let namespace: Namespace
        /// The id of the object the callback is about (an HPP session, a payment order).
        package let object: String
        /// The scenario operation it plays (the provider's callback operation).
        package let operation: String
        /// What it is, as the journal notes it.
        package let description: String
        package let url: String
        package let headers: [(name: String, value: String)]
        package let body: Data
        /// When it was made, on the namespace's sandbox clock.
        package let created: Date
        package var state: State
        /// When the next call is due on the sandbox clock (a late first call or a retry); nil when none is.
        package var due: Date?
        /// The scenario decision that shaped it, when a rule matched.
        package var scenario: String?
        /// The last ``CallbackOutbox/keptAttempts`` calls, oldest first.
        package var attempts: [Attempt] = []
        /// Every call made, kept or not.
        package var attemptCount = 0

        /// Adds a call, dropping the oldest past ``CallbackOutbox/keptAttempts``.
        mutating func append(_ attempt: Attempt) {
            attempts.append(attempt)
            attemptCount += 1
            if attempts.count > CallbackOutbox.keptAttempts { attempts.removeFirst(attempts.count - CallbackOutbox.keptAttempts) }
        }
    }

    /// How many of a callback's calls are kept (the last ones); ``Entry/attemptCount`` counts them all.
    package static let keptAttempts = 10

    package let stateName = "callback_outbox"
    package let capacity: Int
    package let capacityPerNamespace: Int
    private let registry: NamespaceRegistry
    private let state = Locked(Ledger())
    private let removalObservers = Locked<[@Sendable ([String]) -> Void]>([])

    private struct Ledger: Sendable {
        var byNamespace: [Namespace: [Entry]] = [:]
        /// Every kept entry's number and namespace in the order they came, from `orderStart` on: the oldest of the
        /// whole outbox is the first whose entry is still its namespace's first. Pairs of entries gone another way
        /// (a namespace's own bound, a reset) are skipped when they come up, and dropped when they pile up.
        var order: [(number: Int, namespace: Namespace)] = []
        var orderStart = 0
        var count = 0
        var nextNumber = 1
        var evicted = 0
        /// Pairs of `order` looked at to evict, in all: what eviction costs (tests check that it stays linear).
        var evictionSteps = 0
        var counters = Counters()
        /// Held waits (``waitForCallback(_:timeout:where:)``), looked at by each change while there are any.
        var waiters: [Waiter] = []
        var nextWaiterID = 0

        /// The held waits of `entry`'s namespace that it matches, taken out.
        mutating func wake(for entry: Entry) -> [(HeldWait<Entry>, Entry)] {
            guard !waiters.isEmpty else { return [] }
            var woken: [(HeldWait<Entry>, Entry)] = []
            waiters.removeAll { waiter in
                guard waiter.namespace == entry.namespace, waiter.matches(entry) else { return false }
                woken.append((waiter.wait, entry))
                return true
            }
            return woken
        }

        /// Drops the oldest callbacks of the whole outbox while it holds more than `capacity`; returns their ids.
        mutating func evictOldest(over capacity: Int) -> [String] {
            var removed: [String] = []
            while count > capacity, orderStart < order.count {
                let (number, namespace) = order[orderStart]
                orderStart += 1
                evictionSteps += 1
                guard let first = byNamespace[namespace]?.first, first.number == number else { continue }
                removed.append(first.id)
                byNamespace[namespace]!.removeFirst()
                if byNamespace[namespace]!.isEmpty { byNamespace[namespace] = nil }
                count -= 1
                evicted += 1
            }
            compactOrder()
            return removed
        }

        /// Keeps `order` within a small multiple of what is kept: drops what was passed, and rebuilds it when the
        /// pairs of entries gone outnumber the live ones.
        mutating func compactOrder() {
            if order.count - orderStart > 2 * count + 64 {
                rebuildOrder()
            } else if orderStart > 64, orderStart * 2 > order.count {
                order.removeFirst(orderStart)
                orderStart = 0
            }
        }

        /// `order` from the namespaces' entries, oldest first.
        mutating func rebuildOrder() {
            order = byNamespace.flatMap { namespace, entries in entries.map { (number: $0.number, namespace: namespace) } }
            order.sort { $0.number < $1.number }
            orderStart = 0
        }
    }

    /// What the outbox counted since start (`GET /__sandbox/metrics`).
    package struct Counters: Sendable {
        /// Callbacks the providers made.
        package var made = 0
        /// Calls that got a 2xx; calls that did not (simulated failures included).
        package var callsDelivered = 0
        package var callsFailed = 0
        /// Calls of the schedule after a callback's first.
        package var retries = 0
        /// Callbacks whose every call of the schedule failed.
        package var failed = 0
    }

    private struct Waiter: Sendable {
        var id: Int
        var namespace: Namespace
        var matches: @Sendable (Entry) -> Bool
        var wait: HeldWait<Entry>
    }

    package init(registry: NamespaceRegistry, capacity: Int = 10_000, capacityPerNamespace: Int = 1_000) {
        self.registry = registry
        self.capacity = max(1, capacity)
        self.capacityPerNamespace = max(1, capacityPerNamespace)
    }

    /// Calls `observer` with the ids of callbacks that leave the outbox (evicted, or their namespace reset), outside
    /// the outbox's lock: a sender ends their waits.
    package func onRemoval(_ observer: @escaping @Sendable ([String]) -> Void) { removalObservers.withLock { $0.append(observer) } }

    private func removed(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        for observer in removalObservers.withLock({ $0 }) { observer(ids) }
    }

    /// Pairs looked at to evict since start (see ``Ledger/evictionSteps``).
    package var evictionSteps: Int { state.withLock { $0.evictionSteps } }

    /// Keeps a new callback and returns its id (`cb_<n>`), evicting the oldest over the bounds.
    package func add(_ namespace: Namespace, object: String, operation: String, description: String, url: String,
                     headers: [(name: String, value: String)], body: Data, state: State, due: Date? = nil,
                     scenario: String? = nil) -> String {
        let created = registry.now(namespace)
        var woken: [(HeldWait<Entry>, Entry)] = []
        let (id, removed) = self.state.withLock { ledger -> (String, [String]) in
            let number = ledger.nextNumber
            ledger.nextNumber += 1
            let entry = Entry(id: "cb_\(number)", number: number, namespace: namespace, object: object, operation: operation,
                              description: description, url: url, headers: headers, body: body, created: created, state: state,
                              due: due, scenario: scenario)
            ledger.byNamespace[namespace, default: []].append(entry)
            ledger.order.append((number, namespace))
            ledger.count += 1
            ledger.counters.made += 1
            woken = ledger.wake(for: entry)
            var removed: [String] = []
            if ledger.byNamespace[namespace]!.count > capacityPerNamespace {
                removed.append(ledger.byNamespace[namespace]!.removeFirst().id)
                ledger.count -= 1
                ledger.evicted += 1
            }
            removed += ledger.evictOldest(over: capacity)
            return (entry.id, removed)
        }
        for (wait, entry) in woken { wait.finish(entry) }
        self.removed(removed)
        return id
    }

    /// Changes the entry, if it is still kept; returns it as changed.
    @discardableResult
    package func update(_ namespace: Namespace, _ id: String, _ change: (inout Entry) -> Void) -> Entry? {
        let (changed, woken) = state.withLock { ledger -> (Entry?, [(HeldWait<Entry>, Entry)]) in
            guard let index = ledger.byNamespace[namespace]?.firstIndex(where: { $0.id == id }) else { return (nil, []) }
            let before = ledger.byNamespace[namespace]![index]
            change(&ledger.byNamespace[namespace]![index])
            let after = ledger.byNamespace[namespace]![index]
            ledger.counters.count(from: before, to: after)
            return (after, ledger.wake(for: after))
        }
        for (wait, entry) in woken { wait.finish(entry) }
        return changed
    }

    /// The namespace's oldest callback that `matches`, as soon as there is one: one kept now at once, else the first
    /// made or changed (a call, a new state) within `timeout`; nil when none comes or the task is cancelled.
    package func waitForCallback(_ namespace: Namespace, timeout: Duration,
                                 where matches: @escaping @Sendable (Entry) -> Bool) async -> Entry? {
        let wait = HeldWait<Entry>()
        let (found, id) = state.withLock { ledger -> (Entry?, Int) in
            if let entry = ledger.byNamespace[namespace]?.first(where: matches) { return (entry, 0) }
            ledger.nextWaiterID += 1
            ledger.waiters.append(Waiter(id: ledger.nextWaiterID, namespace: namespace, matches: matches, wait: wait))
            return (nil, ledger.nextWaiterID)
        }
        if let found { return found }
        let entry = await wait.value(timeout: timeout)
        if entry == nil { state.withLock { ledger in ledger.waiters.removeAll { $0.id == id } } }
        return entry
    }

    /// Waits held now (``waitForCallback(_:timeout:where:)``).
    package var heldWaits: Int { state.withLock { $0.waiters.count } }

    /// What the outbox counted since start, how many it keeps now in each state, and in all.
    package var figures: (counters: Counters, byState: [State: Int], kept: Int) {
        state.withLock { ledger in
            var byState: [State: Int] = [:]
            for entries in ledger.byNamespace.values {
                for entry in entries { byState[entry.state, default: 0] += 1 }
            }
            return (ledger.counters, byState, ledger.count)
        }
    }

    /// Records a call: `state` and `due` as they stand after it. A callback delivered meanwhile stays delivered.
    /// Returns false when the callback is no longer kept (evicted, or its namespace reset).
    @discardableResult
    package func record(_ namespace: Namespace, _ id: String, _ attempt: Attempt, state: State, due: Date?) -> Bool {
        update(namespace, id) { entry in
            entry.append(attempt)
            entry.state = entry.state == .delivered ? .delivered : (attempt.delivered ? .delivered : state)
            entry.due = entry.state == .delivered ? nil : due
        } != nil
    }

    /// Records a call made by hand: a 2xx marks the callback delivered (ending retries still waiting); a failure
    /// leaves it as it was. Returns it as changed.
    @discardableResult
    package func recordManual(_ namespace: Namespace, _ id: String, _ attempt: Attempt) -> Entry? {
        update(namespace, id) { entry in
            entry.append(attempt)
            if attempt.delivered {
                entry.state = .delivered
                entry.due = nil
            }
        }
    }

    /// The namespace's sandbox clock.
    package func now(_ namespace: Namespace) -> Date { registry.now(namespace) }

    package func entry(_ namespace: Namespace, _ id: String) -> Entry? {
        state.withLock { $0.byNamespace[namespace]?.first { $0.id == id } }
    }

    /// The namespace's callbacks, oldest first; `object`: only those about that object.
    package func entries(_ namespace: Namespace, object: String? = nil) -> [Entry] {
        let all = state.withLock { $0.byNamespace[namespace] ?? [] }
        guard let object else { return all }
        return all.filter { $0.object == object }
    }

    /// Whether the callback was delivered (a call got a 2xx), e.g. by hand while a retry waited, or is no longer kept
    /// (evicted, or its namespace reset): either way nothing is left to send.
    package func isDeliveredOrGone(_ namespace: Namespace, _ id: String) -> Bool {
        entry(namespace, id).map { $0.state == .delivered } ?? true
    }

    /// Callbacks dropped to stay within the bounds, since start.
    package var evicted: Int { state.withLock { $0.evicted } }

    package func reset(_ namespace: Namespace) {
        let removed = state.withLock { ledger -> [String] in
            let entries = ledger.byNamespace.removeValue(forKey: namespace) ?? []
            ledger.count -= entries.count
            ledger.compactOrder()
            return entries.map(\.id)
        }
        self.removed(removed)
    }

    package func snapshot(_ namespace: Namespace) -> JSONText {
        let entries = entries(namespace)
        var counts: [(String, JSONText)] = [("count", .int(entries.count))]
        for state in [State.pending, .held, .delivered, .failed] {
            counts.append((state.rawValue, .int(entries.count { $0.state == state })))
        }
        return .object(counts)
    }
}

// MARK: The state file

extension CallbackOutbox {
    /// One kept callback as the state file has it (its namespace is its section's).
    private struct SavedEntry: Codable {
        var id: String
        var number: Int
        var object: String
        var operation: String
        var description: String
        var url: String
        /// `[name, value]` pairs, in order.
        var headers: [[String]]
        /// The body as text when it is UTF-8 (callbacks are JSON), else `bodyBase64`.
        var body: String?
        var bodyBase64: Data?
        var created: Date
        var state: State
        var due: Date?
        var scenario: String?
        /// The last calls (at most ``CallbackOutbox/keptAttempts``).
        var attempts: [Attempt]
        /// Every call made; absent in files written before the attempts were bounded (then: `attempts.count`).
        var attemptCount: Int?

        init(_ entry: Entry) {
            id = entry.id
            number = entry.number
            object = entry.object
            operation = entry.operation
            description = entry.description
            url = entry.url
            headers = entry.headers.map { [$0.name, $0.value] }
            body = String(bytes: entry.body, encoding: .utf8)
            bodyBase64 = body == nil ? entry.body : nil
            created = entry.created
            state = entry.state
            due = entry.due
            scenario = entry.scenario
            attempts = entry.attempts
            attemptCount = entry.attemptCount
        }

        func entry(in namespace: Namespace) throws -> Entry {
            let headers = try headers.map { pair -> (name: String, value: String) in
                guard pair.count == 2 else { throw SavedStateError("callback \(id): a header is not a [name, value] pair") }
                return (pair[0], pair[1])
            }
            guard let body = body.map({ Data($0.utf8) }) ?? bodyBase64 else { throw SavedStateError("callback \(id) has no body") }
            return Entry(id: id, number: number, namespace: namespace, object: object, operation: operation, description: description,
                         url: url, headers: headers, body: body, created: created, state: state, due: due, scenario: scenario,
                         attempts: Array(attempts.suffix(CallbackOutbox.keptAttempts)),
                         attemptCount: max(attemptCount ?? attempts.count, attempts.count))
        }
    }

    private struct SavedNamespace: Codable {
        var namespace: String
        var callbacks: [SavedEntry]
    }

    private struct SavedContents: Decodable {
        var sequence: UInt64
        var namespaces: [SavedNamespace]
    }

    /// Every namespace's callbacks; `sequence` is the last number given (ids go on after it). nil before the first
    /// callback: nothing to keep.
    package func savedSection() throws -> SavedStoreSection? {
        let (byNamespace, lastNumber) = state.withLock { ($0.byNamespace, $0.nextNumber - 1) }
        guard lastNumber > 0 else { return nil }
        let encoder = JSONEncoder()
        var namespaces: [Data] = [], names: [String] = []
        for (namespace, entries) in byNamespace.sorted(by: { $0.key.name < $1.key.name }) where !entries.isEmpty {
            namespaces.append(try encoder.encode(SavedNamespace(namespace: namespace.name, callbacks: entries.map(SavedEntry.init))))
            names.append(namespace.name)
        }
        // Callbacks are not objects (sessions, tokens, orders): the snapshot's object count leaves them out.
        return SavedStoreSection(sequence: UInt64(lastNumber), namespaces: namespaces, namespaceNames: names, objectCount: 0)
    }

    /// Takes the callbacks of a state file, on start. A callback that was `pending` (underway, or waiting for a late
    /// first call or a retry) has lost its timer with the process: it comes back `held`, with a note in its last
    /// result, to be delivered by hand. Over the bounds, the oldest go. New ids go on after the restored ones.
    /// One sort of all the callbacks, then each is looked at once: however many namespaces they are in.
    package func restoreSection(from decoder: any Decoder) throws {
        let contents = try SavedContents(from: decoder)
        try SavedValueBounds.checkCounter(contents.sequence, at: [SavedKey("sequence")], in: decoder)
        var restored: [Namespace: [Entry]] = [:]
        var lastNumber = Int(clamping: contents.sequence)
        for saved in contents.namespaces {
            let namespace = Namespace(saved.namespace)
            for savedEntry in saved.callbacks {
                var entry = try savedEntry.entry(in: namespace)
                try SavedValueBounds.checkCounter(entry.number, at: [SavedKey("callback \(entry.id)"), SavedKey("number")], in: decoder)
                if entry.state == .pending { Self.hold(&entry) }
                restored[namespace, default: []].append(entry)
                lastNumber = max(lastNumber, entry.number)
            }
        }
        let removed = state.withLock { ledger -> [String] in
            var removed: [String] = []
            for (namespace, entries) in restored {
                var all = (ledger.byNamespace[namespace] ?? []) + entries
                ledger.count += entries.count
                if all.count > capacityPerNamespace {
                    all.sort { $0.number < $1.number }
                    let over = all.count - capacityPerNamespace
                    removed += all.prefix(over).map(\.id)
                    all.removeFirst(over)
                    ledger.count -= over
                    ledger.evicted += over
                } else if !(zip(all, all.dropFirst()).allSatisfy { $0.number < $1.number }) {
                    all.sort { $0.number < $1.number }
                }
                ledger.byNamespace[namespace] = all
            }
            ledger.rebuildOrder()
            removed += ledger.evictOldest(over: capacity)
            ledger.nextNumber = max(ledger.nextNumber, lastNumber + 1)
            return removed
        }
        self.removed(removed)
    }

    /// A restored callback whose next call was lost with the process: `held`, nothing due, and its last result says
    /// why (one without a call yet gets a result that says it was not called).
    private static func hold(_ entry: inout Entry) {
        let note = "held after a restart: the sandbox was stopped while this callback waited for a call, and its timer "
            + "is not kept in the state file; deliver it with POST /__sandbox/callbacks/\(entry.id)/deliver"
        if entry.attempts.isEmpty {
            entry.append(Attempt(time: entry.created, url: entry.url, status: nil, error: "not called before the restart"))
        }
        entry.attempts[entry.attempts.count - 1].note = note
        entry.state = .held
        entry.due = nil
    }
}

extension CallbackOutbox.Counters {
    /// Counts what one change of an entry did: the calls it added and whether it gave up.
    mutating func count(from before: CallbackOutbox.Entry, to after: CallbackOutbox.Entry) {
        let calls = after.attemptCount - before.attemptCount
        if calls > 0, let last = after.attempts.last {
            if last.delivered { callsDelivered += 1 } else { callsFailed += 1 }
            if !last.manual, before.attemptCount > 0 { retries += 1 }
        }
        if after.state == .failed, before.state != .failed { failed += 1 }
    }
}
