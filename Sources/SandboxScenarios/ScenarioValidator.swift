// SPDX-License-Identifier: MIT
import Foundation

// MARK: - Reading and validating

extension Scenario {
    /// Largest scenario file read (the format needs far less).
    package static let maxFileBytes = 1 << 20

    /// Parses and validates one scenario file's content. `file` is how problems name it. Every problem in
    /// the file is reported, not just the first; a syntax error is one problem with path `$`.
    package static func parse(_ data: Data, file: String, vocabulary: ScenarioVocabulary) -> Result<Scenario, ScenarioLoadFailure> {
        let root: JSONNode
        do {
            root = try JSONDocument.parse(data, limits: JSONDocument.Limits(maxDepth: 64, maxBytes: maxFileBytes))
        } catch {
            return .failure(ScenarioLoadFailure([
                ScenarioProblem(file: file, line: error.line, column: error.column, path: "$", message: error.message),
            ]))
        }
        var validator = ScenarioValidator(file: file, vocabulary: vocabulary)
        let scenario = validator.scenario(root)
        if var scenario, validator.problems.isEmpty {
            scenario.warnings = validator.warnings
            return .success(scenario)
        }
        return .failure(ScenarioLoadFailure(validator.problems))
    }

    package static func parse(_ text: String, file: String, vocabulary: ScenarioVocabulary) -> Result<Scenario, ScenarioLoadFailure> {
        parse(Data(text.utf8), file: file, vocabulary: vocabulary)
    }
}

/// Walks a parsed scenario document, building the model and collecting every problem.
struct ScenarioValidator {
    let file: String
    let vocabulary: ScenarioVocabulary
    var problems: [ScenarioProblem] = []
    /// Things that load but are likely mistakes (a condition's field its operation's request cannot have).
    var warnings: [ScenarioProblem] = []

    init(file: String, vocabulary: ScenarioVocabulary) {
        self.file = file
        self.vocabulary = vocabulary
    }

    mutating func report(_ path: JSONPath, at position: JSONPosition, _ message: String) {
        problems.append(ScenarioProblem(file: file, line: position.line, column: position.column,
                                        path: path.description, message: message))
    }

    static let topLevelKeys = ["$schema", "name", "description", "rules"]

    // MARK: Objects

    /// An object's members by key (first occurrence); later duplicates are reported.
    struct Object {
        var node: JSONNode
        var path: JSONPath
        var members: [JSONNode.Member]
        var byKey: [String: JSONNode.Member]
        subscript(key: String) -> JSONNode? { byKey[key]?.value }
        func has(_ key: String) -> Bool { byKey[key] != nil }
    }

    mutating func object(_ node: JSONNode, _ path: JSONPath, what: String = "an object") -> Object? {
        guard let members = node.members else {
            report(path, at: node.position, "expected \(what), found \(ScenarioValidator.found(node))")
            return nil
        }
        var byKey: [String: JSONNode.Member] = [:]
        var unique: [JSONNode.Member] = []
        for member in members {
            if let first = byKey[member.key] {
                report(path / member.key, at: member.keyPosition,
                       "duplicate key \(JSONNode.quoted(member.key)) (first at line \(first.keyPosition.line), column \(first.keyPosition.column))")
            } else {
                byKey[member.key] = member
                unique.append(member)
            }
        }
        return Object(node: node, path: path, members: unique, byKey: byKey)
    }

    /// Reports every key not in `allowed`.
    mutating func checkKeys(_ object: Object, allowed: [String], context: String = "") {
        for member in object.members where !allowed.contains(member.key) {
            report(object.path / member.key, at: member.keyPosition,
                   "unknown key \(JSONNode.quoted(member.key))\(context) (expected one of: \(allowed.joined(separator: ", ")))")
        }
    }

    mutating func require(_ object: Object, _ key: String, context: String = "") -> JSONNode? {
        if let value = object[key] { return value }
        report(object.path, at: object.node.position, "missing required key \(JSONNode.quoted(key))\(context)")
        return nil
    }

    /// "a number (3.5)", "a string (\"x\")", "an array": what was found, for type messages.
    static func found(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "null"
        case .bool(let value): return "a boolean (\(value))"
        case .number(_, let text): return "a number (\(text))"
        case .string(let string):
            let shown = string.count > 40 ? String(string.prefix(40)) + "..." : string
            return "a string (\(JSONNode.quoted(shown)))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    mutating func string(_ node: JSONNode, _ path: JSONPath, nonEmpty: Bool = false) -> String? {
        guard let string = node.stringValue else {
            report(path, at: node.position, "expected a string, found \(ScenarioValidator.found(node))")
            return nil
        }
        if nonEmpty && string.allSatisfy(\.isWhitespace) {
            report(path, at: node.position, "must not be empty")
            return nil
        }
        return string
    }

    mutating func integer(_ node: JSONNode, _ path: JSONPath, in range: ClosedRange<Int>?) -> Int? {
        let expected = range.map { $0.upperBound == Int.max ? "an integer of at least \($0.lowerBound)" : "an integer from \($0.lowerBound) to \($0.upperBound)" }
            ?? "an integer"
        guard let value = node.intValue, range?.contains(value) ?? true else {
            let found = node.doubleValue != nil ? node.description : ScenarioValidator.found(node)
            report(path, at: node.position, "expected \(expected), found \(found)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: JSONNode, _ path: JSONPath) -> Bool? {
        guard let value = node.boolValue else {
            report(path, at: node.position, "expected true or false, found \(ScenarioValidator.found(node))")
            return nil
        }
        return value
    }

    // MARK: Scenario

    mutating func scenario(_ root: JSONNode) -> Scenario? {
        let path = JSONPath.root
        guard let object = self.object(root, path) else { return nil }
        checkKeys(object, allowed: ScenarioValidator.topLevelKeys)
        if let schema = object["$schema"] { _ = string(schema, path / "$schema") }

        var name: String?
        if let node = require(object, "name"), let value = string(node, path / "name") {
            if Scenario.isValidName(value) {
                name = value
            } else {
                report(path / "name", at: node.position,
                       "\(JSONNode.quoted(value)) is not a valid scenario name (1 to 64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit)")
            }
        }
        var description: String?
        if let node = require(object, "description") { description = string(node, path / "description", nonEmpty: true) }

        var rules: [ScenarioRule] = []
        var rulesValid = true
        if let node = require(object, "rules") {
            if let elements = node.elements {
                for (index, element) in elements.enumerated() {
                    if let rule = rule(element, path / "rules" / index) { rules.append(rule) } else { rulesValid = false }
                }
            } else {
                report(path / "rules", at: node.position, "expected an array of rules, found \(ScenarioValidator.found(node))")
                rulesValid = false
            }
        } else {
            rulesValid = false
        }
        guard let name, let description, rulesValid else { return nil }
        return Scenario(name: name, description: description, rules: rules, file: file,
                        namePosition: object.byKey["name"]?.value.position ?? root.position)
    }

    // MARK: Rules

    mutating func rule(_ node: JSONNode, _ path: JSONPath) -> ScenarioRule? {
        guard let object = self.object(node, path, what: "a rule object") else { return nil }
        let operation = ruleOperation(object, path)
        let conditions = ruleConditions(object, path, operation: operation)
        let isSequence = object.has("sequence") && !object.has("outcome")
        let steps = ruleSteps(object, node, path, operation: operation)
        guard let operation, let conditions, let steps, !steps.isEmpty else { return nil }
        return ScenarioRule(operation: operation, conditions: conditions, steps: steps, isSequence: isSequence, position: node.position)
    }

    /// A rule's `operation`, one the vocabulary knows; nil (reported) otherwise.
    private mutating func ruleOperation(_ object: Object, _ path: JSONPath) -> ScenarioOperation? {
        guard let node = require(object, "operation"), let raw = string(node, path / "operation") else { return nil }
        let candidate = ScenarioOperation(raw)
        if vocabulary.operation(candidate) != nil { return candidate }
        report(path / "operation", at: node.position,
               NearestName.unknown("operation", raw, known: vocabulary.operations.map(\.name.rawValue),
                                   whereListed: "none is near it: docs/scenarios.md lists every operation"))
        return nil
    }

    /// A rule's `when` conditions (none without one); nil when one is invalid (each reported).
    private mutating func ruleConditions(_ object: Object, _ path: JSONPath, operation: ScenarioOperation?) -> [ScenarioCondition]? {
        guard let when = object["when"] else { return [] }
        guard let elements = when.elements else {
            report(path / "when", at: when.position, "expected an array of conditions, found \(ScenarioValidator.found(when))")
            return nil
        }
        var conditions: [ScenarioCondition] = [], valid = true
        for (index, element) in elements.enumerated() {
            if let condition = condition(element, path / "when" / index, operation: operation) { conditions.append(condition) } else { valid = false }
        }
        return valid ? conditions : nil
    }

    /// A rule's steps: its inline `outcome`, or its `sequence` of outcome objects; nil when any is invalid.
    private mutating func ruleSteps(_ object: Object, _ node: JSONNode, _ path: JSONPath, operation: ScenarioOperation?) -> [ScenarioStep]? {
        let ruleKeys = ["operation", "when"]
        if object.has("outcome") && object.has("sequence") {
            report(path, at: node.position, "a rule has either \"outcome\" or \"sequence\", not both")
            // Still check the inline outcome; "sequence" is not reported again as an unknown key.
            _ = step(object, path, operation: operation, ownKeys: ruleKeys + ["sequence"])
            return nil
        }
        if let sequence = object["sequence"] {
            checkKeys(object, allowed: ruleKeys + ["sequence"])
            return sequenceSteps(sequence, path / "sequence", operation: operation)
        }
        if object.has("outcome") { return step(object, path, operation: operation, ownKeys: ruleKeys).map { [$0] } }
        report(path, at: node.position, "missing \"outcome\" or \"sequence\"")
        checkKeys(object, allowed: ruleKeys + ["outcome", "sequence", "delay_ms"] + vocabulary.allParameterNames)
        return nil
    }

    /// The outcome objects of a `sequence`: at least one; nil when any is invalid.
    private mutating func sequenceSteps(_ sequence: JSONNode, _ path: JSONPath, operation: ScenarioOperation?) -> [ScenarioStep]? {
        guard let elements = sequence.elements else {
            report(path, at: sequence.position, "expected an array of outcome objects, found \(ScenarioValidator.found(sequence))")
            return nil
        }
        var valid = true
        if elements.isEmpty {
            report(path, at: sequence.position, "must not be empty (give at least one outcome object)")
            valid = false
        }
        var steps: [ScenarioStep] = []
        for (index, element) in elements.enumerated() {
            let elementPath = path / index
            if let elementObject = self.object(element, elementPath, what: "an outcome object"),
               let step = step(elementObject, elementPath, operation: operation, ownKeys: []) {
                steps.append(step)
            } else {
                valid = false
            }
        }
        return valid ? steps : nil
    }

    // MARK: Outcome objects

    /// An outcome object: `outcome`, that outcome's parameters, `delay_ms`, plus `ownKeys` of the enclosing
    /// rule when the outcome is written inline.
    mutating func step(_ object: Object, _ path: JSONPath, operation: ScenarioOperation?, ownKeys: [String]) -> ScenarioStep? {
        var valid = true
        var name: String?
        if let node = require(object, "outcome"), let raw = string(node, path / "outcome") {
            if vocabulary.outcomeNames.contains(raw) {
                name = raw
                if let operation, let allowed = vocabulary.allowedOutcomes(operation), !allowed.contains(raw) {
                    report(path / "outcome", at: node.position,
                           "outcome \(JSONNode.quoted(raw)) is not allowed for \(operation) (allowed: \(allowed.joined(separator: ", ")))")
                    valid = false
                }
            } else {
                let expected = operation.flatMap(vocabulary.allowedOutcomes) ?? vocabulary.outcomeNames
                report(path / "outcome", at: node.position,
                       NearestName.unknown("outcome", raw, known: expected, whereListed: "none is near it: docs/scenarios.md lists every outcome"))
            }
        }

        var delay: Duration?
        if let node = object["delay_ms"] {
            if let ms = integer(node, path / "delay_ms", in: ScenarioOutcome.delayRange) { delay = .milliseconds(ms) } else { valid = false }
        }

        guard let name else {
            // Unknown or missing outcome: its parameters cannot be checked; flag only keys no outcome has.
            checkKeys(object, allowed: ownKeys + ["outcome", "delay_ms"] + vocabulary.allParameterNames)
            return nil
        }
        checkKeys(object, allowed: ownKeys + ["outcome"] + vocabulary.parameterNames(name, for: operation) + ["delay_ms"],
                  context: " for outcome \(JSONNode.quoted(name))")

        let outcome: ScenarioOutcome?
        switch name {
        case "approve": outcome = .approve
        case "drop_connection": outcome = .dropConnection
        case "commit_then_drop": outcome = .commitThenDrop
        case "http_error": outcome = httpError(object, path)
        default:
            // A name another provider declares (not allowed here, reported above) is read as that provider's.
            if let definition = operation.flatMap({ vocabulary.outcome(name, for: $0) }) ?? vocabulary.anyOutcome(name) {
                var reader = ScenarioOutcomeReader(validator: ScenarioValidator(file: file, vocabulary: vocabulary), object: object,
                                                   outcome: name)
                let value = definition.read(&reader)
                problems += reader.validator.problems
                outcome = value.map(ScenarioOutcome.provider)
            } else {
                outcome = nil
            }
        }
        guard valid, let outcome else { return nil }
        return ScenarioStep(outcome, delay: delay)
    }

    /// An array of distinct non-empty strings, at least one.
    mutating func stringSet(_ node: JSONNode, _ path: JSONPath, what: String, example: String) -> [String]? {
        guard let elements = node.elements else {
            report(path, at: node.position, "expected an array of \(what), found \(ScenarioValidator.found(node))")
            return nil
        }
        guard !elements.isEmpty else {
            report(path, at: node.position, "must not be empty (name at least one \(example))")
            return nil
        }
        var strings: [String] = []
        var ok = true
        for (index, element) in elements.enumerated() {
            guard let string = string(element, path / index, nonEmpty: true) else { ok = false; continue }
            if strings.contains(string) {
                report(path / index, at: element.position, "\(JSONNode.quoted(string)) is listed twice")
                ok = false
            }
            strings.append(string)
        }
        return ok ? strings : nil
    }

    mutating func httpError(_ object: Object, _ path: JSONPath) -> ScenarioOutcome? {
        var ok = true
        var status: Int?
        if let node = require(object, "status", context: " for outcome \"http_error\"") {
            status = integer(node, path / "status", in: ScenarioOutcome.statusRange)
        }
        var headers = HTTPHeaders()
        if let node = object["headers"] {
            if let headerObject = self.object(node, path / "headers", what: "an object of header names to string values") {
                for member in headerObject.members {
                    let memberPath = path / "headers" / member.key
                    if !ScenarioValidator.isToken(member.key) {
                        report(memberPath, at: member.keyPosition, "\(JSONNode.quoted(member.key)) is not a valid header name")
                        ok = false
                    } else if ScenarioOutcome.reservedHeaders.contains(member.key.lowercased()) {
                        report(memberPath, at: member.keyPosition, "header \(JSONNode.quoted(member.key)) is set by the server and cannot be given")
                        ok = false
                    }
                    guard let value = string(member.value, memberPath) else { ok = false; continue }
                    if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                        report(memberPath, at: member.value.position, "a header value must not contain CR, LF or NUL")
                        ok = false
                    }
                    headers.add(name: member.key, value: value)
                }
                // Case-insensitive duplicates ("X-A" and "x-a") are different JSON keys but one header.
                var seen: [String: String] = [:]
                for member in headerObject.members {
                    let lower = member.key.lowercased()
                    if let first = seen[lower] {
                        report(path / "headers" / member.key, at: member.keyPosition,
                               "header \(JSONNode.quoted(member.key)) repeats \(JSONNode.quoted(first)) (header names are case-insensitive)")
                        ok = false
                    } else {
                        seen[lower] = member.key
                    }
                }
            } else {
                ok = false
            }
        }
        guard ok, let status else { return nil }
        return .httpError(status: status, body: object["body"], headers: headers)
    }

    /// RFC 9110 §5.6.2 token.
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
            default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    // MARK: Conditions

    static let tests = ["equals", "contains", "matches", "exists"]

    mutating func condition(_ node: JSONNode, _ path: JSONPath, operation: ScenarioOperation?) -> ScenarioCondition? {
        guard let object = self.object(node, path, what: "a condition object") else { return nil }
        checkKeys(object, allowed: ["field", "header"] + ScenarioValidator.tests)
        let subject = conditionSubject(object, node, path, operation: operation)
        let present = ScenarioValidator.tests.filter(object.has)
        guard present.count == 1, let key = present.first, let value = object[key] else {
            if present.isEmpty {
                report(path, at: node.position, "missing a test: one of \"equals\", \"contains\", \"matches\", \"exists\"")
            } else {
                report(path, at: node.position,
                       "a condition has exactly one test, found \(present.map { JSONNode.quoted($0) }.joined(separator: " and "))")
            }
            return nil
        }
        guard let test = conditionTest(key, value, path / key, subject: subject), let subject else { return nil }
        return ScenarioCondition(subject, test)
    }

    /// What a condition looks at: a body `field` (warned about when the operation's request cannot have it) or a
    /// request `header`; nil (reported) when it names neither, both, or an invalid one.
    private mutating func conditionSubject(_ object: Object, _ node: JSONNode, _ path: JSONPath,
                                           operation: ScenarioOperation?) -> ScenarioCondition.Subject? {
        switch (object["field"], object["header"]) {
        case (.some, .some):
            report(path, at: node.position, "a condition has either \"field\" or \"header\", not both")
        case (nil, nil):
            report(path, at: node.position, "missing \"field\" (a path into the JSON body) or \"header\" (a request header name)")
        case (let field?, nil):
            guard let text = string(field, path / "field") else { return nil }
            guard let fieldPath = ScenarioFieldPath(text) else {
                report(path / "field", at: field.position,
                       "\(JSONNode.quoted(text)) is not a field path (names joined by '.', with [index] for array elements, e.g. \"order_lines[0].name\")")
                return nil
            }
            if let operation, let shape = vocabulary.operation(operation)?.request, let reason = shape.whyNot(fieldPath) {
                warnings.append(ScenarioProblem(file: file, line: field.position.line, column: field.position.column,
                                                path: (path / "field").description,
                                                message: "warning: \(JSONNode.quoted(text)) cannot occur in the request of \(operation): \(reason)"))
            }
            return .field(fieldPath)
        case (nil, let header?):
            guard let name = string(header, path / "header") else { return nil }
            if ScenarioValidator.isToken(name) { return .header(name) }
            report(path / "header", at: header.position, "\(JSONNode.quoted(name)) is not a valid header name")
        }
        return nil
    }

    /// A condition's one test (`equals`, `contains`, `matches`, `exists`); nil (reported) when its value is invalid.
    private mutating func conditionTest(_ key: String, _ value: JSONNode, _ testPath: JSONPath,
                                        subject: ScenarioCondition.Subject?) -> ScenarioCondition.Test? {
        switch key {
        case "equals":
            if case .header = subject, value.stringValue == nil {
                report(testPath, at: value.position, "a header is compared with a string, found \(ScenarioValidator.found(value))")
                return nil
            }
            return .equals(value)
        case "contains":
            guard let string = string(value, testPath) else { return nil }
            if string.isEmpty { report(testPath, at: value.position, "must not be empty"); return nil }
            return .contains(string)
        case "matches":
            guard let pattern = string(value, testPath) else { return nil }
            do {
                return .matches(try ScenarioPattern(pattern))
            } catch {
                report(testPath, at: value.position, "invalid regular expression \(JSONNode.quoted(pattern))")
                return nil
            }
        default:
            return bool(value, testPath).map { .exists($0) }
        }
    }
}
