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
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/authorization") { request in
            try update(request, .klarnaOMUpdateAuthorization, .updateAuthorization, KlarnaUpdateAuthorizationRequest.self) {
                (ledger, order, value, _, outcome, now) throws(KlarnaError) in try ledger.updateAuthorization(order, value, outcome: outcome, now: now)
            }
        }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/merchant-references") { request in
            try update(request, .klarnaOMUpdateMerchantReferences, .merchantReferences, KlarnaUpdateMerchantReferencesRequest.self) {
                (ledger, order, value, _, outcome, _) throws(KlarnaError) in try ledger.updateMerchantReferences(order, value, outcome: outcome)
            }
        }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/customer-details") { request in
            try update(request, .klarnaOMUpdateCustomerDetails, .customerDetails, KlarnaUpdateCustomerDetailsRequest.self) {
                (ledger, order, value, _, outcome, _) throws(KlarnaError) in try ledger.updateCustomerDetails(order, value, outcome: outcome)
            }
        }
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/shipping-info") { request in
            try update(request, .klarnaOMAddShippingInfo, .orderShippingInfo, KlarnaUpdateShippingInfoRequest.self) {
                (ledger, order, value, _, outcome, _) throws(KlarnaError) in try ledger.addOrderShippingInfo(order, value, outcome: outcome)
            }
        }
        addCaptureUpdates(to: &router)
    }

    /// The updates of one capture: 204.
    private func addCaptureUpdates(to router: inout Router) {
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/captures/:capture_id/shipping-info") { request in
            try update(request, .klarnaOMAddShippingInfo, .captureShippingInfo, KlarnaUpdateShippingInfoRequest.self) {
                (ledger, order, value, captureID, outcome, _) throws(KlarnaError) in
                try ledger.addShippingInfo(order, captureID: captureID ?? "", value, outcome: outcome)
            }
        }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/captures/:capture_id/customer-details") { request in
            try update(request, .klarnaOMUpdateCaptureCustomerDetails, .captureCustomerDetails, KlarnaUpdateCustomerDetailsRequest.self) {
                (ledger, order, value, captureID, outcome, _) throws(KlarnaError) in
                try ledger.updateCaptureCustomerDetails(order, captureID: captureID ?? "", value, outcome: outcome)
            }
        }
        // No body: `triggerSendout` posts none (klarna/kco_rest_php: src/Klarna/Rest/OrderManagement/Capture.php).
        router.addImmediate("POST /ordermanagement/v1/orders/:order_id/captures/:capture_id/trigger-send-out") { request in
            try update(request, .klarnaOMTriggerSendOut, .triggerSendOut, { _ in .success(()) }) {
                (ledger, order, _, captureID, outcome, _) throws(KlarnaError) in
                try ledger.triggerSendOut(order, captureID: captureID ?? "", outcome: outcome)
            }
        }
        router.addImmediate("PATCH /ordermanagement/v1/orders/:order_id/captures/:capture_id/extend-due-date") { request in
            try update(request, .klarnaOMExtendDueDate, .extendDueDate, KlarnaExtendDueDateRequest.self) {
                (ledger, order, value, captureID, outcome, _) throws(KlarnaError) in
                try ledger.extendDueDate(order, captureID: captureID ?? "", value, outcome: outcome)
            }
        }
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

    /// One update: the body decoded as `type` after the order is found, then `change` under the store's lock.
    private func update<Body: Sendable>(
        _ request: HTTPRequest, _ operation: ScenarioOperation, _ write: OrderManagementWrite, _ type: Body.Type,
        _ change: @escaping @Sendable (OrderManagementLedger, OrderManagementLedger.Order, Body, String?, ScenarioOutcome, Date)
            throws(KlarnaError) -> Void
    ) throws -> HTTPReply where Body: KlarnaJSONDecodable {
        try update(request, operation, write, { decode(Body.self, $0) }, change)
    }

    /// One update whose body `read` reads (used after the order is found).
    private func update<Body>(
        _ request: HTTPRequest, _ operation: ScenarioOperation, _ write: OrderManagementWrite,
        _ read: @escaping @Sendable (Result<JSONNode, KlarnaError>) -> Result<Body, KlarnaError>,
        _ change: @escaping @Sendable (OrderManagementLedger, OrderManagementLedger.Order, Body, String?, ScenarioOutcome, Date)
            throws(KlarnaError) -> Void
    ) throws -> HTTPReply {
        let (namespace, orderID, sticky) = try target(request)
        let captureID = request.parameters["capture_id"]
        let body = KlarnaJSON.parsedBody(request)
        return play(operation, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { [store] outcome in
            let result = try store.update(namespace, orderID: orderID, write, read(body),
                                          idempotencyKey: idempotencyKey(request)) { (ledger, order, value, now) throws(KlarnaError) in
                try change(ledger, order, value, captureID, outcome, now)
            }
            return result.response(orderID: orderID)
        }
    }
}

/// The request's Klarna-Idempotency-Key, if it carries a non-empty one.
private func idempotencyKey(_ request: HTTPRequest) -> String? {
    guard let key = request.headers[KlarnaOrderManagementRoutes.idempotencyKeyHeader]?.trimmingCharacters(in: .whitespaces),
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
