// SPDX-License-Identifier: MIT
import Foundation

/// One kind of object a provider keeps until it expires (a session, a token, an order), as ``ObjectRetention``
/// counts it. A store gets its kinds from ``ObjectRetention/kind(provider:name:)`` when it is made and
/// tells them what it creates and drops; it never tells them what they evicted (the retention knows).
package struct RetainedObjectKind: Sendable {
    package let retention: ObjectRetention
    let index: UInt8

    /// Under the store's lock, right after the object was stored: it now counts, as the newest of the server.
    /// The store calls ``ObjectRetention/evictOverflow()`` once its lock is released.
    package func created(_ namespace: Namespace, _ id: String) { retention.created(namespace, self, id) }

    /// Objects the store dropped itself (expired and swept, cancelled); ids it no longer held are ignored.
    package func removed(_ namespace: Namespace, _ ids: some Sequence<String>) { retention.removed(namespace, self, ids) }

    /// All of the namespace's objects of this kind went (a reset).
    package func removedAll(_ namespace: Namespace) { retention.removedAll(namespace, self) }

    /// How an eviction drops one object from its store (set once the store is made; it runs with no lock held and
    /// may find the object gone already). Until set, an evicted object only leaves the count.
    package func onEviction(_ remove: @escaping @Sendable (Namespace, String) -> Void) { retention.setRemoval(self, remove) }
}

/// Every object the providers keep, across namespaces and providers, in the order they were created, and the bound
/// on how many the server holds (`--max-objects`). A creation that makes the server hold more than ``maxObjects``
/// evicts the oldest objects of the whole server until it holds ``maxObjects``: each is removed through its kind's
/// eviction handler (so it then answers as an unknown one) and journaled as `EVICTED` in its namespace, a burst of them
/// grouped into one entry per namespace (``journalGroupSeconds``).
///
/// The bookkeeping is one lock: a queue of (namespace, kind, id) in creation order and, per namespace and kind, the
/// set of ids held. What a store drops itself (sweeps, resets) leaves a dead queue entry, skipped when it comes up
/// and compacted away once dead entries outnumber live ones, so the bookkeeping stays within about twice what is
/// held however many objects come and go. Namespaces are numbered in the queue (a slot each, reused once nothing
/// refers to it), so an entry costs its id's reference and a few bytes.
///
/// Lock order: a store's lock, then this one; never the other way: evictions call the stores' handlers after this
/// lock is released, and ``evictOverflow()`` is called under no store's lock at all (a handler takes its store's
/// lock, which is not reentrant): after the creating store's lock is released, by the outermost caller.
package final class ObjectRetention: Sendable {
    /// At most this many objects are held; nil: no bound (still counted).
    package let maxObjects: Int?
    /// Evictions in one namespace within this many seconds of the base clock share one journal entry.
    package let journalGroupSeconds: TimeInterval
    private let journal: Journal?
    private let clock: any SandboxClock

    private struct Kind {
        let provider: String
        let name: String
        var remove: (@Sendable (Namespace, String) -> Void)?
    }
    private let kinds = Locked<[Kind]>([])
    private let ledger = Locked(Ledger())
    private let groups = Locked<[Namespace: EvictionGroup]>([:])

    /// `journal`: where evictions are recorded (nil: nowhere); `clock`: the base clock their grouping follows.
    package init(maxObjects: Int? = nil, journal: Journal? = nil, clock: any SandboxClock = SystemClock(), journalGroupSeconds: TimeInterval = 1) {
        self.maxObjects = maxObjects.map { max(1, $0) }
        self.journal = journal
        self.clock = clock
        self.journalGroupSeconds = journalGroupSeconds
    }

    /// A kind of object of `provider` (e.g. "acme", "session"); its store then names how an eviction
    /// removes one (``RetainedObjectKind/onEviction(_:)``). At most 255 kinds.
    package func kind(provider: String, name: String) -> RetainedObjectKind {
        kinds.withLock { kinds in
            precondition(kinds.count < Int(UInt8.max), "too many kinds of retained object")
            kinds.append(Kind(provider: provider, name: name))
            return RetainedObjectKind(retention: self, index: UInt8(kinds.count - 1))
        }
    }

    fileprivate func setRemoval(_ kind: RetainedObjectKind, _ remove: @escaping @Sendable (Namespace, String) -> Void) {
        kinds.withLock { $0[Int(kind.index)].remove = remove }
    }

    /// Objects held now, the bound, and objects evicted since the server started.
    package var counts: (held: Int, max: Int?, evicted: Int) {
        ledger.withLock { ($0.held, maxObjects, $0.evicted) }
    }

    /// Entries of the creation-order queue, dead ones included (the bookkeeping's own size, for tests).
    package var queuedEntries: Int { ledger.withLock { $0.queue.count - $0.head } }

    fileprivate func created(_ namespace: Namespace, _ kind: RetainedObjectKind, _ id: String) {
        ledger.withLock { $0.created(namespace, kind.index, id) }
    }

    fileprivate func removed(_ namespace: Namespace, _ kind: RetainedObjectKind, _ ids: some Sequence<String>) {
        ledger.withLock { $0.removed(namespace, kind.index, ids) }
    }

    fileprivate func removedAll(_ namespace: Namespace, _ kind: RetainedObjectKind) {
        ledger.withLock { $0.removedAll(namespace, kind.index) }
    }

    /// Evicts the oldest objects while more than ``maxObjects`` are held. Call it with no store's lock held (a
    /// store calls it after each creation); cheap when nothing is over.
    package func evictOverflow() {
        guard let maxObjects else { return }
        let evicted = ledger.withLock { $0.takeOldest(over: maxObjects) }
        guard !evicted.isEmpty else { return }
        let kinds = self.kinds.withLock { $0 }
        for object in evicted { kinds[Int(object.kind)].remove?(object.namespace, object.id) }
        journalEvictions(evicted, kinds: kinds, max: maxObjects)
    }

    // MARK: The journal

    /// A burst of evictions in one namespace: one journal entry, changed in place while the burst lasts.
    private struct EvictionGroup {
        var sequence: Int
        var startedAt: Date
        var note: EvictionNote
        var listed: [JSONText]
    }

    /// Objects listed by id in a group's entry (its body); the rest are counted in its note.
    package static let listedPerEntry = 32

    /// What an `EVICTED` entry's note says, described when the journal is read.
    package struct EvictionNote: CustomStringConvertible, Sendable {
        package var max: Int
        /// (provider, kind, count), in the order the kinds were first evicted.
        package var counts: [(provider: String, kind: String, count: Int)] = []
        package var total: Int { counts.reduce(0) { $0 + $1.count } }

        package var description: String {
            let kinds = counts.map { "\($0.provider) \($0.kind) ×\($0.count)" }.joined(separator: ", ")
            return "\(total) evicted, oldest of the server first (it holds at most \(max)): \(kinds)"
        }

        mutating func add(provider: String, kind: String) {
            if let index = counts.firstIndex(where: { $0.provider == provider && $0.kind == kind }) {
                counts[index].count += 1
            } else {
                counts.append((provider, kind, 1))
            }
        }
    }

    /// Journals `evicted`: per namespace, a new entry, or the namespace's entry of the last ``journalGroupSeconds``
    /// changed in place. The groups' lock is held while the journal changes, so two bursts never interleave.
    private func journalEvictions(_ evicted: [Ledger.Eviction], kinds: [Kind], max: Int) {
        guard let journal else { return }
        let now = clock.now()
        let window = journalGroupSeconds
        groups.withLock { groups in
            if groups.count > 64 { groups = groups.filter { now < $0.value.startedAt + window } }
            for (namespace, objects) in Dictionary(grouping: evicted, by: \.namespace) {
                var group = groups[namespace].flatMap { now < $0.startedAt + window ? $0 : nil }
                    ?? EvictionGroup(sequence: 0, startedAt: now, note: EvictionNote(max: max), listed: [])
                var listedChanged = false
                for object in objects {
                    let kind = kinds[Int(object.kind)]
                    group.note.add(provider: kind.provider, kind: kind.name)
                    if group.listed.count < Self.listedPerEntry {
                        group.listed.append(.object([("provider", .string(kind.provider)), ("kind", .string(kind.name)),
                                                     ("id", .string(object.id))]))
                        listedChanged = true
                    }
                }
                let body = listedChanged ? JSONText.object([("objects", .array(group.listed))]).data : nil
                if group.sequence == 0 || !journal.update(group.sequence, note: group.note, body: body) {
                    let first = kinds[Int(objects[0].kind)]
                    group.sequence = journal.record(namespace, method: "EVICTED", path: "\(first.provider)/\(first.name)/\(objects[0].id)",
                                                    status: 0, event: group.note,
                                                    body: body ?? JSONText.object([("objects", .array(group.listed))]).data)
                    group.startedAt = now
                }
                groups[namespace] = group
            }
        }
    }
}

// MARK: The bookkeeping

extension ObjectRetention {
    /// The queue and the sets, under ``ObjectRetention``'s lock.
    struct Ledger {
        struct Queued {
            var slot: UInt32
            var kind: UInt8
            var id: String
        }

        /// A namespace's held ids per kind, and how many queue entries name its slot.
        struct Slot {
            var namespace: Namespace
            var held: [Set<String>] = []
            var heldCount = 0
            var queued = 0
        }

        struct Eviction: Sendable {
            var namespace: Namespace
            var kind: UInt8
            var id: String
        }

        var held = 0
        var evicted = 0
        var queue: [Queued] = []
        /// The oldest entry not yet taken: entries before it are spent, dropped in batches.
        var head = 0
        var slots: [Slot?] = []
        var slotOfNamespace: [Namespace: UInt32] = [:]
        var freeSlots: [UInt32] = []

        mutating func slot(for namespace: Namespace) -> UInt32 {
            if let slot = slotOfNamespace[namespace] { return slot }
            let slot: UInt32
            if let free = freeSlots.popLast() {
                slot = free
                slots[Int(slot)] = Slot(namespace: namespace)
            } else {
                slot = UInt32(slots.count)
                slots.append(Slot(namespace: namespace))
            }
            slotOfNamespace[namespace] = slot
            return slot
        }

        /// Frees the slot once nothing is held under it and no queue entry names it.
        mutating func releaseIfUnused(_ slot: UInt32) {
            guard let state = slots[Int(slot)], state.heldCount == 0, state.queued == 0 else { return }
            slots[Int(slot)] = nil
            slotOfNamespace[state.namespace] = nil
            freeSlots.append(slot)
        }

        mutating func created(_ namespace: Namespace, _ kind: UInt8, _ id: String) {
            let slot = slot(for: namespace)
            let inserted = slots[Int(slot)]!.withHeld(kind) { $0.insert(id).inserted }
            guard inserted else { return }
            slots[Int(slot)]!.heldCount += 1
            slots[Int(slot)]!.queued += 1
            held += 1
            queue.append(Queued(slot: slot, kind: kind, id: id))
        }

        mutating func removed(_ namespace: Namespace, _ kind: UInt8, _ ids: some Sequence<String>) {
            guard let slot = slotOfNamespace[namespace] else { return }
            var count = 0
            slots[Int(slot)]!.withHeld(kind) { held in
                for id in ids where held.remove(id) != nil { count += 1 }
            }
            forget(count, slot: slot)
        }

        mutating func removedAll(_ namespace: Namespace, _ kind: UInt8) {
            guard let slot = slotOfNamespace[namespace] else { return }
            let count = slots[Int(slot)]!.withHeld(kind) { held in
                defer { held = [] }
                return held.count
            }
            forget(count, slot: slot)
        }

        private mutating func forget(_ count: Int, slot: UInt32) {
            guard count > 0 else { return }
            slots[Int(slot)]!.heldCount -= count
            held -= count
            releaseIfUnused(slot)
            compactIfMostlyDead()
        }

        /// Takes the oldest held objects off the books until at most `max` are held.
        mutating func takeOldest(over max: Int) -> [Eviction] {
            var taken: [Eviction] = []
            while held > max, head < queue.count {
                let entry = queue[head]
                head += 1
                slots[Int(entry.slot)]!.queued -= 1
                let wasHeld = slots[Int(entry.slot)]!.withHeld(entry.kind) { $0.remove(entry.id) != nil }
                if wasHeld {
                    slots[Int(entry.slot)]!.heldCount -= 1
                    held -= 1
                    evicted += 1
                    taken.append(Eviction(namespace: slots[Int(entry.slot)]!.namespace, kind: entry.kind, id: entry.id))
                }
                releaseIfUnused(entry.slot)
            }
            if head >= 4096 && head * 2 >= queue.count {
                queue.removeFirst(head)
                head = 0
            }
            return taken
        }

        /// Drops dead entries (objects the stores dropped themselves) once they outnumber the live ones.
        mutating func compactIfMostlyDead() {
            guard queue.count - head > 2 * held + 1024 else { return }
            var kept: [Queued] = []
            kept.reserveCapacity(held)
            for index in slots.indices where slots[index] != nil { slots[index]!.queued = 0 }
            for entry in queue[head...] where slots[Int(entry.slot)]?.isHeld(entry.kind, entry.id) == true {
                kept.append(entry)
                slots[Int(entry.slot)]!.queued += 1
            }
            queue = kept
            head = 0
            for index in slots.indices where slots[index] != nil { releaseIfUnused(UInt32(index)) }
        }
    }
}

extension ObjectRetention.Ledger.Slot {
    /// Runs `body` on the held ids of `kind` (an empty set until the kind is first used here).
    mutating func withHeld<Result>(_ kind: UInt8, _ body: (inout Set<String>) -> Result) -> Result {
        while held.count <= Int(kind) { held.append([]) }
        return body(&held[Int(kind)])
    }

    func isHeld(_ kind: UInt8, _ id: String) -> Bool {
        Int(kind) < held.count && held[Int(kind)].contains(id)
    }
}
