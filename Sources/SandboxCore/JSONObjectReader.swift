// SPDX-License-Identifier: MIT
import Foundation

/// One JSON object of a request body (parsed by ``JSONDocument``), read field by field: the one typed reader under
/// every provider's request models and the control API. Absent and `null` members both read as absent; with
/// duplicate keys the last one counts, as with most JSON parsers. What a field of the wrong type means is the
/// caller's policy (stop at the first, or note each and go on), so a read answers ``JSONRead``.
package struct JSONObjectReader: Sendable {
    package let members: [JSONNode.Member]

    package init(members: [JSONNode.Member]) { self.members = members }

    /// Nil when `node` is not an object.
    package init?(_ node: JSONNode) {
        guard let members = node.members else { return nil }
        self.members = members
    }

    /// The member's value; nil when it is absent or `null`.
    package func node(_ key: String) -> JSONNode? {
        guard let member = JSONNode.lastMember(key, in: members), !member.value.isNull else { return nil }
        return member.value
    }

    package func read<Value>(_ key: String, _ field: JSONField<Value>) -> JSONRead<Value> {
        guard let node = node(key) else { return .absent }
        return field.value(node).map(JSONRead.value) ?? .wrongType
    }
}

/// What a read of one member found.
package enum JSONRead<Value> {
    case absent
    case value(Value)
    /// Present, not `null`, and not of the kind asked for.
    case wrongType

    package var value: Value? { if case .value(let value) = self { value } else { nil } }
    package var isWrongType: Bool { if case .wrongType = self { true } else { false } }
}

/// A kind of member value and how it is taken from the tree.
package struct JSONField<Value>: Sendable {
    /// The kind in words, for messages ("a string", "an integer").
    package let expected: String
    package let value: @Sendable (JSONNode) -> Value?

    package init(expected: String, _ value: @escaping @Sendable (JSONNode) -> Value?) {
        self.expected = expected
        self.value = value
    }
}

extension JSONField where Value == String {
    package static let string = JSONField(expected: "a string") { $0.stringValue }
}

extension JSONField where Value == Bool {
    package static let bool = JSONField(expected: "a boolean") { $0.boolValue }
}

extension JSONField where Value == Double {
    /// Any JSON number.
    package static let number = JSONField(expected: "a number") { $0.doubleValue }
}

extension JSONField where Value == Int {
    /// A whole number written as one, in 64 bits: `1.5`, `1.0`, `1e2` and `"15"` are not.
    package static let integer = JSONField(expected: "an integer") { node in
        if case .number(_, let text) = node.value { Int(text) } else { nil }
    }
}

extension JSONField where Value == JSONObjectReader {
    package static let object = JSONField(expected: "an object") { JSONObjectReader($0) }
}

extension JSONField where Value == [JSONNode] {
    package static let array = JSONField(expected: "an array") { $0.elements }
}

extension JSONField where Value == [String] {
    /// An array whose every element is a string.
    package static let strings = JSONField(expected: "an array of strings") { node in
        guard let elements = node.elements else { return nil }
        let strings = elements.compactMap(\.stringValue)
        return strings.count == elements.count ? strings : nil
    }
}

// MARK: Typed reads without generics at run time

/// The reads the providers' body readers make on every request, as plain functions: called from another module, a
/// generic ``JSONObjectReader/read(_:_:)`` looks its types' metadata up at run time on every call (a shared table,
/// a tenth of a whole purchase's time), these do not. Each is `read(key, .<field>)`, written out so that no
/// field's closure is called.
extension JSONObjectReader {
    package func string(_ key: String) -> JSONRead<String> {
        guard let node = node(key) else { return .absent }
        if case .string(let string) = node.value { return .value(string) }
        return .wrongType
    }

    package func bool(_ key: String) -> JSONRead<Bool> {
        guard let node = node(key) else { return .absent }
        if case .bool(let bool) = node.value { return .value(bool) }
        return .wrongType
    }

    package func number(_ key: String) -> JSONRead<Double> {
        guard let node = node(key) else { return .absent }
        if case .number(let number, _) = node.value { return .value(number) }
        return .wrongType
    }

    package func integer(_ key: String) -> JSONRead<Int> {
        guard let node = node(key) else { return .absent }
        if case .number(_, let text) = node.value, let int = Int(text) { return .value(int) }
        return .wrongType
    }

    package func object(_ key: String) -> JSONRead<JSONObjectReader> {
        guard let node = node(key) else { return .absent }
        if case .object(let members) = node.value { return .value(JSONObjectReader(members: members)) }
        return .wrongType
    }

    package func array(_ key: String) -> JSONRead<[JSONNode]> {
        guard let node = node(key) else { return .absent }
        if case .array(let elements) = node.value { return .value(elements) }
        return .wrongType
    }

    package func strings(_ key: String) -> JSONRead<[String]> { read(key, .strings) }
}
