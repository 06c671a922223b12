// SPDX-License-Identifier: MIT

/// The journal's note on a scenario decision; written out only when the journal is read.
package struct ScenarioNote: CustomStringConvertible, Sendable {
    package let scenario: String?
    package let operation: ScenarioOperation
    package let decision: ScenarioDecision
    package var description: String { "scenario=\(scenario ?? "-") \(operation.rawValue): \(decision)" }

    package init(scenario: String?, operation: ScenarioOperation, decision: ScenarioDecision) {
        self.scenario = scenario
        self.operation = operation
        self.decision = decision
    }
}
