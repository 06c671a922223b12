// SPDX-License-Identifier: MIT
import Foundation

/// What a provider keeps per namespace (its sessions, tokens, orders), for ``NamespacedStore``.
@usableFromInline
package protocol NamespaceStateValue {
    /// Nothing worth keeping: a namespace whose state is still empty after an access is not stored, so reads
    /// (and failed writes) of an unknown namespace cost no memory.
    var isEmpty: Bool { get }
}

/// Every provider's objects, per namespace: one `State` value per namespace, sharded by the namespace's hash
/// over a fixed set of locks. Each access runs under one short lock (no I/O, no await), so the routes call it on
/// the event loop; a check-then-change inside one ``withState(_:_:)`` is atomic (two calls racing on one
/// token make one order).
///
/// The layers, named alike in every provider: its `…Store` is what its routes call (a ``NamespacedState``); its
/// `…Ledger` is one namespace's objects and the rules that change them, the `State` of a `NamespacedStore`.
///
/// The bound on the objects of the whole server (`--max-objects`, oldest evicted first) is `ObjectRetention`'s: it
/// keeps the creation order across namespaces and asks the stores to evict. Each namespace's ``Slot`` keeps the
/// sequence number it was created with (``nextSequence()``), kept in order by the state file; a namespace whose
/// state becomes empty is dropped. The state file (`SavedState.swift`) writes every namespace a few objects per hold of its shard's lock
/// (``underLock(of:_:)``) and fills them through ``restore(_:sequence:_:)``, the one way restored objects come in.
///
/// `@usableFromInline` (and ``Namespace``): a `package` type's inlinable code is inlined into other modules only so.
@usableFromInline
package final class NamespacedStore<State: NamespaceStateValue>: Sendable {
    /// One namespace's state and when it was first written (see the type's comment).
    @usableFromInline struct Slot {
        @usableFromInline var state: State
        @usableFromInline let sequence: UInt64

        @usableFromInline init(state: State, sequence: UInt64) {
            self.state = state
            self.sequence = sequence
        }
    }

    /// `@unchecked Sendable`: `State` may hold classes changed in place (a session, an order), which are not
    /// `Sendable`. A shard is reachable only inside `withLock` of its ``Locked``; this type hands a state only to
    /// a body that runs under that lock and returns a `Sendable` result, so a reference into a state can leave
    /// the lock only if a body stores it outside, which the providers' ledgers do not (their classes are
    /// internal and every read copies them into values). Not `inout sending`: the Order Management writes hand
    /// the route's closures an order under the lock, which region checking cannot tell from an escape.
    @usableFromInline struct Shard: @unchecked Sendable {
        @usableFromInline var slots: [Namespace: Slot] = [:]

        @usableFromInline init() {}
    }

    /// Sixteen locks: with a namespace per test suite, a few event loops (one per core) serving parallel suites
    /// meet on one lock with a chance of about one in sixteen, and sixteen idle mutexes cost nothing. The stores
    /// had 16 (and one 8); more would only help a server with many more cores than this one targets.
    package static var shardCount: Int { 16 }

    // Visible to inlined code: ``withState(_:_:)`` is inlined (and specialized) into the stores of other modules.
    @usableFromInline let shards: [Locked<Shard>]
    private let sequence = Locked<UInt64>(0)
    @usableFromInline let makeState: @Sendable () -> State

    /// `makeState`: a namespace's empty state, made on its first access.
    package init(_ makeState: @escaping @Sendable () -> State) {
        self.makeState = makeState
        shards = (0..<Self.shardCount).map { _ in Locked(Shard()) }
    }

    /// The namespace's shard, by an FNV-1a hash of its name: cheaper than `hashValue` (SipHash), paid on every access.
    @inlinable
    func shard(_ namespace: Namespace) -> Locked<Shard> {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in namespace.name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return shards[Int(hash % UInt64(shards.count))]
    }

    /// A number that grows with every call, across namespaces: the order of creation (the eviction seam).
    @usableFromInline package func nextSequence() -> UInt64 { sequence.withLock { $0 += 1; return $0 } }

    /// Runs `body` on the namespace's state under its shard's lock, reading or changing it in place. A namespace
    /// is created by the first access that leaves its state non-empty, and dropped by the access that leaves it
    /// empty (its last object evicted, expired or cancelled): a namespace that holds nothing costs nothing here.
    /// Inlinable: specialized for its store's `State`, it looks no generic type up at run time.
    @inlinable
    package func withState<Result: Sendable, Failure: Error>(
        _ namespace: Namespace, _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try shard(namespace).withLock { (shard) throws(Failure) -> Result in
            // One look-up: the slot is changed in place through its index (`body` cannot reach the dictionary).
            if let index = shard.slots.index(forKey: namespace) {
                // Asked in place (inout): reading `values[index]` would copy the whole slot, every store of it.
                defer { if Self.isEmpty(&shard.slots.values[index].state) { shard.slots.remove(at: index) } }
                return try body(&shard.slots.values[index].state)
            }
            var fresh = makeState()
            defer { if !fresh.isEmpty { shard.slots[namespace] = Slot(state: fresh, sequence: nextSequence()) } }
            return try body(&fresh)
        }
    }

    @usableFromInline
    static func isEmpty(_ state: inout State) -> Bool { state.isEmpty }

    /// Drops the namespace's state.
    package func reset(_ namespace: Namespace) {
        shard(namespace).withLock { $0.slots[namespace] = nil }
    }

    /// Drops the namespace's state; `body` sees it last, under the same lock (nil: the namespace had none).
    package func reset<Result: Sendable>(_ namespace: Namespace, _ body: (inout State) -> Result) -> Result? {
        shard(namespace).withLock { shard in
            guard var slot = shard.slots.removeValue(forKey: namespace) else { return nil }
            return body(&slot.state)
        }
    }

    /// Drops every namespace's state.
    package func resetAll() {
        for shard in shards { shard.withLock { $0.slots.removeAll() } }
    }

    /// Runs `body` on every namespace's state, one shard's lock at a time; stops at the first non-nil answer. A
    /// state `body` leaves empty is dropped, as by ``withState(_:_:)``.
    package func first<Result: Sendable>(_ body: (Namespace, inout State) -> Result?) -> Result? {
        for shard in shards {
            let found = shard.withLock { (shard) -> Result? in
                var emptied: [Namespace] = []
                defer { for namespace in emptied { shard.slots[namespace] = nil } }
                for namespace in shard.slots.keys {
                    let result = body(namespace, &shard.slots[namespace]!.state)
                    if shard.slots[namespace]!.state.isEmpty { emptied.append(namespace) }
                    if let result { return result }
                }
                return nil
            }
            if let found { return found }
        }
        return nil
    }

    /// Runs `body` on every namespace's state, one shard's lock at a time (snapshots of everything).
    package func forEach(_ body: (Namespace, inout State) -> Void) {
        _ = first { (namespace, state) -> Bool? in
            body(namespace, &state)
            return nil
        }
    }

    /// `body`'s elements for every namespace, joined (one shard's lock at a time).
    package func flatMap<Element>(_ body: (Namespace, inout State) -> [Element]) -> [Element] {
        var all: [Element] = []
        forEach { namespace, state in all += body(namespace, &state) }
        return all
    }

    /// Every namespace that has state, with its creation number, one shard's lock at a time (the state file's list).
    func slotList() -> [(namespace: Namespace, sequence: UInt64)] {
        shards.flatMap { $0.withLock { $0.slots.map { (namespace: $0.key, sequence: $0.value.sequence) } } }
    }

    /// Runs `body` under the lock of the namespace's shard with the namespace's state (nil when it has none): the state
    /// file takes a namespace's objects a few at a time this way, the lock released in between. What `body` returns
    /// may hold references into the state (copy-on-write copies of its dictionaries, whose objects may be classes
    /// changed in place): the caller reads those objects only inside later calls for the same namespace.
    func underLock<Result>(of namespace: Namespace, _ body: (State?) throws -> Result) rethrows -> Result {
        try shard(namespace).withLock { shard in try body(shard.slots[namespace]?.state) }
    }

    /// A namespace's state as a first access makes it: the state file fills one before putting it in place.
    func emptyState() -> State { makeState() }

    /// The last number ``nextSequence()`` gave.
    package var currentSequence: UInt64 { sequence.withLock { $0 } }

    /// Makes ``nextSequence()`` go on after `last` (a restored store's counter), never back.
    package func continueSequence(after last: UInt64) {
        sequence.withLock { $0 = max($0, last) }
    }

    /// Puts a namespace's state from the state file in place: a fresh state that `fill` gives its objects,
    /// replacing whatever the namespace held, with the creation number it was saved with. Every store restores
    /// through this function.
    package func restore(_ namespace: Namespace, sequence: UInt64, _ fill: (inout State) -> Void) {
        var state = makeState()
        fill(&state)
        shard(namespace).withLock { shard in
            shard.slots[namespace] = state.isEmpty ? nil : Slot(state: state, sequence: sequence)
        }
        continueSequence(after: sequence)
    }

    /// The namespaces that have state now.
    package var namespaces: [Namespace] { shards.flatMap { $0.withLock { Array($0.slots.keys) } } }

    /// How many namespaces have state now (each holds at least one object: an emptied one is dropped).
    package var namespaceCount: Int { shards.reduce(0) { $0 + $1.withLock { $0.slots.count } } }
}

/// When a namespace's expired objects are swept: the shared cadence of the stores. A sweep runs on a creation,
/// every `creationsPerSweep` creations in the namespace or when its clock has moved `interval` past the last
/// sweep (a clock jump expires everything at once), and never before ``earliestExpiry``: until then it would
/// find nothing (and it copies the namespace's dictionaries).
package struct SweepSchedule: Sendable, Codable {
    package let creationsPerSweep: Int
    package let interval: TimeInterval
    package var creationsSinceSweep = 0
    package var nextSweep = Date.distantPast
    /// No object of the namespace expires before this (a lower bound). `distantPast` for a store that does not
    /// keep it.
    package var earliestExpiry: Date

    /// `tracksExpiry`: whether the store lowers ``earliestExpiry`` as it creates objects (else it never holds a sweep back).
    package init(creationsPerSweep: Int = 1024, interval: TimeInterval = 60, tracksExpiry: Bool = true) {
        self.creationsPerSweep = creationsPerSweep
        self.interval = interval
        earliestExpiry = tracksExpiry ? .distantFuture : .distantPast
    }

    private enum CodingKeys: String, CodingKey { case creationsPerSweep, interval, creationsSinceSweep, nextSweep, earliestExpiry }

    /// From a state file: the count of creations within ``SavedValueBounds`` (one at `Int.max` would trap on the next
    /// creation), the interval a finite number of seconds, ≥ 0. `creationsPerSweep` may be anything (`Int.max`: never
    /// by count).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        creationsPerSweep = try container.decode(Int.self, forKey: .creationsPerSweep)
        interval = try container.decode(TimeInterval.self, forKey: .interval)
        creationsSinceSweep = try container.decode(Int.self, forKey: .creationsSinceSweep)
        nextSweep = try container.decode(Date.self, forKey: .nextSweep)
        earliestExpiry = try container.decode(Date.self, forKey: .earliestExpiry)
        try SavedValueBounds.checkCounter(creationsSinceSweep, at: [SavedKey("creationsSinceSweep")], in: decoder)
        guard interval.isFinite, interval >= 0 else {
            throw SavedValueOutOfBounds(codingPath: decoder.codingPath + [SavedKey("interval")],
                                        message: "\(interval) is not a number of seconds ≥ 0")
        }
    }

    /// An object that expires at `date` was created.
    package mutating func noteExpiry(_ date: Date) { if date < earliestExpiry { earliestExpiry = date } }

    /// Counts a creation at `now`; true when a sweep is due now (the schedule then starts again from `now`).
    package mutating func creationIsDue(now: Date) -> Bool {
        guard creationsSinceSweep + 1 >= creationsPerSweep || now >= nextSweep, now >= earliestExpiry else {
            creationsSinceSweep += 1
            return false
        }
        creationsSinceSweep = 0
        nextSweep = now + interval
        return true
    }
}
