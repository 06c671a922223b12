// SPDX-License-Identifier: MIT
import Foundation

// The state file's fast path for reading (the counterpart of SavedStateDirectWriting.swift): a stored object that
// reads itself from the tape of its text (``SavedStateTape``) without `Codable`'s containers, its members matched by
// name and its values read by the functions here, none of them generic. The generic parts (a collection's batches,
// nested values, the shared values' cache) are written in the objects' own module, specialized for them. A reader
// reads what its synthesized `init(from:)` reads, or gives up (``SavedStateDirectMiss``): the object is then read
// through `Codable`, which reads it the same or throws the error the file is refused with.

/// A direct reader gave up on an object: a member of another type, a duplicate or escaped key, a required member
/// missing, a value out of bounds. Not an error of the file: the object is read through `Codable` instead.
package struct SavedStateDirectMiss: Error {
    package init() {}
}

/// A value that reads itself from a stored object's tape (``SavedStateDecoder/parseObject(at:)``), as its
/// synthesized `init(from:)` reads it through ``SavedStateDecoder``; its `Codable` conformance stays, for the misses.
package protocol SavedStateDirectDecodable: Decodable {
    /// Reads the value at tape entry `index` of `decoder`'s tape, or throws ``SavedStateDirectMiss``.
    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss)
}

/// The member names a direct reader knows, in the order they are written: a key's position among them is found by
/// comparing its bytes, starting with the name after the last one found (members come in that order).
package struct SavedMemberNames {
    private let starts: [UnsafeRawPointer]
    private let lengths: [Int]

    package init(_ names: [StaticString]) {
        precondition(names.count <= 64, "a reader knows at most 64 members")
        starts = names.map { UnsafeRawPointer($0.utf8Start) }
        lengths = names.map(\.utf8CodeUnitCount)
    }

    var count: Int { lengths.count }

    /// The position of the name whose bytes are `key`'s, looking at `hint` first; nil for another name.
    @inline(__always) func position(of key: UnsafeRawBufferPointer, hint: Int) -> Int? {
        var position = hint < lengths.count ? hint : 0
        for _ in 0..<lengths.count {
            if lengths[position] == key.count, key.count == 0 || memcmp(starts[position], key.baseAddress!, key.count) == 0 {
                return position
            }
            position = position + 1 == lengths.count ? 0 : position + 1
        }
        return nil
    }
}

// `SavedMemberNames` holds pointers to static strings only: immutable, in the binary.
extension SavedMemberNames: @unchecked Sendable {}

/// The members of an object on the tape, for a direct reader: each known member's position among the names and its
/// value's tape entry. Members of other names are stepped over (as `Codable` ignores them); a duplicate or an escaped
/// key gives up (``SavedStateDirectMiss``).
package struct SavedMembers {
    private let decoder: SavedStateDecoder
    private let names: SavedMemberNames
    private var next: Int
    private let end: Int
    private var hint = 0
    /// The positions seen so far, one bit each.
    package private(set) var seen: UInt64 = 0

    init(decoder: SavedStateDecoder, object: Int, names: SavedMemberNames) {
        self.decoder = decoder
        self.names = names
        next = object + 1
        end = decoder.tape.entries[object].end
    }

    /// The next known member: its name's position and its value's tape entry; nil after the last.
    @inline(__always) package mutating func nextMember() throws(SavedStateDirectMiss) -> (name: Int, value: Int)? {
        while next < end {
            let key = next
            next = decoder.tape.after(key + 1)
            guard decoder.tape.entries[key].kind == .string else { throw SavedStateDirectMiss() }
            let text = UnsafeRawBufferPointer(rebasing: decoder.text[decoder.tape.entries[key].start..<decoder.tape.entries[key].end])
            guard let position = names.position(of: text, hint: hint) else { continue }
            let bit: UInt64 = 1 << UInt64(position)
            guard seen & bit == 0 else { throw SavedStateDirectMiss() }
            seen |= bit
            hint = position + 1
            return (position, key + 1)
        }
        return nil
    }

    /// Throws unless every member of `positions` (bits) was seen.
    package func require(_ positions: UInt64) throws(SavedStateDirectMiss) {
        guard seen & positions == positions else { throw SavedStateDirectMiss() }
    }
}

extension SavedStateDecoder {
    /// Parses the stored object whose text starts at `offset` (and ends at `end`, when given) into the tape (entry 0
    /// is its value), for a direct reader; ``decodeParsed(_:)`` reads it through `Codable` instead. Throws as
    /// ``decode(_:at:)`` does.
    package func parseObject(at offset: Int, end: Int? = nil) throws {
        let parsedEnd = try tape.parse(text, at: offset)
        // Where the section's walk found it to end (``SavedObjectExtentMismatch``).
        if let end, parsedEnd != end { throw SavedObjectExtentMismatch() }
        path.removeAll(keepingCapacity: true)
        current = 0
    }

    /// The value parsed last (``parseObject(at:)``), read through `Codable`.
    package func decodeParsed<T: Decodable>(_ type: T.Type) throws -> T {
        path.removeAll(keepingCapacity: true)
        return try decodeValue(type, at: 0)
    }

    /// The members of the object at tape entry `index` (gives up when it is not an object).
    @inline(__always) package func members(of index: Int, _ names: SavedMemberNames) throws(SavedStateDirectMiss) -> SavedMembers {
        guard tape.entries[index].kind == .object else { throw SavedStateDirectMiss() }
        return SavedMembers(decoder: self, object: index, names: names)
    }

    @inline(__always) package func isNull(_ index: Int) -> Bool { tape.entries[index].kind == .null }

    package func readString(_ index: Int) throws(SavedStateDirectMiss) -> String {
        switch tape.entries[index].kind {
        case .string: String(decoding: UnsafeRawBufferPointer(rebasing: text[tape.entries[index].start..<tape.entries[index].end]), as: UTF8.self)
        case .escapedString: string(at: index)
        default: throw SavedStateDirectMiss()
        }
    }

    /// A string, nil for null (as `decodeIfPresent`).
    @inline(__always) package func readOptionalString(_ index: Int) throws(SavedStateDirectMiss) -> String? {
        tape.entries[index].kind == .null ? nil : try readString(index)
    }

    package func readInt(_ index: Int) throws(SavedStateDirectMiss) -> Int {
        do { return try integer(Int.self, at: index) } catch { throw SavedStateDirectMiss() }
    }

    @inline(__always) package func readOptionalInt(_ index: Int) throws(SavedStateDirectMiss) -> Int? {
        tape.entries[index].kind == .null ? nil : try readInt(index)
    }

    package func readUInt8(_ index: Int) throws(SavedStateDirectMiss) -> UInt8 {
        do { return try integer(UInt8.self, at: index) } catch { throw SavedStateDirectMiss() }
    }

    package func readBool(_ index: Int) throws(SavedStateDirectMiss) -> Bool {
        switch tape.entries[index].kind {
        case .trueValue: true
        case .falseValue: false
        default: throw SavedStateDirectMiss()
        }
    }

    @inline(__always) package func readOptionalBool(_ index: Int) throws(SavedStateDirectMiss) -> Bool? {
        tape.entries[index].kind == .null ? nil : try readBool(index)
    }

    /// A date as ``SavedValueBounds/decodeDate(_:)`` reads it; one out of its bounds gives up (`Codable` then refuses it).
    package func readDate(_ index: Int) throws(SavedStateDirectMiss) -> Date {
        guard tape.entries[index].kind == .number, let seconds = try? double(at: index) else { throw SavedStateDirectMiss() }
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        guard date >= SavedValueBounds.earliestDate, date <= SavedValueBounds.latestDate else { throw SavedStateDirectMiss() }
        return date
    }

    @inline(__always) package func readOptionalDate(_ index: Int) throws(SavedStateDirectMiss) -> Date? {
        tape.entries[index].kind == .null ? nil : try readDate(index)
    }

    /// An array of strings, nil for null.
    package func readOptionalStrings(_ index: Int) throws(SavedStateDirectMiss) -> [String]? {
        switch tape.entries[index].kind {
        case .null: return nil
        case .array:
            var strings: [String] = []
            var element = index + 1
            while element < tape.entries[index].end {
                strings.append(try readString(element))
                element += 1
            }
            return strings
        default: throw SavedStateDirectMiss()
        }
    }

    /// Integers by string keys, as `Dictionary<String, Int>`'s `init(from:)` reads them (a repeated key gives up).
    package func readIntegers(_ index: Int) throws(SavedStateDirectMiss) -> [String: Int] {
        guard tape.entries[index].kind == .object else { throw SavedStateDirectMiss() }
        var values: [String: Int] = [:]
        var key = index + 1
        while key < tape.entries[index].end {
            guard tape.entries[key].kind == .string || tape.entries[key].kind == .escapedString else { throw SavedStateDirectMiss() }
            let name = string(at: key)
            guard values[name] == nil else { throw SavedStateDirectMiss() }
            values[name] = try readInt(key + 1)
            key = tape.after(key + 1)
        }
        return values
    }

    /// The elements' tape entries of the array at `index` (gives up when it is not an array).
    package func elements(of index: Int) throws(SavedStateDirectMiss) -> [Int] {
        guard tape.entries[index].kind == .array else { throw SavedStateDirectMiss() }
        var elements: [Int] = []
        var element = index + 1
        while element < tape.entries[index].end {
            elements.append(element)
            element = tape.after(element)
        }
        return elements
    }

    // MARK: Shared values

    /// The text of the value at `index` when a value of its type decoded from the same text may be shared
    /// (``SavedValueShareable``: an object or array of at least ``SavedValueCache/smallest`` bytes, a cache given),
    /// as ``decodeValue(_:at:)`` shares them.
    package func shareableText(_ index: Int) -> UnsafeRawBufferPointer? {
        guard values != nil, tape.entries[index].kind.rawValue <= SavedStateTape.Kind.array.rawValue,
              tape.entries[index].close - tape.entries[index].start >= SavedValueCache.smallest else { return nil }
        return UnsafeRawBufferPointer(rebasing: text[tape.entries[index].start..<tape.entries[index].close])
    }

    /// The value of type `type` decoded before from the same text (``shareableText(_:)``).
    package func sharedValue(_ type: ObjectIdentifier, text: UnsafeRawBufferPointer) -> Any? {
        values?.existing(type, text: text)
    }

    /// Keeps `value` of type `type`, decoded from `text`, for the next object whose text is the same.
    package func share(_ value: Any, _ type: ObjectIdentifier, text: UnsafeRawBufferPointer) {
        values?.keep(value, type, text: text)
    }
}
