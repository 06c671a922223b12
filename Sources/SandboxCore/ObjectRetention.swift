// SPDX-License-Identifier: MIT
import Foundation

/// One kind of object a provider keeps until it expires (a session, a token, an order), as ``ObjectRetention``
/// counts it. A store gets its kinds from ``ObjectRetention/kind(provider:name:)`` when it is made and
/// tells them what it creates and drops; it never tells them what they evicted (the retention knows).
package struct RetainedObjectKind: Sendable {
    package let retention: ObjectRetention
    let index: UInt8

    /// Under the store's lock, right after a new object was stored: it now counts, as the newest of the server.
    /// The store calls ``ObjectRetention/evictOverflow()`` once its lock is released.
    package func created(_ namespace: Namespace, _ id: String) { retention.created(namespace, self, id) }

    /// Under the store's lock: objects the store dropped itself (expired and swept, cancelled). Only ids it held
    /// until now: the retention keeps counts, not ids, and trusts this list.
    package func removed(_ namespace: Namespace, _ ids: some Collection<String>) { retention.removed(namespace, self, ids: ids) }

    /// All of the namespace's objects of this kind went (a reset).
    package func removedAll(_ namespace: Namespace) { retention.removedAll(namespace, self) }

    /// How the retention reaches this kind's objects in their store, set once the store is made. Both run with no
    /// lock held and take the store's: `evict` drops one object and says whether it was still there; `holds`
    /// says whether it is (for dropping the bookkeeping of objects the store dropped itself). Until set, the
    /// kind's objects are never evicted (passed over by evictions).
    package func onEviction(holds: @escaping @Sendable (Namespace, String) -> Bool,
                            evict: @escaping @Sendable (Namespace, String) -> Bool) {
        retention.setAccess(self, holds: holds, evict: evict)
    }
}

/// Every object the providers keep, across namespaces and providers, in the order they were created, and the bound
/// on how many the server holds (`--max-objects`). A creation that makes the server hold more than ``maxObjects``
/// evicts the oldest objects of the whole server until it holds ``maxObjects``: each is removed through its kind's
/// eviction handler (so it then answers as an unknown one) and journaled as `EVICTED` in its namespace, a burst of them
/// grouped into one entry per namespace (``journalGroupSeconds``).
///
/// The bookkeeping (one lock) is small, as it is paid per object: counts per namespace and kind, and, when there is
/// a bound, a queue of (id, namespace and kind) in creation order, 20 bytes an entry in chunks of 4,096 (the id's
/// text is the store's own, shared). The stores are the truth of what exists: an object a store dropped itself
/// (a sweep) leaves a dead entry, which an eviction that reaches it finds gone (`evict` answers false) and skips.
/// Once dead entries may outnumber live ones, the queue is compacted by asking the stores (`holds`), a chunk at a
/// time with no lock held, so the queue stays within about twice what is held. A reset retires its namespace and
/// kind at once: their entries are dead without asking.
///
/// Lock order: a store's lock, then this one; never the other way: evictions and compactions call the stores after
/// this lock is released, and ``evictOverflow()`` is called under no store's lock at all (a handler takes its store's
/// lock, which is not reentrant): after the creating store's lock is released, by the outermost caller.
package final class ObjectRetention: Sendable {
    /// At most this many objects are held; nil: no bound (still counted, no queue kept).
    package let maxObjects: Int?
    /// Evictions in one namespace within this many seconds of the base clock share one journal entry.
    package let journalGroupSeconds: TimeInterval
    private let journal: Journal?
    private let clock: any SandboxClock

    private struct Kind {
        let provider: String
        let name: String
        var holds: (@Sendable (Namespace, String) -> Bool)?
        var evict: (@Sendable (Namespace, String) -> Bool)?
    }
    private let kinds = Locked<[Kind]>([])
    private let ledger = Locked(Ledger())
    private let groups = Locked(EvictionGroups())
    /// In a struct: a bare closure as `Locked`'s generic value would be wrapped in two more reabstraction thunks at
    /// every `withLock` (its `inout` is written back), and each call would go deeper.
    private struct RemovalObserver { let call: @Sendable (ObjectRemoval) -> Void }
    private let removalObserver = Locked<RemovalObserver?>(nil)

    /// `journal`: where evictions are recorded (nil: nowhere); `clock`: the base clock their grouping follows.
    package init(maxObjects: Int? = nil, journal: Journal? = nil, clock: any SandboxClock = SystemClock(), journalGroupSeconds: TimeInterval = 1) {
        self.maxObjects = maxObjects.map { max(1, $0) }
        self.journal = journal
        self.clock = clock
        self.journalGroupSeconds = journalGroupSeconds
    }

    /// A kind of object of `provider` (e.g. "acme", "session"); its store then names how an eviction
    /// reaches one (``RetainedObjectKind/onEviction(holds:evict:)``). At most 255 kinds.
    package func kind(provider: String, name: String) -> RetainedObjectKind {
        kinds.withLock { kinds in
            precondition(kinds.count < Int(UInt8.max), "too many kinds of retained object")
            kinds.append(Kind(provider: provider, name: name))
            return RetainedObjectKind(retention: self, index: UInt8(kinds.count - 1))
        }
    }

    fileprivate func setAccess(_ kind: RetainedObjectKind, holds: @escaping @Sendable (Namespace, String) -> Bool,
                               evict: @escaping @Sendable (Namespace, String) -> Bool) {
        kinds.withLock { kinds in
            kinds[Int(kind.index)].holds = holds
            kinds[Int(kind.index)].evict = evict
        }
    }

    /// Objects held now, the bound, and objects evicted since the server started.
    package var counts: (held: Int, max: Int?, evicted: Int) {
        ledger.withLock { ($0.held, maxObjects, $0.evicted) }
    }

    /// Entries of the creation-order queue, dead ones included (the bookkeeping's own size, for tests).
    package var queuedEntries: Int { ledger.withLock { $0.queue.count } }

    fileprivate func created(_ namespace: Namespace, _ kind: RetainedObjectKind, _ id: String) {
        ledger.withLock { $0.created(namespace, kind.index, id, queued: maxObjects != nil) }
    }

    fileprivate func removed(_ namespace: Namespace, _ kind: RetainedObjectKind, ids: some Collection<String>) {
        guard !ids.isEmpty else { return }
        let emptied = ledger.withLock { $0.removed(namespace, kind.index, count: ids.count) }
        notify(ObjectRemoval(namespace: namespace, ids: Array(ids), namespaceEmptied: emptied))
    }

    fileprivate func removedAll(_ namespace: Namespace, _ kind: RetainedObjectKind) {
        let emptied = ledger.withLock { $0.removedAll(namespace, kind.index) }
        if emptied { notify(ObjectRemoval(namespace: namespace, ids: [], namespaceEmptied: true)) }
    }

    // MARK: Observing removals

    /// Objects of one namespace that went (evicted, dropped by their store, reset), and whether the namespace now
    /// holds no object at all.
    package struct ObjectRemoval: Sendable {
        package var namespace: Namespace
        /// The ids that went (none for a reset, which takes a whole kind).
        package var ids: [String]
        package var namespaceEmptied: Bool
    }

    /// `observer` hears of every removal, after it happened, with no lock of this type held (the store that removed
    /// may still hold its own): what keeps per-object state elsewhere (the scenario engine's sequence counters) lets it
    /// go with its object. One observer; setting another replaces it.
    package func observeRemovals(_ observer: @escaping @Sendable (ObjectRemoval) -> Void) {
        removalObserver.withLock { $0 = RemovalObserver(call: observer) }
    }

    private func notify(_ removal: ObjectRemoval) {
        removalObserver.withLock { $0 }?.call(removal)
    }

    /// How many namespaces hold at least one counted object now (the bookkeeping's own size, for tests).
    package var namespacesHoldingObjects: Int { ledger.withLock { $0.namespacesHolding } }

    /// Whether the namespace holds at least one counted object now.
    package func holdsObjects(_ namespace: Namespace) -> Bool { ledger.withLock { $0.holds(namespace) } }

    /// Evicts the oldest objects while more than ``maxObjects`` are held. Call it with no store's lock held (a
    /// store calls it after each creation); cheap when nothing is over.
    package func evictOverflow() {
        guard let maxObjects else { return }
        // One lock in the common case (nothing over, nothing to compact).
        var (chunkIDs, candidates) = ledger.withLock { ($0.beginCompaction(), $0.takeOldest(over: maxObjects)) }
        if let chunkIDs { compact(chunkIDs) }
        var evicted: [Ledger.Candidate] = []
        var emptied: Set<Namespace> = []
        while !candidates.isEmpty {
            let kinds = self.kinds.withLock { $0 }
            let gone = candidates.map { kinds[Int($0.kind)].evict?($0.namespace, $0.id) ?? false }
            evicted += zip(candidates, gone).compactMap { $1 ? $0 : nil }
            candidates = ledger.withLock { [candidates] ledger in
                emptied.formUnion(ledger.settle(candidates, gone: gone))
                return ledger.takeOldest(over: maxObjects)
            }
        }
        guard !evicted.isEmpty else { return }
        for (namespace, objects) in Dictionary(grouping: evicted, by: \.namespace) {
            notify(ObjectRemoval(namespace: namespace, ids: objects.map(\.id), namespaceEmptied: emptied.contains(namespace)))
        }
        journalEvictions(evicted, kinds: kinds.withLock { $0 }, max: maxObjects)
    }

    /// Drops the entries of objects their stores dropped themselves, once dead entries may outnumber live ones
    /// (``Ledger/beginCompaction()`` said which chunks): each chunk's entries are checked with their store
    /// (`holds`) with no lock held, then the dead ones are marked under the lock, and the queue is packed at the
    /// end. One compaction runs at a time.
    private func compact(_ chunkIDs: [Int]) {
        let kinds = self.kinds.withLock { $0 }
        for chunkID in chunkIDs {
            let entries = ledger.withLock { $0.entriesToCheck(chunk: chunkID) }
            guard !entries.isEmpty else { continue }
            let held = entries.map { kinds[Int($0.kind)].holds?($0.namespace, $0.id) ?? true }
            ledger.withLock { $0.markDead(chunk: chunkID, entries, held: held) }
        }
        ledger.withLock { $0.finishCompaction() }
    }

    // MARK: The journal

    /// The bursts under way, by namespace: at most those of the last ``journalGroupSeconds`` once pruned.
    private struct EvictionGroups {
        var byNamespace: [Namespace: EvictionGroup] = [:]
        var pruneAt = 64
    }

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
    private func journalEvictions(_ evicted: [Ledger.Candidate], kinds: [Kind], max: Int) {
        guard let journal else { return }
        let now = clock.now()
        let window = journalGroupSeconds
        groups.withLock { all in
            // Bursts that ended are dropped once the groups double (not at every eviction: with a namespace per
            // eviction, every group is recent and a filter each time would cost as many as there are groups).
            if all.byNamespace.count > all.pruneAt {
                all.byNamespace = all.byNamespace.filter { now < $0.value.startedAt + window }
                all.pruneAt = Swift.max(64, 2 * all.byNamespace.count)
            }
            for (namespace, objects) in Dictionary(grouping: evicted, by: \.namespace) {
                var group = all.byNamespace[namespace].flatMap { now < $0.startedAt + window ? $0 : nil }
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
                all.byNamespace[namespace] = group
            }
        }
    }
}

// MARK: Objects restored

/// An object a store holds that was put there without its creation being counted (a restore), for
/// ``ObjectRetention/retain(_:)``: when it was created and what it is.
package struct HeldObject: Sendable {
    package var created: Date
    package var kind: RetainedObjectKind
    package var namespace: Namespace
    package var id: String

    package init(created: Date, kind: RetainedObjectKind, namespace: Namespace, id: String) {
        self.created = created
        self.kind = kind
        self.namespace = namespace
        self.id = id
    }
}

extension ObjectRetention {
    /// Counts objects that came into their stores without their creations (a restore: every store's, at once), in
    /// creation order across the whole server, then evicts the oldest while more than ``maxObjects`` are held. Once.
    package func retain(_ objects: [HeldObject]) {
        // Sorted by (created, kind, namespace, id) through keys of plain numbers, the names compared only on a tie: a
        // sort of the objects themselves copies (retains and releases) their strings at every move, a million times.
        struct Key {
            var created: Double
            var kind: UInt8
            var index: Int
        }
        objects.withUnsafeBufferPointer { objects in
            // Fields read in place: a copy of an object retains its strings, each in its own place in memory.
            var keys = objects.indices.map { Key(created: objects[$0].created.timeIntervalSinceReferenceDate, kind: objects[$0].kind.index, index: $0) }
            keys.sort { a, b in
                if a.created != b.created { return a.created < b.created }
                if a.kind != b.kind { return a.kind < b.kind }
                return (objects[a.index].namespace.name, objects[a.index].id) < (objects[b.index].namespace.name, objects[b.index].id)
            }
            for key in keys { objects[key.index].kind.created(objects[key.index].namespace, objects[key.index].id) }
        }
        evictOverflow()
    }
}

// MARK: The bookkeeping

extension ObjectRetention {
    /// The counts and the queue, under ``ObjectRetention``'s lock.
    struct Ledger {
        /// One namespace's objects of one kind: a queue entry names its slot (4 bytes, not the namespace's name).
        struct Slot {
            var namespace: Namespace
            var kind: UInt8
            /// Objects held (created, not yet dropped, evicted or reset).
            var held = 0
            /// Queue entries that name this slot, and candidates of an eviction under way.
            var queued = 0
            var pending = 0
            /// Reset: its entries are dead; creations in its namespace and kind go to a new slot.
            var retired = false
        }

        private struct SlotKey: Hashable {
            var namespace: Namespace
            var kind: UInt8
        }

        /// An object an eviction is about to drop (with no lock held), or did.
        struct Candidate: Sendable {
            var slot: UInt32
            var namespace: Namespace
            var kind: UInt8
            var id: String
        }

        var held = 0
        var evicted = 0
        /// Objects held per namespace: a namespace is here while it holds one (so a removal can tell it emptied it).
        private var heldPerNamespace: [Namespace: Int] = [:]
        var namespacesHolding: Int { heldPerNamespace.count }
        func holds(_ namespace: Namespace) -> Bool { heldPerNamespace[namespace] != nil }
        /// Candidates handed out and not yet settled: they still count in ``held``.
        private var inFlight = 0
        var queue = CreationQueue()
        private var slots: [Slot?] = []
        private var liveSlot: [SlotKey: UInt32] = [:]
        private var freeSlots: [UInt32] = []
        private var compacting = false
        /// Entries the last compaction kept beyond what was held (dead ones no store could be asked about, or
        /// dropped while it ran): the next waits until the queue's excess over what is held is twice that.
        private var keptBeyondHeld = 0

        private mutating func slot(_ namespace: Namespace, _ kind: UInt8) -> UInt32 {
            let key = SlotKey(namespace: namespace, kind: kind)
            if let slot = liveSlot[key] { return slot }
            let slot: UInt32
            if let free = freeSlots.popLast() {
                slot = free
                slots[Int(slot)] = Slot(namespace: namespace, kind: kind)
            } else {
                slot = UInt32(slots.count)
                slots.append(Slot(namespace: namespace, kind: kind))
            }
            liveSlot[key] = slot
            return slot
        }

        /// Frees the slot once nothing is held under it and nothing refers to it.
        private mutating func releaseIfUnused(_ index: UInt32) {
            guard let slot = slots[Int(index)], slot.retired || slot.held == 0, slot.queued == 0, slot.pending == 0 else { return }
            if !slot.retired { liveSlot[SlotKey(namespace: slot.namespace, kind: slot.kind)] = nil }
            slots[Int(index)] = nil
            freeSlots.append(index)
        }

        mutating func created(_ namespace: Namespace, _ kind: UInt8, _ id: String, queued: Bool) {
            let index = slot(namespace, kind)
            slots[Int(index)]!.held += 1
            held += 1
            heldPerNamespace[namespace, default: 0] += 1
            guard queued else { return }
            slots[Int(index)]!.queued += 1
            queue.append(id, slot: index)
        }

        /// True when the namespace now holds no object.
        mutating func removed(_ namespace: Namespace, _ kind: UInt8, count: Int) -> Bool {
            guard let index = liveSlot[SlotKey(namespace: namespace, kind: kind)] else { return heldPerNamespace[namespace] == nil }
            let count = min(count, slots[Int(index)]!.held)
            slots[Int(index)]!.held -= count
            held -= count
            releaseIfUnused(index)
            return uncount(namespace, count)
        }

        /// True when the namespace now holds no object.
        mutating func removedAll(_ namespace: Namespace, _ kind: UInt8) -> Bool {
            let key = SlotKey(namespace: namespace, kind: kind)
            guard let index = liveSlot.removeValue(forKey: key) else { return heldPerNamespace[namespace] == nil }
            let count = slots[Int(index)]!.held
            held -= count
            slots[Int(index)]!.held = 0
            slots[Int(index)]!.retired = true
            releaseIfUnused(index)
            return uncount(namespace, count)
        }

        /// Takes `count` off the namespace's objects; true when it holds none now.
        private mutating func uncount(_ namespace: Namespace, _ count: Int) -> Bool {
            guard let now = heldPerNamespace[namespace] else { return true }
            guard now > count else {
                heldPerNamespace[namespace] = nil
                return true
            }
            heldPerNamespace[namespace] = now - count
            return false
        }

        /// Takes entries off the front of the queue until the rest holds at most `max` objects: the live-looking ones
        /// (their slot still holds objects) are candidates, for ``settle(_:gone:)`` once their stores were asked.
        mutating func takeOldest(over max: Int) -> [Candidate] {
            var taken: [Candidate] = []
            while held - inFlight > max, let (id, index) = queue.popFirst().map({ ($0.id, $0.slot) }) {
                guard index != CreationQueue.dead else { continue }
                slots[Int(index)]!.queued -= 1
                let slot = slots[Int(index)]!
                guard !slot.retired, slot.held > 0 else {
                    releaseIfUnused(index)
                    continue
                }
                slots[Int(index)]!.pending += 1
                inFlight += 1
                taken.append(Candidate(slot: index, namespace: slot.namespace, kind: slot.kind, id: id))
            }
            return taken
        }

        /// What the stores said of ``takeOldest(over:)``'s candidates: `gone[i]` if it was still there and is now
        /// evicted. An object a reset dropped meanwhile left the count with the reset. Returns the namespaces that
        /// now hold no object.
        mutating func settle(_ candidates: [Candidate], gone: [Bool]) -> Set<Namespace> {
            inFlight -= candidates.count
            var emptied: Set<Namespace> = []
            for (candidate, gone) in zip(candidates, gone) {
                let index = Int(candidate.slot)
                slots[index]!.pending -= 1
                if gone {
                    evicted += 1
                    if !slots[index]!.retired && slots[index]!.held > 0 {
                        slots[index]!.held -= 1
                        held -= 1
                        if uncount(candidate.namespace, 1) { emptied.insert(candidate.namespace) }
                    }
                }
                releaseIfUnused(candidate.slot)
            }
            return emptied
        }

        // MARK: Compaction

        /// The chunks to check, when dead entries may outnumber live ones and no compaction is under way.
        mutating func beginCompaction() -> [Int]? {
            guard !compacting, queue.count > 2 * held + 1024, queue.count - held > 2 * keptBeyondHeld else { return nil }
            compacting = true
            return queue.chunkIDs
        }

        /// The entries of a chunk whose slot still holds objects, by position: the ones to ask their stores about.
        /// Entries of a retired or empty slot are marked dead here at once.
        mutating func entriesToCheck(chunk: Int) -> [(position: Int, slot: UInt32, namespace: Namespace, kind: UInt8, id: String)] {
            var entries: [(position: Int, slot: UInt32, namespace: Namespace, kind: UInt8, id: String)] = []
            for (position, id, index) in queue.entries(ofChunk: chunk) where index != CreationQueue.dead {
                let slot = slots[Int(index)]!
                if slot.retired || slot.held == 0 {
                    markDead(chunk: chunk, position: position, slot: index)
                } else {
                    entries.append((position, index, slot.namespace, slot.kind, id))
                }
            }
            return entries
        }

        mutating func markDead(chunk: Int, _ entries: [(position: Int, slot: UInt32, namespace: Namespace, kind: UInt8, id: String)],
                               held: [Bool]) {
            for (entry, held) in zip(entries, held) where !held {
                markDead(chunk: chunk, position: entry.position, slot: entry.slot)
            }
        }

        private mutating func markDead(chunk: Int, position: Int, slot: UInt32) {
            // The entry may have been taken by an eviction since it was read.
            guard queue.markDead(chunk: chunk, position: position, ifSlot: slot) else { return }
            slots[Int(slot)]!.queued -= 1
            releaseIfUnused(slot)
        }

        mutating func finishCompaction() {
            queue.pack()
            keptBeyondHeld = max(0, queue.count - held)
            compacting = false
        }
    }
}

/// The creation-order queue of ``ObjectRetention``: (id, slot) pairs in chunks of ``chunkSize``, so it never holds
/// twice its size while growing and gives memory back a chunk at a time as the front is taken.
struct CreationQueue {
    /// The slot of an entry found dead by a compaction (skipped, dropped by ``pack()``).
    static let dead = UInt32.max
    static let chunkSize = 4096

    private struct Chunk {
        /// Stable while the chunk lives, so a compaction finds it again after the lock was released.
        let id: Int
        var ids: [String] = []
        var slots: [UInt32] = []
        /// Entries before it were taken.
        var start = 0
        var live: Int { ids.count - start }
    }

    private var chunks: [Chunk] = []
    private var nextChunkID = 0
    private(set) var count = 0

    var chunkIDs: [Int] { chunks.map(\.id) }

    mutating func append(_ id: String, slot: UInt32) {
        if chunks.isEmpty || chunks[chunks.count - 1].ids.count >= Self.chunkSize {
            var chunk = Chunk(id: nextChunkID)
            nextChunkID += 1
            chunk.ids.reserveCapacity(Self.chunkSize)
            chunk.slots.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].ids.append(id)
        chunks[chunks.count - 1].slots.append(slot)
        count += 1
    }

    mutating func popFirst() -> (id: String, slot: UInt32)? {
        guard !chunks.isEmpty else { return nil }
        let start = chunks[0].start
        let entry = (chunks[0].ids[start], chunks[0].slots[start])
        chunks[0].start += 1
        count -= 1
        if chunks[0].start == chunks[0].ids.count {
            chunks.removeFirst()
        }
        return entry
    }

    private func index(ofChunk id: Int) -> Int? {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < chunks.count && chunks[low].id == id ? low : nil
    }

    /// The chunk's entries not yet taken, with their positions in it; none once the chunk is gone.
    func entries(ofChunk id: Int) -> [(Int, String, UInt32)] {
        guard let index = index(ofChunk: id) else { return [] }
        let chunk = chunks[index]
        return (chunk.start..<chunk.ids.count).map { ($0, chunk.ids[$0], chunk.slots[$0]) }
    }

    /// Marks an entry dead if it is still in the queue with that slot.
    mutating func markDead(chunk id: Int, position: Int, ifSlot slot: UInt32) -> Bool {
        guard let index = index(ofChunk: id), position >= chunks[index].start, chunks[index].slots[position] == slot else { return false }
        chunks[index].slots[position] = Self.dead
        chunks[index].ids[position] = ""
        return true
    }

    /// Drops the dead entries and the taken ones, refilling full chunks.
    mutating func pack() {
        var packed = CreationQueue()
        packed.nextChunkID = nextChunkID
        for chunk in chunks {
            for position in chunk.start..<chunk.ids.count where chunk.slots[position] != Self.dead {
                packed.append(chunk.ids[position], slot: chunk.slots[position])
            }
        }
        self = packed
    }
}
