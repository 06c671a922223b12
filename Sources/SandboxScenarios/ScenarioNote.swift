// SPDX-License-Identifier: MIT

/// The journal's note on a scenario decision; written out only when the journal is read. Names the namespace the
/// call ran in (``JournalNote``), so a browser's call that names none itself is journaled there.
package struct ScenarioNote: JournalNote {
    package let scenario: String?
    package let operation: ScenarioOperation
    package let decision: ScenarioDecision
    package let namespace: Namespace?
    package var description: String { "scenario=\(scenario ?? "-") \(operation.rawValue): \(decision)" }

    package init(scenario: String?, operation: ScenarioOperation, decision: ScenarioDecision, namespace: Namespace? = nil) {
        self.scenario = scenario
        self.operation = operation
        self.decision = decision
        self.namespace = namespace
    }
}
