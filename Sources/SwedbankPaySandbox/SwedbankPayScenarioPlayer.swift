// SPDX-License-Identifier: MIT
import Foundation

/// Plays the scenario decision for one Swedbank Pay call, as the Klarna player does: waits the delay (in
/// a task), answers `http_error` and `drop_connection` itself (an `http_error` without a body is the
/// problem Swedbank Pay sends for that status), passes every other outcome to the operation and notes
/// the decision for the journal.
struct SwedbankPayScenarioPlayer: Sendable {
    let engine: ScenarioEngine

    func scenarioForNewObject(_ request: HTTPRequest, _ namespace: Namespace) throws(SwedbankPayProblem) -> String? {
        do {
            return try engine.scenarioForNewObject(request, namespace: namespace)
        } catch {
            throw SwedbankPayProblem.unknownScenario(error)
        }
    }

    func callAsFunction(
        _ operation: ScenarioOperation, _ request: HTTPRequest, _ namespace: Namespace, subject: JSONNode?? = nil,
        object: String, sticky: String?, perform: @escaping @Sendable (ScenarioOutcome) throws -> HTTPResponse
    ) -> HTTPResponse {
        let scenario: String?, decision: ScenarioDecision
        do {
            (scenario, decision) = try engine.decide(operation, request: request, namespace: namespace,
                                                     subject: subject ?? ScenarioEngine.subject(request.body), object: object, sticky: sticky)
        } catch {
            return SwedbankPayProblem.unknownScenario(error).response(for: request)
        }
        if let delay = decision.delay {
            return .later {
                try? await Task.sleep(for: delay)
                return Self.answer(operation, request, scenario: scenario, decision: decision, perform: perform)
            }
        }
        return Self.answer(operation, request, scenario: scenario, decision: decision, perform: perform)
    }

    private static func answer(
        _ operation: ScenarioOperation, _ request: HTTPRequest, scenario: String?, decision: ScenarioDecision,
        perform: (ScenarioOutcome) throws -> HTTPResponse
    ) -> HTTPResponse {
        var response: HTTPResponse
        switch decision.outcome {
        case let .httpError(status, body, headers):
            if let body {
                response = .json(Data(body.jsonText.bytes), status: HTTPStatus(code: status))
            } else {
                response = SwedbankPayProblem.forStatus(status).response(for: request)
            }
            for field in headers { response.headers.set(name: field.name, value: field.value) }
        case .dropConnection:
            response = .dropConnection
        default:
            do {
                response = try perform(decision.outcome)
            } catch let error as any HTTPResponseError {
                response = error.response(for: request)
            } catch {
                response = SwedbankPayProblem.systemError.response(for: request)
            }
        }
        response.diagnostic = SwedbankPayScenarioNote(scenario: scenario, operation: operation, decision: decision)
        return response
    }
}

/// The journal's note on a scenario decision; written out only when the journal is read.
struct SwedbankPayScenarioNote: CustomStringConvertible, Sendable {
    let scenario: String?
    let operation: ScenarioOperation
    let decision: ScenarioDecision
    var description: String { "scenario=\(scenario ?? "-") \(operation.rawValue): \(decision)" }
}

extension SwedbankPayProblem {
    static let systemError = SwedbankPayProblem("systemerror", status: .internalServerError, title: "System error",
                                                detail: "An internal error occurred in the sandbox.")

    /// A `Sandbox-Scenario` header naming no loaded scenario.
    static func unknownScenario(_ error: ScenarioEngine.UnknownScenario) -> SwedbankPayProblem {
        SwedbankPayProblem("inputerror", status: .badRequest, title: "Error in input data", detail: "Sandbox-Scenario: \(error)")
    }

    /// The problem a scenario's `http_error` without a body sends (swedbankpay-api.md §2.2, inferred per status).
    static func forStatus(_ status: Int) -> SwedbankPayProblem {
        switch status {
        case 400: SwedbankPayProblem("inputerror", status: .badRequest, title: "Error in input data", detail: "Input validation failed.")
        case 401: SwedbankPayProblem("unauthorized", status: .unauthorized, title: "Unauthorized", detail: "The request is not authorized.")
        case 403: SwedbankPayProblem("forbidden", status: .forbidden, title: "Forbidden", detail: "The operation is not allowed.")
        case 404: SwedbankPayProblem("notfound", status: .notFound, title: "Not found", detail: "The resource was not found.")
        case 409: SwedbankPayProblem("conflict", status: .conflict, title: "Conflict", detail: "The resource is in a conflicting state.")
        case 429: SwedbankPayProblem("toomanyrequests", status: HTTPStatus(code: 429), title: "Too many requests", detail: "Too many requests.")
        default:
            status >= 500
                ? SwedbankPayProblem("systemerror", status: HTTPStatus(code: status), title: "System error", detail: "An internal error occurred.")
                : SwedbankPayProblem("inputerror", status: HTTPStatus(code: status), title: "Error in input data", detail: "The request failed.")
        }
    }
}

/// This sandbox's base URL as the client sees it: the configured one, else `X-Forwarded-Proto` /
/// `X-Forwarded-Host` behind a proxy, else `Host`.
func publicBaseURL(_ request: HTTPRequest, configured: String?) -> String {
    if let configured, !configured.isEmpty { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
    let host = request.headers["X-Forwarded-Host"] ?? request.headers["Host"] ?? "localhost"
    let scheme = request.headers["X-Forwarded-Proto"] ?? "http"
    return "\(scheme)://\(host)"
}
