// SPDX-License-Identifier: MIT
import Foundation

/// `/ordermanagement/v1/orders/...` (klarna-api.md §5): read an order, capture, refund, cancel, acknowledge,
/// release the remaining authorization, extend the authorization time, update the authorization, merchant
/// references and customer details, add shipping info to the order; per capture add shipping info, update
/// customer details, trigger a send-out, extend the due date (the calls of klarna/kco_rest_php:
/// src/Klarna/Rest/OrderManagement/Order.php and Capture.php). HTTP Basic and namespaces as in Klarna Payments (§1.2); every route
/// goes through the scenario engine, the order's sticky scenario being its KP session's, and sequences counting
/// per order id.
package struct KlarnaOrderManagementRoutes: Sendable {
    package let store: KlarnaOrderManagementStore
    package let scenarios: ScenarioEngine
    private let play: ScenarioPlayer<KlarnaErrorFormat>
    /// `authenticate` reads the credential policy from a KP configuration.
    private let auth: KlarnaPaymentsConfiguration

    package init(store: KlarnaOrderManagementStore, scenarios: ScenarioEngine) {
        self.store = store
        self.scenarios = scenarios
        play = ScenarioPlayer(engine: scenarios, ids: store.ids)
        var auth = KlarnaPaymentsConfiguration()
        auth.credentials = store.configuration.credentials
        self.auth = auth
    }

    /// "Klarna-Idempotency-Key" on every write (§5).
    static let idempotencyKeyHeader = "Klarna-Idempotency-Key"

    package func add(to router: inout Router) {
        // Reads. The scenario operation of every read is read_order (the catalogue has no finer one).
        router.addImmediate("GET /ordermanagement/v1/orders/:order_id") { try readOrder($0) }
        router.addImmediate("GET /ordermanagement/v1/orders/:order_id/captures") { try readCaptures($0) }
        router.addImmediate("GET /ordermanagement/v1/orders/:order_id/captures/:capture_id") { try readCapture($0) }
        router.addImmediate("GET /ordermanagement/v1/orders/:order_id/refunds/:refund_id") { try readRefund($0) }
        router.addImmediate("GET /ordermanagement/v1/orders/:order_id/captures/:capture_id/extend-due-date-options") {
            try readDueDateOptions($0)
        }
        // Captures and refunds: 201, empty body, the new id and its absolute URL in headers (§5).
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/captures") { try capture($0) }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/refunds") { try refund($0) }
        // Changes without a body: 204 (§5).
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/cancel") { try cancel($0) }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/acknowledge") { try acknowledge($0) }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/release-remaining-authorization") { try release($0) }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/extend-authorization-time") { try extend($0) }
        addUpdates(to: &router)
    }

    /// The updates: 204 (§5, OM-OAS).
    private func addUpdates(to router: inout Router) {
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/authorization") { try updateAuthorization($0) }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/merchant-references") { try updateMerchantReferences($0) }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/customer-details") { try updateCustomerDetails($0) }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/shipping-info") { try addOrderShippingInfo($0) }
        // The updates of one capture.
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/captures/:capture_id/shipping-info") { try addShippingInfo($0) }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/captures/:capture_id/customer-details") {
            try updateCaptureCustomerDetails($0)
        }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/captures/:capture_id/trigger-send-out") { try triggerSendOut($0) }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/captures/:capture_id/extend-due-date") { try extendDueDate($0) }
    }

    /// The order a request names, its namespace and sticky scenario.
    private func target(_ request: HTTPRequest) throws(KlarnaError) -> (namespace: Namespace, orderID: String, sticky: String?) {
        let namespace = try authenticate(request, auth)
        let orderID: String
        do { orderID = try request.parameters.require("order_id") } catch { throw KlarnaError.noSuchOrder("") }
        return (namespace, orderID, store.scenarioOf(namespace, orderID: orderID))
    }

    // MARK: Reads

    private func readOrder(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { [store] _ in
            .klarna(try store.readOrder(namespace, orderID))
        }
    }

    private func readCaptures(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { [store] _ in
            // A JSON array of Capture, `[]` when there is none (OM-OAS getCaptures).
            .json(Data(JSONText.array(try store.captures(namespace, orderID).map(\.json)).bytes))
        }
    }

    private func readCapture(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let captureID = try request.parameters.require("capture_id")
        return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { [store] _ in
            .klarna(try store.capture(namespace, orderID, captureID: captureID))
        }
    }

    private func readRefund(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let refundID = try request.parameters.require("refund_id")
        return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { [store] _ in
            .klarna(try store.refund(namespace, orderID, refundID: refundID))
        }
    }

    private func readDueDateOptions(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let captureID = try request.parameters.require("capture_id")
        return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { [store] _ in
            .klarna(try store.dueDateOptions(namespace, orderID, captureID: captureID))
        }
    }

    // MARK: Writes

    private func capture(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaOMCapture, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { [store] outcome in
            let capture = decode(KlarnaCaptureRequest.self, body)
            return try store.capture(namespace, orderID: orderID, capture, idempotencyKey: idempotencyKey(request),
                                     origin: request.publicOrigin ?? "", outcome: outcome).response(orderID: orderID)
        }
    }

    private func refund(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let body = KlarnaJSON.parsedBody(request)
        return play(.klarnaOMRefund, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { [store] outcome in
            let refund = decode(KlarnaRefundRequest.self, body)
            return try store.refund(namespace, orderID: orderID, refund, idempotencyKey: idempotencyKey(request),
                                    origin: request.publicOrigin ?? "", outcome: outcome).response(orderID: orderID)
        }
    }

    private func cancel(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        return play(.klarnaOMCancelOrder, request, namespace, object: orderID, sticky: sticky) { [store] outcome in
            try store.cancel(namespace, orderID: orderID, idempotencyKey: idempotencyKey(request), outcome: outcome)
                .response(orderID: orderID)
        }
    }

    private func acknowledge(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        return play(.klarnaOMAcknowledgeOrder, request, namespace, object: orderID, sticky: sticky) { [store] outcome in
            try store.acknowledge(namespace, orderID: orderID, idempotencyKey: idempotencyKey(request), outcome: outcome)
                .response(orderID: orderID)
        }
    }

    private func release(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        return play(.klarnaOMReleaseRemainingAuthorization, request, namespace, object: orderID, sticky: sticky) { [store] outcome in
            try store.release(namespace, orderID: orderID, idempotencyKey: idempotencyKey(request), outcome: outcome)
                .response(orderID: orderID)
        }
    }

    private func extend(_ request: HTTPRequest) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        return play(.klarnaOMExtendAuthorizationTime, request, namespace, object: orderID, sticky: sticky) { [store] outcome in
            try store.extend(namespace, orderID: orderID, idempotencyKey: idempotencyKey(request), outcome: outcome)
                .response(orderID: orderID)
        }
    }

    // MARK: Updates

    private func updateAuthorization(_ request: HTTPRequest) throws -> HTTPReply {
        try update(request, .klarnaOMUpdateAuthorization) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.updateAuthorization(namespace, orderID: orderID, decode(KlarnaUpdateAuthorizationRequest.self, body),
                                          idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    private func updateMerchantReferences(_ request: HTTPRequest) throws -> HTTPReply {
        try update(request, .klarnaOMUpdateMerchantReferences) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.updateMerchantReferences(namespace, orderID: orderID, decode(KlarnaUpdateMerchantReferencesRequest.self, body),
                                               idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    private func updateCustomerDetails(_ request: HTTPRequest) throws -> HTTPReply {
        try update(request, .klarnaOMUpdateCustomerDetails) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.updateCustomerDetails(namespace, orderID: orderID, decode(KlarnaUpdateCustomerDetailsRequest.self, body),
                                            idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    private func addOrderShippingInfo(_ request: HTTPRequest) throws -> HTTPReply {
        try update(request, .klarnaOMAddShippingInfo) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.addOrderShippingInfo(namespace, orderID: orderID, decode(KlarnaUpdateShippingInfoRequest.self, body),
                                           idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    private func addShippingInfo(_ request: HTTPRequest) throws -> HTTPReply {
        let captureID = request.parameters["capture_id"] ?? ""
        return try update(request, .klarnaOMAddShippingInfo) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.addShippingInfo(namespace, orderID: orderID, captureID: captureID, decode(KlarnaUpdateShippingInfoRequest.self, body),
                                      idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    private func updateCaptureCustomerDetails(_ request: HTTPRequest) throws -> HTTPReply {
        let captureID = request.parameters["capture_id"] ?? ""
        return try update(request, .klarnaOMUpdateCaptureCustomerDetails) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.updateCaptureCustomerDetails(namespace, orderID: orderID, captureID: captureID,
                                                   decode(KlarnaUpdateCustomerDetailsRequest.self, body),
                                                   idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    /// No body: `triggerSendout` posts none (klarna/kco_rest_php: src/Klarna/Rest/OrderManagement/Capture.php).
    private func triggerSendOut(_ request: HTTPRequest) throws -> HTTPReply {
        let captureID = request.parameters["capture_id"] ?? ""
        return try update(request, .klarnaOMTriggerSendOut) { [store] namespace, orderID, _, outcome throws(KlarnaError) in
            try store.triggerSendOut(namespace, orderID: orderID, captureID: captureID, idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    private func extendDueDate(_ request: HTTPRequest) throws -> HTTPReply {
        let captureID = request.parameters["capture_id"] ?? ""
        return try update(request, .klarnaOMExtendDueDate) { [store] namespace, orderID, body, outcome throws(KlarnaError) in
            try store.extendDueDate(namespace, orderID: orderID, captureID: captureID, decode(KlarnaExtendDueDateRequest.self, body),
                                    idempotencyKey: idempotencyKey(request), outcome: outcome)
        }
    }

    /// Plays an update's `operation` for the order the request names, its parsed body the subject; `write`, the
    /// store's update, runs for the outcome the player passes on, and its result is answered (§5).
    private func update(
        _ request: HTTPRequest, _ operation: ScenarioOperation,
        _ write: @escaping @Sendable (Namespace, String, Result<JSONNode, KlarnaError>, ScenarioOutcome) throws(KlarnaError)
            -> OrderManagementWriteResult
    ) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let body = KlarnaJSON.parsedBody(request)
        return play(operation, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { outcome in
            try write(namespace, orderID, body, outcome).response(orderID: orderID)
        }
    }
}

/// The request's Klarna-Idempotency-Key, if it carries a non-empty one.
private func idempotencyKey(_ request: HTTPRequest) -> String? {
    guard let key = request.headers[KlarnaOrderManagementRoutes.idempotencyKeyHeader]?.trimmingWhitespaces(),
          !key.isEmpty else { return nil }
    return key
}

/// The parsed body decoded as `type`, or why it cannot be (400/422, see OrderManagementModels.swift).
private func decode<T: KlarnaJSONDecodable>(_ type: T.Type, _ body: Result<JSONNode, KlarnaError>) -> Result<T, KlarnaError> {
    do {
        return .success(try KlarnaJSON.decode(type, from: body.get()))
    } catch {
        return .failure(error)
    }
}

extension OrderManagementWriteResult {
    /// The answer to a write (§5): a capture or refund is 201 with an empty body, its id in `Capture-Id` or
    /// `Refund-Id` and its absolute URL on this sandbox, as the client reached it, in `Location`; a change is 204.
    func response(orderID: String) -> HTTPResponse {
        switch self {
        case .created(let created):
            let location = "\(created.origin)/ordermanagement/v1/orders/\(orderID)/\(created.kind.collection)/\(created.id)"
            return HTTPResponse(status: .created, headers: HTTPHeaders([(created.kind.idHeader, created.id), ("Location", location)]))
        case .changed:
            return HTTPResponse(status: .noContent)
        case .earlier(let response):
            return response
        }
    }
}
