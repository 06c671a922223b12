// SPDX-License-Identifier: MIT
import Foundation

// What a store keeps across a restart (the state file, `--state-file`): each ``NamespacedState`` that keeps its
// objects writes one section and fills itself from that section on start. The stores of ``SavableNamespaceState``
// ledgers write theirs straight to the file (``StreamedSavedSection``), a few objects per hold of a shard's lock;
// another state (the callback outbox) hands over its section encoded (``SavedStoreSection``). The sandbox assembles
// the sections into one document; this module names no provider.

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

/// A namespace's state (a provider's ledger) that the state file can keep: its objects as a `Codable` value.
/// The dependencies a ledger holds (registry, ids, configuration) are not saved; a restored ledger is made fresh by
/// its store and then given its objects.
///
/// Written as ``savedCollections`` (its objects by id, a JSON object each) followed by the members of ``savedRest``,
/// the keys ``Saved`` has: `{"sessions": {"<id>": {…}, …}, …, "sweep": {…}}`.
package protocol SavableNamespaceState: NamespaceStateValue {
    associatedtype Saved: Codable
    /// The namespace's objects, as the state file holds them (read back on start).
    var saved: Saved { get }
    /// How many objects ``saved`` holds (sessions, tokens, orders, ...).
    var savedObjectCount: Int { get }
    /// Takes the objects of a state file into a freshly made state.
    mutating func restore(_ saved: Saved)
    /// Its collections of objects by id, in the order they are written: the members of ``Saved`` that grow.
    static var savedCollections: [SavedCollection<Self>] { get }
    associatedtype SavedRest: Encodable
    /// The other members of ``Saved`` (a sweep schedule, a counter): small, encoded in one go.
    var savedRest: SavedRest { get }
}

/// A collection of a namespace's objects by id (a ledger's dictionary), as the state file writes it: a member of the
/// namespace's `objects` whose value is a JSON object of the objects by their ids.
package struct SavedCollection<State> {
    package let key: String
    let freeze: (State) -> any FrozenSavedObjects

    /// The dictionary at `path`, written under `key`.
    package static func objects<Object: Encodable>(_ key: String, _ path: KeyPath<State, [String: Object]>) -> SavedCollection {
        SavedCollection(key: key) { state in FrozenObjects(objects: state[keyPath: path]) }
    }
}

/// A collection's objects as they were when the write took them (a copy-on-write copy of the dictionary, made under
/// the lock in no time), written a few at a time.
protocol FrozenSavedObjects {
    var isDone: Bool { get }
    /// Writes up to `limit` more objects as members (`"<id>":{…}`). Under the lock of the namespace's shard: the
    /// objects may be classes that requests change in place.
    mutating func write(upTo limit: Int, to output: SavedStateOutput) throws
}

private struct FrozenObjects<Object: Encodable>: FrozenSavedObjects {
    let objects: [String: Object]
    var index: [String: Object].Index
    var written = 0

    init(objects: [String: Object]) {
        self.objects = objects
        index = objects.startIndex
    }

    var isDone: Bool { index == objects.endIndex }

    mutating func write(upTo limit: Int, to output: SavedStateOutput) throws {
        var count = 0
        while index != objects.endIndex, count < limit {
            let (id, object) = objects[index]
            if written > 0 { output.append(",") }
            output.append(string: id)
            output.append(":")
            try output.encode(object)
            objects.formIndex(after: &index)
            written += 1
            count += 1
        }
        output.objectsWritten += count
    }
}

/// A store that writes its section of the state file itself, a few objects per hold of a lock (the stores of
/// ``SavableNamespaceState`` ledgers, through ``NamespacedStore/writeSavedSection(to:)``): the state file writes it
/// this way rather than asking for ``NamespacedState/savedSection()`` (the same text, in memory).
package protocol StreamedSavedSection {
    /// Writes the section (`{"namespaces": [{"namespace": …, "sequence": n, "objects": {…}}, …], "sequence": N}`).
    func writeSavedSection(to output: SavedStateOutput) throws -> SavedSectionSummary
}

/// What a section held: the namespaces with objects in it and how many objects.
package struct SavedSectionSummary: Sendable {
    package var namespaceNames: [String] = []
    package var objectCount = 0
}

/// A write of the state file that was abandoned (for the stop's write) between two of its pieces.
package struct SavedStateAbandoned: Error {
    package init() {}
}

/// The state file as it is written: text is collected here and goes to the file between the holds of the stores'
/// locks, a piece of about a MiB at a time, so a write keeps little beside the stores. Between the holds (at each
/// ``flush(all:)``) it runs its checkpoint, which throws ``SavedStateAbandoned`` once the write is abandoned.
package final class SavedStateOutput {
    /// The text not yet handed to the file.
    private var bytes: [UInt8] = []
    private var handed = 0
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private let checkpoint: (SavedStateOutput) throws -> Void
    private let encoder = JSONEncoder()
    /// How much is collected before it goes to the file.
    static let pieceSize = 1 << 20
    /// Objects written per hold of a shard's lock: a request on that shard waits at most for these to be encoded.
    package static let objectsPerLock = 256
    /// The objects of the collections written so far.
    package internal(set) var objectsWritten = 0

    /// `sink` takes each piece (a write(2) to the file); `checkpoint` runs at each ``flush(all:)``, no lock held.
    package init(sink: @escaping (UnsafeRawBufferPointer) throws -> Void, checkpoint: @escaping (SavedStateOutput) throws -> Void = { _ in }) {
        self.sink = sink
        self.checkpoint = checkpoint
        bytes.reserveCapacity(Self.pieceSize + (Self.pieceSize >> 2))
    }

    /// Bytes written so far, handed to the file or not.
    package var count: Int { handed + bytes.count }

    /// Appends JSON text as it is.
    package func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends JSON text as it is.
    package func append(_ text: some Sequence<UInt8>) { bytes.append(contentsOf: text) }

    /// Appends `string` as a JSON string.
    package func append(string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0..<0x20: bytes.append(contentsOf: String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as JSON.
    package func encode(_ value: some Encodable) throws {
        bytes.append(contentsOf: try encoder.encode(value))
    }

    /// Runs the checkpoint, then hands what was collected to the file once it makes a piece (all of it with `all`).
    /// Called between the holds of the stores' locks.
    package func flush(all: Bool = false) throws {
        try checkpoint(self)
        guard all || bytes.count >= Self.pieceSize else { return }
        try bytes.withUnsafeBytes { try sink($0) }
        handed += bytes.count
        bytes.removeAll(keepingCapacity: true)
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

/// One namespace's entry in a section.
private struct SavedNamespaceEntry<Objects: Codable>: Codable {
    var namespace: String
    var sequence: UInt64
    var objects: Objects
}

private struct SavedSectionContents<Objects: Codable>: Decodable {
    var sequence: UInt64
    var namespaces: [SavedNamespaceEntry<Objects>]
}

extension NamespacedStore where State: SavableNamespaceState {

    /// Writes every namespace's objects, namespace by namespace: its collections are taken under its shard's lock
    /// (copy-on-write copies, no copying of objects), then written ``SavedStateOutput/objectsPerLock`` objects per hold of that
    /// lock (the objects may be classes changed in place), the text handed to the file between holds. A write taken
    /// while requests come in has each namespace's objects as they were when it came to the namespace, in the state
    /// each was in when it was written; the stop's write (no requests) is the state at the stop.
    package func writeSavedSection(to output: SavedStateOutput) throws -> SavedSectionSummary {
        var summary = SavedSectionSummary()
        output.append("{\"namespaces\":[")
        for (namespace, sequence) in slotList() {
            let separator = summary.namespaceNames.isEmpty ? "" : ","
            guard let count = try writeNamespace(namespace, sequence: sequence, after: separator, to: output) else { continue }
            summary.namespaceNames.append(namespace.name)
            summary.objectCount += count
        }
        // Read last: no creation number written above is beyond it.
        output.append("],\"sequence\":\(currentSequence)}")
        return summary
    }

    /// The section in memory, a namespace's entry apiece (as ``writeSavedSection(to:)`` writes them).
    package func savedSection() throws -> SavedStoreSection {
        var entries: [Data] = [], names: [String] = [], objects = 0
        for (namespace, sequence) in slotList() {
            var entry = Data()
            let output = SavedStateOutput { entry.append(contentsOf: $0) }
            guard let count = try writeNamespace(namespace, sequence: sequence, after: "", to: output) else { continue }
            try output.flush(all: true)
            entries.append(entry)
            names.append(namespace.name)
            objects += count
        }
        return SavedStoreSection(sequence: currentSequence, namespaces: entries, namespaceNames: names, objectCount: objects)
    }

    /// Writes `separator` and the namespace's entry; returns how many objects it held, nil (nothing written) when it
    /// has none.
    private func writeNamespace(_ namespace: Namespace, sequence: UInt64, after separator: String, to output: SavedStateOutput) throws -> Int? {
        let taken = try underLock(of: namespace) { state -> (collections: [(String, any FrozenSavedObjects)], rest: Data, count: Int)? in
            guard let state, !state.isEmpty else { return nil }
            return (State.savedCollections.map { ($0.key, $0.freeze(state)) }, try JSONEncoder().encode(state.savedRest),
                    state.savedObjectCount)
        }
        guard let taken else { return nil }
        output.append(separator)
        output.append("{\"namespace\":")
        output.append(string: namespace.name)
        output.append(",\"sequence\":\(sequence),\"objects\":{")
        for (index, (key, frozen)) in taken.collections.enumerated() {
            if index > 0 { output.append(",") }
            output.append(string: key)
            output.append(":{")
            var objects = frozen
            while !objects.isDone {
                try underLock(of: namespace) { _ in try objects.write(upTo: SavedStateOutput.objectsPerLock, to: output) }
                try output.flush()
            }
            output.append("}")
        }
        // The rest's members after the collections: its object without the braces.
        if taken.rest.count > 2 {
            if !taken.collections.isEmpty { output.append(",") }
            output.append(taken.rest.dropFirst().dropLast())
        }
        output.append("}}")
        try output.flush()
        return taken.count
    }

    /// Fills the store from its section (written by ``writeSavedSection(to:)``), namespace by namespace through
    /// ``restore(_:sequence:_:)``. Sequences beyond ``SavedValueBounds/maxCounter`` refuse the section before
    /// anything is restored (the next creation would overflow).
    package func restoreSection(from decoder: any Decoder) throws {
        let contents = try SavedSectionContents<State.Saved>(from: decoder)
        try SavedValueBounds.checkCounter(contents.sequence, at: [SavedKey("sequence")], in: decoder)
        for (index, entry) in contents.namespaces.enumerated() {
            try SavedValueBounds.checkCounter(entry.sequence, at: [SavedKey("namespaces"), SavedKey(index: index), SavedKey("sequence")],
                                              in: decoder)
        }
        for entry in contents.namespaces {
            restore(Namespace(entry.namespace), sequence: entry.sequence) { $0.restore(entry.objects) }
        }
        continueSequence(after: contents.sequence)
    }
}
