// SPDX-License-Identifier: MIT
import Foundation

// Choosing an outcome: pure functions of the scenario, the request and a call counter the caller keeps.
// Which scenario applies to a request (header, session, playground data, namespace default, approve) is the
// caller's business; this file only answers "given this scenario, what happens to this call?".

/// What a scenario decided for one call, and why (for the journal).
package struct ScenarioDecision: Sendable, Equatable, CustomStringConvertible {
    package var outcome: ScenarioOutcome
    /// Wait this long before answering (or before dropping the connection); nil: answer at once.
    package var delay: Duration?
    /// The index in ``Scenario/rules`` of the rule that matched; nil when none did (the default approve).
    package var ruleIndex: Int?
    /// Which element of the rule's steps was used (0 for an inline outcome); nil when no rule matched.
    package var stepIndex: Int?
    /// The rule is a `sequence` (its step is worth showing).
    package var fromSequence: Bool

    package init(outcome: ScenarioOutcome, delay: Duration? = nil, ruleIndex: Int? = nil, stepIndex: Int? = nil,
                fromSequence: Bool = false) {
        self.outcome = outcome
        self.delay = delay
        self.ruleIndex = ruleIndex
        self.stepIndex = stepIndex
        self.fromSequence = fromSequence
    }

    /// No rule matched: the normal answer, without delay.
    package static let approve = ScenarioDecision(outcome: .approve)

    package var matchedRule: Bool { ruleIndex != nil }

    /// `reject (rule 0)`, `http_error 503 (rule 1, step 0), delay 1.5 seconds`, `approve (no rule)`.
    package var description: String {
        var text = outcome.description
        switch (ruleIndex, stepIndex) {
        case let (rule?, step?) where fromSequence: text += " (rule \(rule), step \(step))"
        case let (rule?, _): text += " (rule \(rule))"
        default: text += " (no rule)"
        }
        if let delay { text += ", delay \(delay)" }
        return text
    }
}

extension Scenario {
    /// The outcome for a call of `operation`: the first rule for that operation whose conditions all hold
    /// decides; its step is `steps[min(callIndex, steps.count - 1)]` (a sequence's last element repeats).
    /// No matching rule: ``ScenarioDecision/approve``.
    ///
    /// - Parameters:
    ///   - body: the request's JSON body (nil when there is none or it is not JSON: field conditions then
    ///     see no fields, so `exists: false` holds and every other field test fails).
    ///   - callIndex: 0 for the first call of this operation on this object (session, token, ...), 1 for
    ///     the second, ...; the caller keeps the counter. For per-rule counting, find the rule with
    ///     ``firstMatchingRule(for:body:headers:)`` first, then use ``ScenarioRule/decision(ruleIndex:callIndex:)``.
    package func decide(_ operation: ScenarioOperation, body: JSONNode?, headers: HTTPHeaders, callIndex: Int) -> ScenarioDecision {
        guard let index = firstMatchingRule(for: operation, body: body, headers: headers) else { return .approve }
        return rules[index].decision(ruleIndex: index, callIndex: callIndex)
    }

    /// The index of the first rule for `operation` whose conditions all hold, or nil.
    package func firstMatchingRule(for operation: ScenarioOperation, body: JSONNode?, headers: HTTPHeaders) -> Int? {
        rules.indices.first { rules[$0].operation == operation && rules[$0].matches(body: body, headers: headers) }
    }

    /// The first of `candidates` (indices of ``rules`` for one operation, in order) whose conditions all hold, with
    /// `field` resolving a path in the subject (as `path.resolve(in: body)` would).
    func firstMatchingRule(among candidates: [Int], headers: HTTPHeaders, field: (ScenarioFieldPath) -> JSONNode?) -> Int? {
        candidates.first { rules[$0].conditions.allSatisfy { $0.holds(headers: headers, field: field) } }
    }

    /// Whether any rule names `operation` (a scenario that never mentions an operation approves it).
    package func hasRules(for operation: ScenarioOperation) -> Bool { rules.contains { $0.operation == operation } }
}

extension ScenarioRule {
    /// Whether every condition holds (a rule without conditions always matches).
    package func matches(body: JSONNode?, headers: HTTPHeaders) -> Bool {
        conditions.allSatisfy { $0.holds(body: body, headers: headers) }
    }

    /// The step for the `callIndex`-th call (0-based); past the end, the last step.
    package func step(forCall callIndex: Int) -> (index: Int, step: ScenarioStep) {
        let index = min(max(callIndex, 0), steps.count - 1)
        return (index, steps[index])
    }

    package func decision(ruleIndex: Int, callIndex: Int) -> ScenarioDecision {
        let (index, step) = step(forCall: callIndex)
        return ScenarioDecision(outcome: step.outcome, delay: step.delay, ruleIndex: ruleIndex, stepIndex: index,
                                fromSequence: isSequence)
    }
}

extension ScenarioCondition {
    /// Whether the condition holds for a request with this JSON body and these headers.
    package func holds(body: JSONNode?, headers: HTTPHeaders) -> Bool {
        holds(headers: headers) { $0.resolve(in: body) }
    }

    /// ``holds(body:headers:)`` with `field` resolving a path in the body.
    func holds(headers: HTTPHeaders, field: (ScenarioFieldPath) -> JSONNode?) -> Bool {
        switch subject {
        case .field(let path):
            let value = field(path)
            switch test {
            case .exists(let expected): return (value != nil) == expected
            case .equals(let expected): return value.map { $0 == expected } ?? false
            case .contains(let needle):
                guard let value else { return false }
                switch value.value {
                case .string(let string): return string.contains(needle)
                case .array(let elements): return elements.contains { $0.stringValue == needle }
                default: return false
                }
            case .matches(let pattern):
                guard let value else { return false }
                switch value.value {
                case .string(let string): return pattern.matches(string)
                case .number(_, let text): return pattern.matches(text)
                default: return false
                }
            }
        case .header(let name):
            let values = headers.values(for: name)
            switch test {
            case .exists(let expected): return !values.isEmpty == expected
            case .equals(let expected):
                guard let string = expected.stringValue else { return false }
                return values.contains(string)
            case .contains(let needle): return values.contains { $0.contains(needle) }
            case .matches(let pattern): return values.contains(where: pattern.matches)
            }
        }
    }
}
