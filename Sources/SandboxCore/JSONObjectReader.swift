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
    package func node(_ key: String) -> JSONNode? { presentIndex(key).map { members[$0].value } }

    /// The index of the member ``node(_:)`` answers.
    func presentIndex(_ key: String) -> Int? {
        guard let index = JSONNode.lastIndex(of: key, in: members), !members[index].value.isNull else { return nil }
        return index
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
        if case .number(_, let text) = node.value { JSONObjectReader.wholeNumber(text) } else { nil }
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
        guard let index = presentIndex(key) else { return .absent }
        if case .string(let string) = members[index].value.value { return .value(string) }
        return .wrongType
    }

    package func bool(_ key: String) -> JSONRead<Bool> {
        guard let index = presentIndex(key) else { return .absent }
        if case .bool(let bool) = members[index].value.value { return .value(bool) }
        return .wrongType
    }

    package func number(_ key: String) -> JSONRead<Double> {
        guard let index = presentIndex(key) else { return .absent }
        if case .number(let number, _) = members[index].value.value { return .value(number) }
        return .wrongType
    }

    package func integer(_ key: String) -> JSONRead<Int> {
        guard let index = presentIndex(key) else { return .absent }
        if case .number(_, let text) = members[index].value.value, let int = JSONObjectReader.wholeNumber(text) {
            return .value(int)
        }
        return .wrongType
    }

    package func object(_ key: String) -> JSONRead<JSONObjectReader> {
        guard let index = presentIndex(key) else { return .absent }
        if case .object(let object) = members[index].value.value { return .value(JSONObjectReader(members: object)) }
        return .wrongType
    }

    package func array(_ key: String) -> JSONRead<[JSONNode]> {
        guard let index = presentIndex(key) else { return .absent }
        if case .array(let elements) = members[index].value.value { return .value(elements) }
        return .wrongType
    }

    package func strings(_ key: String) -> JSONRead<[String]> { read(key, .strings) }

    /// `Int(text)` for a number's text: `-?[0-9]{1,18}` (which cannot overflow) read directly, anything else by `Int`.
    static func wholeNumber(_ text: String) -> Int? {
        guard text.utf8.count <= 18 else { return Int(text) }
        // Over the contiguous bytes (a number's text is a small string, copied to the stack), not an index walk.
        return text.utf8.withContiguousStorageIfAvailable { wholeNumber(bytes: $0, text) } ?? wholeNumber(bytes: Array(text.utf8), text)
    }

    /// ``wholeNumber(_:)`` of `utf8`, the bytes of `text` (at most 18).
    private static func wholeNumber(bytes utf8: some Collection<UInt8>, _ text: String) -> Int? {
        var magnitude = 0, digits = 0, negative = false
        for byte in utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                magnitude = magnitude * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            } else if byte == UInt8(ascii: "-") && digits == 0 && !negative {
                negative = true
            } else {
                return Int(text)
            }
        }
        guard digits > 0 else { return Int(text) }
        return negative ? -magnitude : magnitude
    }
}
