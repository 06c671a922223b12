// SPDX-License-Identifier: MIT
import Foundation

/// A JSON value kept as its compact text (``JSONNode/description``: numbers as written, members in order, duplicates
/// kept), for stored models that must echo or match a request's JSON for days: a few hundred bytes where the parsed
/// tree takes kilobytes. ``node`` parses it again when it is needed (its positions are then those of the compact text).
package struct CompactJSON: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The compact text.
    package let text: String

    package init(_ node: JSONNode) { text = node.description }

    private init(text: String) { self.text = text }

    /// A text already written as ``JSONNode/description`` writes the value (a faster writer of the same bytes).
    package init(description text: String) { self.text = text }

    /// The same value, its text the instance `interner` keeps of an equal one (card details alike in many payments).
    package func interned(_ interner: inout StringInterner) -> CompactJSON { CompactJSON(text: interner(text)) }

    /// The value as a tree. The text was written from a parsed value, so it parses (the limits only guard the stack).
    package var node: JSONNode {
        (try? JSONDocument.parse(text, limits: JSONDocument.Limits(maxDepth: 4096, maxBytes: .max))) ?? JSONNode(.null)
    }

    package var description: String { text }
}
