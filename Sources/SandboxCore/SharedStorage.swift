// SPDX-License-Identifier: MIT
import Foundation

/// Stored models keep what the answers need compactly (docs/ARCHITECTURE.md: every provider store keeps its ledgers in
/// one `NamespacedStore` for the objects' lifetimes, days to weeks). These two property wrappers put a struct's large
/// groups of fields on the heap once: a copy of the holder copies a reference, not the group, and copies share it
/// (a session, its authorization's snapshot and the order placed from it hold one set of order lines). The box is
/// immutable: a change stores a new box, so each holder is still a plain value. Both are `Codable` as their value is
/// (a `@Boxed` nil is left out when encoding and a missing key decodes as nil, as an `Optional` property is).

/// A value shared by every copy of the struct that holds it (8 bytes inline instead of the value's size).
/// `@usableFromInline` (as ``Boxed``): only so are a `package` type's inlinable members inlined into other modules.
@propertyWrapper @usableFromInline
package struct Shared<Value> {
    @usableFromInline var box: SharedBox<Value>

    @inlinable package init(wrappedValue: Value) { box = SharedBox(wrappedValue) }

    // Inlinable: read and set on every request from the providers' modules, where a generic call looks its
    // type's metadata up at run time.
    @inlinable package var wrappedValue: Value {
        get { box.value }
        set { box = SharedBox(newValue) }
    }

    /// `$name`: the wrapper itself, so another holder can take the same box (`a.$fields = b.$fields`).
    package var projectedValue: Shared<Value> {
        get { self }
        set { self = newValue }
    }
}

/// An optional group of fields that is usually absent: nil costs 8 bytes inline, a value one shared box.
@propertyWrapper @usableFromInline
package struct Boxed<Wrapped> {
    @usableFromInline var box: SharedBox<Wrapped>?

    // nil makes no box and names no box type: absent groups are the common case, set on every request's parse.
    @inlinable package init(wrappedValue: Wrapped?) {
        if let wrappedValue { box = SharedBox(wrappedValue) } else { box = nil }
    }

    @inlinable package var wrappedValue: Wrapped? {
        get { box?.value }
        set {
            if let newValue { box = SharedBox(newValue) } else { box = nil }
        }
    }

    package var projectedValue: Boxed<Wrapped> {
        get { self }
        set { self = newValue }
    }
}

/// Immutable once made, so sharing it between threads is safe whenever its value is `Sendable`.
@usableFromInline final class SharedBox<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @inlinable init(_ value: Value) { self.value = value }
}

extension Shared: Sendable where Value: Sendable {}
extension Boxed: Sendable where Wrapped: Sendable {}

extension Shared: Equatable where Value: Equatable {
    @usableFromInline package static func == (lhs: Shared, rhs: Shared) -> Bool { lhs.box === rhs.box || lhs.box.value == rhs.box.value }
}

extension Boxed: Equatable where Wrapped: Equatable {
    // On the boxes, not on `wrappedValue`: an `Optional<Wrapped>` comparison looks up its type's metadata each time.
    @usableFromInline package static func == (lhs: Boxed, rhs: Boxed) -> Bool {
        guard let left = lhs.box else { return rhs.box == nil }
        guard let right = rhs.box else { return false }
        return left === right || left.value == right.value
    }
}

extension Shared: Hashable where Value: Hashable {
    @usableFromInline package func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}

extension Boxed: Hashable where Wrapped: Hashable {
    @usableFromInline package func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }
}

extension Shared: Encodable where Value: Encodable {
    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension Shared: Decodable where Value: Decodable {
    @usableFromInline package init(from decoder: any Decoder) throws {
        self.init(wrappedValue: try decoder.singleValueContainer().decode(Value.self))
    }
}

extension Boxed: Encodable where Wrapped: Encodable {
    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value = wrappedValue { try container.encode(value) } else { try container.encodeNil() }
    }
}

extension Boxed: Decodable where Wrapped: Decodable {
    @usableFromInline package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Wrapped.self))
    }
}

// Synthesized Codable of a struct with `@Boxed var x: T?` asks for `Boxed<T>` by key: absent is nil, nil is left out.
extension KeyedDecodingContainer {
    package func decode<Wrapped: Decodable>(_ type: Boxed<Wrapped>.Type, forKey key: Key) throws -> Boxed<Wrapped> {
        Boxed(wrappedValue: try decodeIfPresent(Wrapped.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    package mutating func encode<Wrapped: Encodable>(_ value: Boxed<Wrapped>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}
