// SPDX-License-Identifier: MIT
import SandboxCore

// The state file's writers for this module's models, as generic code of this module: specialized here for each model
// (SandboxCore's generic code runs unspecialized for them, looking up metadata and conformances at every object).

extension SavedStateEncoder.ObjectWriter {
    /// A value that writes itself, left out when nil.
    mutating func value(_ key: StaticString, _ value: (some SavedStateDirectEncodable)?) throws {
        guard let value else { return }
        self.key(key)
        try value.write(to: encoder)
    }

    /// An array of values that write themselves, left out when nil.
    mutating func values<Element: SavedStateDirectEncodable>(_ key: StaticString, _ values: [Element]?) throws {
        guard let values else { return }
        self.key(key)
        encoder.put(UInt8(ascii: "["))
        // Each element written where it is: a copy would count a reference to each of its strings and boxes, which
        // equal values share across objects after a restore (and two threads counting the same ones wait for each
        // other).
        try values.withUnsafeBufferPointer { elements in
            for index in elements.indices {
                if index > 0 { encoder.put(UInt8(ascii: ",")) }
                try elements[index].write(to: encoder)
            }
        }
        encoder.put(UInt8(ascii: "]"))
    }

    /// An array of other values: `[]` when empty, else through their `encode(to:)`.
    mutating func encodables(_ key: StaticString, _ values: [some Encodable]) throws {
        guard !values.isEmpty else {
            self.key(key)
            encoder.put(UInt8(ascii: "["))
            encoder.put(UInt8(ascii: "]"))
            return
        }
        try encodable(key, values)
    }
}

extension SavedObjectsWriting where Object: SavedStateDirectEncodable {
    /// Objects that are values: written as taken.
    static var written: Self {
        Self(copy: nil, writeTaken: { try writeMembers($0, comma: $1, into: $2) },
             writeCopies: { try writeMembers($0, comma: $1, into: $2) })
    }

    /// `"<id>":{…}` for each, a comma before each but the first unless `comma`.
    static func writeMembers(_ items: some Sequence<(key: String, value: Object)>, comma: Bool, into encoder: SavedStateEncoder) throws {
        var leading = comma
        for (id, object) in items {
            if leading { encoder.put(UInt8(ascii: ",")) }
            leading = true
            encoder.writeString(id)
            encoder.put(UInt8(ascii: ":"))
            if encoder.writesDirectly { try object.write(to: encoder) } else { try encoder.encode(object) }
        }
    }
}

extension SavedObjectsWriting where Object: SavedStateDirectEncodable & SavedStateCopyable {
    /// Objects of a class requests change in place: copied under the shard's lock, written outside it.
    static var copied: Self {
        Self(copy: { chunk in
            var copies: [(key: String, value: Object)] = []
            copies.reserveCapacity(chunk.count)
            for (id, object) in chunk { copies.append((id, object.savedCopy())) }
            return copies
        }, writeTaken: { try writeMembers($0, comma: $1, into: $2) }, writeCopies: { try writeMembers($0, comma: $1, into: $2) })
    }
}
