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
    /// ``restore(_:sequence:_:)``.
    package func restoreSection(from decoder: any Decoder) throws {
        let contents = try SavedSectionContents<State.Saved>(from: decoder)
        for entry in contents.namespaces {
            restore(Namespace(entry.namespace), sequence: entry.sequence) { $0.restore(entry.objects) }
        }
        continueSequence(after: contents.sequence)
    }
}
