// SPDX-License-Identifier: MIT
import Foundation

/// Swedbank Pay's second error format, for the checkout page: the same problems as HTML pages with their status
/// (a browser shows them). Errors its operations throw answer as problems.
struct SwedbankPayPageErrorFormat: ProviderErrorFormat {
    /// Where the instances of problems the page's operations throw come from: the sandbox's injected generator.
    let ids: any IDGenerator

    func render(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse { ids.answer(error, for: request) }
    func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse { page(SwedbankPayErrorFormat.problem(error)) }
    func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse {
        page(SwedbankPayProblem.unknownScenario(error))
    }
    func error(status: Int, for request: HTTPRequest) -> HTTPResponse { page(SwedbankPayProblem.forStatus(status)) }
    func internalError(for request: HTTPRequest) -> HTTPResponse { page(SwedbankPayProblem.systemError) }

    private func page(_ problem: SwedbankPayProblem) -> HTTPResponse {
        SwedbankPayCheckoutRoutes.html(CheckoutPage.error(problem), status: problem.status)
    }
}

/// The shared scenario player (SandboxPlugIn) speaking Swedbank Pay's problems.
typealias SwedbankPayScenarioPlayer = ScenarioPlayer<SwedbankPayErrorFormat>

extension ScenarioPlayer where Format == SwedbankPayErrorFormat {
    init(engine: ScenarioEngine, ids: any IDGenerator) { self.init(engine: engine, format: SwedbankPayErrorFormat(ids: ids)) }
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
        case 404: SwedbankPayProblem("notfound", status: .notFound, title: "Not Found", detail: "The resource was not found.")
        case 409: SwedbankPayProblem("conflict", status: .conflict, title: "Conflict", detail: "The resource is in a conflicting state.")
        case 429: SwedbankPayProblem("toomanyrequests", status: HTTPStatus(code: 429), title: "Too many requests", detail: "Too many requests.")
        default:
            status >= 500
                ? SwedbankPayProblem("systemerror", status: HTTPStatus(code: status), title: "System error", detail: "An internal error occurred.")
                : SwedbankPayProblem("inputerror", status: HTTPStatus(code: status), title: "Error in input data", detail: "The request failed.")
        }
    }
}

/// This sandbox's base URL as the client sees it (``HTTPRequest/publicOrigin``): the sandbox's public base URL or the
/// URL of an in-process request (``HTTPRequest/publicOriginOverride``), else `configured`
/// (``SwedbankPayConfiguration/publicBaseURL``), else what the proxy in front reports or `Host`. Forwarded headers
/// count only from a trusted proxy: Swedbank Pay's PHP SDK sends `Forwarded: for=<payer ip>; proto=https` on every
/// call (SwedbankPay/swedbank-pay-sdk-php: src/SwedbankPay/Api/Client/Client.php).
func publicBaseURL(_ request: HTTPRequest, configured: String?) -> String {
    if request.publicOriginOverride?.isEmpty == false, let origin = request.publicOrigin { return origin }
    if let configured, !configured.isEmpty { return configured.hasSuffix("/") ? String(configured.dropLast()) : configured }
    return request.publicOrigin ?? "http://localhost"
}
