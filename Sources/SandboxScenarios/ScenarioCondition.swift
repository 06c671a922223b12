// SPDX-License-Identifier: MIT
import Foundation

// MARK: - Conditions

/// One test on the request; a rule applies when all of its conditions hold.
package struct ScenarioCondition: Sendable, Equatable {
    package enum Subject: Sendable, Equatable {
        /// A value in the request's JSON body.
        case field(ScenarioFieldPath)
        /// A request header (name compared case-insensitively; with several fields of that name, any may match).
        case header(String)
    }

    package enum Test: Sendable, Equatable {
        /// JSON equality (numbers by value, object keys in any order); headers: the exact string.
        case equals(JSONNode)
        /// A string: contains the substring (case-sensitive). An array: has an element equal to the string.
        case contains(String)
        /// A string, or a number's source text: the regular expression matches somewhere in it (not anchored).
        case matches(ScenarioPattern)
        /// The field (any value, `null` included) or header is present (`true`) or absent (`false`).
        case exists(Bool)
    }

    package var subject: Subject
    package var test: Test

    package init(_ subject: Subject, _ test: Test) {
        self.subject = subject
        self.test = test
    }
}

/// A dot path into a JSON body with `[i]` for array elements: `billing_address.email`, `order_lines[0].name`.
/// Grammar: `name("[" index "]")*` segments joined by ".", where a name is one or more characters other
/// than `.`, `[` and `]`, and an index is a non-negative integer without leading zeros.
package struct ScenarioFieldPath: Sendable, Hashable, CustomStringConvertible {
    package let text: String
    package let components: [JSONPath.Component]

    package init?(_ text: String) {
        var components: [JSONPath.Component] = []
        for segment in text.split(separator: ".", omittingEmptySubsequences: false) {
            let bracket = segment.firstIndex(of: "[") ?? segment.endIndex
            let name = segment[..<bracket]
            guard !name.isEmpty, !name.contains("]") else { return nil }
            components.append(.key(String(name)))
            var rest = segment[bracket...]
            while !rest.isEmpty {
                guard rest.first == "[", let close = rest.firstIndex(of: "]") else { return nil }
                let digits = rest[rest.index(after: rest.startIndex)..<close]
                guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                      digits == "0" || digits.first != "0", let index = Int(digits)
                else { return nil }
                components.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
        }
        self.text = text
        self.components = components
    }

    package var description: String { text }

    /// The value at this path, or nil when any step is missing (a key that is not there, an index out of
    /// range, or a step into something that is not an object or array).
    package func resolve(in root: JSONNode?) -> JSONNode? {
        var node = root
        for component in components {
            switch component {
            case .key(let key): node = node?[key]
            case .index(let index): node = node?[index]
            }
        }
        return node
    }

    /// ``resolve(in:)`` with `member(key)` answering the first step (`root?[key]`), so the rest of the root need not
    /// be made. A path's first component is always a key (the grammar starts with a name).
    package func resolve(member: (String) -> JSONNode?) -> JSONNode? {
        guard case .key(let first) = components.first else { return nil }
        var node = member(first)
        for component in components.dropFirst() {
            switch component {
            case .key(let key): node = node?[key]
            case .index(let index): node = node?[index]
            }
        }
        return node
    }
}

/// A compiled `matches` regular expression (NSRegularExpression, ICU syntax). Equal when the patterns are.
package struct ScenarioPattern: Sendable, Equatable, CustomStringConvertible {
    package let pattern: String
    package let regex: NSRegularExpression
    /// The same test without ICU, for the shapes ``PlainPattern`` knows.
    let plain: PlainPattern?

    package init(_ pattern: String) throws {
        self.pattern = pattern
        regex = try NSRegularExpression(pattern: pattern)
        plain = PlainPattern(pattern)
    }

    package func matches(_ string: String) -> Bool {
        if let plain, let matched = plain.matches(string) { return matched }
        return regexMatches(string)
    }

    /// The test by `NSRegularExpression` alone.
    func regexMatches(_ string: String) -> Bool {
        regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }

    package var description: String { pattern }
    package static func == (lhs: ScenarioPattern, rhs: ScenarioPattern) -> Bool { lhs.pattern == rhs.pattern }
}

