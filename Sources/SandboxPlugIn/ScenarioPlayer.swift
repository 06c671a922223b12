// SPDX-License-Identifier: MIT
import Foundation

/// How a provider's errors look, in one place: the router's errors under its prefixes (404, 405, bad framing,
/// timeouts), the errors its handlers throw (given the injected ids), both as an ``HTTPErrorRenderer``, and the
/// answers the scenario player gives itself. A provider has one; pages a browser shows may be a second format of
/// the same provider.
package protocol ProviderErrorFormat: HTTPErrorRenderer {
    /// A `Sandbox-Scenario` header that names no loaded scenario.
    func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse
    /// A scenario's `http_error` without a body: the provider's own error for that status.
    func error(status: Int, for request: HTTPRequest) -> HTTPResponse
    /// The operation failed with something that is not an HTTP answer of its own.
    func internalError(for request: HTTPRequest) -> HTTPResponse
}

extension ProviderErrorFormat {
    /// The answer to an outcome every operation allows, which no operation answers itself: `http_error` (the
    /// scenario's `body` and `headers`, else ``error(status:for:)``) and `drop_connection`; nil for any other
    /// (`commit_then_drop` runs the operation as `approve`, whose answer ``HTTPReply/droppingAnswer()`` then loses).
    /// The player answers its decisions with it, and so does an operation for the decisions it takes inside
    /// (a provider's business decisions within one call).
    package func reply(to outcome: ScenarioOutcome, for request: HTTPRequest) -> HTTPReply? {
        switch outcome {
        case let .httpError(status, body, headers):
            var response = body.map { .json(Data($0.jsonText.bytes), status: HTTPStatus(code: status)) } ?? error(status: status, for: request)
            for field in headers { response.headers.set(name: field.name, value: field.value) }
            return HTTPReply(response)
        case .dropConnection:
            return .dropConnection()
        default:
            return nil
        }
    }
}

/// An answer that ends a call before its operation runs (thrown by ``ScenarioPlayer/scenarioForNewObject(_:_:)``).
package struct ScenarioAnswer: Error, HTTPResponseError {
    package let response: HTTPResponse
    package func response(for request: HTTPRequest) -> HTTPResponse { response }
}

/// Plays the scenario decisions of every provider, one call at a time: ``decide(_:_:in:subject:object:sticky:)`` is the
/// one way to a decision (the outcome, the delay, whether the answer is dropped after the operation took effect, the
/// journal's note). ``callAsFunction(_:_:_:subject:object:sticky:perform:)`` plays an operation's own decision: it
/// waits the delay (in a task, see ``HTTPReply/later(note:_:)``), answers `http_error` and `drop_connection` itself,
/// passes every other outcome to the operation (`commit_then_drop` as `approve`, its answer then dropped), and notes
/// the decision for the journal (``HTTPReply/note``). ``play(_:_:operationAnswersAll:_:)`` and ``settle(_:_:reply:)`` do the same
/// for a decision a provider takes within a call.
package struct ScenarioPlayer<Format: ProviderErrorFormat>: Sendable {
    package let engine: ScenarioEngine
    package let format: Format

    package init(engine: ScenarioEngine, format: Format) {
        self.engine = engine
        self.format = format
    }

    /// This player answering in another format (a provider's pages beside its API).
    package func answering<Other: ProviderErrorFormat>(in format: Other) -> ScenarioPlayer<Other> {
        ScenarioPlayer<Other>(engine: engine, format: format)
    }

    /// The scenario an object created by this request sticks to (see ``ScenarioEngine/scenarioForNewObject(_:namespace:)``).
    package func scenarioForNewObject(_ request: HTTPRequest, _ namespace: Namespace) throws(ScenarioAnswer) -> String? {
        do {
            return try engine.scenarioForNewObject(request, namespace: namespace)
        } catch {
            throw ScenarioAnswer(response: format.unknownScenario(error, for: request))
        }
    }

    /// The decision for one call of `operation` in `namespace`: every scenario decision is taken here.
    /// - Parameters:
    ///   - subject: what field conditions look at; nil (the default) for the request body.
    ///   - object: what sequences count per (a session id, a token, an order id).
    ///   - sticky: the scenario the object was created under.
    /// - Throws: a `Sandbox-Scenario` header that names no loaded scenario.
    package func decide(
        _ operation: ScenarioOperation, _ request: HTTPRequest, in namespace: Namespace, subject: JSONNode?? = nil,
        object: String, sticky: String?
    ) throws(ScenarioEngine.UnknownScenario) -> PlayedDecision {
        try decide(operation, ScenarioRequestFacts(request), in: namespace, lazySubject: { subject ?? ScenarioEngine.subject(request.body) },
                   object: object, sticky: sticky)
    }

    /// ``decide(_:_:in:subject:object:sticky:)`` for a decision taken away from its request (a store's, within a
    /// call): `facts`, what the engine reads of the request; `subject`, what field conditions look at.
    package func decide(
        _ operation: ScenarioOperation, _ facts: ScenarioRequestFacts, in namespace: Namespace, subject: JSONNode?, object: String,
        sticky: String?
    ) throws(ScenarioEngine.UnknownScenario) -> PlayedDecision {
        try decide(operation, facts, in: namespace, lazySubject: { subject }, object: object, sticky: sticky)
    }

    /// ``decide(_:_:in:subject:object:sticky:)`` with the subject made only when a condition may look at it
    /// (``ScenarioEngine/decide(_:facts:namespace:lazySubject:object:sticky:)``).
    package func decide(
        _ operation: ScenarioOperation, _ facts: ScenarioRequestFacts, in namespace: Namespace, lazySubject: () -> JSONNode?,
        object: String, sticky: String?
    ) throws(ScenarioEngine.UnknownScenario) -> PlayedDecision {
        let (scenario, decision) = try engine.decide(operation, facts: facts, namespace: namespace, lazySubject: lazySubject, object: object,
                                                     sticky: sticky)
        return PlayedDecision(note: ScenarioNote(scenario: scenario, operation: operation, decision: decision, namespace: namespace))
    }

    /// ``decide(_:_:in:lazySubject:object:sticky:)`` with the subject made a top-level member at a time
    /// (``ScenarioEngine/decide(_:facts:namespace:subjectMember:object:sticky:)``).
    package func decide(
        _ operation: ScenarioOperation, _ facts: ScenarioRequestFacts, in namespace: Namespace, subjectMember: (String) -> JSONNode?,
        object: String, sticky: String?
    ) throws(ScenarioEngine.UnknownScenario) -> PlayedDecision {
        let (scenario, decision) = try engine.decide(operation, facts: facts, namespace: namespace, subjectMember: subjectMember,
                                                     object: object, sticky: sticky)
        return PlayedDecision(note: ScenarioNote(scenario: scenario, operation: operation, decision: decision, namespace: namespace))
    }

    /// - Parameters:
    ///   - subject: what field conditions look at; nil (the default) for the request body.
    ///   - object: what sequences count per (a session id, a token, an order id).
    ///   - sticky: the scenario the object was created under.
    ///   - perform: the operation, for every outcome the player does not answer itself.
    package func callAsFunction(
        _ operation: ScenarioOperation, _ request: HTTPRequest, _ namespace: Namespace, subject: JSONNode?? = nil,
        object: String, sticky: String?, perform: @escaping @Sendable (ScenarioOutcome) throws -> HTTPResponse
    ) -> HTTPReply {
        self(operation, request, namespace, subject: subject, object: object, sticky: sticky) { (outcome: ScenarioOutcome) throws -> HTTPReply in
            HTTPReply(try perform(outcome))
        }
    }

    /// As above, for an operation that decides more than a response (its own delay, a dropped connection).
    @_disfavoredOverload
    package func callAsFunction(
        _ operation: ScenarioOperation, _ request: HTTPRequest, _ namespace: Namespace, subject: JSONNode?? = nil,
        object: String, sticky: String?, perform: @escaping @Sendable (ScenarioOutcome) throws -> HTTPReply
    ) -> HTTPReply {
        self(operation, request, namespace, lazySubject: { subject ?? ScenarioEngine.subject(request.body) }, object: object, sticky: sticky,
             perform: perform)
    }

    /// As above, with the subject made only when a condition may look at it (a subject that costs a tree to make).
    package func callAsFunction(
        _ operation: ScenarioOperation, _ request: HTTPRequest, _ namespace: Namespace, lazySubject: () -> JSONNode?,
        object: String, sticky: String?, perform: @escaping @Sendable (ScenarioOutcome) throws -> HTTPReply
    ) -> HTTPReply {
        let decided: PlayedDecision
        do {
            decided = try decide(operation, ScenarioRequestFacts(request), in: namespace, lazySubject: lazySubject, object: object, sticky: sticky)
        } catch {
            return HTTPReply(format.unknownScenario(error, for: request))
        }
        return play(decided, request, ClosureOperation(body: perform))
    }

    /// As above, with the subject made a top-level member at a time (a subject whose whole tree costs more than the
    /// members conditions look at).
    package func callAsFunction(
        _ operation: ScenarioOperation, _ request: HTTPRequest, _ namespace: Namespace, subjectMember: (String) -> JSONNode?,
        object: String, sticky: String?, perform: @escaping @Sendable (ScenarioOutcome) throws -> HTTPReply
    ) -> HTTPReply {
        let decided: PlayedDecision
        do {
            decided = try decide(operation, ScenarioRequestFacts(request), in: namespace, subjectMember: subjectMember, object: object,
                                 sticky: sticky)
        } catch {
            return HTTPReply(format.unknownScenario(error, for: request))
        }
        return play(decided, request, ClosureOperation(body: perform))
    }

    /// Plays a decision before its operation: waits its delay (in a task; the wait ends early only if the server
    /// gives up on the request: handler timeout, stop), then answers its `http_error` or `drop_connection` itself, or
    /// runs `operation` with the outcome it commits (`approve` for `commit_then_drop`, whose answer is then lost).
    /// `operationAnswersAll`: `operation` runs for every outcome (a provider's page that shows `http_error` as a
    /// failed payment).
    package func play<Operation: PlayedOperation>(_ decided: PlayedDecision, _ request: HTTPRequest, operationAnswersAll: Bool = false,
                                                 _ operation: Operation) -> HTTPReply {
        if let delay = decided.delay {
            // The operation runs after the delay, as on a slow server; a later answer of its own (a business
            // decision's delay) is awaited by the same task.
            let format = self.format
            return .later(note: decided.note) {
                try? await Task.sleep(for: delay)
                return Self.answer(decided, request, format: format, operationAnswersAll: operationAnswersAll, operation)
            }
        }
        return Self.answer(decided, request, format: format, operationAnswersAll: operationAnswersAll, operation)
    }

    /// Settles a decision taken after its call took effect (a return trip, a business decision within an
    /// operation): `reply`, the call's answer, is replaced by the player's own for `http_error` and
    /// `drop_connection`, lost for `commit_then_drop`, and waits the decision's delay. The note stays the reply's.
    package func settle(_ decided: PlayedDecision, _ request: HTTPRequest, reply: HTTPReply) -> HTTPReply {
        settle(decided.outcome, delay: decided.delay, request, reply: reply)
    }

    /// The player's own answer to a decision that answers its call (`http_error`, `drop_connection`), after the
    /// decision's delay; nil for any other outcome. For a decision taken before its operation made anything.
    package func answer(_ decided: PlayedDecision, _ request: HTTPRequest) -> HTTPReply? {
        guard let universal = format.reply(to: decided.outcome, for: request) else { return nil }
        return decided.delay.map(universal.delayed(by:)) ?? universal
    }

    /// ``settle(_:_:reply:)`` for what several decisions of one call came to: the last `outcome` that answers
    /// (`http_error`, `drop_connection`), else `commit_then_drop` when one dropped the answer, and their delays' sum.
    package func settle(_ outcome: ScenarioOutcome, delay: Duration?, _ request: HTTPRequest, reply: HTTPReply) -> HTTPReply {
        var settled = reply
        if let universal = format.reply(to: outcome, for: request) { settled = universal.noted(reply.note) }
        if case .commitThenDrop = outcome { settled = settled.droppingAnswer() }
        return delay.map(settled.delayed(by:)) ?? settled
    }

    private static func answer(
        _ decided: PlayedDecision, _ request: HTTPRequest, format: Format, operationAnswersAll: Bool, _ operation: some PlayedOperation
    ) -> HTTPReply {
        var reply: HTTPReply
        if !operationAnswersAll, let universal = format.reply(to: decided.outcome, for: request) {
            reply = universal
        } else {
            do {
                reply = try operation.perform(decided.committed)
            } catch let error as any HTTPReplyError {
                reply = error.reply(for: request)
            } catch let error as any HTTPResponseError {
                reply = HTTPReply(format.render(error, for: request))
            } catch {
                reply = HTTPReply(format.internalError(for: request))
            }
        }
        // The scenario's note, unless the operation gave one of its own (read from the answer a task produces too).
        if reply.note == nil { reply.note = decided.note }
        // commit_then_drop: the operation took effect; whatever it answered (an error too) is lost on the way.
        if decided.dropAfterCommit { reply = reply.droppingAnswer() }
        return reply
    }
}

/// An operation the player runs for a decided outcome (``ScenarioPlayer/play(_:_:operationAnswersAll:_:)``): a
/// struct of what it needs, so a call that is not delayed allocates no closure context for it.
package protocol PlayedOperation: Sendable {
    func perform(_ outcome: ScenarioOutcome) throws -> HTTPReply
}

/// The operation of ``ScenarioPlayer/callAsFunction(_:_:_:subject:object:sticky:perform:)``, a closure already.
private struct ClosureOperation: PlayedOperation {
    let body: @Sendable (ScenarioOutcome) throws -> HTTPReply
    func perform(_ outcome: ScenarioOutcome) throws -> HTTPReply { try body(outcome) }
}

/// What the player decided for one call (``ScenarioPlayer/decide(_:_:in:subject:object:sticky:)``): the outcome,
/// the delay, whether the answer is dropped after the operation took effect, and the journal's note.
package struct PlayedDecision: Sendable {
    /// The scenario, the operation, the engine's decision and the namespace: the journal's note on the call.
    package let note: ScenarioNote
    package var outcome: ScenarioOutcome { note.decision.outcome }
    /// How long the answer waits; nil: it does not.
    package var delay: Duration? { note.decision.delay }
    /// `commit_then_drop`: the operation runs as `approve` (``committed``), then its answer is lost.
    package var dropAfterCommit: Bool { if case .commitThenDrop = outcome { true } else { false } }
    /// The outcome the operation runs: `approve` for `commit_then_drop`, else ``outcome``.
    package var committed: ScenarioOutcome { outcome.committed }
    /// A rule of the scenario matched (without one the outcome is the default `approve`).
    package var matchedRule: Bool { note.decision.matchedRule }
    /// The player answers the call itself (`http_error`, `drop_connection`): the operation does not run.
    package var answersCall: Bool {
        switch outcome {
        case .httpError, .dropConnection: true
        default: false
        }
    }

    package init(note: ScenarioNote) { self.note = note }
}
