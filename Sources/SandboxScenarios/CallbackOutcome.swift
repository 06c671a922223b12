// SPDX-License-Identifier: MIT
import Foundation

/// What a callback operation's scenario step makes of one callback (each provider declares these outcomes for its
/// callback operation in its vocabulary, see ``declarations(schedule:)``). The universal outcomes mean: `approve`,
/// sent as usual; `http_error`, every call fails as if the merchant answered that status; `drop_connection`, every
/// call fails as if no answer came; `delay_ms`, the first call waits that long (real time).
package enum CallbackOutcome: ScenarioOutcomeValue, Equatable {
    /// Not sent: kept in the outbox (`held`) until delivered by hand.
    case notSent
    /// The first call waits this many seconds of the namespace's sandbox clock.
    case late(seconds: Int)
    /// Sent twice (two outbox entries, the same body).
    case twice
    /// The payer's redirect waits until the first call has its answer.
    case beforeRedirect
    /// The first `failures` calls (nil: all of the schedule) fail without calling the merchant, as if it
    /// answered `status`; the provider's retry schedule runs as for a real failure.
    case failing(status: Int, failures: Int?)

    package var name: String {
        switch self {
        case .notSent: "callback_not_sent"
        case .late: "callback_late"
        case .twice: "callback_twice"
        case .beforeRedirect: "callback_before_redirect"
        case .failing: "callback_failing"
        }
    }

    package var description: String {
        switch self {
        case .late(let seconds): "callback_late \(seconds) s"
        case .failing(let status, let failures): "callback_failing \(status) \(failures.map { "×\($0)" } ?? "every call")"
        default: name
        }
    }

    /// Every callback outcome's name.
    package static let names = ["callback_not_sent", "callback_late", "callback_twice", "callback_before_redirect", "callback_failing"]

    /// `callback_late` default `seconds`, and the range of `seconds` (up to 30 days).
    package static let defaultLateSeconds = 60
    package static let lateRange = 1...2_592_000
    /// `callback_failing`: the status it pretends (any that is not a 2xx or 1xx), default 500.
    package static let failingStatusRange = 300...599
    package static let defaultFailingStatus = 500

    /// The outcomes, for a provider's vocabulary; `schedule` words the provider's retries (e.g. "4 calls, 10 s apart").
    package static func declarations(schedule: String) -> [ScenarioVocabulary.Outcome] {
        [
            .init(CallbackOutcome.notSent, "Callbacks. Not sent: kept in the outbox (state held) until POST /__sandbox/callbacks/{id}/deliver."),
            .init("callback_late", "Callbacks. The first call waits \"seconds\" (default \(defaultLateSeconds)) of the namespace's sandbox clock (POST /__sandbox/clock moves it).",
                  parameters: [.init("seconds", .integer(lateRange), "Seconds of the sandbox clock before the first call. Default \(defaultLateSeconds).")]) { reader in
                guard let node = reader["seconds"] else { return CallbackOutcome.late(seconds: defaultLateSeconds) }
                return reader.integer(node, reader.path / "seconds", in: lateRange).map { CallbackOutcome.late(seconds: $0) }
            },
            .init(CallbackOutcome.twice, "Callbacks. Sent twice: two outbox entries with the same body, each delivered and retried on its own."),
            .init(CallbackOutcome.beforeRedirect, "Callbacks. Sent before the payer is redirected: the answer that redirects the payer waits until the callback's first call has its answer."),
            .init("callback_failing", "Callbacks. The merchant's failure simulated: the first \"failures\" calls (default: every call) are not made and count as answered \"status\" (default \(defaultFailingStatus)); retried per the provider's schedule (\(schedule)) on the sandbox clock.",
                  parameters: [.init("status", .integer(failingStatusRange), "The status the failed calls pretend the merchant answered. Default \(defaultFailingStatus)."),
                               .init("failures", .integer(1...1_000), "How many calls fail before the merchant is really called. Default: every call of the schedule.")]) { reader in
                var ok = true
                var status = defaultFailingStatus
                var failures: Int?
                if let node = reader["status"] {
                    if let value = reader.integer(node, reader.path / "status", in: failingStatusRange) { status = value } else { ok = false }
                }
                if let node = reader["failures"] {
                    if let value = reader.integer(node, reader.path / "failures", in: 1...1_000) { failures = value } else { ok = false }
                }
                return ok ? CallbackOutcome.failing(status: status, failures: failures) : nil
            },
        ]
    }
}

extension CallbackPlan {
    /// What `decision` makes of a callback (see ``CallbackOutcome``).
    package init(_ decision: ScenarioDecision, scenario: String?, operation: ScenarioOperation) {
        self.init()
        delay = decision.delay
        switch decision.outcome {
        // commit_then_drop drops the sandbox's own answer after the operation took effect; a callback's caller is
        // the sandbox, so there is no answer of ours to drop: it is sent as for approve.
        case .approve, .commitThenDrop: break
        case .httpError(let status, _, _): (simulatedFailures, simulatedStatus) = (nil, status)
        case .dropConnection: (simulatedFailures, simulatedStatus) = (nil, nil)
        case .provider(let value):
            switch value as? CallbackOutcome {
            case .notSent?: held = true
            case .late(let seconds)?: lateSeconds = TimeInterval(seconds)
            case .twice?: copies = 2
            case .beforeRedirect?: holdsRedirect = true
            case .failing(let status, let failures)?: (simulatedFailures, simulatedStatus) = (failures, status)
            case nil: break
            }
        }
        if decision.matchedRule {
            self.scenario = ScenarioNote(scenario: scenario, operation: operation, decision: decision).description
        }
    }
}

extension ScenarioEngine {
    /// The plan for one callback of `object`: its scenario is the object's (`sticky`), else the namespace's default
    /// (a callback carries no request headers); field conditions look at the callback's `body`. Sequences count
    /// the object's callbacks.
    package func planCallback(_ operation: ScenarioOperation, namespace: Namespace, body: Data, object: String,
                              sticky: String?) -> CallbackPlan {
        guard let request = try? HTTPRequest(method: .post, target: "/"),
              let (scenario, decision) = try? decide(operation, request: request, namespace: namespace,
                                                     subject: ScenarioEngine.subject(body), object: object, sticky: sticky)
        else { return .normal }
        return CallbackPlan(decision, scenario: scenario, operation: operation)
    }
}
