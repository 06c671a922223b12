// SPDX-License-Identifier: MIT
import Foundation

/// What scenario files may name for one provider (or several, merged): its operations, the outcomes each
/// accepts besides the universal ones (``ScenarioOutcome/universal``), and how each outcome is read from
/// its outcome object into the provider's typed value. The validator checks files against it and the JSON
/// Schema is generated from it (``ScenarioSchema``).
package struct ScenarioVocabulary: Sendable {
    /// One operation a scenario may steer.
    package struct Operation: Sendable {
        package var name: ScenarioOperation
        /// The provider outcomes it accepts, by name (each declared in the same vocabulary's `outcomes`).
        package var outcomes: [String]
        package var description: String
        /// The shape of the JSON its field conditions look at; nil when undeclared (no field warnings).
        package var request: ScenarioRequestShape?

        package init(_ name: ScenarioOperation, outcomes: [String] = [], _ description: String, request: ScenarioRequestShape? = nil) {
            self.name = name
            self.outcomes = outcomes
            self.description = description
            self.request = request
        }
    }

    /// One provider outcome: its name, its parameters (for allowed keys and the schema), and how to read it.
    package struct Outcome: Sendable {
        package var name: String
        package var description: String
        package var parameters: [ScenarioParameter]
        /// Reads the outcome object (its parameters already limited to `parameters`); reports problems through
        /// the reader and returns nil when the object is invalid.
        package var read: @Sendable (inout ScenarioOutcomeReader) -> (any ScenarioOutcomeValue)?

        package init(_ name: String, _ description: String, parameters: [ScenarioParameter] = [],
                    read: @escaping @Sendable (inout ScenarioOutcomeReader) -> (any ScenarioOutcomeValue)?) {
            self.name = name
            self.description = description
            self.parameters = parameters
            self.read = read
        }

        /// An outcome without parameters, always `value`.
        package init(_ value: some ScenarioOutcomeValue, _ description: String) {
            self.init(value.name, description) { _ in value }
        }
    }

    package private(set) var operations: [Operation]
    /// Every provider outcome, first declaration of a name first (the order messages and the schema list them).
    package private(set) var outcomes: [Outcome]
    /// Per operation: its accepted provider outcomes, from the vocabulary that declared it, in that
    /// vocabulary's declaration order.
    private var accepted: [ScenarioOperation: [Outcome]]

    package init(operations: [Operation], outcomes: [Outcome]) {
        self.operations = operations
        self.outcomes = outcomes
        accepted = [:]
        for operation in operations {
            for name in operation.outcomes {
                precondition(outcomes.contains { $0.name == name }, "\(operation.name) names undeclared outcome \(name)")
            }
            precondition(accepted[operation.name] == nil, "\(operation.name) declared twice")
            accepted[operation.name] = outcomes.filter { operation.outcomes.contains($0.name) }
        }
        precondition(Set(outcomes.map(\.name)).isDisjoint(with: ScenarioOutcome.universal), "a provider declares a universal outcome")
    }

    /// Several providers' vocabularies as one, in the order given.
    package init(merging vocabularies: [ScenarioVocabulary]) {
        self.init(operations: [], outcomes: [])
        for vocabulary in vocabularies {
            for operation in vocabulary.operations {
                precondition(accepted[operation.name] == nil, "\(operation.name) declared twice")
                operations.append(operation)
                accepted[operation.name] = vocabulary.accepted[operation.name]
            }
            for outcome in vocabulary.outcomes where !outcomes.contains(where: { $0.name == outcome.name }) {
                outcomes.append(outcome)
            }
        }
    }

    package func operation(_ name: ScenarioOperation) -> Operation? { operations.first { $0.name == name } }

    /// Every outcome name, universal ones included, in the order messages list them.
    package var outcomeNames: [String] {
        ScenarioOutcome.universalLeading + outcomes.map(\.name) + ScenarioOutcome.universalTrailing
    }

    /// Every outcome `operation` accepts (universal ones included); nil when the operation is unknown.
    package func allowedOutcomes(_ operation: ScenarioOperation) -> [String]? {
        accepted[operation].map { ScenarioOutcome.universalLeading + $0.map(\.name) + ScenarioOutcome.universalTrailing }
    }

    /// The definition `operation` uses for the provider outcome `name`.
    func outcome(_ name: String, for operation: ScenarioOperation) -> Outcome? {
        accepted[operation]?.first { $0.name == name }
    }

    /// Every distinct description of the outcome `name` (providers that share a name describe it each).
    func descriptions(of name: String) -> [String] {
        var seen: [String] = []
        for operation in operations {
            for outcome in accepted[operation.name] ?? [] where outcome.name == name && !seen.contains(outcome.description) {
                seen.append(outcome.description)
            }
        }
        if seen.isEmpty, let declared = anyOutcome(name) { seen.append(declared.description) }
        return seen
    }

    /// Any declaration of `name` (for an unknown operation: its parameters are still known).
    func anyOutcome(_ name: String) -> Outcome? { outcomes.first { $0.name == name } }

    /// The parameters of `http_error`, the one universal outcome with parameters.
    package static let httpErrorParameters: [ScenarioParameter] = [
        ScenarioParameter("status", .integer(ScenarioOutcome.statusRange), required: true, "The response status."),
        ScenarioParameter("body", .json, "The response body, sent as is; without it the provider's own error for that status."),
        ScenarioParameter("headers", .headers, "Response headers to add (not Content-Length, Transfer-Encoding or Connection)."),
    ]

    /// The keys an outcome object may carry for the outcome `name` (besides `outcome` and `delay_ms`).
    func parameterNames(_ name: String, for operation: ScenarioOperation?) -> [String] {
        if name == "http_error" { return ScenarioVocabulary.httpErrorParameters.map(\.name) }
        let outcome = operation.flatMap { self.outcome(name, for: $0) } ?? anyOutcome(name)
        return outcome?.parameters.map(\.name) ?? []
    }

    /// Every parameter name of every outcome, in outcome order, once each.
    var allParameterNames: [String] {
        var seen: [String] = []
        let names = outcomes.flatMap { $0.parameters.map(\.name) } + ScenarioVocabulary.httpErrorParameters.map(\.name)
        for name in names where !seen.contains(name) { seen.append(name) }
        return seen
    }
}

/// One parameter of an outcome object, as the schema describes it.
package struct ScenarioParameter: Sendable {
    package enum Kind: Sendable {
        /// A string; `values`: the only ones allowed; `pattern`: an ECMA-262 regular expression it matches.
        case string(values: [String]? = nil, pattern: String? = nil, nonEmpty: Bool = false)
        case integer(ClosedRange<Int>)
        /// An array of distinct non-empty strings, at least one.
        case stringSet
        /// Any JSON value.
        case json
        /// An object of header names to string values.
        case headers
    }

    package var name: String
    package var kind: Kind
    package var required: Bool
    package var description: String

    package init(_ name: String, _ kind: Kind, required: Bool = false, _ description: String) {
        self.name = name
        self.kind = kind
        self.required = required
        self.description = description
    }
}

/// What an ``ScenarioVocabulary/Outcome`` reads its outcome object with: the members, the checks that word
/// problems the way every scenario problem is worded, and the place to report its own.
package struct ScenarioOutcomeReader {
    var validator: ScenarioValidator
    let object: ScenarioValidator.Object
    /// The outcome's name.
    package let outcome: String

    /// The outcome object's path (`$.rules[0]`, `$.rules[0].sequence[1]`).
    package var path: JSONPath { object.path }
    package subscript(key: String) -> JSONNode? { object[key] }

    /// The member `key`, or nil with a "missing required key" problem.
    package mutating func require(_ key: String) -> JSONNode? {
        validator.require(object, key, context: " for outcome \(JSONNode.quoted(outcome))")
    }

    package mutating func string(_ node: JSONNode, _ path: JSONPath, nonEmpty: Bool = false) -> String? {
        validator.string(node, path, nonEmpty: nonEmpty)
    }

    package mutating func integer(_ node: JSONNode, _ path: JSONPath, in range: ClosedRange<Int>?) -> Int? {
        validator.integer(node, path, in: range)
    }

    /// An array of distinct non-empty strings, at least one (`what`: "field names"; `example` for the empty case).
    package mutating func stringSet(_ node: JSONNode, _ path: JSONPath, what: String, example: String) -> [String]? {
        validator.stringSet(node, path, what: what, example: example)
    }

    package mutating func report(_ path: JSONPath, at position: JSONPosition, _ message: String) {
        validator.report(path, at: position, message)
    }
}
