// SPDX-License-Identifier: MIT
import Foundation

// What a store keeps across a restart (the state file, `--state-file`): each ``NamespacedState`` that keeps its
// objects writes one section and fills itself from that section on start. The stores of ``SavableNamespaceState``
// ledgers hand theirs over as jobs (``StreamedSavedSection``): each namespace's collections taken as copy-on-write
// copies, then a chunk of objects at a time copied under the shard's lock and encoded outside it, on a few threads
// (``SavedStateParallel``), the text going to the file in the file's order; read back the same way, a batch of
// objects decoded per job. Another state (the callback outbox) hands over its section encoded (``SavedStoreSection``).
// The sandbox assembles the sections into one document (`StateFile.swift`); this module names no provider. The JSON
// is the one `JSONEncoder` wrote before (``SavedStateEncoder``, ``SavedStateDecoder``): older files load.

/// One store's section of the state file, already encoded: its creation counter and each namespace's objects.
package struct SavedStoreSection: Sendable {
    /// ``NamespacedStore/nextSequence()``'s last value: restored so that the order of creation goes on.
    package var sequence: UInt64
    /// Each namespace's entry, a JSON object (`{"namespace": …, "sequence": …, "objects": …}`).
    package var namespaces: [Data]
    /// The names of those namespaces, in the same order.
    package var namespaceNames: [String]
    /// How many objects the section holds, for the snapshot's answer.
    package var objectCount: Int

    package init(sequence: UInt64, namespaces: [Data], namespaceNames: [String], objectCount: Int) {
        self.sequence = sequence
        self.namespaces = namespaces
        self.namespaceNames = namespaceNames
        self.objectCount = objectCount
    }

    /// The section as JSON text: `{"sequence": N, "namespaces": [...]}`.
    package var json: Data {
        var out = Data("{\"sequence\":\(sequence),\"namespaces\":[".utf8)
        for (index, entry) in namespaces.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(entry)
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}

/// A namespace's state (a provider's ledger) that the state file can keep: its objects, by id, in
/// ``savedCollections``, and a few other values in ``savedRest``. The dependencies a ledger holds (registry, ids,
/// configuration) are not saved; a restored ledger is made fresh by its store and then given its objects.
///
/// A namespace's `objects` in the file are the collections (a JSON object of the objects by id each) followed by the
/// members of ``savedRest``: `{"sessions": {"<id>": {…}, …}, …, "sweep": {…}}`.
package protocol SavableNamespaceState: NamespaceStateValue {
    /// How many objects it holds (sessions, tokens, orders, ...).
    var savedObjectCount: Int { get }
    /// Its collections of objects by id, in the order they are written.
    static var savedCollections: [SavedCollection<Self>] { get }
    associatedtype SavedRest: Codable
    /// What it keeps beside the collections (a sweep schedule, a counter): small, written in one go.
    var savedRest: SavedRest { get }
    /// Takes the rest of a state file's namespace, once the collections are restored into this freshly made state.
    mutating func restore(_ rest: SavedRest)
}

/// A collection of a namespace's objects by id (a ledger's dictionary), as the state file keeps it: a member of the
/// namespace's `objects` whose value is a JSON object of the objects by their ids.
package struct SavedCollection<State> {
    package let key: String
    let freeze: (State) -> any FrozenSavedObjects
    /// Puts one object of a state file, decoded from `source`, in the state under its id.
    let restoreOne: (inout State, String, any SavedObjectSource) throws -> Void
    /// Decodes objects of a state file (each id and where its text starts, below `path`) and returns what puts them
    /// in a state.
    let decodeBatch: (_ text: UnsafeRawBufferPointer, _ items: [SavedObjectPlace], _ path: [SavedKey],
                      _ values: SavedValueCachePool?) throws -> (inout State) -> Void

    /// The dictionary at `path`, kept under `key`; its objects copied and written by `writing` when given (else
    /// through `Codable`, each object found to be a class, copyable or writing itself at run time), read through
    /// `Codable`.
    package static func objects<Object: Codable>(_ key: String, _ path: WritableKeyPath<State, [String: Object]>,
                                                 writing: SavedObjectsWriting<Object>? = nil) -> SavedCollection {
        objects(key, path, writing: writing, reading: nil)
    }

    /// ``objects(_:_:writing:)``, its objects read by `reading` when given (else through `Codable`).
    package static func objects<Object: Codable>(_ key: String, _ path: WritableKeyPath<State, [String: Object]>,
                                                 writing: SavedObjectsWriting<Object>?,
                                                 reading: SavedObjectsReading<Object>?) -> SavedCollection {
        SavedCollection(key: key, freeze: { state in FrozenObjects(objects: state[keyPath: path], writing: writing) },
                        restoreOne: { state, id, source in state[keyPath: path][id] = try source.decode(Object.self) },
                        decodeBatch: { text, items, basePath, values in
                            if let reading {
                                let objects = try values.map { cache in
                                    try cache.withCache { try reading.read(SavedStateDecoder(text: text, values: $0), items, basePath) }
                                } ?? reading.read(SavedStateDecoder(text: text), items, basePath)
                                return { state in reading.insert(objects, &state[keyPath: path]) }
                            }
                            func decode(_ cache: SavedValueCache?) throws -> [(String, Object)] {
                                let decoder = SavedStateDecoder(text: text, values: cache)
                                var objects: [(String, Object)] = []
                                objects.reserveCapacity(items.count)
                                for (id, offset, end) in items {
                                    decoder.basePath = basePath + [SavedKey(id)]
                                    let (object, parsedEnd) = try decoder.decode(Object.self, at: offset)
                                    guard parsedEnd == end else { throw SavedObjectExtentMismatch() }
                                    objects.append((id, object))
                                }
                                return objects
                            }
                            let objects = try values.map { try $0.withCache(decode) } ?? decode(nil)
                            return { state in for (id, object) in objects { state[keyPath: path][id] = object } }
                        })
    }
}

/// How a collection's objects are copied and written, by code of the objects' own module, specialized for them: the
/// generic code of this module runs unspecialized there, looking up metadata and conformances for every object (a
/// large share of a large write's time). The module makes it with a generic function of its own (the same bytes as
/// ``SavedStateEncoder/encode(_:)`` writes; through it when the encoder's `writesDirectly` is off).
package struct SavedObjectsWriting<Object> {
    /// Copies of a chunk's objects, made under the shard's lock (``SavedStateCopyable``); nil for values, written as
    /// they were taken.
    let copy: ((Slice<[String: Object]>) -> [(key: String, value: Object)])?
    /// Writes objects as members (`"<id>":{…}`), a comma before the first when told.
    let writeTaken: (Slice<[String: Object]>, _ comma: Bool, SavedStateEncoder) throws -> Void
    let writeCopies: ([(key: String, value: Object)], _ comma: Bool, SavedStateEncoder) throws -> Void

    package init(copy: ((Slice<[String: Object]>) -> [(key: String, value: Object)])?,
                 writeTaken: @escaping (Slice<[String: Object]>, _ comma: Bool, SavedStateEncoder) throws -> Void,
                 writeCopies: @escaping ([(key: String, value: Object)], _ comma: Bool, SavedStateEncoder) throws -> Void) {
        self.copy = copy
        self.writeTaken = writeTaken
        self.writeCopies = writeCopies
    }
}

/// An object whose text, parsed, does not end where the walk of its section found it to end (the walk looks at
/// brackets and strings only): the section is read again, each value checked as the walk finds it, for the error
/// that reading gives.
struct SavedObjectExtentMismatch: Error {}

/// A stored object of a batch to read: its id, and where its text starts and ends.
package typealias SavedObjectPlace = (id: String, offset: Int, end: Int)

/// How a collection's objects are read, by code of the objects' own module, specialized for them (as
/// ``SavedObjectsWriting`` writes them): a batch of a state file's objects (each id and where its text starts, below
/// `path`) read into pairs, then put in the collection on the restore's thread. The objects read are those `Codable`
/// reads from the same text, and a text `Codable` refuses is refused with its error.
package struct SavedObjectsReading<Object> {
    let read: (_ decoder: SavedStateDecoder, _ items: [SavedObjectPlace], _ path: [SavedKey]) throws -> [(String, Object)]
    let insert: (_ objects: [(String, Object)], _ collection: inout [String: Object]) -> Void

    package init(read: @escaping (_ decoder: SavedStateDecoder, _ items: [SavedObjectPlace], _ path: [SavedKey]) throws -> [(String, Object)],
                 insert: @escaping (_ objects: [(String, Object)], _ collection: inout [String: Object]) -> Void) {
        self.read = read
        self.insert = insert
    }
}

/// Where a restored object is decoded from: the state file's reader (``SavedStateReader``) or a `Decoder`'s container.
protocol SavedObjectSource {
    func decode<T: Decodable>(_ type: T.Type) throws -> T
}

/// A collection's objects as they were when the write took them (a copy-on-write copy of the dictionary, made under
/// the lock in no time), cut into chunks of ``SavedStateOutput/objectsPerLock`` objects to encode.
protocol FrozenSavedObjects {
    var count: Int { get }
    /// The collection's chunks as jobs: each writes its objects as members (`"<id>":{…}`, a comma before each but
    /// the collection's first). `underLock` runs a body under the lock of the namespace's shard.
    func jobs(copying: Bool, underLock: @escaping (() -> Void) -> Void) -> [SavedStateJob]
}

/// Objects of a class that requests change in place (under the shard's lock) make a copy of themselves, under that
/// lock, for the state file to encode outside it: a request waits for a chunk's copies, not for its encoding.
/// `savedCopy()` must copy every stored property (a test compares the file written from copies with one written
/// from the objects themselves).
package protocol SavedStateCopyable: AnyObject {
    func savedCopy() -> Self
}

private struct FrozenObjects<Object: Encodable>: FrozenSavedObjects {
    let objects: [String: Object]
    let writing: SavedObjectsWriting<Object>?

    init(objects: [String: Object], writing: SavedObjectsWriting<Object>?) {
        self.objects = objects
        self.writing = writing
    }

    var count: Int { objects.count }

    func jobs(copying: Bool, underLock: @escaping (() -> Void) -> Void) -> [SavedStateJob] {
        var jobs: [SavedStateJob] = []
        var start = objects.startIndex
        var first = true
        while start != objects.endIndex {
            let end = objects.index(start, offsetBy: SavedStateOutput.objectsPerLock, limitedBy: objects.endIndex) ?? objects.endIndex
            let chunk = objects[start..<end], leading = !first
            jobs.append(SavedStateJob(objects: chunk.count) { [writing] encoder in
                if let writing, let copy = writing.copy, copying {
                    var copies: [(key: String, value: Object)] = []
                    underLock { copies = copy(chunk) }
                    try writing.writeCopies(copies, leading, encoder)
                } else if let writing, writing.copy == nil {
                    try writing.writeTaken(chunk, leading, encoder)
                } else {
                    try Self.encode(chunk, comma: leading, copying: copying, underLock: underLock, into: encoder)
                }
            })
            first = false
            start = end
        }
        return jobs
    }

    /// A struct's value is the collection's as taken (and its boxes never change): encoded as it is. A class's
    /// objects are copied under the lock first when they can be (``SavedStateCopyable``), else encoded under it.
    static func encode(_ chunk: Slice<[String: Object]>, comma: Bool, copying: Bool, underLock: (() -> Void) -> Void,
                       into encoder: SavedStateEncoder) throws {
        func write(_ items: some Sequence<(key: String, value: Object)>) throws {
            var leading = comma
            for (id, object) in items {
                if leading { encoder.append(",") }
                leading = true
                encoder.append(string: id)
                encoder.append(":")
                try encoder.encode(object)
            }
        }
        guard Object.self is AnyObject.Type else { return try write(chunk) }
        var failure: (any Error)?
        if copying, Object.self is any SavedStateCopyable.Type {
            var copies: [(key: String, value: Object)] = []
            copies.reserveCapacity(chunk.count)
            var copied = true
            underLock {
                for (id, object) in chunk {
                    guard let copy = (object as? any SavedStateCopyable)?.savedCopy() as? Object else { copied = false; return }
                    copies.append((id, copy))
                }
            }
            // The type said it copies; should a copy not be one, the chunk is written under the lock instead.
            if copied { try write(copies) } else { underLock { do { try write(chunk) } catch { failure = error } } }
        } else {
            underLock {
                do { try write(chunk) } catch { failure = error }
            }
        }
        if let failure { throw failure }
    }
}

/// A piece of the state file, in the file's order: text to write as it is, or objects to encode (on any of the
/// writing threads, ``SavedStateParallel``).
package struct SavedStateJob: @unchecked Sendable {
    /// The objects it writes.
    package let objects: Int
    private let body: (SavedStateEncoder) throws -> Void

    init(objects: Int, _ body: @escaping (SavedStateEncoder) throws -> Void) {
        self.objects = objects
        self.body = body
    }

    /// Text as it is.
    package static func text(_ text: String) -> SavedStateJob { SavedStateJob(objects: 0) { $0.append(text) } }
    package static func text(_ bytes: some Collection<UInt8> & Sendable) -> SavedStateJob {
        SavedStateJob(objects: 0) { $0.append(bytes: bytes) }
    }

    /// A job that fails with `error` (where it stands in the file's order).
    package static func failing(_ error: any Error) -> SavedStateJob { SavedStateJob(objects: 0) { _ in throw error } }

    /// The job's text, appended to `encoder`.
    package func run(into encoder: SavedStateEncoder) throws { try body(encoder) }
}

/// What the jobs of a section took: the namespaces with objects and how many objects (counted as each namespace is
/// taken, when its jobs are made).
package final class SavedSectionTally {
    package var namespaceNames: [String] = []
    package var objectCount = 0
    /// Whether objects of classes are copied under the lock and encoded outside it (``SavedStateCopyable``); false
    /// (for a test that compares the two) encodes them under the lock.
    package let copiesObjects: Bool
    package init(copiesObjects: Bool = true) { self.copiesObjects = copiesObjects }
}

/// A store that writes and reads its section of the state file itself, a few objects at a time (the stores of
/// ``SavableNamespaceState`` ledgers, through ``NamespacedStore/savedSectionJobs(tally:)`` and
/// ``NamespacedStore/restoreSection(from:)-(SavedStateReader)``): the state file uses these rather than
/// ``NamespacedState/savedSection()`` and ``NamespacedState/restoreSection(from:)`` (the same text, as one value).
package protocol StreamedSavedSection {
    /// The section (`{"namespaces": [{"namespace": …, "sequence": n, "objects": {…}}, …], "sequence": N}`) as jobs
    /// in the file's order, each namespace taken when the iterator comes to it; what they hold is counted in `tally`.
    func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob>
    /// Fills the store from its section, `reader` standing at it.
    func restoreSavedSection(from reader: SavedStateReader) throws
    /// Drops what a restore put in (it failed: the sandbox does not start with it).
    func discardRestored()
}

/// A member of a decoding container, as the source of one restored object.
private struct ContainerMember: SavedObjectSource {
    let container: KeyedDecodingContainer<SavedKey>
    let key: SavedKey
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try container.decode(type, forKey: key) }
}

/// A write of the state file that was abandoned (for the stop's write) between two of its pieces.
package struct SavedStateAbandoned: Error {
    package init() {}
}

/// The state file as it is written: text is collected here and goes to the file between the holds of the stores'
/// locks, a piece of about a MiB at a time (a job's text of a chunk of objects as it is), so a write keeps little
/// beside the stores. Between the holds (at each ``flush(all:)``) it runs its checkpoint, which throws
/// ``SavedStateAbandoned`` once the write is abandoned.
package final class SavedStateOutput {
    /// Writes the objects, and holds the text not yet handed to the file.
    private let encoder = SavedStateEncoder()
    private var handed = 0
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let checkpoint: (SavedStateOutput) throws -> Void
    /// How much is collected before it goes to the file.
    static let pieceSize = 1 << 20
    /// Objects written per hold of a shard's lock: a request on that shard waits at most for these to be encoded
    /// (a millisecond or two).
    package static let objectsPerLock = 256
    /// The objects of the collections written so far.
    package internal(set) var objectsWritten = 0

    /// `sink` takes each piece (a write(2) to the file); `checkpoint` runs at each ``flush(all:)``, no lock held.
    package init(sink: @escaping (UnsafeRawBufferPointer) throws -> Void, checkpoint: @escaping (SavedStateOutput) throws -> Void = { _ in }) {
        self.sink = sink
        self.checkpoint = checkpoint
        encoder.reserve(Self.pieceSize + (Self.pieceSize >> 2))
    }

    /// Bytes written so far, handed to the file or not.
    package var count: Int { handed + encoder.count }

    /// Appends JSON text as it is.
    package func append(_ text: String) { encoder.append(text) }

    /// Appends JSON text as it is.
    package func append(_ text: some Collection<UInt8>) { encoder.append(bytes: text) }

    /// Appends `string` as a JSON string.
    package func append(string: String) { encoder.append(string: string) }

    /// A job's text this long goes to the file as it is (after what was collected), not copied into a piece first.
    static let directTextSize = pieceSize / 8

    /// Writes `jobs` in their order: their text made on up to `threads` threads (``SavedStateParallel``), handed to
    /// the file as it comes, a few MiB at most waiting.
    package func write(_ jobs: AnyIterator<SavedStateJob>, threads: Int = SavedStateParallel.threads) throws {
        let spare = SpareEncoders()
        try SavedStateParallel.run(threads: threads, next: { jobs.next() }, work: { job -> (SavedStateEncoder, Int) in
            let encoder = spare.take(capacity: max(64, job.objects * 1024))
            try job.run(into: encoder)
            return (encoder, job.objects)
        }, consume: { text, objects in
            defer { spare.give(text) }
            self.objectsWritten += objects
            guard text.count >= Self.directTextSize else {
                text.withBytes { self.encoder.append(raw: $0) }
                return try self.flush()
            }
            try self.flush(all: true)
            try text.withBytes { try self.sink($0) }
            self.handed += text.count
        })
    }

    /// Runs the checkpoint, then hands what was collected to the file once it makes a piece (all of it with `all`).
    /// Called between the holds of the stores' locks.
    package func flush(all: Bool = false) throws {
        try checkpoint(self)
        guard encoder.count > 0, all || encoder.count >= Self.pieceSize else { return }
        try encoder.withBytes { try sink($0) }
        handed += encoder.count
        encoder.removeAll()
    }
}

/// The encoders of a write's jobs, used again once their text is consumed: a new one's buffer is fresh memory, its
/// pages faulted in and zeroed as it is written. At most the runner's window of them (and one per thread) exist.
private final class SpareEncoders: @unchecked Sendable {
    private let lock = NSLock()
    /// Under `lock`.
    private var encoders: [SavedStateEncoder] = []

    func take(capacity: Int) -> SavedStateEncoder {
        lock.withLock { encoders.popLast() } ?? SavedStateEncoder(capacity: capacity)
    }

    func give(_ encoder: SavedStateEncoder) {
        encoder.removeAll()
        lock.withLock { encoders.append(encoder) }
    }
}

/// The bounds a state file's values are held to when it is loaded: the file may have been edited by hand or come
/// from elsewhere, and a value the control API would refuse must not load and then trap (a counter that cannot count
/// on, a date the page cannot show). A value out of bounds refuses the whole file, naming its key path.
package enum SavedValueBounds {
    /// Counters (creation sequences, callback numbers, id positions, scenario calls): at most 2^53, the largest
    /// integer a JSON number holds exactly; the counters (`UInt64`, `Int`) have room to go on far beyond it.
    package static let maxCounter: UInt64 = 1 << 53
    /// Dates: from 0001-01-01T00:00:00Z (`Date.distantPast`, which the stores write for "never") to
    /// 10000-01-01T00:00:00Z, a year past the latest a clock can be set to (``SandboxClockRange``).
    package static let earliestDate = Date.distantPast
    package static let latestDate = Date(timeIntervalSince1970: 253_402_300_800)
    package static let dateRangeDescription = "0001-01-01T00:00:00Z to 10000-01-01T00:00:00Z"

    /// Throws ``SavedValueOutOfBounds`` at `decoder`'s path plus `keys` when `value` is not a count from 0 to
    /// ``maxCounter``.
    package static func checkCounter<Value: BinaryInteger>(_ value: Value, at keys: [SavedKey], in decoder: any Decoder) throws {
        guard isCount(value) else {
            throw SavedValueOutOfBounds(codingPath: decoder.codingPath + keys, message: counterMessage(value))
        }
    }

    package static func isCount<Value: BinaryInteger>(_ value: Value) -> Bool { value >= 0 && value <= maxCounter }
    package static func counterMessage<Value: BinaryInteger>(_ value: Value) -> String {
        "\(value) is not a count from 0 to \(maxCounter)"
    }

    /// A date as `JSONEncoder`'s default writes it (seconds since 2001-01-01), refused outside the bounds: for
    /// `JSONDecoder.dateDecodingStrategy = .custom(SavedValueBounds.decodeDate)`.
    @Sendable package static func decodeDate(_ decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        let seconds = try container.decode(Double.self)
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        guard seconds.isFinite, date >= earliestDate, date <= latestDate else {
            throw SavedValueOutOfBounds(codingPath: decoder.codingPath,
                                        message: "\(seconds) is not a date from \(dateRangeDescription) (seconds since 2001-01-01)")
        }
        return date
    }
}

/// A value of a state file out of ``SavedValueBounds``: where (`stores.<store>.namespaces[0].sequence`) and why.
package struct SavedValueOutOfBounds: Error, Sendable, CustomStringConvertible {
    package var path: String
    package var message: String

    package init(codingPath: [any CodingKey], message: String) {
        path = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        self.message = message
    }

    package var description: String { "\(path): \(message)" }
}

/// A key of a path in a state file, for the messages of ``SavedValueBounds``.
package struct SavedKey: CodingKey {
    package var stringValue: String
    package var intValue: Int?
    package init(_ name: String) { stringValue = name }
    package init(index: Int) { stringValue = "\(index)"; intValue = index }
    package init(stringValue: String) { self.stringValue = stringValue }
    package init(intValue: Int) { self.init(index: intValue) }
}

/// What a store's section cannot be read as.
package struct SavedStateError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

extension NamespacedState {
    package func savedSection() throws -> SavedStoreSection? { nil }
    package func restoreSection(from decoder: any Decoder) throws {
        throw SavedStateError("\(stateName) keeps no state across a restart")
    }
}

extension NamespacedStore where State: SavableNamespaceState {

    /// Every namespace's objects as jobs, namespace by namespace: when the iterator comes to a namespace, its
    /// collections are taken under its shard's lock (copy-on-write copies, no object copied) and cut into chunks of
    /// ``SavedStateOutput/objectsPerLock`` objects; a chunk's job copies its objects under that lock when they are
    /// classes requests change in place (``SavedStateCopyable``) and encodes them outside it. A write taken while
    /// requests come in has each namespace's objects as they were when it came to the namespace, each in the state
    /// it was in when its chunk was copied; the stop's write (no requests) is the state at the stop.
    package func savedSectionJobs(tally: SavedSectionTally) -> AnyIterator<SavedStateJob> {
        var namespaces: ArraySlice<(namespace: Namespace, sequence: UInt64)> = []
        var pending: ArraySlice<SavedStateJob> = []
        var started = false, finished = false, wroteOne = false
        return AnyIterator {
            guard started else {
                started = true
                namespaces = self.slotList()[...]
                return .text("{\"namespaces\":[")
            }
            while pending.isEmpty {
                guard let (namespace, sequence) = namespaces.popFirst() else {
                    guard !finished else { return nil }
                    finished = true
                    // Read last: no creation number written before is beyond it.
                    return .text("],\"sequence\":\(self.currentSequence)}")
                }
                do {
                    let (jobs, count) = try self.namespaceJobs(namespace, sequence: sequence, after: wroteOne ? "," : "",
                                                               copying: tally.copiesObjects)
                    guard let jobs else { continue }
                    wroteOne = true
                    tally.namespaceNames.append(namespace.name)
                    tally.objectCount += count
                    pending = jobs[...]
                } catch {
                    pending = [.failing(error)]
                }
            }
            return pending.popFirst()
        }
    }

    /// The section in memory, a namespace's entry apiece (the same text as ``savedSectionJobs(tally:)``).
    package func savedSection() throws -> SavedStoreSection {
        var entries: [Data] = [], names: [String] = [], objects = 0
        for (namespace, sequence) in slotList() {
            let (jobs, count) = try namespaceJobs(namespace, sequence: sequence, after: "", copying: true)
            guard let jobs else { continue }
            let encoder = SavedStateEncoder()
            for job in jobs { try job.run(into: encoder) }
            entries.append(Data(encoder.bytes))
            names.append(namespace.name)
            objects += count
        }
        return SavedStoreSection(sequence: currentSequence, namespaces: entries, namespaceNames: names, objectCount: objects)
    }

    /// `separator` and the namespace's entry as jobs, and how many objects it held; nil jobs when it has none.
    private func namespaceJobs(_ namespace: Namespace, sequence: UInt64, after separator: String,
                               copying: Bool) throws -> ([SavedStateJob]?, Int) {
        let taken = try underLock(of: namespace) { state -> (collections: [(String, any FrozenSavedObjects)], rest: [UInt8], count: Int)? in
            guard let state, !state.isEmpty else { return nil }
            let rest = SavedStateEncoder()
            try rest.encode(state.savedRest)
            return (State.savedCollections.map { ($0.key, $0.freeze(state)) }, rest.bytes, state.savedObjectCount)
        }
        guard let taken else { return (nil, 0) }
        let header = SavedStateEncoder()
        header.append(separator + "{\"namespace\":")
        header.append(string: namespace.name)
        header.append(",\"sequence\":\(sequence),\"objects\":{")
        var jobs: [SavedStateJob] = []
        let underLock: (() -> Void) -> Void = { body in self.underLock(of: namespace) { _ in body() } }
        for (index, (key, frozen)) in taken.collections.enumerated() {
            if index > 0 { header.append(",") }
            header.append(string: key)
            header.append(":{")
            jobs.append(.text(header.bytes))
            header.removeAll()
            jobs += frozen.jobs(copying: copying, underLock: underLock)
            header.append("}")
        }
        // The rest's members after the collections: its object without the braces.
        if taken.rest.count > 2 {
            if !taken.collections.isEmpty { header.append(",") }
            header.append(bytes: taken.rest.dropFirst().dropLast())
        }
        header.append("}}")
        jobs.append(.text(header.bytes))
        return (jobs, taken.count)
    }

    /// Fills the store from its section as the state file holds it (``savedSectionJobs(tally:)``), read by `reader`
    /// from where it stands: the reader walks the section (``SavedSectionScan``) and hands batches of
    /// ``SavedStateOutput/objectsPerLock`` stored objects to decode on ``SavedStateParallel/threads`` threads, each
    /// object from its own text (no tree of the section is made); the namespaces are built in the file's order. Every
    /// namespace is read and its creation number checked (≤ ``SavedValueBounds/maxCounter``: the next creation must
    /// not overflow) before any is put in place through ``restore(_:sequence:_:)``.
    package func restoreSection(from reader: SavedStateReader, threads: Int = SavedStateParallel.threads) throws {
        let mark = reader.mark()
        do {
            try restoreSection(from: reader, threads: threads, checksEachValue: false)
        } catch {
            // A section that fails is read again from its start, each stored object checked as the walk finds it: the
            // error is the one that reading gives, at the first fault in the file's order, as ever.
            reader.reset(to: mark)
            try restoreSection(from: reader, threads: threads, checksEachValue: true)
        }
    }

    private func restoreSection(from reader: SavedStateReader, threads: Int, checksEachValue: Bool) throws {
        let scan = SavedSectionScan<State>(reader, checksEachValue: checksEachValue)
        var restored: [(Namespace, UInt64, State)] = []
        var current = emptyState()
        try SavedStateParallel.run(threads: threads, next: { try scan.next() }, work: { job in try job.run() }, consume: { piece in
            switch piece {
            case .objects(let insert): insert(&current)
            case .namespace(let namespace, let sequence, let rest):
                current.restore(rest)
                restored.append((namespace, sequence, current))
                current = self.emptyState()
            }
        })
        guard let sequence = scan.sequence else { throw scan.missingSequence ?? reader.missing("sequence") }
        for (namespace, sequence, state) in restored { restore(namespace, sequence: sequence) { $0 = state } }
        continueSequence(after: sequence)
    }

    /// Fills the store from its section decoded by any `Decoder` (the section as ``savedSection()`` gives it):
    /// as ``restoreSection(from:)-(SavedStateReader)`` does.
    package func restoreSection(from decoder: any Decoder) throws {
        let collections = State.savedCollections
        let section = try decoder.container(keyedBy: SavedKey.self)
        let sequence = try section.decode(UInt64.self, forKey: SavedKey("sequence"))
        try SavedValueBounds.checkCounter(sequence, at: [SavedKey("sequence")], in: decoder)
        var namespaces = try section.nestedUnkeyedContainer(forKey: SavedKey("namespaces"))
        var restored: [(Namespace, UInt64, State)] = []
        while !namespaces.isAtEnd {
            let entryDecoder = try namespaces.superDecoder()
            let entry = try entryDecoder.container(keyedBy: SavedKey.self)
            let name = try entry.decode(String.self, forKey: SavedKey("namespace"))
            let entrySequence = try entry.decode(UInt64.self, forKey: SavedKey("sequence"))
            try SavedValueBounds.checkCounter(entrySequence, at: [SavedKey("sequence")], in: entryDecoder)
            let objectsDecoder = try entry.superDecoder(forKey: SavedKey("objects"))
            let objects = try objectsDecoder.container(keyedBy: SavedKey.self)
            var state = emptyState()
            for collection in collections where objects.contains(SavedKey(collection.key)) {
                let members = try objects.nestedContainer(keyedBy: SavedKey.self, forKey: SavedKey(collection.key))
                for id in members.allKeys {
                    try collection.restoreOne(&state, id.stringValue, ContainerMember(container: members, key: id))
                }
            }
            state.restore(try State.SavedRest(from: objectsDecoder))
            restored.append((Namespace(name), entrySequence, state))
        }
        for (namespace, sequence, state) in restored { restore(namespace, sequence: sequence) { $0 = state } }
        continueSequence(after: sequence)
    }

    /// Drops every namespace's state: what a restore that failed put in (the sandbox does not start with it).
    package func discardRestored() { resetAll() }
}

/// A piece of a section being restored, as ``NamespacedStore/restoreSection(from:threads:)`` takes them in order:
/// objects to put in the namespace being built, or the namespace's end.
enum SavedRestorePiece<State: SavableNamespaceState> {
    case objects((inout State) -> Void)
    case namespace(Namespace, UInt64, State.SavedRest)
}

/// A job of a restore: decoding a batch of objects, or a namespace's end (its rest decoded, its name and creation
/// number checked).
struct SavedRestoreJob<State: SavableNamespaceState> {
    let run: () throws -> SavedRestorePiece<State>
}

/// Walks a store's section (``NamespacedStore/savedSectionJobs(tally:)``'s text, its members in any order) one step
/// at a time, making the jobs of its restore: the objects of a collection in batches (each object's text is skipped
/// here and decoded by the job), a namespace's other members gathered for its end. Called under the parallel
/// runner's lock: one caller at a time.
final class SavedSectionScan<State: SavableNamespaceState> {
    private enum Place {
        case start, section, namespaces, namespace, objects, collection(SavedCollection<State>), done
    }

    private let reader: SavedStateReader
    private let collections = State.savedCollections
    private var place = Place.start
    /// The section's creation number, once read.
    private(set) var sequence: UInt64?
    var missingSequence: (any Error)?
    // The namespace being read.
    private var name: String?
    private var namespaceSequence: UInt64?
    private var sawObjects = false
    private var rest: [UInt8] = []
    private var namespacePath: [SavedKey] = []

    /// Whether each stored object's text is checked as the walk steps over it (else only its brackets and strings are
    /// looked at there, and its job checks it as it parses it: half the walk's time, on the walking thread alone).
    private let checksEachValue: Bool

    init(_ reader: SavedStateReader, checksEachValue: Bool) {
        self.reader = reader
        self.checksEachValue = checksEachValue
    }

    /// What one step of the walk gives: nothing yet (walk on), or the next job (nil: the section is read).
    private enum Step {
        case more
        case yield(SavedRestoreJob<State>?)
    }

    func next() throws -> SavedRestoreJob<State>? {
        while true {
            let step: Step
            switch place {
            case .start:
                try reader.beginObject()
                place = .section
                continue
            case .section: step = try sectionMember()
            case .namespaces: step = try namespaceStart()
            case .namespace: step = try namespaceMember()
            case .objects: step = try objectsMember()
            case .collection(let collection): step = try batch(of: collection)
            case .done: return nil
            }
            if case .yield(let job) = step { return job }
        }
    }

    /// A member of the section: its `sequence`, its `namespaces`, or one to skip; its end ends the walk.
    private func sectionMember() throws -> Step {
        guard let key = try reader.nextMember() else {
            place = .done
            if sequence == nil { missingSequence = reader.missing("sequence") }
            return .yield(nil)
        }
        switch key {
        case "sequence": sequence = try reader.readCounter()
        case "namespaces":
            try reader.beginArray()
            place = .namespaces
        default: try reader.skipValue()
        }
        return .more
    }

    /// The next namespace of `namespaces`, or back to the section after the last.
    private func namespaceStart() throws -> Step {
        guard try reader.nextElement() else {
            place = .section
            return .more
        }
        try reader.beginObject()
        (name, namespaceSequence, sawObjects, rest, namespacePath) = (nil, nil, false, [UInt8(ascii: "{")], reader.path)
        place = .namespace
        return .more
    }

    /// A member of a namespace (`namespace`, `sequence`, `objects`); its end is the namespace's job.
    private func namespaceMember() throws -> Step {
        guard let key = try reader.nextMember() else {
            place = .namespaces
            return .yield(namespaceEnd())
        }
        switch key {
        case "namespace": name = try reader.decode(String.self)
        case "sequence": namespaceSequence = try reader.readCounter()
        case "objects":
            try reader.beginObject()
            sawObjects = true
            place = .objects
        default: try reader.skipValue()
        }
        return .more
    }

    /// A member of a namespace's `objects`: a collection of stored objects, or a member of the rest (gathered,
    /// decoded at the namespace's end).
    private func objectsMember() throws -> Step {
        guard let member = try reader.nextMember() else {
            place = .namespace
            return .more
        }
        if let collection = collections.first(where: { $0.key == member }) {
            try reader.beginObject()
            place = .collection(collection)
        } else {
            if rest.count > 1 { rest.append(UInt8(ascii: ",")) }
            rest.append(contentsOf: reader.rawText(of: member))
            rest.append(UInt8(ascii: ":"))
            rest.append(contentsOf: try reader.skipValue())
        }
        return .more
    }

    /// The next batch of a collection's objects (found, not decoded: the job decodes them), or back to `objects`.
    private func batch(of collection: SavedCollection<State>) throws -> Step {
        let path = reader.path
        var items: [SavedObjectPlace] = []
        items.reserveCapacity(SavedStateOutput.objectsPerLock)
        while items.count < SavedStateOutput.objectsPerLock {
            guard let id = try reader.nextMember() else {
                place = .objects
                break
            }
            _ = reader.scanner.peek()
            let start = reader.position
            if checksEachValue {
                try reader.skipValue()
                items.append((id, start, reader.position))
            } else {
                items.append((id, start, try reader.skipValueUnchecked()))
            }
        }
        guard !items.isEmpty else { return .more }
        let (text, values) = (reader.text, reader.values)
        return .yield(SavedRestoreJob { .objects(try collection.decodeBatch(text, items, path, values)) })
    }

    /// The job of a namespace's end: its name, creation number and objects must be there; its rest is decoded.
    private func namespaceEnd() -> SavedRestoreJob<State> {
        let (name, sequence, sawObjects, rest, path) = (name, namespaceSequence, sawObjects, rest + [UInt8(ascii: "}")], namespacePath)
        return SavedRestoreJob {
            func missing(_ key: String) -> any Error {
                DecodingError.keyNotFound(SavedKey(key), DecodingError.Context(codingPath: path, debugDescription: "No value associated with key \"\(key)\"."))
            }
            guard let name else { throw missing("namespace") }
            guard let sequence else { throw missing("sequence") }
            guard sawObjects else { throw missing("objects") }
            let decoded = try rest.withUnsafeBytes { buffer in
                let decoder = SavedStateDecoder(text: buffer)
                decoder.basePath = path + [SavedKey("objects")]
                do {
                    return try decoder.decode(State.SavedRest.self, at: 0).value
                } catch let error as SavedStateSyntaxError {
                    var error = error
                    error.path = SavedValueOutOfBounds(codingPath: decoder.basePath, message: "").path
                    throw error
                }
            }
            return .namespace(Namespace(name), sequence, decoded)
        }
    }
}
