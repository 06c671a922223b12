// SPDX-License-Identifier: MIT
import Foundation

// The Customer Token API's state lives with Klarna Payments' (the tokens come from KP's customer-token call):
// the same namespaces, locks, reset and clock.

extension PaymentsLedger {
    func customerToken(_ namespace: Namespace, _ tokenID: String) -> CustomerTokenRecord? {
        customerTokens[tokenID]
    }

    /// POST /customer-token/v1/tokens/{token}/order. What the order leaves out is taken from the token (its
    /// market, locale and billing address: inferred, as the order is the token holder's). Returns the order, the
    /// request as placed, and whether this call placed it (false: a repeated Klarna-Idempotency-Key).
    mutating func createOrder(_ namespace: Namespace, customerToken tokenID: String, _ sent: KlarnaCreateOrderRequest,
                              idempotencyKey: String?, outcome: ScenarioOutcome)
        throws(KlarnaError) -> (order: KlarnaOrder, request: KlarnaCreateOrderRequest, placed: Bool, scenario: String?) {
        guard let token = customerToken(namespace, tokenID) else { throw .customerTokenNotFound }
        if let idempotencyKey, let first = token.orderAnswers[idempotencyKey] { return (first, sent, false, token.scenario) }
        guard token.status == "ACTIVE" else { throw .customerTokenCancelled }
        var request = sent
        request.purchaseCountry = request.purchaseCountry ?? token.purchaseCountry
        request.purchaseCurrency = request.purchaseCurrency ?? token.purchaseCurrency
        request.locale = request.locale ?? token.locale
        request.billingAddress = request.billingAddress ?? token.billingAddress
        try PaymentsValidation.validateCreateOrder(request)
        if let tokenCurrency = token.purchaseCurrency, let currency = request.purchaseCurrency,
           tokenCurrency.uppercased() != currency.uppercased() {
            throw .customerTokenCurrencyMismatch(token: tokenCurrency.uppercased(), order: currency.uppercased())
        }
        var fraudStatus = "ACCEPTED"
        switch outcome {
        case .rejected: throw .customerTokenPaymentFailed
        case .refused: throw .customerTokenPaymentMethodUnavailable
        case .fraudPending: fraudStatus = "PENDING"
        case .fraudRejected: fraudStatus = "REJECTED"
        default: break
        }
        let order = KlarnaOrder(orderId: ids.uuid(), redirectUrl: nil, fraudStatus: fraudStatus,
                                authorizedPaymentMethod: KlarnaAuthorizedPaymentMethod(type: "invoice", numberOfDays: 30))
        token.orderIDs.append(order.orderId)
        if let idempotencyKey { token.orderAnswers[idempotencyKey] = order }
        return (order, request, true, token.scenario)
    }

    /// PATCH …/status `{"status": "CANCELLED"}`: an unknown token is a 404 before the body is looked at; cancelling
    /// a cancelled token again is accepted (inferred).
    func cancelCustomerToken(_ namespace: Namespace, _ tokenID: String,
                             _ update: Result<KlarnaCustomerTokenStatusUpdate, KlarnaError>) throws(KlarnaError) {
        guard let token = customerToken(namespace, tokenID) else { throw .invalidTokenID }
        token.status = try update.get().status
    }
}

extension KlarnaPaymentsStore {
    func readCustomerToken(_ namespace: Namespace, _ tokenID: String) throws(KlarnaError) -> KlarnaCustomerTokenRead {
        guard let read = ledgers.withState(namespace, { $0.customerToken(namespace, tokenID)?.read }) else { throw .invalidCustomerTokenID }
        return read
    }

    func scenarioOf(_ namespace: Namespace, customerToken tokenID: String) -> String? {
        ledgers.withState(namespace) { $0.customerToken(namespace, tokenID)?.scenario }
    }

    /// The order, also placed in Order Management (klarna-api.md §5b: "an Order Management order like any
    /// other"), captured at once with `auto_capture`.
    func createOrder(_ namespace: Namespace, customerToken tokenID: String, _ request: KlarnaCreateOrderRequest,
                     idempotencyKey: String?, outcome: ScenarioOutcome = .approve) throws(KlarnaError) -> KlarnaOrder {
        let result = try ledgers.withState(namespace) { (state) throws(KlarnaError) in
            try state.createOrder(namespace, customerToken: tokenID, request, idempotencyKey: idempotencyKey, outcome: outcome)
        }
        if result.placed {
            orders?.place(namespace, orderID: result.order.orderId, request: result.request, fraudStatus: result.order.fraudStatus,
                          scenario: result.scenario, captured: result.request.autoCapture == true)
        }
        return result.order
    }

    func cancelCustomerToken(_ namespace: Namespace, _ tokenID: String,
                             _ update: Result<KlarnaCustomerTokenStatusUpdate, KlarnaError>) throws(KlarnaError) {
        try ledgers.withState(namespace) { (state) throws(KlarnaError) in try state.cancelCustomerToken(namespace, tokenID, update) }
    }
}
