// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// What `POST /__sandbox/verify` and `GET /__sandbox/journal/wait` look for in the journal (docs/control-api.md,
/// "Verify and wait"). Every criterion given must hold; ``compare(_:)`` says which held and why each other missed.
struct RequestPattern: Sendable {
    var method: String?
    /// A path, exact or with `{name}` segments that match any one segment (`/payments/v1/sessions/{id}`).
    var path: PathTemplate?
    var pathPrefix: String?
    var status: Int?
    /// Query parameters (decoded) that must be there with this value.
    var query: [(name: String, value: String)] = []
    /// Headers (name case-insensitive) that must be there with this value.
    var headers: [(name: String, value: String)] = []
    var body: [BodyCondition] = []

    /// The criteria that held and why each other missed, for one journal entry.
    func compare(_ entry: Journal.Entry) -> PatternComparison {
        var result = PatternComparison()
        if let method {
            result.check("method", entry.method == method, "method was \(entry.method), wanted \(method)")
        }
        if let path {
            result.check("path", path.matches(entry.path), "path was \(entry.path), wanted \(path.text)")
        }
        if let pathPrefix {
            result.check("path_prefix", entry.path.hasPrefix(pathPrefix), "path was \(entry.path), wanted it to start with \(pathPrefix)")
        }
        if let status {
            result.check("status", entry.status == status, "status was \(entry.status), wanted \(status)")
        }
        if !query.isEmpty {
            let items = Self.queryItems(entry.query ?? "")
            for (name, value) in query {
                let given = items.filter { $0.name == name }.map(\.value)
                let shown = given.isEmpty ? "absent" : given.map { "\"\($0)\"" }.joined(separator: ", ")
                result.check("query \(name)", given.contains(value), "query parameter `\(name)` was \(shown), wanted \"\(value)\"")
            }
        }
        for (name, value) in headers {
            let given = entry.headers.values(for: name)
            let shown = given.isEmpty ? (entry.headersTruncated ? "not kept (the journal keeps 2 KB of headers)" : "absent")
                : given.map { "\"\(PatternComparison.short($0))\"" }.joined(separator: ", ")
            result.check("header \(name)", given.contains(value), "header `\(name)` was \(shown), wanted \"\(value)\"")
        }
        if !body.isEmpty { compareBody(entry, into: &result) }
        return result
    }

    private func compareBody(_ entry: Journal.Entry, into result: inout PatternComparison) {
        guard !entry.requestBodyTruncated else {
            for condition in body {
                result.check("body \(condition.path)", false,
                             "body field `\(condition.path)` cannot be read: the journal keeps the first \(entry.requestBodyBytes.count) bytes of a body and this one was longer")
            }
            return
        }
        let root = try? JSONDocument.parse(entry.requestBodyBytes)
        for condition in body {
            let (held, reason) = condition.test(root, bodyIsJSON: root != nil)
            result.check("body \(condition.path)", held, reason)
        }
    }

    /// `text` (a raw query) as decoded name/value pairs (`+` is a space).
    static func queryItems(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// A path with `{name}` segments, each matching any one non-empty segment.
struct PathTemplate: Sendable {
    let text: String
    private let segments: [Substring?]

    init(_ text: String) {
        self.text = text
        segments = text.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 ? nil : segment
        }
    }

    func matches(_ path: String) -> Bool {
        let given = path.split(separator: "/", omittingEmptySubsequences: false)
        guard given.count == segments.count else { return false }
        return zip(given, segments).allSatisfy { segment, wanted in wanted.map { $0 == segment } ?? !segment.isEmpty }
    }
}

/// One condition on a JSON field: of a request body (its path as scenario files write them, `order_lines[0].quantity`)
/// or of a callback's body.
struct BodyCondition: Sendable {
    enum Test: Sendable {
        case equals(JSONNode)
        /// A string field containing the text, or an array with an element equal to the value.
        case contains(JSONNode)
        case absent
    }

    var path: ScenarioFieldPath
    var test: Test

    /// Whether it holds in `root`, and why not ("body field `x` was 2, wanted 1").
    func test(_ root: JSONNode?, bodyIsJSON: Bool) -> (Bool, String) {
        let field = "body field `\(path)`"
        guard bodyIsJSON else {
            if case .absent = test { return (true, "") }
            return (false, "\(field) cannot be read: the body is not JSON")
        }
        let value = path.resolve(in: root)
        let shown = value.map { PatternComparison.short($0.description) } ?? "absent"
        switch test {
        case .absent:
            return (value == nil, "\(field) was \(shown), wanted it absent")
        case .equals(let wanted):
            return (value == wanted, "\(field) was \(shown), wanted \(PatternComparison.short(wanted.description))")
        case .contains(let wanted):
            let held: Bool
            switch (value?.value, wanted.value) {
            case let (.string(text)?, .string(part)): held = text.contains(part)
            case let (.array(elements)?, _): held = elements.contains(wanted)
            default: held = false
            }
            return (held, "\(field) was \(shown), wanted it to contain \(PatternComparison.short(wanted.description))")
        }
    }
}

/// Which criteria of a pattern held for one entry, and why the others missed.
struct PatternComparison: Sendable {
    var matched: [String] = []
    var reasons: [String] = []
    var isMatch: Bool { reasons.isEmpty }

    mutating func check(_ name: String, _ held: Bool, _ reason: @autoclosure () -> String) {
        if held { matched.append(name) } else { reasons.append(reason()) }
    }

    /// How near a miss is: a method and path that held count most (the call meant), then each other criterion.
    var score: Int {
        matched.reduce(0) { total, name in total + (name == "path" || name == "path_prefix" || name == "operation" ? 4 : name == "method" ? 2 : 1) }
    }

    /// "path matched, body field `order_lines[0].quantity` was 2, wanted 1".
    var summary: String {
        var parts: [String] = []
        if !matched.isEmpty { parts.append(matched.joined(separator: " and ") + " matched") }
        return (parts + reasons).joined(separator: ", ")
    }

    /// `text` cut to 120 characters for a reason.
    static func short(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(120)) + "…" : text
    }
}
