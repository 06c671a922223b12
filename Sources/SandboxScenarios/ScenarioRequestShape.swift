// SPDX-License-Identifier: MIT
import Foundation

/// The shape of the JSON an operation's field conditions look at: which keys can occur, which hold objects or
/// arrays. `validate` warns about a `field` whose path leaves it (it could never match).
package indirect enum ScenarioRequestShape: Sendable {
    /// An object with these keys.
    case object([String: ScenarioRequestShape])
    /// An array of elements of this shape.
    case array(ScenarioRequestShape)
    /// A string, number, boolean or null.
    case value
    /// Anything (a free-form object such as `merchant_data` or `attachment`).
    case any
    /// No JSON at all: the operation has no request body (a GET, a DELETE, a POST without one), or its
    /// conditions see none. Every `field` leaves it.
    case nothing
}

extension ScenarioRequestShape {
    /// Why `path` cannot occur in JSON of this shape, naming the nearest known keys; nil when it can.
    package func whyNot(_ path: ScenarioFieldPath) -> String? {
        if case .nothing = self { return "its conditions see no request body, so no field can occur (a header can)" }
        var shape = self
        var walked = ""
        for component in path.components {
            switch (shape, component) {
            case (.any, _):
                return nil
            case (.object(let keys), .key(let key)):
                guard let next = keys[key] else {
                    let place = walked.isEmpty ? "the request" : JSONNode.quoted(walked)
                    let nearest = ScenarioRequestShape.nearest(key, in: Array(keys.keys))
                    return "\(place) has no key \(JSONNode.quoted(key)) (nearest known keys: \(nearest.joined(separator: ", ")))"
                }
                shape = next
                walked += walked.isEmpty ? key : "." + key
            case (.array(let element), .index(let index)):
                shape = element
                walked += "[\(index)]"
            default:
                let place = walked.isEmpty ? "the request" : JSONNode.quoted(walked)
                let found = switch shape {
                case .object: "an object"
                case .array: "an array"
                default: "a single value"
                }
                let step = switch component {
                case .key(let key): "no key \(JSONNode.quoted(key))"
                case .index(let index): "no element [\(index)]"
                }
                return "\(place) is \(found), with \(step)"
            }
        }
        return nil
    }

    /// The (at most three) keys closest to `key` by edit distance, closest first, then alphabetically.
    static func nearest(_ key: String, in keys: [String]) -> [String] {
        keys.map { ($0, editDistance(key, $0)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map(\.0)
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
