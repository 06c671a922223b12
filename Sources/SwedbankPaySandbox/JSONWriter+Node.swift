// SPDX-License-Identifier: MIT
import SandboxCore
import SandboxHTTP

extension JSONWriter {
    /// `node` as ``JSONNode/description`` writes it: numbers as written, members in order, duplicates kept.
    mutating func node(_ node: JSONNode) {
        switch node.value {
        case .null: literal("null")
        case .bool(let value): literal(value ? "true" : "false")
        case .number(_, let text): literal(text)
        case .string(let value): element(value)
        case .array(let elements):
            beginArray()
            for element in elements { self.node(element) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                key(member.key)
                self.node(member.value)
            }
            endObject()
        }
    }

    /// ``JSONNode/description`` of `node`, written with ``node(_:)``.
    static func compactText(_ node: JSONNode) -> String {
        var writer = JSONWriter()
        writer.node(node)
        return writer.string
    }
}
