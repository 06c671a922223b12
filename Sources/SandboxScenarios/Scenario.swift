// SPDX-License-Identifier: MIT
import Foundation

// The scenario file format, version 1: one scenario per `*.json` file.
//
//     {
//       "$schema": "../scenario.schema.json",
//       "name": "slow-then-down",
//       "description": "Orders of one customer wait, then fail once and succeed.",
//       "rules": [
//         { "operation": "shop.orders.create",
//           "when": [{ "field": "customer.email", "contains": "+slow" }],
//           "outcome": "approve", "delay_ms": 2000 },
//         { "operation": "shop.orders.create",
//           "sequence": [{ "outcome": "http_error", "status": 503 }, { "outcome": "approve" }] }
//       ]
//     }
//
// The rules for one operation are tried in file order; the first whose conditions all hold decides the
// outcome; no matching rule means approve. A rule names its outcome inline (`outcome` plus that outcome's
// parameters, optional `delay_ms`) or as a `sequence` of such outcome objects: the n-th call gets element n
// and the last one repeats. Which operations exist and which other outcomes each accepts is the providers'
// ``ScenarioVocabulary``; `scenarios/scenario.schema.json` is generated from it for editors.

/// A named, validated scenario: what the sandbox answers for each operation.
package struct Scenario: Sendable {
    package var name: String
    package var description: String
    package var rules: [ScenarioRule]
    /// The file it was read from, as shown in problems ("scenarios/shop/slow.json"); empty when built in code.
    package var file: String
    /// Where `name` is in that file (for the duplicate-name problem).
    package var namePosition: JSONPosition
    /// What loads but is likely a mistake (a condition on a field its operation's request cannot have).
    package var warnings: [ScenarioProblem] = []

    package init(name: String, description: String, rules: [ScenarioRule], file: String = "",
                namePosition: JSONPosition = JSONPosition(line: 1, column: 1)) {
        self.name = name
        self.description = description
        self.rules = rules
        self.file = file
        self.namePosition = namePosition
    }

    /// Scenario names: `^[a-z0-9][a-z0-9._-]{0,63}$`.
    package static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        for (offset, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                if offset == 0 { return false }
            default: return false
            }
        }
        return true
    }
}

/// One rule: for `operation`, when every condition holds, answer `steps[min(call, steps.count - 1)]`.
package struct ScenarioRule: Sendable, Equatable {
    package var operation: ScenarioOperation
    package var conditions: [ScenarioCondition]
    /// One step for an inline outcome; the `sequence` elements otherwise (never empty).
    package var steps: [ScenarioStep]
    /// Whether the file wrote a `sequence` (even of one element) rather than an inline outcome.
    package var isSequence: Bool
    /// Where the rule object starts in its file.
    package var position: JSONPosition

    package init(operation: ScenarioOperation, conditions: [ScenarioCondition] = [], steps: [ScenarioStep],
                isSequence: Bool? = nil, position: JSONPosition = JSONPosition(line: 1, column: 1)) {
        precondition(!steps.isEmpty, "a rule needs at least one step")
        self.operation = operation
        self.conditions = conditions
        self.steps = steps
        self.isSequence = isSequence ?? (steps.count > 1)
        self.position = position
    }

    package init(operation: ScenarioOperation, conditions: [ScenarioCondition] = [], outcome: ScenarioOutcome,
                delay: Duration? = nil) {
        self.init(operation: operation, conditions: conditions, steps: [ScenarioStep(outcome, delay: delay)], isSequence: false)
    }
}

/// What to answer, and how long to wait before answering.
package struct ScenarioStep: Sendable, Equatable {
    package var outcome: ScenarioOutcome
    /// `delay_ms`; nil when the file gave none.
    package var delay: Duration?
    package init(_ outcome: ScenarioOutcome, delay: Duration? = nil) {
        self.outcome = outcome
        self.delay = delay
    }
}

