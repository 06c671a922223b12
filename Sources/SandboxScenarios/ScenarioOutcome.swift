// SPDX-License-Identifier: MIT
import Foundation

/// What a call answers: the operation's normal answer, one of the universal outcomes the scenario player sends
/// itself, or an outcome a provider's ``ScenarioVocabulary`` declares, carried as that provider's typed value.
package enum ScenarioOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The normal, successful answer.
    case approve
    /// Any status; `body` is sent as is (nil: the provider's own error envelope for that status), `headers` added.
    case httpError(status: Int, body: JSONNode?, headers: HTTPHeaders)
    /// The connection is closed without an answer.
    case dropConnection
    /// The operation takes full effect as for `approve` (state changed, callbacks sent), then the connection is
    /// closed before the answer: the client must read the state again, not repeat the call.
    case commitThenDrop
    /// An outcome of the operation's provider (see ``ScenarioVocabulary/Outcome``).
    case provider(any ScenarioOutcomeValue)

    /// The outcome's name in the file format (`approve`, `http_error`, a provider's name).
    package var name: String {
        switch self {
        case .approve: "approve"
        case .httpError: "http_error"
        case .dropConnection: "drop_connection"
        case .commitThenDrop: "commit_then_drop"
        case .provider(let value): value.name
        }
    }

    /// The outcome's name, with its parameters for the ones that have them: `http_error 503`.
    package var description: String {
        switch self {
        case .httpError(let status, _, _): "http_error \(status)"
        case .provider(let value): value.description
        default: name
        }
    }

    /// The outcome the operation itself runs: `approve` for `commit_then_drop` (whose answer is then dropped,
    /// ``HTTPReply/droppingAnswer()``), else this outcome.
    package var committed: ScenarioOutcome {
        if case .commitThenDrop = self { .approve } else { self }
    }

    /// The provider's typed value, when this is an outcome of type `Value`.
    package func value<Value: ScenarioOutcomeValue>(as type: Value.Type) -> Value? {
        if case .provider(let value) = self { value as? Value } else { nil }
    }

    package static func == (lhs: ScenarioOutcome, rhs: ScenarioOutcome) -> Bool {
        switch (lhs, rhs) {
        case (.approve, .approve), (.dropConnection, .dropConnection), (.commitThenDrop, .commitThenDrop): true
        case let (.httpError(a, b, c), .httpError(x, y, z)): a == x && b == y && c == z
        case let (.provider(a), .provider(b)): a.isEqual(to: b)
        default: false
        }
    }

    /// The outcomes every operation accepts, in the order messages list them around a provider's own.
    package static let universalLeading = ["approve"]
    package static let universalTrailing = ["http_error", "drop_connection", "commit_then_drop"]
    package static var universal: [String] { universalLeading + universalTrailing }

    /// `delay_ms` range.
    package static let delayRange = 0...60_000
    /// `http_error` `status` range.
    /// A final answer: 1xx are interim responses a client would keep waiting after, so they are not allowed.
    package static let statusRange = 200...599
    /// Headers `http_error` may not set: the server frames the message itself.
    package static let reservedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]
}

/// A provider's typed outcome (an enum of its own), as a scenario step carries it.
package protocol ScenarioOutcomeValue: Sendable, CustomStringConvertible {
    /// The outcome's name in the file format.
    var name: String { get }
    func isEqual(to other: any ScenarioOutcomeValue) -> Bool
}

extension ScenarioOutcomeValue where Self: Equatable {
    package func isEqual(to other: any ScenarioOutcomeValue) -> Bool { (other as? Self) == self }
}
