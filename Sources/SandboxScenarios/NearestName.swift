// SPDX-License-Identifier: MIT
import SandboxCore

/// What an error says of a name nobody knows: the known name it is a typo of ("did you mean"), else the known names
/// when they are few, else where they are listed, never a long list.
package enum NearestName {
    /// At most this many known names are listed when none is near.
    static let listedAtMost = 12

    /// `unknown <kind> "<name>": did you mean "<nearest>"?`, or `(<listing> <known…>)` for a few known names, or
    /// `(<whereListed>)`.
    package static func unknown(_ kind: String, _ name: String, known: [String], listing: String = "expected one of:",
                                whereListed: String) -> String {
        let quoted = "unknown \(kind) \(JSONNode.quoted(name))"
        if let nearest = nearest(to: name, among: known) { return "\(quoted): did you mean \(JSONNode.quoted(nearest))?" }
        if known.count <= listedAtMost { return "\(quoted) (\(listing) \(known.joined(separator: ", ")))" }
        return "\(quoted) (\(whereListed))"
    }

    /// The known name nearest to `name` by edit distance (case ignored), when it is near enough to be a typo: at most
    /// a third of the name's length apart, and at least one edit. Ties go to the first in `known`.
    package static func nearest(to name: String, among known: [String]) -> String? {
        let typed = Array(name.lowercased().utf8)
        // Names are short; a longer one (a client's header) gets no suggestion, so its cost stays small.
        guard typed.count <= 80 else { return nil }
        let allowed = max(1, typed.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in known {
            let other = Array(candidate.lowercased().utf8)
            guard abs(other.count - typed.count) <= allowed else { continue }
            let distance = editDistance(typed, other)
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance of two byte strings (one row of the table at a time).
    package static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
