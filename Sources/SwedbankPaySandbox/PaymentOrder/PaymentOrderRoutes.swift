// SPDX-License-Identifier: MIT
import Foundation

/// `/psp/paymentorders/...`: the merchant backend's Payment Order v3 API (swedbankpay-api.md §1). Bearer auth,
/// the namespace from `Sandbox-Namespace` else the Bearer token; every route goes through the scenario
/// player, the order sticking to its create request's scenario and sequences counting per order id.
package struct SwedbankPayPaymentOrderRoutes: Sendable {
    package let store: SwedbankPayOrderStore
    package let scenarios: ScenarioEngine
    package let journal: Journal
    private let play: SwedbankPayScenarioPlayer
    private let configuration: SwedbankPayConfiguration

    package init(store: SwedbankPayOrderStore, scenarios: ScenarioEngine, journal: Journal) {
        self.store = store
        self.scenarios = scenarios
        self.journal = journal
        play = SwedbankPayScenarioPlayer(engine: scenarios, ids: store.ids)
        configuration = store.configuration
    }

    package func add(to router: inout Router) {
        router.addImmediate("POST /psp/paymentorders") { try create($0) }
        router.addImmediate("GET /psp/paymentorders/:id") { try read($0) }
        router.addImmediate("GET /psp/paymentorders/:id/:node") { try readNode($0) }
        router.addImmediate("PATCH /psp/paymentorders/:id") { try update($0) }
        router.addImmediate("POST /psp/paymentorders/:id/captures") { try postPurchase($0, .swedbankPayCapture, .capture) }
        router.addImmediate("POST /psp/paymentorders/:id/cancellations") { try postPurchase($0, .swedbankPayCancel, .cancel) }
        router.addImmediate("POST /psp/paymentorders/:id/reversals") { try postPurchase($0, .swedbankPayReversal, .reversal) }
        // Deleting a token: `PATCH /psp/paymentorders/{paymentTokens|recurrenceTokens|unscheduledTokens}/<token>` with
        // `{"state": "Deleted", "comment": …}` (the developer portal's page on deleting tokens). Paths as the page
        // spells them, and in lower case.
        router.addImmediate("PATCH /psp/paymentorders/paymentTokens/:token") { try deleteToken($0, .payment) }
        router.addImmediate("PATCH /psp/paymentorders/paymenttokens/:token") { try deleteToken($0, .payment) }
        router.addImmediate("PATCH /psp/paymentorders/recurrenceTokens/:token") { try deleteToken($0, .recurrence) }
        router.addImmediate("PATCH /psp/paymentorders/recurrencetokens/:token") { try deleteToken($0, .recurrence) }
        router.addImmediate("PATCH /psp/paymentorders/unscheduledTokens/:token") { try deleteToken($0, .unscheduled) }
        router.addImmediate("PATCH /psp/paymentorders/unscheduledtokens/:token") { try deleteToken($0, .unscheduled) }
    }

    /// The transaction collections under an order: POST only (``readNode(_:)``).
    private static let postPurchaseCollections = ["captures", "cancellations", "reversals"]

    /// The order a request names, its namespace, sticky scenario and stored version.
    private func target(_ request: HTTPRequest) throws(SwedbankPayProblem)
    -> (namespace: Namespace, orderID: String, sticky: String?, version: SwedbankPayAPIVersion) {
        let namespace = try SwedbankPayAuth.authenticate(request, configuration)
        let orderID = request.parameters["id"] ?? ""
        guard let version = store.versionOf(namespace, orderID: orderID) else { throw .orderNotFound(orderID) }
        return (namespace, orderID, store.scenarioOf(namespace, orderID: orderID), version)
    }

    private func base(_ request: HTTPRequest) -> String { publicBaseURL(request, configured: configuration.publicBaseURL) }

    // MARK: Create

    private func create(_ request: HTTPRequest) throws -> HTTPReply {
        let namespace = try SwedbankPayAuth.authenticate(request, configuration)
        let sticky = try play.scenarioForNewObject(request, namespace)
        // The body, parsed once: the decision's subject (as the player would parse it) and the order's request.
        let body = ScenarioEngine.subject(request.body)
        return play(.swedbankPayCreatePaymentOrder, request, namespace, subject: .some(body), object: "new", sticky: sticky) { _ -> HTTPReply in
            try createOrder(request, namespace, body: body, sticky: sticky)
        }
    }

    /// The order of a create, made once its scenario decision let the call through; `body`: the body parsed, if it parses.
    private func createOrder(_ request: HTTPRequest, _ namespace: Namespace, body: JSONNode?, sticky: String?) throws -> HTTPReply {
        let document = try body.map { node throws(SwedbankPayProblem) in try SwedbankPayOrderValidation.requireObject(node) }
            ?? SwedbankPayOrderValidation.parse(request.body)
        let object = try SwedbankPayOrderValidation.paymentOrderObject(document)
        let version = try SwedbankPayAuth.createVersion(request, object)
        let parsed = try SwedbankPayOrderValidation.createOrderRequest(object, version: version, configuration: configuration)
        let userAgent = request.headers["User-Agent"] ?? parsed.userAgent
        let orderID: String
        var decided: PlayedDecision?
        if let used = parsed.useToken {
            // The token first: 404 when unknown, 422 once deleted, and no order (swedbankpay-api.md §2.2).
            let token = try store.activeToken(namespace, used.kind, used.token)
            if parsed.orderOperation.isMerchantInitiated {
                let decision = try cardAuthorize(request, namespace, parsed, token, sticky: sticky)
                // The decision's http_error (with its body and headers) or drop_connection: no order is made.
                if let answer = play.answer(decision, request) { return answer }
                decided = decision
                orderID = store.createPaid(namespace, parsed, version: version, scenario: sticky, initiatingSystemUserAgent: userAgent,
                                           token: token, declined: Self.decline(decision.outcome))
            } else {
                orderID = store.create(namespace, parsed, version: version, scenario: sticky, initiatingSystemUserAgent: userAgent)
            }
        } else {
            orderID = store.create(namespace, parsed, version: version, scenario: sticky, initiatingSystemUserAgent: userAgent)
        }
        // 200 OK, not 201 (swedbankpay-api.md §1.3).
        let reply = HTTPReply(.swedbankPay(try store.document(namespace, orderID: orderID, base: base(request), expand: []), version: version))
        // card.authorize's delay_ms delays the answer; its commit_then_drop pays the order and drops the answer.
        return decided.map { play.settle($0, request, reply: reply) } ?? reply
    }

    /// card.authorize for the stored card of a Recur or UnscheduledPurchase (sequences count per token), journaled
    /// as a `DECISION` entry: a scenario's card_declined, insufficient_funds, card_expired or fail_attempt fails
    /// the order (``decline(_:)``).
    private func cardAuthorize(_ request: HTTPRequest, _ namespace: Namespace, _ parsed: SwedbankPayCreateOrderRequest,
                               _ token: SwedbankPayOrderLedger.StoredToken, sticky: String?) throws(SwedbankPayProblem) -> PlayedDecision {
        let decided: PlayedDecision
        do {
            decided = try play.decide(.swedbankPayCardAuthorize, ScenarioRequestFacts(request), in: namespace, lazySubject: {
                JSONNode(.object([
                    ("paymentorder", parsed.json.jsonText), ("paymentMethod", .string(token.instrument)),
                    ("card", .object([("maskedPan", .string(token.name)), ("brand", .string(token.cardBrand))])), ("msisdn", .null),
                    ("body", .null),
                ]))
            }, object: token.token, sticky: sticky)
        } catch {
            throw SwedbankPayProblem.unknownScenario(error)
        }
        journal.record(namespace, method: "DECISION", path: request.path, status: 0, event: decided.note)
        return decided
    }

    // MARK: Reads and updates

    private func read(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky, version) = try target(request)
        return play(.swedbankPayReadPaymentOrder, request, namespace, object: orderID, sticky: sticky) { _ throws(SwedbankPayProblem) in
            .swedbankPay(try store.document(namespace, orderID: orderID, base: base(request), expand: expansions(request)),
                         version: SwedbankPayAuth.readVersion(request) ?? version)
        }
    }

    private func readNode(_ request: HTTPRequest) throws -> HTTPReply {
        let segment = (request.parameters["node"] ?? "").lowercased()
        // The transaction collections take POST only: 405 as for any other route (not a 404 of an unknown node).
        if Self.postPurchaseCollections.contains(segment) {
            throw HTTPError.methodNotAllowed(request.method, allowed: [.post])
        }
        let (namespace, orderID, sticky, version) = try target(request)
        return play(.swedbankPayReadPaymentOrder, request, namespace, object: orderID, sticky: sticky) { _ throws(SwedbankPayProblem) in
            .swedbankPay(try store.node(namespace, orderID: orderID, segment: segment), version: SwedbankPayAuth.readVersion(request) ?? version)
        }
    }

    private func update(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky, version) = try target(request)
        try SwedbankPayAuth.requireJSON(request)
        // The scenario operation follows the body's `operation`; unreadable bodies count as update_order.
        let object = try? SwedbankPayOrderValidation.paymentOrderObject(SwedbankPayOrderValidation.parse(request.body))
        let operation: ScenarioOperation = switch object?["operation"]?.stringValue {
        case "Abort": .swedbankPayAbortPaymentOrder
        case "PaymentAttemptAborted": .swedbankPayAbortPaymentAttempt
        default: .swedbankPayUpdatePaymentOrder
        }
        return play(operation, request, namespace, object: orderID, sticky: sticky) { _ throws(SwedbankPayProblem) in
            let object = try SwedbankPayOrderValidation.paymentOrderObject(SwedbankPayOrderValidation.parse(request.body))
            try store.patch(namespace, orderID: orderID, SwedbankPayOrderValidation.patch(object))
            return .swedbankPay(try store.document(namespace, orderID: orderID, base: base(request), expand: []), version: version)
        }
    }

    // MARK: Post-purchases and tokens

    private func postPurchase(_ request: HTTPRequest, _ operation: ScenarioOperation, _ kind: SwedbankPayPostPurchase) throws -> HTTPReply {
        let (namespace, orderID, sticky, stored) = try target(request)
        try SwedbankPayAuth.requireJSON(request)
        return play(operation, request, namespace, object: orderID, sticky: sticky) { outcome throws(SwedbankPayProblem) in
            let transaction = try SwedbankPayOrderValidation.transaction(request.body, kind)
            var refused = false
            if outcome.swedbankPay == .refused { refused = true }
            let made = try store.postPurchase(namespace, orderID: orderID, kind, transaction, refused: refused)
            let version = SwedbankPayAuth.requestVersion(request) ?? stored
            switch version {
            case .v3_1:
                // v3.1: the full payment order and its operations (swedbankpay-api.md §1.7); 200 inferred. `$expand`
                // as on GET: the PHP SDK asks for `financialtransactions,paid` and reads the new transaction there
                // (swedbankpay-api.md, Corrections and additions).
                return .swedbankPay(try store.document(namespace, orderID: orderID, base: base(request), expand: expansions(request)),
                                    version: version)
            case .v3_0:
                return .swedbankPay(store.transactionAnswer(namespace, orderID: orderID, kind, made), version: version)
            }
        }
    }

    private func deleteToken(_ request: HTTPRequest, _ kind: SwedbankPayTokenKind) throws -> HTTPReply {
        let namespace = try SwedbankPayAuth.authenticate(request, configuration)
        try SwedbankPayAuth.requireJSON(request)
        let value = request.parameters["token"] ?? ""
        return play(.swedbankPayDeleteToken, request, namespace, object: value, sticky: nil) { _ throws(SwedbankPayProblem) in
            let body = try SwedbankPayOrderValidation.parse(request.body, name: "Token")
            guard body["state"]?.stringValue == "Deleted" else {
                throw .input([.init(name: "State", description: "The field State must be \"Deleted\".")])
            }
            let token = try store.deleteToken(namespace, kind, value)
            return .swedbankPay(Self.deletedTokenAnswer(token, store.ids.uuid()), version: SwedbankPayAuth.requestVersion(request) ?? .v3_1)
        }
    }

    /// The failure a merchant-initiated card.authorize's outcome makes of the order (swedbankpay-api.md §1.5 `Failed`:
    /// "mainly recur/unscheduled orders, where only one attempt is allowed"); nil: it is paid.
    static func decline(_ outcome: ScenarioOutcome) -> SwedbankPayProblem? {
        guard let failure = outcome.swedbankPay.flatMap(SwedbankPayPaymentSessionStore.attemptFailure) else { return nil }
        var problem = failure.problem
        if let original = failure.originalDetail { problem.problems = [.init(name: "ExternalResponse", description: original)] }
        return problem
    }

    /// The answer to a deletion: `{"token", "isDeleted": true}` for a recurrence token; the others name the card
    /// (`paymentToken` for a payment token) (the developer portal's page on deleting tokens).
    static func deletedTokenAnswer(_ token: SwedbankPayOrderLedger.StoredToken, _ correlationID: String) -> JSONText {
        if token.kind == .recurrence { return .object([("token", .string(token.token)), ("isDeleted", .bool(true))]) }
        return .object([
            (token.kind == .payment ? "paymentToken" : "token", .string(token.token)), ("instrument", .string(token.instrument)),
            ("instrumentDisplayName", .string(token.name)), ("correlationId", .string(correlationID)),
            ("instrumentParameters", .object([("cardBrand", .string(token.cardBrand)), ("expiryDate", .string(token.expiryDate))])),
        ])
    }
}

/// `$expand=paid,FinancialTransactions`: comma-separated, case-insensitive node names; unknown ones ignored (swedbankpay-api.md §1.4, inferred).
private func expansions(_ request: HTTPRequest) -> Set<String> {
    guard let value = request.queryValue("$expand") ?? request.queryValue("%24expand") else { return [] }
    return Set(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
}

/// Bearer auth and versions of the merchant API (swedbankpay-api.md §1.1).
enum SwedbankPayAuth {
    static let unauthorized = SwedbankPayProblem(
        "unauthorized", status: .unauthorized, title: "Unauthorized",
        detail: "Missing or invalid Authorization header. Expected: Authorization: Bearer <AccessToken>.")

    /// The namespace of an authenticated request; 401 without an accepted `Authorization: Bearer <token>` (the status
    /// is inferred: the reference does not document it, swedbankpay-api.md §6.4). Checked before 404 and validation (inferred).
    static func authenticate(_ request: HTTPRequest, _ configuration: SwedbankPayConfiguration) throws(SwedbankPayProblem) -> Namespace {
        guard let token = Namespace.bearerToken(request), configuration.acceptedTokens.map({ $0.contains(token) }) ?? true else {
            throw unauthorized
        }
        return Namespace(for: request)
    }

    /// The `version=` of `Content-Type` (POST/PATCH), if it names 3.0 or 3.1.
    static func requestVersion(_ request: HTTPRequest) -> SwedbankPayAPIVersion? {
        SwedbankPayOrderValidation.versionParameter(request.headers["Content-Type"]).flatMap(SwedbankPayAPIVersion.init(rawValue:))
    }

    /// A body sent as anything but JSON (`application/json`, `*+json`) is refused; no Content-Type is taken as JSON.
    static func requireJSON(_ request: HTTPRequest) throws(SwedbankPayProblem) {
        guard let contentType = request.headers["Content-Type"] else { return }
        if SwedbankPayASCII.isASCII(contentType) ? !isJSON(asciiMediaType: Array(contentType.utf8)) : !isJSON(mediaType: contentType) {
            throw .input([.init(name: "Content-Type", description: "Expected application/json;version=3.1")])
        }
    }

    /// `application/json` or `*+json` (case-insensitive), or no type at all.
    private static func isJSON(mediaType: String) -> Bool {
        guard let type = mediaType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return true }
        return type == "application/json" || type.hasSuffix("+json")
    }

    /// ``isJSON(mediaType:)`` of an ASCII media type, on its bytes (the same split, trim and comparisons).
    private static func isJSON(asciiMediaType bytes: [UInt8]) -> Bool {
        guard let first = bytes.split(separator: UInt8(ascii: ";")).first else { return true }
        let type = SwedbankPayASCII.trimmingWhitespace(first)
        return SwedbankPayASCII.lowercasedEquals(type, "application/json")
            || (type.count >= 5 && SwedbankPayASCII.lowercasedEquals(type.suffix(5), "+json"))
    }

    /// The `version=` of `Accept` (GET).
    static func readVersion(_ request: HTTPRequest) -> SwedbankPayAPIVersion? {
        SwedbankPayOrderValidation.versionParameter(request.headers["Accept"]).flatMap(SwedbankPayAPIVersion.init(rawValue:))
    }

    /// The version of a create (swedbankpay-api.md §1.1): `version=3.1|3.0` in `Content-Type`, else 3.0 with `productName`
    /// "Checkout3" (case-insensitive), else 400: without either the real API defaults to 2.0, which is not faked.
    static func createVersion(_ request: HTTPRequest, _ object: JSONNode) throws(SwedbankPayProblem) -> SwedbankPayAPIVersion {
        try requireJSON(request)
        let contentType = request.headers["Content-Type"]
        let parameter = SwedbankPayOrderValidation.versionParameter(contentType)
        if let parameter {
            if let version = SwedbankPayAPIVersion(rawValue: parameter) { return version }
        } else if object["productName"]?.stringValue?.lowercased() == "checkout3" {
            return .v3_0
        }
        throw .input([.init(name: "ProductName", description:
            "Only Checkout v3 is faked: send Content-Type: application/json;version=3.1, or version=3.0, or productName \"Checkout3\".")])
    }
}

extension HTTPResponse {
    /// A Swedbank Pay JSON answer: `Content-Type: application/json; charset=utf-8; version=<v>` and
    /// `api-supported-versions: 3.1` (swedbankpay-api.md §1.1).
    static func swedbankPay(_ body: JSONText, status: HTTPStatus = .ok, version: SwedbankPayAPIVersion) -> HTTPResponse {
        swedbankPay(body.bytes, status: status, version: version)
    }

    /// ``swedbankPay(_:status:version:)`` of a body already written.
    static func swedbankPay(_ body: [UInt8], status: HTTPStatus = .ok, version: SwedbankPayAPIVersion) -> HTTPResponse {
        swedbankPay(Data(body), status: status, version: version)
    }

    /// ``swedbankPay(_:status:version:)`` of a body already written as `Data`.
    static func swedbankPay(_ body: Data, status: HTTPStatus = .ok, version: SwedbankPayAPIVersion) -> HTTPResponse {
        var response = HTTPResponse.json(body, status: status, contentType: version.contentType)
        response.headers.set(name: "api-supported-versions", value: "3.1")
        return response
    }
}
