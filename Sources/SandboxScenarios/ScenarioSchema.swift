// SPDX-License-Identifier: MIT
import Foundation

/// The JSON Schema (2020-12) of scenario files for a vocabulary: `payment-sandbox schema` prints it and
/// `scenarios/scenario.schema.json` is this text. It checks what editors can: the file's syntax, every
/// operation and outcome name, which outcomes each operation accepts, and each outcome's parameters.
package enum ScenarioSchema {
    /// The schema as pretty-printed JSON (two-space indent, one trailing newline).
    package static func text(for vocabulary: ScenarioVocabulary) -> String {
        var out = ""
        schema(vocabulary).write(to: &out, indent: "")
        return out + "\n"
    }

    // MARK: The document

    static func schema(_ vocabulary: ScenarioVocabulary) -> Node {
        .object([
            ("$schema", "https://json-schema.org/draft/2020-12/schema"),
            ("title", "payment-sandbox scenario (format version 1)"),
            ("description", .string("One scenario per file: a name, a description and rules that steer what the sandbox answers. For each call of an operation, the first rule for that operation whose conditions all hold decides the outcome; no matching rule means approve. The sandbox's own validator (payment-sandbox validate DIR...) also reports duplicate JSON keys, header names repeated in another case and regular expressions NSRegularExpression rejects.")),
            ("type", "object"),
            ("required", .strings(["name", "description", "rules"])),
            ("properties", .object([
                ("$schema", .object([("type", "string"), ("description", "Path or URL of this schema, for editors (e.g. \"../scenario.schema.json\"). Ignored by the sandbox.")])),
                ("name", .object([("type", "string"), ("pattern", "^[a-z0-9][a-z0-9._-]{0,63}$"),
                                  ("description", "The scenario's name, used in the Sandbox-Scenario header and PUT /__sandbox/scenario: 1 to 64 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit. Unique across every loaded directory; by convention the file name without .json.")])),
                ("description", .object([("type", "string"), ("pattern", "\\S"), ("description", "What a test sees under this scenario (shown by GET /__sandbox/scenarios).")])),
                ("rules", .object([("type", "array"), ("items", ref("rule")), ("description", "Rules in priority order. An empty list approves everything.")])),
            ])),
            ("additionalProperties", false),
            ("$defs", .object([
                ("operation", .object([
                    ("description", "The API operation the rule steers."),
                    ("enum", .strings(vocabulary.operations.map(\.name.rawValue))),
                    ("enumDescriptions", .strings(vocabulary.operations.map(\.description))),
                ])),
                ("outcome", .object([
                    ("description", "What the sandbox does. Which outcomes an operation accepts is listed with each; parameters go next to \"outcome\" in the same object."),
                    ("enum", .strings(vocabulary.outcomeNames)),
                    ("enumDescriptions", .strings(vocabulary.outcomeNames.map { outcomeDescription($0, vocabulary) })),
                ])),
                ("delay_ms", .object([
                    ("type", "integer"), ("minimum", .integer(ScenarioOutcome.delayRange.lowerBound)),
                    ("maximum", .integer(ScenarioOutcome.delayRange.upperBound)),
                    ("description", .string("Wait this many milliseconds (\(ScenarioOutcome.delayRange.lowerBound) to \(ScenarioOutcome.delayRange.upperBound)) before answering (or dropping the connection).")),
                ])),
                ("rule", rule(vocabulary)),
                ("outcomeObject", .object([
                    ("type", "object"), ("description", "An outcome with its parameters and optional delay_ms."),
                    ("required", .strings(["outcome"])), ("$ref", "#/$defs/outcomeFields"), ("unevaluatedProperties", false),
                ])),
                ("outcomeFields", outcomeFields(vocabulary)),
                ("condition", condition),
            ])),
        ])
    }

    static let universalDescriptions = [
        "approve": "Everywhere. The normal, successful answer (the default when no rule matches).",
        "http_error": "Everywhere. Any HTTP status (\"status\", required), with an optional \"body\" sent as is (default: the provider's own error envelope for that status) and optional extra \"headers\".",
        "drop_connection": "Everywhere. The connection is closed without an answer.",
        "commit_then_drop": "Everywhere. The operation takes full effect as for approve (state changed, callbacks sent), then the connection is closed before the answer: the client must read the state again, not repeat the call. delay_ms delays the whole call.",
    ]

    static func outcomeDescription(_ name: String, _ vocabulary: ScenarioVocabulary) -> String {
        universalDescriptions[name] ?? vocabulary.descriptions(of: name).joined(separator: " ")
    }

    static func rule(_ vocabulary: ScenarioVocabulary) -> Node {
        var allOf: [Node] = vocabulary.operations.map { operation in
            let allowed = Node.strings(vocabulary.allowedOutcomes(operation.name) ?? [])
            return .object([
                ("if", .object([("required", .strings(["operation"])),
                                ("properties", .object([("operation", .object([("const", .string(operation.name.rawValue))]))]))])),
                ("then", .object([("properties", .object([
                    ("outcome", .object([("enum", allowed)])),
                    ("sequence", .object([("items", .object([("properties", .object([("outcome", .object([("enum", allowed)]))]))]))])),
                ]))])),
            ])
        }
        allOf.append(.object([
            ("if", .object([("required", .strings(["sequence"]))])),
            ("then", .object([("properties", .object([("delay_ms", false)]))])),
            ("description", "With a sequence, delay_ms goes on each outcome object, not on the rule."),
        ]))
        return .object([
            ("type", "object"),
            ("description", "For \"operation\", when every condition in \"when\" holds: the inline outcome (\"outcome\" plus its parameters), or the n-th element of \"sequence\" for the n-th such call on the same object (the last element repeats)."),
            ("required", .strings(["operation"])),
            ("properties", .object([
                ("operation", ref("operation")),
                ("when", .object([("type", "array"), ("items", ref("condition")),
                                  ("description", "Conditions on the request; all must hold. Absent or empty: the rule always applies.")])),
                ("sequence", .object([("type", "array"), ("minItems", 1), ("items", ref("outcomeObject")),
                                      ("description", "Outcome objects for the first, second, ... matching call of this operation on the same object (session, authorization token); the last one repeats. E.g. [{\"outcome\": \"http_error\", \"status\": 503}, {\"outcome\": \"approve\"}]. Instead of an inline \"outcome\".")])),
            ])),
            ("$ref", "#/$defs/outcomeFields"),
            ("oneOf", .array([
                .object([("required", .strings(["outcome"])), ("description", "An inline outcome: \"outcome\" with its parameters (and delay_ms) in the rule itself.")]),
                .object([("required", .strings(["sequence"])), ("description", "A sequence of outcome objects.")]),
            ])),
            ("allOf", .array(allOf)),
            ("unevaluatedProperties", false),
        ])
    }

    static func outcomeFields(_ vocabulary: ScenarioVocabulary) -> Node {
        var withParameters = vocabulary.outcomes.filter { !$0.parameters.isEmpty }.map { ($0.name, $0.parameters) }
        withParameters.append(("http_error", ScenarioVocabulary.httpErrorParameters))
        return .object([
            ("properties", .object([("outcome", ref("outcome")), ("delay_ms", ref("delay_ms"))])),
            ("allOf", .array(withParameters.map { name, parameters in
                let required = parameters.filter(\.required).map(\.name)
                var then: [(String, Node)] = []
                if !required.isEmpty { then.append(("required", .strings(required))) }
                then.append(("properties", .object(parameters.map { ($0.name, parameter($0)) })))
                return .object([
                    ("if", .object([("required", .strings(["outcome"])), ("properties", .object([("outcome", .object([("const", .string(name))]))]))])),
                    ("then", .object(then)),
                ])
            })),
        ])
    }

    static func parameter(_ parameter: ScenarioParameter) -> Node {
        var members: [(String, Node)]
        switch parameter.kind {
        case .string(let values, let pattern, let nonEmpty):
            members = [("type", "string")]
            if let values { members.append(("enum", .strings(values))) }
            if let pattern { members.append(("pattern", .string(pattern))) } else if nonEmpty { members.append(("pattern", "\\S")) }
        case .integer(let range):
            members = [("type", "integer"), ("minimum", .integer(range.lowerBound))]
            if range.upperBound != Int.max { members.append(("maximum", .integer(range.upperBound))) }
        case .stringSet:
            members = [("type", "array"), ("minItems", 1), ("uniqueItems", true), ("items", .object([("type", "string"), ("pattern", "\\S")]))]
        case .json:
            members = []
        case .headers:
            let reserved = ScenarioOutcome.reservedHeaders.sorted().map(caseInsensitivePattern).joined(separator: "|")
            members = [
                ("type", "object"),
                ("propertyNames", .object([("pattern", .string(headerNamePattern)), ("not", .object([("pattern", .string("^(\(reserved))$"))]))])),
                ("additionalProperties", .object([("type", "string"), ("pattern", "^[^\\r\\n\\u0000]*$")])),
            ]
        }
        members.append(("description", .string(parameter.description)))
        return .object(members)
    }

    /// RFC 9110 §5.6.2 token, as ``ScenarioValidator/isToken(_:)`` checks it.
    static let headerNamePattern = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"

    /// `content-length` → `[Cc][Oo]...-[Ll]...`: JSON Schema patterns have no case-insensitive flag.
    static func caseInsensitivePattern(_ name: String) -> String {
        name.map { $0.isLetter ? "[\($0.uppercased())\($0.lowercased())]" : String($0) }.joined()
    }

    static let condition: Node = .object([
        ("type", "object"),
        ("description", "One test on the request: a \"field\" of the JSON body or a \"header\", and exactly one of equals, contains, matches, exists."),
        ("properties", .object([
            ("field", .object([("type", "string"), ("pattern", "^[^.\\[\\]]+(\\[(0|[1-9][0-9]*)\\])*(\\.[^.\\[\\]]+(\\[(0|[1-9][0-9]*)\\])*)*$"),
                               ("description", "A path into the request's JSON body: names joined by '.', [i] for array elements, e.g. \"customer.email\" or \"items[0].reference\".")])),
            ("header", .object([("type", "string"), ("pattern", .string(headerNamePattern)),
                                ("description", "A request header name (case-insensitive); with several fields of that name, any may match.")])),
            ("equals", .object([("description", "The value is this JSON value (numbers by value, object keys in any order). For a header: a string, compared exactly.")])),
            ("contains", .object([("type", "string"), ("minLength", 1),
                                  ("description", "A string value contains this substring (case-sensitive), or an array value has an element equal to it.")])),
            ("matches", .object([("type", "string"), ("format", "regex"),
                                 ("description", "A regular expression (ICU syntax, as NSRegularExpression) found anywhere in the string value (or a number's text); anchor with ^ and $, ignore case with (?i).")])),
            ("exists", .object([("type", "boolean"), ("description", "true: the field (any value, null included) or header is present; false: it is absent.")])),
        ])),
        ("additionalProperties", false),
        ("allOf", .array([
            .object([("oneOf", .array(["field", "header"].map { .object([("required", .strings([$0]))]) }))]),
            .object([("oneOf", .array(ScenarioValidator.tests.map { .object([("required", .strings([$0]))]) }))]),
            .object([("if", .object([("required", .strings(["header"]))])),
                     ("then", .object([("properties", .object([("equals", .object([("type", "string")]))]))]))]),
        ])),
    ])

    static func ref(_ name: String) -> Node { .object([("$ref", .string("#/$defs/\(name)"))]) }

    // MARK: Writing

    /// A JSON value with its object members in the order given.
    indirect enum Node: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral {
        case string(String)
        case integer(Int)
        case bool(Bool)
        case array([Node])
        case object([(String, Node)])

        init(stringLiteral value: String) { self = .string(value) }
        init(booleanLiteral value: Bool) { self = .bool(value) }
        init(integerLiteral value: Int) { self = .integer(value) }
        static func strings(_ values: [String]) -> Node { .array(values.map(Node.string)) }

        func write(to out: inout String, indent: String) {
            let inner = indent + "  "
            switch self {
            case .string(let value): out += JSONNode.quoted(value)
            case .integer(let value): out += String(value)
            case .bool(let value): out += value ? "true" : "false"
            case .array(let elements):
                guard !elements.isEmpty else { out += "[]"; return }
                out += "[\n"
                for (index, element) in elements.enumerated() {
                    out += inner
                    element.write(to: &out, indent: inner)
                    out += index == elements.count - 1 ? "\n" : ",\n"
                }
                out += indent + "]"
            case .object(let members):
                guard !members.isEmpty else { out += "{}"; return }
                out += "{\n"
                for (index, member) in members.enumerated() {
                    out += inner + JSONNode.quoted(member.0) + ": "
                    member.1.write(to: &out, indent: inner)
                    out += index == members.count - 1 ? "\n" : ",\n"
                }
                out += indent + "}"
            }
        }
    }
}
