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

/// Plays the scenario decision for one call of any provider: waits the delay (in a task, see
/// ``HTTPReply/later(note:_:)``), answers `http_error` and `drop_connection` itself, passes every other
/// outcome to the operation (`commit_then_drop` as `approve`, its answer then dropped), and notes the decision for the journal (``HTTPReply/note``).
package struct ScenarioPlayer<Format: ProviderErrorFormat>: Sendable {
    package let engine: ScenarioEngine
    package let format: Format

    package init(engine: ScenarioEngine, format: Format) {
        self.engine = engine
        self.format = format
    }

    /// The scenario an object created by this request sticks to (see ``ScenarioEngine/scenarioForNewObject(_:namespace:)``).
    package func scenarioForNewObject(_ request: HTTPRequest, _ namespace: Namespace) throws(ScenarioAnswer) -> String? {
        do {
            return try engine.scenarioForNewObject(request, namespace: namespace)
        } catch {
            throw ScenarioAnswer(response: format.unknownScenario(error, for: request))
        }
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
        let scenario: String?, decision: ScenarioDecision
        do {
            (scenario, decision) = try engine.decide(operation, request: request, namespace: namespace,
                                                     subject: subject ?? ScenarioEngine.subject(request.body), object: object, sticky: sticky)
        } catch {
            return HTTPReply(format.unknownScenario(error, for: request))
        }
        let note = ScenarioNote(scenario: scenario, operation: operation, decision: decision)
        if let delay = decision.delay {
            // The connection waits in a task; the wait ends early only if the server gives up on the
            // request (handler timeout, stop). The operation runs after the delay, as on a slow server; a
            // later answer of its own (a business decision's delay) is awaited by the same task.
            let format = self.format
            return .later(note: note) {
                try? await Task.sleep(for: delay)
                return Self.answer(decision.outcome, request, note: note, format: format, perform: perform)
            }
        }
        return Self.answer(decision.outcome, request, note: note, format: format, perform: perform)
    }

    private static func answer(
        _ outcome: ScenarioOutcome, _ request: HTTPRequest, note: ScenarioNote, format: Format,
        perform: (ScenarioOutcome) throws -> HTTPReply
    ) -> HTTPReply {
        var reply: HTTPReply
        if let universal = format.reply(to: outcome, for: request) {
            reply = universal
        } else {
            do {
                reply = try perform(outcome.committed)
            } catch let error as any HTTPReplyError {
                reply = error.reply(for: request)
            } catch let error as any HTTPResponseError {
                reply = HTTPReply(format.render(error, for: request))
            } catch {
                reply = HTTPReply(format.internalError(for: request))
            }
        }
        // The scenario's note, unless the operation gave one of its own (read from the answer a task produces too).
        if reply.note == nil { reply.note = note }
        // commit_then_drop: the operation took effect; whatever it answered (an error too) is lost on the way.
        if case .commitThenDrop = outcome { reply = reply.droppingAnswer() }
        return reply
    }
}
