// SPDX-License-Identifier: MIT
import Foundation

// What a store keeps across a restart (the state file, `--state-file`): each ``NamespacedState`` that keeps its
// objects writes one section, encoded namespace by namespace under the shard's lock, and fills itself from that
// section on start. The sandbox assembles the sections into one document; this module names no provider.

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
package protocol SavableNamespaceState: NamespaceStateValue {
    associatedtype Saved: Codable
    /// The namespace's objects. Encoded under the shard's lock (the objects may be classes changed in place).
    var saved: Saved { get }
    /// How many objects ``saved`` holds (sessions, tokens, orders, ...).
    var savedObjectCount: Int { get }
    /// Takes the objects of a state file into a freshly made state.
    mutating func restore(_ saved: Saved)
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
    /// Every namespace's objects, encoded one shard at a time under its lock (an event loop waits at most for one
    /// shard's encoding).
    package func savedSection() throws -> SavedStoreSection {
        let encoder = JSONEncoder()
        var entries: [Data] = []
        var names: [String] = []
        var objects = 0
        try forEachSlot { namespace, slot in
            guard !slot.state.isEmpty else { return }
            let entry = SavedNamespaceEntry(namespace: namespace.name, sequence: slot.sequence, objects: slot.state.saved)
            entries.append(try encoder.encode(entry))
            names.append(namespace.name)
            objects += slot.state.savedObjectCount
        }
        return SavedStoreSection(sequence: currentSequence, namespaces: entries, namespaceNames: names, objectCount: objects)
    }

    /// Fills the store from its section (written by ``savedSection()``), namespace by namespace through
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
