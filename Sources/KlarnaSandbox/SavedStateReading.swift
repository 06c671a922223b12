// SPDX-License-Identifier: MIT
import Foundation
import SandboxCore

// The state file's readers for this module's models, as generic code of this module: specialized here for each model
// (SandboxCore's generic code runs unspecialized for them, as SavedStateWriting.swift says of the writers).

extension SavedStateDecoder {
    /// A value that may be shared with an equal one read before (``SavedValueShareable``): the one kept for the same
    /// text, or `read()`'s, kept for the next (as `Codable`'s reading through this decoder shares them).
    func shareable<T>(_ index: Int, as type: T.Type, _ read: () throws(SavedStateDirectMiss) -> T) throws(SavedStateDirectMiss) -> T {
        guard let text = shareableText(index) else { return try read() }
        if let value = sharedValue(ObjectIdentifier(T.self), text: text) as? T { return value }
        let value = try read()
        share(value, ObjectIdentifier(T.self), text: text)
        return value
    }

    /// A value that reads itself.
    @inline(__always) func read<T: SavedStateDirectDecodable>(_ index: Int, as type: T.Type = T.self) throws(SavedStateDirectMiss) -> T {
        try T(savedFrom: self, at: index)
    }

    /// A value that reads itself, nil for null.
    @inline(__always) func readOptional<T: SavedStateDirectDecodable>(_ index: Int, as type: T.Type = T.self) throws(SavedStateDirectMiss) -> T? {
        isNull(index) ? nil : try T(savedFrom: self, at: index)
    }

    /// A shareable value that reads itself, nil for null.
    @inline(__always) func readOptionalShareable<T: SavedStateDirectDecodable & SavedValueShareable>(
        _ index: Int, as type: T.Type = T.self) throws(SavedStateDirectMiss) -> T? {
        isNull(index) ? nil : try shareable(index, as: T.self) { () throws(SavedStateDirectMiss) in try T(savedFrom: self, at: index) }
    }

    /// A `@Shared` member of a value that may be shared: the box and its value shared as `Codable`'s reading shares them.
    func readShared<T: SavedStateDirectDecodable & SavedValueShareable>(_ index: Int, as type: T.Type = T.self) throws(SavedStateDirectMiss) -> Shared<T> {
        try shareable(index, as: Shared<T>.self) { () throws(SavedStateDirectMiss) in
            Shared(wrappedValue: try shareable(index, as: T.self) { () throws(SavedStateDirectMiss) in try T(savedFrom: self, at: index) })
        }
    }

    /// An array of values that read themselves.
    func readArray<T: SavedStateDirectDecodable>(_ index: Int, as type: T.Type = T.self) throws(SavedStateDirectMiss) -> [T] {
        let elements = try elements(of: index)
        var values: [T] = []
        values.reserveCapacity(elements.count)
        for element in elements { values.append(try T(savedFrom: self, at: element)) }
        return values
    }

    /// An array of shareable values, itself shared, its elements too.
    func readShareableArray<T: SavedStateDirectDecodable & SavedValueShareable>(_ index: Int, as type: T.Type = T.self) throws(SavedStateDirectMiss) -> [T] {
        try shareable(index, as: [T].self) { () throws(SavedStateDirectMiss) in
            let elements = try elements(of: index)
            var values: [T] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                values.append(try shareable(element, as: T.self) { () throws(SavedStateDirectMiss) in try T(savedFrom: self, at: element) })
            }
            return values
        }
    }
}

extension SavedObjectsReading where Object: SavedStateDirectDecodable {
    /// Objects read by their own readers (through `Codable` where a reader gives up), put in their collection here.
    static var direct: Self {
        Self(read: { decoder, items, path in
            var objects: [(String, Object)] = []
            objects.reserveCapacity(items.count)
            for (id, offset, end) in items {
                try decoder.parseObject(at: offset, end: end)
                do {
                    objects.append((id, try Object(savedFrom: decoder, at: 0)))
                } catch {
                    decoder.basePath = path + [SavedKey(id)]
                    objects.append((id, try decoder.decodeParsed(Object.self)))
                }
            }
            return objects
        }, insert: { objects, collection in
            for (id, object) in objects { collection[id] = object }
        })
    }
}
