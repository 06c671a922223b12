// SPDX-License-Identifier: MIT
import Foundation

/// How a provider words the answers the scenario player gives itself, in that provider's error format
/// (Klarna's envelope, Swedbank Pay's problems).
public protocol ScenarioAnswerFormat: Sendable {
    /// A `Sandbox-Scenario` header that names no loaded scenario.
    func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse
    /// A scenario's `http_error` without a body: the provider's own error for that status.
    func error(status: Int, for request: HTTPRequest) -> HTTPResponse
    /// The operation failed with something that is not an HTTP answer of its own.
    func internalError(for request: HTTPRequest) -> HTTPResponse
    /// The operation threw an error that answers for itself (the provider's, given its injected ids).
    func response(for error: any HTTPResponseError, to request: HTTPRequest) -> HTTPResponse
}

extension ScenarioAnswerFormat {
    public func response(for error: any HTTPResponseError, to request: HTTPRequest) -> HTTPResponse { error.response(for: request) }
}

/// An answer that ends a call before its operation runs (thrown by ``ScenarioPlayer/scenarioForNewObject(_:_:)``).
public struct ScenarioAnswer: Error, HTTPResponseError {
    public let response: HTTPResponse
    public func response(for request: HTTPRequest) -> HTTPResponse { response }
}

/// Plays the scenario decision for one call of any provider: waits the delay (in a task, see
/// ``HTTPResponse/later(_:)``), answers `http_error` and `drop_connection` itself, passes every other
/// outcome to the operation, and notes the decision for the journal.
public struct ScenarioPlayer<Format: ScenarioAnswerFormat>: Sendable {
    public let engine: ScenarioEngine
    public let format: Format

    public init(engine: ScenarioEngine, format: Format) {
        self.engine = engine
        self.format = format
    }

    /// The scenario an object created by this request sticks to (see ``ScenarioEngine/scenarioForNewObject(_:namespace:)``).
    public func scenarioForNewObject(_ request: HTTPRequest, _ namespace: Namespace) throws(ScenarioAnswer) -> String? {
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
    public func callAsFunction(
        _ operation: ScenarioOperation, _ request: HTTPRequest, _ namespace: Namespace, subject: JSONNode?? = nil,
        object: String, sticky: String?, perform: @escaping @Sendable (ScenarioOutcome) throws -> HTTPResponse
    ) -> HTTPResponse {
        let scenario: String?, decision: ScenarioDecision
        do {
            (scenario, decision) = try engine.decide(operation, request: request, namespace: namespace,
                                                     subject: subject ?? ScenarioEngine.subject(request.body), object: object, sticky: sticky)
        } catch {
            return format.unknownScenario(error, for: request)
        }
        if let delay = decision.delay {
            // The connection waits in a task; the wait ends early only if the server gives up on the
            // request (handler timeout, stop). The operation runs after the delay, as on a slow server.
            let format = self.format
            return .later {
                try? await Task.sleep(for: delay)
                let response = Self.answer(operation, request, scenario: scenario, decision: decision, format: format, perform: perform)
                // The operation may hand its answer over too (a business decision's own delay): one task waits for both.
                if let deferred = response.deferred { return await deferred() }
                return response
            }
        }
        return Self.answer(operation, request, scenario: scenario, decision: decision, format: format, perform: perform)
    }

    private static func answer(
        _ operation: ScenarioOperation, _ request: HTTPRequest, scenario: String?, decision: ScenarioDecision, format: Format,
        perform: (ScenarioOutcome) throws -> HTTPResponse
    ) -> HTTPResponse {
        var response: HTTPResponse
        switch decision.outcome {
        case let .httpError(status, body, headers):
            response = body.map { .json(Data($0.jsonText.bytes), status: HTTPStatus(code: status)) } ?? format.error(status: status, for: request)
            for field in headers { response.headers.set(name: field.name, value: field.value) }
        case .dropConnection:
            response = .dropConnection
        default:
            do {
                response = try perform(decision.outcome)
            } catch let error as any HTTPResponseError {
                response = format.response(for: error, to: request)
            } catch {
                response = format.internalError(for: request)
            }
        }
        let note = ScenarioNote(scenario: scenario, operation: operation, decision: decision)
        response.diagnostic = note
        if let deferred = response.deferred {
            // The journal reads the note from the answer the task produces.
            response.deferred = {
                var answer = await deferred()
                if answer.diagnostic == nil { answer.diagnostic = note }
                return answer
            }
        }
        return response
    }
}


/// The journal's note on a scenario decision; written out only when the journal is read.
public struct ScenarioNote: CustomStringConvertible, Sendable {
    public let scenario: String?
    public let operation: ScenarioOperation
    public let decision: ScenarioDecision
    public var description: String { "scenario=\(scenario ?? "-") \(operation.rawValue): \(decision)" }

    public init(scenario: String?, operation: ScenarioOperation, decision: ScenarioDecision) {
        self.scenario = scenario
        self.operation = operation
        self.decision = decision
    }
}
