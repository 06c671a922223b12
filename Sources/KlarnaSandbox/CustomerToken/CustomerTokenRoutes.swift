// SPDX-License-Identifier: MIT
import Foundation

/// `/customer-token/v1/tokens/...` (klarna-api.md §5b), as klarna/kco_rest_php: src/Klarna/Rest/CustomerToken/Tokens.php
/// calls it: read a token, place a recurring order with it, cancel it. HTTP Basic and namespaces as in Klarna Payments
/// (§1.2); every route goes through the scenario engine, the token's sticky scenario being its KP session's.
package struct KlarnaCustomerTokenRoutes: Sendable {
    package let store: KlarnaPaymentsStore
    package let scenarios: ScenarioEngine

    package init(store: KlarnaPaymentsStore, scenarios: ScenarioEngine) {
        self.store = store
        self.scenarios = scenarios
    }

    package func add(to router: inout Router) {
        let store = self.store
        let play = ScenarioPlayer(engine: scenarios, ids: store.ids)
        router.addImmediate("GET /customer-token/v1/tokens/:token") { request in
            let namespace = try authenticate(request, store.configuration)
            let token = try request.parameters.require("token")
            return play(.klarnaCustomerTokenReadToken, request, namespace, object: token,
                        sticky: store.scenarioOf(namespace, customerToken: token)) { _ in
                .klarna(try store.readCustomerToken(namespace, token))
            }
        }
        // 200 with the order (kco_rest_php: `->status('200')->contentType('application/json')`).
        router.addImmediate("POST /customer-token/v1/tokens/:token/order") { request in
            let namespace = try authenticate(request, store.configuration)
            let token = try request.parameters.require("token")
            let body = KlarnaJSON.parsedBody(request)
            return play(.klarnaCustomerTokenCreateOrder, request, namespace, subject: try? body.get(), object: token,
                        sticky: store.scenarioOf(namespace, customerToken: token)) { outcome in
                let order = try KlarnaJSON.decode(KlarnaCreateOrderRequest.self, from: body.get())
                let key = request.headers[KlarnaOrderManagementRoutes.idempotencyKeyHeader]?.trimmingWhitespaces()
                return .klarna(try store.createOrder(namespace, customerToken: token, order,
                                                     idempotencyKey: key?.isEmpty == false ? key : nil, outcome: outcome))
            }
        }
        // 202, empty body (§5b; kco_rest_php: `->status('202')`).
        router.addImmediate("PATCH /customer-token/v1/tokens/:token/status") { request in
            let namespace = try authenticate(request, store.configuration)
            let token = try request.parameters.require("token")
            let body = KlarnaJSON.parsedBody(request)
            return play(.klarnaCustomerTokenUpdateStatus, request, namespace, subject: try? body.get(), object: token,
                        sticky: store.scenarioOf(namespace, customerToken: token)) { _ in
                let update = Result { () throws(KlarnaError) in try KlarnaJSON.decode(KlarnaCustomerTokenStatusUpdate.self, from: body.get()) }
                try store.cancelCustomerToken(namespace, token, update)
                return HTTPResponse(status: .accepted)
            }
        }
    }
}

