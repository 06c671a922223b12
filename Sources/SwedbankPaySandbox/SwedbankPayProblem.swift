// SPDX-License-Identifier: MIT
import Foundation

/// An RFC 7807 problem as Swedbank Pay writes them (swedbankpay-api.md §2.1):
/// `{"type": "https://api.payex.com/psp/errordetail/paymentorders/inputerror", "title": "Error in input data",
///   "status": 400, "instance": "https://api.payex.com/psp/probleminstance/00-…-01", "detail": "…",
///   "problems": [{"name": "PaymentOrder.Amount", "description": "…"}]}`.
package struct SwedbankPayProblem: Error, ProviderError, Equatable, Sendable {
    package struct Detail: Equatable, Sendable {
        package var name: String
        package var description: String
        package init(name: String, description: String) {
            self.name = name
            self.description = description
        }
    }

    /// The part after `https://api.payex.com/psp/errordetail/`, e.g. `paymentorders/inputerror`, `swishdeclined`.
    package var typeName: String
    package var title: String
    package var status: HTTPStatus
    package var detail: String
    package var problems: [Detail]
    /// Members some problems carry besides the standard ones (`sessionId` for Swish, §2.1).
    package var extras: [(String, JSONText)]

    package init(_ typeName: String, status: HTTPStatus, title: String, detail: String, problems: [Detail] = [],
                extras: [(String, JSONText)] = []) {
        self.typeName = typeName
        self.status = status
        self.title = title
        self.detail = detail
        self.problems = problems
        self.extras = extras
    }

    package static let typePrefix = "https://api.payex.com/psp/errordetail/"
    package var type: String { Self.typePrefix + typeName }

    /// The body; `instance` is fresh each time, as Swedbank Pay's trace ids are (§2.1), drawn from `ids`.
    package func json(ids: any IDGenerator) -> JSONText {
        var members: [(String, JSONText)] = [
            ("type", .string(type)), ("title", .string(title)), ("status", .int(status.code)),
            ("instance", .string(Self.newInstance(ids))), ("detail", .string(detail)),
        ]
        if !problems.isEmpty {
            members.append(("problems", .array(problems.map { .object([("name", .string($0.name)), ("description", .string($0.description))]) })))
        }
        members += extras
        return .object(members)
    }

    /// The answer with an `instance` from `ids`, the sandbox's injected generator.
    package func response(for request: HTTPRequest, ids: any IDGenerator) -> HTTPResponse {
        // The docs show `application/json` for problems; `application/problem+json` appears only as the
        // content type of the `failed-paymentorder` rel (swedbankpay-api.md §2.1, uncertain which is live).
        var response = HTTPResponse.json(json(ids: ids).data, status: status, contentType: "application/json; charset=utf-8")
        if status == .unauthorized { response.headers.add(name: "WWW-Authenticate", value: "Bearer") }
        return response
    }

    /// `https://api.payex.com/psp/probleminstance/00-<32 hex>-<16 hex>-01` (§2.1).
    static func newInstance(_ ids: any IDGenerator) -> String {
        let a = SwedbankPayASCII.removingDashes(ids.errorID())
        let b = SwedbankPayASCII.removingDashes(ids.errorID()).prefix(16)
        return "https://api.payex.com/psp/probleminstance/00-\(a)-\(b)-01"
    }

    package static func == (lhs: SwedbankPayProblem, rhs: SwedbankPayProblem) -> Bool {
        lhs.typeName == rhs.typeName && lhs.title == rhs.title && lhs.status == rhs.status && lhs.detail == rhs.detail
            && lhs.problems == rhs.problems
    }
}

extension SwedbankPayProblem {
    /// A `Sandbox-Namespace` header longer than a namespace name may be (``NamespaceRefusal``): an input error
    /// naming the header, as Swedbank Pay names a bad field (§2.1).
    package static func namespaceRefused(_ refusal: NamespaceRefusal) -> SwedbankPayProblem {
        SwedbankPayProblem("inputerror", status: .badRequest, title: "Error in input data", detail: refusal.message,
                           problems: [Detail(name: Namespace.headerName, description: refusal.message)])
    }
}

/// Swedbank Pay's errors, all as problems (§2): 404, 405, framing errors, timeouts and uncaught errors under a
/// Swedbank Pay path, the errors its handlers throw, and the scenario player's own answers.
package struct SwedbankPayErrorFormat: ProviderErrorFormat {
    /// Where problem instances come from: the sandbox's injected generator.
    package let ids: any IDGenerator
    package init(ids: any IDGenerator) { self.ids = ids }

    package func render(_ error: any HTTPResponseError, for request: HTTPRequest) -> HTTPResponse {
        if let refusal = error as? NamespaceRefusal { return SwedbankPayProblem.namespaceRefused(refusal).response(for: request, ids: ids) }
        return ids.answer(error, for: request)
    }

    package func unknownScenario(_ error: ScenarioEngine.UnknownScenario, for request: HTTPRequest) -> HTTPResponse {
        SwedbankPayProblem.unknownScenario(error).response(for: request, ids: ids)
    }
    package func error(status: Int, for request: HTTPRequest) -> HTTPResponse { SwedbankPayProblem.forStatus(status).response(for: request, ids: ids) }
    package func internalError(for request: HTTPRequest) -> HTTPResponse { SwedbankPayProblem.systemError.response(for: request, ids: ids) }

    package func render(_ error: HTTPError, for request: HTTPRequest) -> HTTPResponse {
        var response = Self.problem(error).response(for: request, ids: ids)
        if case let .methodNotAllowed(allowed) = error.kind {
            response.headers.set(name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
        }
        return response
    }

    /// The problem a protocol-level error is.
    static func problem(_ error: HTTPError) -> SwedbankPayProblem {
        let problem: SwedbankPayProblem
        switch error.kind {
        case .notFound:
            problem = SwedbankPayProblem("notfound", status: .notFound, title: "Not Found", detail: error.message)
        case .methodNotAllowed:
            problem = SwedbankPayProblem("methodnotallowed", status: error.status, title: "Method not allowed", detail: error.message)
        case .malformedRequest:
            problem = SwedbankPayProblem("inputerror", status: error.status, title: "Error in input data", detail: error.message)
        case .handlerTimeout, .internalError:
            problem = SwedbankPayProblem("systemerror", status: error.status, title: "System error", detail: error.message)
        case .other:
            problem = SwedbankPayProblem(error.status.code >= 500 ? "systemerror" : "inputerror", status: error.status,
                                         title: error.status.code >= 500 ? "System error" : "Error in input data", detail: error.message)
        }
        return problem
    }
}

/// Failed attempts keep their problem in the state file (`--state-file`). Written out because `extras` is a list
/// of pairs, kept as one JSON object.
extension SwedbankPayProblem: Codable {
    private enum CodingKeys: String, CodingKey { case typeName, title, status, detail, problems, extras }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var extras: [(String, JSONText)] = []
        if case .object(let members) = try container.decode(JSONText.self, forKey: .extras) { extras = members }
        self.init(try container.decode(String.self, forKey: .typeName), status: try container.decode(HTTPStatus.self, forKey: .status),
                  title: try container.decode(String.self, forKey: .title), detail: try container.decode(String.self, forKey: .detail),
                  problems: try container.decode([Detail].self, forKey: .problems), extras: extras)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(typeName, forKey: .typeName)
        try container.encode(title, forKey: .title)
        try container.encode(status, forKey: .status)
        try container.encode(detail, forKey: .detail)
        try container.encode(problems, forKey: .problems)
        try container.encode(JSONText.object(extras), forKey: .extras)
    }
}

extension SwedbankPayProblem.Detail: Codable {}
