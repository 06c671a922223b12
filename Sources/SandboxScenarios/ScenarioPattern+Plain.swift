// SPDX-License-Identifier: MIT

/// The test of a `matches` pattern of a shape the bundled scenarios use, without ICU (an `NSRegularExpression` match
/// costs thousands of instructions, on every decision the rule is looked at):
/// - `^(a|b|…)$` or `^a$`: the whole value is one of the literals;
/// - `(?i)a`: the value holds the literal, ignoring ASCII case.
///
/// Literals are letters, digits, `_`, `-` and `@`, and `\` before one of `+ . @ _ -`. For a value that is not printable
/// ASCII (where ICU's case folding or its line ends before `$` could decide otherwise) ``matches(_:)`` answers nil
/// and the regular expression decides.
enum PlainPattern: Sendable {
    case oneOf(Set<String>)
    case containsIgnoringCase([UInt8])

    init?(_ pattern: String) {
        let bytes = Array(pattern.utf8)
        if bytes.starts(with: Array("(?i)".utf8)) {
            guard let literal = Self.literal(bytes[4...]), !literal.isEmpty else { return nil }
            self = .containsIgnoringCase(literal.map(Self.lowercased))
        } else if bytes.first == UInt8(ascii: "^"), bytes.last == UInt8(ascii: "$"), bytes.count >= 3 {
            var inner = bytes[1..<(bytes.count - 1)]
            // Alternatives only in one group: `^a|b$` is "starts with a, or ends with b".
            let grouped = inner.first == UInt8(ascii: "(") && inner.last == UInt8(ascii: ")")
            if grouped { inner = inner.dropFirst().dropLast() }
            var literals: Set<String> = []
            let alternatives = inner.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
            guard grouped || alternatives.count == 1 else { return nil }
            for alternative in alternatives {
                guard let literal = Self.literal(alternative), !literal.isEmpty else { return nil }
                literals.insert(String(decoding: literal, as: UTF8.self))
            }
            self = .oneOf(literals)
        } else {
            return nil
        }
    }

    /// Whether `value` matches, or nil when the regular expression must decide.
    func matches(_ value: String) -> Bool? {
        guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        switch self {
        case .oneOf(let literals):
            return literals.contains(value)
        case .containsIgnoringCase(let literal):
            let text = value.utf8.map(Self.lowercased)
            guard text.count >= literal.count else { return false }
            return (0...(text.count - literal.count)).contains { start in text[start..<(start + literal.count)].elementsEqual(literal) }
        }
    }

    /// The bytes a regular expression of only literal characters stands for; nil for anything else.
    private static func literal(_ pattern: ArraySlice<UInt8>) -> [UInt8]? {
        var literal: [UInt8] = [], escaped = false
        for byte in pattern {
            if escaped {
                guard "+.@_-".utf8.contains(byte) else { return nil }
                literal.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else {
                guard isLiteral(byte) else { return nil }
                literal.append(byte)
            }
        }
        return escaped ? nil : literal
    }

    private static func isLiteral(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "@"): true
        default: false
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
