// SPDX-License-Identifier: MIT

/// Equal strings a store would keep many times (a merchant's URLs, its payee id, its user agent: the same in each of
/// its orders) kept once: ``callAsFunction(_:)-(String)`` answers the instance it kept of an equal string, so every
/// holder shares one buffer. Strings of up to 15 UTF-8 bytes are stored inline by Swift and pass through. Bounded: past
/// ``capacity`` strings (and as many arrays) it starts again, so what it keeps alive is small however many differ.
/// A value, kept per namespace under its store's lock.
package struct StringInterner: Sendable {
    package let capacity: Int
    private var strings: Set<String> = []
    private var arrays: Set<[String]> = []

    package init(capacity: Int = 128) { self.capacity = capacity }

    package mutating func callAsFunction(_ string: String) -> String {
        guard string.utf8.count > 15 else { return string }
        if let index = strings.firstIndex(of: string) { return strings[index] }
        if strings.count >= capacity { strings.removeAll(keepingCapacity: true) }
        strings.insert(string)
        return string
    }

    package mutating func callAsFunction(_ string: String?) -> String? { string.map { self($0) } }

    /// An array of strings kept once as a whole (its elements interned as well).
    package mutating func callAsFunction(_ array: [String]) -> [String] {
        guard !array.isEmpty else { return array }
        if let index = arrays.firstIndex(of: array) { return arrays[index] }
        if arrays.count >= capacity { arrays.removeAll(keepingCapacity: true) }
        let interned = array.map { self($0) }
        arrays.insert(interned)
        return interned
    }
}
