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

    package init(store: KlarnaOrderManagementStore, scenarios: ScenarioEngine) {
        self.store = store
        self.scenarios = scenarios
    }

    /// "Klarna-Idempotency-Key" on every write (§5).
    static let idempotencyKeyHeader = "Klarna-Idempotency-Key"

    package func add(to router: inout Router) {
        let store = self.store
        let play = ScenarioPlayer(engine: scenarios, ids: store.ids)
        // `authenticate` reads the credential policy from a KP configuration.
        var credentials = KlarnaPaymentsConfiguration()
        credentials.credentials = store.configuration.credentials
        let auth = credentials
        let orders = "/ordermanagement/v1/orders/:order_id"

        /// The order a request names, its namespace and sticky scenario.
        @Sendable func target(_ request: HTTPRequest) throws(KlarnaError) -> (namespace: Namespace, orderID: String, sticky: String?) {
            let namespace = try authenticate(request, auth)
            let orderID: String
            do { orderID = try request.parameters.require("order_id") } catch { throw KlarnaError.noSuchOrder("") }
            return (namespace, orderID, store.scenarioOf(namespace, orderID: orderID))
        }

        // Reads. The scenario operation of every read is read_order (the catalogue has no finer one).
        router.addImmediate("GET \(orders)") { request in
            let (namespace, orderID, sticky) = try target(request)
            return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { _ in
                .klarna(try store.readOrder(namespace, orderID))
            }
        }
        router.addImmediate("GET \(orders)/captures") { request in
            let (namespace, orderID, sticky) = try target(request)
            return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { _ in
                // A JSON array of Capture, `[]` when there is none (OM-OAS getCaptures).
                .json(Data(JSONText.array(try store.captures(namespace, orderID).map(\.json)).bytes))
            }
        }
        router.addImmediate("GET \(orders)/captures/:capture_id") { request in
            let (namespace, orderID, sticky) = try target(request)
            let captureID = try request.parameters.require("capture_id")
            return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { _ in
                .klarna(try store.capture(namespace, orderID, captureID: captureID))
            }
        }
        router.addImmediate("GET \(orders)/refunds/:refund_id") { request in
            let (namespace, orderID, sticky) = try target(request)
            let refundID = try request.parameters.require("refund_id")
            return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { _ in
                .klarna(try store.refund(namespace, orderID, refundID: refundID))
            }
        }

        router.addImmediate("GET \(orders)/captures/:capture_id/extend-due-date-options") { request in
            let (namespace, orderID, sticky) = try target(request)
            let captureID = try request.parameters.require("capture_id")
            return play(.klarnaOMReadOrder, request, namespace, object: orderID, sticky: sticky) { _ in
                .klarna(try store.dueDateOptions(namespace, orderID, captureID: captureID))
            }
        }

        // Captures and refunds: 201, empty body, the new id and its absolute URL in headers (§5).
        router.addImmediate("POST \(orders)/captures") { request in
            let (namespace, orderID, sticky) = try target(request)
            let body = KlarnaJSON.parsedBody(request)
            return play(.klarnaOMCapture, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { outcome in
                store.capture(namespace, orderID: orderID, decode(KlarnaCaptureRequest.self, body), idempotencyKey: idempotencyKey(request),
                              outcome: outcome, request: request) { location(request, orderID, "captures", $0) }
            }
        }
        router.addImmediate("POST \(orders)/refunds") { request in
            let (namespace, orderID, sticky) = try target(request)
            let body = KlarnaJSON.parsedBody(request)
            return play(.klarnaOMRefund, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { outcome in
                store.refund(namespace, orderID: orderID, decode(KlarnaRefundRequest.self, body), idempotencyKey: idempotencyKey(request),
                             outcome: outcome, request: request) { location(request, orderID, "refunds", $0) }
            }
        }

        // Changes without a body: 204 (§5).
        let changes: [(String, ScenarioOperation, OrderManagementWrite)] = [
            ("cancel", .klarnaOMCancelOrder, .cancel),
            ("acknowledge", .klarnaOMAcknowledgeOrder, .acknowledge),
            ("release-remaining-authorization", .klarnaOMReleaseRemainingAuthorization, .release),
            ("extend-authorization-time", .klarnaOMExtendAuthorizationTime, .extend),
        ]
        for (path, operation, write) in changes {
            router.addImmediate("POST \(orders)/\(path)") { request in
                let (namespace, orderID, sticky) = try target(request)
                return play(operation, request, namespace, object: orderID, sticky: sticky) { outcome in
                    store.change(namespace, orderID: orderID, write, idempotencyKey: idempotencyKey(request), outcome: outcome,
                                 request: request)
                }
            }
        }

        // Updates: 204 (§5, OM-OAS).
        /// One update route: the body read by `read` (used after the order is found), then `change` under the lock.
        func update<Body>(
            _ route: String, _ operation: ScenarioOperation, _ write: OrderManagementWrite,
            _ read: @escaping @Sendable (Result<JSONNode, KlarnaError>) -> Result<Body, KlarnaError>,
            _ change: @escaping @Sendable (OrderManagementLedger, OrderManagementLedger.Order, Body, String?, ScenarioOutcome, Date)
                throws(KlarnaError) -> Void
        ) {
            router.addImmediate(route) { request in
                let (namespace, orderID, sticky) = try target(request)
                let captureID = request.parameters["capture_id"]
                let body = KlarnaJSON.parsedBody(request)
                return play(operation, request, namespace, subject: try? body.get(), object: orderID, sticky: sticky) { outcome in
                    store.update(namespace, orderID: orderID, write, read(body), idempotencyKey: idempotencyKey(request),
                                 request: request) { (ledger, order, value, now) throws(KlarnaError) in
                        try change(ledger, order, value, captureID, outcome, now)
                    }
                }
            }
        }
        update("PATCH \(orders)/authorization", .klarnaOMUpdateAuthorization, .updateAuthorization,
               { decode(KlarnaUpdateAuthorizationRequest.self, $0) }) { (ledger, order, value, _, outcome, now) throws(KlarnaError) in
            try ledger.updateAuthorization(order, value, outcome: outcome, now: now)
        }
        update("PATCH \(orders)/merchant-references", .klarnaOMUpdateMerchantReferences, .merchantReferences,
               { decode(KlarnaUpdateMerchantReferencesRequest.self, $0) }) { (ledger, order, value, _, outcome, _) throws(KlarnaError) in
            try ledger.updateMerchantReferences(order, value, outcome: outcome)
        }
        update("PATCH \(orders)/customer-details", .klarnaOMUpdateCustomerDetails, .customerDetails,
               { decode(KlarnaUpdateCustomerDetailsRequest.self, $0) }) { (ledger, order, value, _, outcome, _) throws(KlarnaError) in
            try ledger.updateCustomerDetails(order, value, outcome: outcome)
        }
        update("POST \(orders)/shipping-info", .klarnaOMAddShippingInfo, .orderShippingInfo,
               { decode(KlarnaUpdateShippingInfoRequest.self, $0) }) { (ledger, order, value, _, outcome, _) throws(KlarnaError) in
            try ledger.addOrderShippingInfo(order, value, outcome: outcome)
        }
        update("POST \(orders)/captures/:capture_id/shipping-info", .klarnaOMAddShippingInfo, .captureShippingInfo,
               { decode(KlarnaUpdateShippingInfoRequest.self, $0) }) { (ledger, order, value, captureID, outcome, _) throws(KlarnaError) in
            try ledger.addShippingInfo(order, captureID: captureID ?? "", value, outcome: outcome)
        }
        update("PATCH \(orders)/captures/:capture_id/customer-details", .klarnaOMUpdateCaptureCustomerDetails, .captureCustomerDetails,
               { decode(KlarnaUpdateCustomerDetailsRequest.self, $0) }) { (ledger, order, value, captureID, outcome, _) throws(KlarnaError) in
            try ledger.updateCaptureCustomerDetails(order, captureID: captureID ?? "", value, outcome: outcome)
        }
        // No body: `triggerSendout` posts none (klarna/kco_rest_php: src/Klarna/Rest/OrderManagement/Capture.php).
        update("POST \(orders)/captures/:capture_id/trigger-send-out", .klarnaOMTriggerSendOut, .triggerSendOut,
               { _ in .success(()) }) { (ledger, order, _, captureID, outcome, _) throws(KlarnaError) in
            try ledger.triggerSendOut(order, captureID: captureID ?? "", outcome: outcome)
        }
        update("PATCH \(orders)/captures/:capture_id/extend-due-date", .klarnaOMExtendDueDate, .extendDueDate,
               { decode(KlarnaExtendDueDateRequest.self, $0) }) { (ledger, order, value, captureID, outcome, _) throws(KlarnaError) in
            try ledger.extendDueDate(order, captureID: captureID ?? "", value, outcome: outcome)
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

/// `Location` of a new capture or refund: an absolute URL on this sandbox as the client reached it (§5).
private func location(_ request: HTTPRequest, _ orderID: String, _ collection: String, _ id: String) -> String {
    "\(request.publicOrigin ?? "")/ordermanagement/v1/orders/\(orderID)/\(collection)/\(id)"
}
