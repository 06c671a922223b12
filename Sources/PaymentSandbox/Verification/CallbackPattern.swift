// SPDX-License-Identifier: MIT
import Foundation
import SandboxHTTP
import SandboxPlugIn

/// What `POST /__sandbox/callbacks/verify` and `GET /__sandbox/callbacks/wait` look for in the outbox
/// (docs/control-api.md, "Verify and wait").
struct CallbackPattern: Sendable {
    /// The provider's callback operation (`GET /__sandbox/callbacks` shows it).
    var operation: String?
    /// The object it is about (an id, or a resource path ending in it).
    var object: String?
    var state: CallbackOutbox.State?
    var url: String?
    var body: [BodyCondition] = []

    func compare(_ entry: CallbackOutbox.Entry) -> PatternComparison {
        var result = PatternComparison()
        if let operation {
            result.check("operation", entry.operation == operation, "operation was \(entry.operation), wanted \(operation)")
        }
        if let object {
            let id = object.split(separator: "/").last.map(String.init) ?? object
            result.check("object", entry.object == id, "object was \(entry.object), wanted \(id)")
        }
        if let state {
            result.check("state", entry.state == state, "state was \(entry.state.rawValue), wanted \(state.rawValue)")
        }
        if let url {
            result.check("url", entry.url == url, "url was \(PatternComparison.short(entry.url)), wanted \(url)")
        }
        if !body.isEmpty {
            let root = try? JSONDocument.parse(entry.body)
            for condition in body {
                let (held, reason) = condition.test(root, bodyIsJSON: root != nil)
                result.check("body \(condition.path)", held, reason)
            }
        }
        return result
    }
}

/// Reads patterns from a verification's JSON body or a wait's query; what it cannot read is a 400 naming it.
enum PatternReader {
    static let requestKeys = ["method", "path", "path_prefix", "status", "query", "headers", "body"]
    static let callbackKeys = ["operation", "object", "state", "url", "body"]

    /// The request pattern of a JSON object (`{"method": "POST", "path": "/payments/v1/sessions/{id}", …}`).
    static func requestPattern(_ node: JSONNode) throws(HTTPError) -> RequestPattern {
        let members = try object(node, "pattern", keys: requestKeys)
        var pattern = RequestPattern()
        pattern.method = try string(members["method"], "pattern.method")?.uppercased()
        pattern.path = try string(members["path"], "pattern.path").map(PathTemplate.init)
        pattern.pathPrefix = try string(members["path_prefix"], "pattern.path_prefix")
        pattern.status = try int(members["status"], "pattern.status")
        pattern.query = try pairs(members["query"], "pattern.query")
        pattern.headers = try pairs(members["headers"], "pattern.headers")
        pattern.body = try conditions(members["body"])
        return pattern
    }

    static func callbackPattern(_ node: JSONNode) throws(HTTPError) -> CallbackPattern {
        let members = try object(node, "pattern", keys: callbackKeys)
        var pattern = CallbackPattern()
        pattern.operation = try string(members["operation"], "pattern.operation")
        pattern.object = try string(members["object"], "pattern.object")
        pattern.state = try string(members["state"], "pattern.state").map { text throws(HTTPError) in try state(text) }
        pattern.url = try string(members["url"], "pattern.url")
        pattern.body = try conditions(members["body"])
        return pattern
    }

    static func state(_ text: String) throws(HTTPError) -> CallbackOutbox.State {
        guard let state = CallbackOutbox.State(rawValue: text) else {
            throw HTTPError(.badRequest, "state: \"\(text)\" is none of pending, held, delivered, failed")
        }
        return state
    }

    /// `[{"path": "order_lines[0].quantity", "equals": 1}, {"path": "…", "contains": "…"}, {"path": "…", "absent": true}]`
    static func conditions(_ node: JSONNode?) throws(HTTPError) -> [BodyCondition] {
        guard let node else { return [] }
        guard let elements = node.elements else {
            throw HTTPError(.badRequest, #"pattern.body must be an array of {"path": "<field>", "equals"|"contains": <JSON>} or {"path": "<field>", "absent": true}"#)
        }
        var conditions: [BodyCondition] = []
        for (index, element) in elements.enumerated() {
            let name = "pattern.body[\(index)]"
            let members = try object(element, name, keys: ["path", "equals", "contains", "absent"])
            guard let text = try string(members["path"], "\(name).path"), let path = ScenarioFieldPath(text) else {
                throw HTTPError(.badRequest, "\(name).path must be a field path such as order_lines[0].quantity")
            }
            let tests = ["equals", "contains", "absent"].filter { members[$0] != nil }
            guard tests.count == 1 else { throw HTTPError(.badRequest, "\(name) must give exactly one of equals, contains, absent") }
            switch tests[0] {
            case "equals": conditions.append(BodyCondition(path: path, test: .equals(members["equals"]!)))
            case "contains": conditions.append(BodyCondition(path: path, test: .contains(members["contains"]!)))
            default:
                guard members["absent"]?.boolValue == true else { throw HTTPError(.badRequest, "\(name).absent must be true") }
                conditions.append(BodyCondition(path: path, test: .absent))
            }
        }
        return conditions
    }

    /// A JSON object's members by key (the last of a repeated key); an unknown key is a 400 naming the known ones.
    static func object(_ node: JSONNode, _ name: String, keys: [String]) throws(HTTPError) -> [String: JSONNode] {
        guard let members = node.members else { throw HTTPError(.badRequest, "\(name) must be a JSON object") }
        var result: [String: JSONNode] = [:]
        for member in members {
            guard keys.contains(member.key) else {
                throw HTTPError(.badRequest, "\(name): unknown field \"\(member.key)\" (use \(keys.joined(separator: ", ")))")
            }
            result[member.key] = member.value
        }
        return result
    }

    static func string(_ node: JSONNode?, _ name: String) throws(HTTPError) -> String? {
        guard let node, !node.isNull else { return nil }
        guard let string = node.stringValue else { throw HTTPError(.badRequest, "\(name) must be a string") }
        return string
    }

    static func int(_ node: JSONNode?, _ name: String) throws(HTTPError) -> Int? {
        guard let node, !node.isNull else { return nil }
        guard let int = node.intValue else { throw HTTPError(.badRequest, "\(name) must be a whole number") }
        return int
    }

    static func pairs(_ node: JSONNode?, _ name: String) throws(HTTPError) -> [(name: String, value: String)] {
        guard let node, !node.isNull else { return [] }
        guard let members = node.members else { throw HTTPError(.badRequest, "\(name) must be an object of strings") }
        var pairs: [(name: String, value: String)] = []
        for member in members {
            guard let value = member.value.stringValue else { throw HTTPError(.badRequest, "\(name).\(member.key) must be a string") }
            pairs.append((member.key, value))
        }
        return pairs
    }

    /// A wait's query as a pattern's JSON object: `body.<field>=<value>` (the value as JSON when it reads as JSON,
    /// else as a string) becomes an `equals` condition, `query.<name>=` and `header.<name>=` the pattern's query and
    /// headers; `timeout` and `after` are the wait's own and are left out.
    static func patternNode(_ query: [HTTPRequest.QueryItem], skipping own: Set<String>) -> JSONNode {
        var members: [(String, JSONText)] = [], body: [JSONText] = [], queryItems: [(String, JSONText)] = []
        var headers: [(String, JSONText)] = []
        for item in query where !own.contains(item.name) {
            if item.name.hasPrefix("body.") {
                let value = (try? JSONDocument.parse(item.value)).map(\.jsonText) ?? .string(item.value)
                body.append(.object([("path", .string(String(item.name.dropFirst(5)))), ("equals", value)]))
            } else if item.name.hasPrefix("query.") {
                queryItems.append((String(item.name.dropFirst(6)), .string(item.value)))
            } else if item.name.hasPrefix("header.") {
                headers.append((String(item.name.dropFirst(7)), .string(item.value)))
            } else if item.name == "status", let status = Int(item.value) {
                members.append((item.name, .int(status)))
            } else {
                members.append((item.name, .string(item.value)))
            }
        }
        if !body.isEmpty { members.append(("body", .array(body))) }
        if !queryItems.isEmpty { members.append(("query", .object(queryItems))) }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        return JSONNode(.object(members))
    }
}
