// SPDX-License-Identifier: MIT
import Foundation

// Klarna's scenario vocabulary: the operations a scenario may steer and the outcomes beyond the universal ones
// (approve, http_error, drop_connection) that Klarna's fakes answer with.

extension ScenarioOperation {
    package static let klarnaPaymentsCreateSession = ScenarioOperation("klarna.payments.create_session")
    package static let klarnaPaymentsReadSession = ScenarioOperation("klarna.payments.read_session")
    package static let klarnaPaymentsUpdateSession = ScenarioOperation("klarna.payments.update_session")
    package static let klarnaPaymentsCancelSession = ScenarioOperation("klarna.payments.cancel_session")
    /// The SDK's `initialize(clientToken:)` (the sandbox's `.../initialize` stand-in).
    package static let klarnaPaymentsInitialize = ScenarioOperation("klarna.payments.initialize")
    /// The SDK's `load` (the sandbox's `.../load` stand-in).
    package static let klarnaPaymentsLoad = ScenarioOperation("klarna.payments.load")
    /// The SDK's `authorize` (the sandbox's `.../authorize` stand-in).
    package static let klarnaPaymentsAuthorize = ScenarioOperation("klarna.payments.authorize")
    /// The SDK's `reauthorize` (the sandbox's `.../reauthorize` stand-in).
    package static let klarnaPaymentsReauthorize = ScenarioOperation("klarna.payments.reauthorize")
    /// The SDK's `finalize` (the sandbox's `.../finalize` stand-in).
    package static let klarnaPaymentsFinalize = ScenarioOperation("klarna.payments.finalize")
    package static let klarnaPaymentsCreateOrder = ScenarioOperation("klarna.payments.create_order")
    package static let klarnaPaymentsCancelAuthorization = ScenarioOperation("klarna.payments.cancel_authorization")
    package static let klarnaPaymentsCreateCustomerToken = ScenarioOperation("klarna.payments.create_customer_token")
    package static let klarnaHPPCreateSession = ScenarioOperation("klarna.hpp.create_session")
    package static let klarnaHPPReadSession = ScenarioOperation("klarna.hpp.read_session")
    package static let klarnaHPPDistributeSession = ScenarioOperation("klarna.hpp.distribute_session")
    package static let klarnaHPPDisableSession = ScenarioOperation("klarna.hpp.disable_session")
    package static let klarnaOMReadOrder = ScenarioOperation("klarna.ordermanagement.read_order")
    package static let klarnaOMCapture = ScenarioOperation("klarna.ordermanagement.capture")
    package static let klarnaOMRefund = ScenarioOperation("klarna.ordermanagement.refund")
    package static let klarnaOMCancelOrder = ScenarioOperation("klarna.ordermanagement.cancel_order")
    package static let klarnaOMAcknowledgeOrder = ScenarioOperation("klarna.ordermanagement.acknowledge_order")
    package static let klarnaOMReleaseRemainingAuthorization = ScenarioOperation("klarna.ordermanagement.release_remaining_authorization")
    package static let klarnaOMExtendAuthorizationTime = ScenarioOperation("klarna.ordermanagement.extend_authorization_time")
    package static let klarnaOMUpdateAuthorization = ScenarioOperation("klarna.ordermanagement.update_authorization")
    package static let klarnaOMUpdateMerchantReferences = ScenarioOperation("klarna.ordermanagement.update_merchant_references")
    package static let klarnaOMUpdateCustomerDetails = ScenarioOperation("klarna.ordermanagement.update_customer_details")
    package static let klarnaOMAddShippingInfo = ScenarioOperation("klarna.ordermanagement.add_shipping_info")
    package static let klarnaOMUpdateCaptureCustomerDetails = ScenarioOperation("klarna.ordermanagement.update_capture_customer_details")
    package static let klarnaOMTriggerSendOut = ScenarioOperation("klarna.ordermanagement.trigger_send_out")
    package static let klarnaOMExtendDueDate = ScenarioOperation("klarna.ordermanagement.extend_due_date")
    // The Customer Token API (klarna-api.md §5b).
    package static let klarnaCustomerTokenReadToken = ScenarioOperation("klarna.customertoken.read_token")
    package static let klarnaCustomerTokenCreateOrder = ScenarioOperation("klarna.customertoken.create_order")
    package static let klarnaCustomerTokenUpdateStatus = ScenarioOperation("klarna.customertoken.update_status")
    // The return trip (docs/scenarios.md, "Failures apps must survive"): the hosted page's redirect to a merchant URL after the consumer's action.
    package static let klarnaHPPRedirect = ScenarioOperation("klarna.hpp.redirect")
    // Callbacks (klarna-api.md §4.5): the status_update call HPP makes to the merchant.
    package static let klarnaHPPStatusCallback = ScenarioOperation("klarna.hpp.status_callback")
}

/// What a Klarna operation does instead of (or as) its normal answer: a step's outcome as Klarna reads it.
package enum KlarnaOutcome: ScenarioOutcomeValue, Equatable {
    /// The normal, successful answer.
    case approve
    /// SDK: `approved: false, show_form: false` (optionally with one of Klarna's playground reject reasons).
    case reject(reason: String?)
    /// SDK: the customer closed the form, `approved: false, show_form: true`.
    case cancel
    /// SDK authorize: `approved: false, finalize_required: true`; finalize then approves.
    case finalizeRequired
    /// SDK: the `ShowFormFalseError` error.
    case showFormFalse
    /// SDK: the `InvalidClientTokenError` error.
    case invalidClientToken
    /// The authorization token acts as if 60 minutes had passed: 404 NOT_FOUND "Invalid authorization token".
    case expireToken
    /// 409 BAD_VALUE "Not matching fields: [a, b]".
    case mismatchedFields([String])
    /// 409 BAD_VALUE "Not matching fields: [Incorrect number of items in the cart. Expected: E, Actual: A]";
    /// nil values are computed from the authorized and the sent cart.
    case cartChanged(expected: Int?, actual: Int?)
    /// 403 REJECTED "Rejected".
    case rejected
    /// The order is created with `fraud_status: PENDING`.
    case fraudPending
    /// The order is created with `fraud_status: REJECTED`.
    case fraudRejected
    /// Order Management refuses the change: 403 with the operation's code (`CAPTURE_NOT_ALLOWED`,
    /// `REFUND_NOT_ALLOWED`, `CANCEL_NOT_ALLOWED`, `NOT_ALLOWED`).
    case refused
    // The return trip (klarna.hpp.redirect).
    /// The consumer's action takes effect, but the page's redirect to the merchant URL never comes.
    case redirectLost
    /// The consumer's action takes effect at once; the redirect comes `delay_ms` later.
    case redirectLate

    package var name: String {
        switch self {
        case .approve: "approve"
        case .reject: "reject"
        case .cancel: "cancel"
        case .finalizeRequired: "finalize_required"
        case .showFormFalse: "show_form_false"
        case .invalidClientToken: "invalid_client_token"
        case .expireToken: "expire_token"
        case .mismatchedFields: "mismatched_fields"
        case .cartChanged: "cart_changed"
        case .rejected: "rejected"
        case .fraudPending: "fraud_pending"
        case .fraudRejected: "fraud_rejected"
        case .refused: "refused"
        case .redirectLost: "redirect_lost"
        case .redirectLate: "redirect_late"
        }
    }

    /// The name, with the parameters for the ones that have them: `reject high_risk`.
    package var description: String {
        switch self {
        case .reject(let reason?): "reject \(reason)"
        case .mismatchedFields(let fields): "mismatched_fields [\(fields.joined(separator: ", "))]"
        case .cartChanged(let expected, let actual):
            "cart_changed expected \(expected.map(String.init) ?? "-") actual \(actual.map(String.init) ?? "-")"
        default: name
        }
    }

    /// Klarna's playground reject reasons (klarna-api.md §6), the values `reason` may take.
    package static let rejectReasons = [
        "other", "could_not_establish_identity", "credit_limit_exceeded", "customer_not_fulfilling_previous_engagements",
        "external_hard_reject", "high_risk", "legal_restraints", "technical_error", "internal_block",
        "low_credit_rating", "under_age", "denied",
    ]
}

extension ScenarioOutcome {
    /// A Klarna outcome as a scenario step carries it (`.approve` is the engine's own).
    package static func klarna(_ outcome: KlarnaOutcome) -> ScenarioOutcome {
        outcome == .approve ? .approve : .provider(outcome)
    }

    /// The outcome as a Klarna operation reads it; nil for `http_error` and `drop_connection` (the scenario
    /// player answers those itself) and for another provider's outcome.
    package var klarna: KlarnaOutcome? {
        if case .approve = self { return .approve }
        return value(as: KlarnaOutcome.self)
    }
}

extension ScenarioVocabulary {
    /// Every Klarna operation and outcome a scenario may name.
    package static let klarna = ScenarioVocabulary(operations: KlarnaScenarioVocabulary.operations, outcomes: KlarnaScenarioVocabulary.outcomes)
}

enum KlarnaScenarioVocabulary {
    static let operations: [ScenarioVocabulary.Operation] = [
        .init(.klarnaPaymentsCreateSession, "POST /payments/v1/sessions: create a Klarna Payments session.", request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsReadSession, "GET /payments/v1/sessions/{session_id}: read a session.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaPaymentsUpdateSession, "POST /payments/v1/sessions/{session_id}: update a session (204).", request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsCancelSession, "DELETE /payments/v1/sessions/{session_id}: cancel a session.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaPaymentsInitialize, outcomes: ["invalid_client_token"],
              "The SDK's initialize(clientToken:), played by POST /__sandbox/klarna/payments/sessions/{client_token}/initialize.",
              request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsLoad, outcomes: ["reject", "show_form_false", "invalid_client_token"],
              "The SDK's load(), played by POST /__sandbox/klarna/payments/sessions/{client_token}/load.", request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsAuthorize, outcomes: ["reject", "cancel", "finalize_required", "show_form_false", "invalid_client_token"],
              "The SDK's authorize(), played by POST /__sandbox/klarna/payments/sessions/{client_token}/authorize.", request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsReauthorize, outcomes: ["reject", "cancel", "show_form_false", "invalid_client_token"],
              "The SDK's reauthorize(), played by POST /__sandbox/klarna/payments/sessions/{client_token}/reauthorize.",
              request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsFinalize, outcomes: ["reject", "cancel", "invalid_client_token"],
              "The SDK's finalize(), played by POST /__sandbox/klarna/payments/sessions/{client_token}/finalize.", request: KlarnaScenarioVocabulary.session),
        .init(.klarnaPaymentsCreateOrder, outcomes: ["expire_token", "mismatched_fields", "cart_changed", "rejected", "fraud_pending", "fraud_rejected"],
              "POST /payments/v1/authorizations/{authorizationToken}/order: create an order from an authorization.", request: KlarnaScenarioVocabulary.order),
        .init(.klarnaPaymentsCancelAuthorization, outcomes: ["expire_token"],
              "DELETE /payments/v1/authorizations/{authorizationToken}: release an authorization.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaPaymentsCreateCustomerToken, outcomes: ["expire_token", "mismatched_fields"],
              "POST /payments/v1/authorizations/{authorizationToken}/customer-token: create a customer token.", request: KlarnaScenarioVocabulary.customerTokenCreation),
        .init(.klarnaHPPCreateSession, "POST /hpp/v1/sessions: create a Hosted Payment Page session.", request: KlarnaScenarioVocabulary.hppSession),
        .init(.klarnaHPPReadSession, "GET /hpp/v1/sessions/{session_id}: read an HPP session.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaHPPDistributeSession, "POST /hpp/v1/sessions/{session_id}/distribution: send the link by SMS or e-mail (recorded, not sent).", request: KlarnaScenarioVocabulary.hppDistribution),
        .init(.klarnaHPPDisableSession, "DELETE /hpp/v1/sessions/{session_id}: disable an HPP session.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMReadOrder, "GET /ordermanagement/v1/orders/{order_id}: read an order.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMCapture, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/captures: capture an amount.", request: KlarnaScenarioVocabulary.capture),
        .init(.klarnaOMRefund, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/refunds: refund an amount.", request: KlarnaScenarioVocabulary.refund),
        .init(.klarnaOMCancelOrder, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/cancel: cancel an order.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMAcknowledgeOrder, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/acknowledge: acknowledge an order.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMReleaseRemainingAuthorization, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/release-remaining-authorization.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMExtendAuthorizationTime, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/extend-authorization-time.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMUpdateAuthorization, outcomes: ["refused"],
              "PATCH /ordermanagement/v1/orders/{order_id}/authorization: a new order amount and order lines.", request: KlarnaScenarioVocabulary.updateAuthorization),
        .init(.klarnaOMUpdateMerchantReferences, outcomes: ["refused"],
              "PATCH /ordermanagement/v1/orders/{order_id}/merchant-references.", request: KlarnaScenarioVocabulary.merchantReferences),
        .init(.klarnaOMUpdateCustomerDetails, outcomes: ["refused"],
              "PATCH /ordermanagement/v1/orders/{order_id}/customer-details: billing and shipping address.", request: KlarnaScenarioVocabulary.customerDetails),
        .init(.klarnaOMAddShippingInfo, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/shipping-info and …/captures/{capture_id}/shipping-info: add shipping info.", request: KlarnaScenarioVocabulary.addShippingInfo),
        .init(.klarnaOMUpdateCaptureCustomerDetails, outcomes: ["refused"],
              "PATCH /ordermanagement/v1/orders/{order_id}/captures/{capture_id}/customer-details: a capture's billing address.", request: KlarnaScenarioVocabulary.customerDetails),
        .init(.klarnaOMTriggerSendOut, outcomes: ["refused"],
              "POST /ordermanagement/v1/orders/{order_id}/captures/{capture_id}/trigger-send-out: send the capture's communication again.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaOMExtendDueDate, outcomes: ["refused"],
              "PATCH /ordermanagement/v1/orders/{order_id}/captures/{capture_id}/extend-due-date (the options are read under read_order).", request: KlarnaScenarioVocabulary.extendDueDate),
        .init(.klarnaCustomerTokenReadToken, "GET /customer-token/v1/tokens/{customerToken}: read a customer token.", request: KlarnaScenarioVocabulary.noBody),
        .init(.klarnaCustomerTokenCreateOrder, outcomes: ["rejected", "refused", "fraud_pending", "fraud_rejected"],
              "POST /customer-token/v1/tokens/{customerToken}/order: place a recurring order with a customer token.", request: KlarnaScenarioVocabulary.order),
        .init(.klarnaCustomerTokenUpdateStatus, "PATCH /customer-token/v1/tokens/{customerToken}/status: cancel a customer token.", request: KlarnaScenarioVocabulary.customerTokenStatus),
        // The return trip (docs/scenarios.md, "Failures apps must survive").
        .init(.klarnaHPPRedirect, outcomes: ["redirect_lost", "redirect_late"],
              "The hosted page's redirect to a merchant URL (success, failure, back, ...) after the consumer's action, e.g. to myapp://...; delay_ms delays the redirect, not the action.",
              request: KlarnaScenarioVocabulary.noBody),
        // Callbacks: one decision per status_update call (klarna-api.md §4.5).
        .init(.klarnaHPPStatusCallback, outcomes: CallbackOutcome.names,
              "HPP's status_update callback to merchant_urls.status_update, one per status change (kept in /__sandbox/callbacks).",
              request: KlarnaScenarioVocabulary.hppStatusCallback),
    ]

    static let outcomes: [ScenarioVocabulary.Outcome] = [
        .init("reject", "load, authorize, reauthorize, finalize. The SDK answers approved: false, show_form: false. Optional \"reason\": one of Klarna's playground reject reasons.",
              parameters: [.init("reason", .string(values: KlarnaOutcome.rejectReasons),
                                 "One of Klarna's playground reject reasons (the +reject_reason_<reason> email tag).")]) { reader in
            guard let node = reader["reason"] else { return KlarnaOutcome.reject(reason: nil) }
            guard let reason = reader.string(node, reader.path / "reason") else { return nil }
            guard KlarnaOutcome.rejectReasons.contains(reason) else {
                reader.report(reader.path / "reason", at: node.position,
                              "unknown reject reason \(JSONNode.quoted(reason)) (expected one of: \(KlarnaOutcome.rejectReasons.joined(separator: ", ")))")
                return nil
            }
            return KlarnaOutcome.reject(reason: reason)
        },
        .init(KlarnaOutcome.cancel, "authorize, reauthorize, finalize. The customer closed the form: approved: false, show_form: true."),
        .init(KlarnaOutcome.finalizeRequired, "authorize. approved: false, finalize_required: true; finalize then approves."),
        .init(KlarnaOutcome.showFormFalse, "load, authorize, reauthorize. The SDK error ShowFormFalseError."),
        .init(KlarnaOutcome.invalidClientToken, "initialize, load, authorize, reauthorize, finalize. The SDK error InvalidClientTokenError."),
        .init(KlarnaOutcome.expireToken, "create_order, cancel_authorization, create_customer_token. The authorization token acts as if 60 minutes had passed: 404 NOT_FOUND \"Invalid authorization token\"."),
        .init("mismatched_fields", "create_order, create_customer_token. 409 BAD_VALUE \"Not matching fields: [a, b]\"; requires \"fields\".",
              parameters: [.init("fields", .stringSet, required: true,
                                 "The fields named in \"Not matching fields: [...]\", e.g. [\"billing_address.postal_code\"].")]) { reader in
            guard let node = reader.require("fields") else { return nil }
            return reader.stringSet(node, reader.path / "fields", what: "field names", example: "field, e.g. \"billing_address.postal_code\"")
                .map(KlarnaOutcome.mismatchedFields)
        },
        .init("cart_changed", "create_order. 409 BAD_VALUE \"Not matching fields: [Incorrect number of items in the cart. Expected: E, Actual: A]\"; optional \"expected\" and \"actual\" (default: counted from the authorized and the sent cart).",
              parameters: [.init("expected", .integer(0...Int.max), "The \"Expected: E\" count. Default: the number of order lines that were authorized."),
                           .init("actual", .integer(0...Int.max), "The \"Actual: A\" count. Default: the number of order lines sent.")]) { reader in
            var ok = true
            var counts: [String: Int] = [:]
            for key in ["expected", "actual"] {
                guard let node = reader[key] else { continue }
                if let count = reader.integer(node, reader.path / key, in: 0...Int.max) { counts[key] = count } else { ok = false }
            }
            return ok ? KlarnaOutcome.cartChanged(expected: counts["expected"], actual: counts["actual"]) : nil
        },
        .init(KlarnaOutcome.rejected, "create_order. 403 REJECTED \"Rejected\"."),
        .init(KlarnaOutcome.fraudPending, "create_order. The order is created with fraud_status PENDING."),
        .init(KlarnaOutcome.fraudRejected, "create_order. The order is created with fraud_status REJECTED."),
        .init(KlarnaOutcome.refused, "Klarna Order Management capture, refund, cancel_order, acknowledge_order, release_remaining_authorization, extend_authorization_time. 403 with the operation's code: CAPTURE_NOT_ALLOWED, REFUND_NOT_ALLOWED, CANCEL_NOT_ALLOWED or NOT_ALLOWED."),
        // The return trip (docs/scenarios.md, "Failures apps must survive").
        .init(KlarnaOutcome.redirectLost, "klarna.hpp.redirect. The consumer's action takes effect (after pay the session is COMPLETED, the status callback sent), but the redirect to the merchant URL never comes: the page shows the result and offers no way back (API clients: 200 {\"status\"}, no location)."),
        .init("redirect_late", "klarna.hpp.redirect. The consumer's action takes effect at once (status, callback); the redirect to the merchant URL comes \"delay_ms\" (required) later.") { reader in
            reader.require("delay_ms") == nil ? nil : KlarnaOutcome.redirectLate
        }
    ] + callbackOutcomes

    /// status_callback's outcomes; HPP retries a failed call after a delay, 4 calls in all (klarna-api.md §4.5).
    static let callbackOutcomes = CallbackOutcome.declarations(schedule: "Klarna HPP: 4 calls in all, a delay apart")
}
