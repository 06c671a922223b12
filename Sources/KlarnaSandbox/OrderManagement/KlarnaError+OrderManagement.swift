// SPDX-License-Identifier: MIT
import Foundation

/// Order Management's catalogue (klarna-api.md §3.2), in the envelope KP uses too (§1.4). Texts marked
/// "inferred" are the sandbox's where Klarna documents the code but not the message for that case.
extension KlarnaError {
    /// "Order 7849fd84-… cannot be found" (§3.2).
    static func noSuchOrder(_ orderID: String) -> KlarnaError {
        KlarnaError(.notFound, code: "NO_SUCH_ORDER", messages: ["Order \(orderID) cannot be found"])
    }

    /// Acknowledge's wording of the same 404 (Klarna's "acknowledge your KCO orders" page).
    static func noSuchOrderToAcknowledge(_ orderID: String) -> KlarnaError {
        KlarnaError(.notFound, code: "NO_SUCH_ORDER", messages: ["Order \(orderID) cannot be found. Acknowledgement not possible."])
    }

    /// Inferred text, after the refund one; §3.2 documents NO_SUCH_CAPTURE only for shipping info.
    static func noSuchCapture(_ captureID: String, orderID: String) -> KlarnaError {
        KlarnaError(.notFound, code: "NO_SUCH_CAPTURE", messages: ["Capture \(captureID) cannot be found for order \(orderID)"])
    }

    /// "Refund <id> cannot be found for order <id>" (§3.2; sent as 404, the docs' "400 NOT_FOUND" is a typo).
    static func noSuchRefund(_ refundID: String, orderID: String) -> KlarnaError {
        KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Refund \(refundID) cannot be found for order \(orderID)"])
    }

    /// "Capture not allowed": cancelled or expired order, or more than the remaining authorization (§3.2, §5).
    static let captureNotAllowed = KlarnaError(.forbidden, code: "CAPTURE_NOT_ALLOWED", messages: ["Capture not allowed"])

    static let refundWithoutCaptures = KlarnaError(.forbidden, code: "REFUND_NOT_ALLOWED",
                                                   messages: ["Order has no captures. Refund not possible"])
    /// Inferred text: more than captured minus refunded (§5, §9.10).
    static let refundExceedsCaptured = KlarnaError(.forbidden, code: "REFUND_NOT_ALLOWED",
                                                   messages: ["Refund amount exceeds the captured amount. Refund not possible"])
    /// Inferred text: a scenario's `refused` and a refund of 0.
    static let refundNotAllowed = KlarnaError(.forbidden, code: "REFUND_NOT_ALLOWED", messages: ["Refund not allowed"])

    static let cancelWithCaptures = KlarnaError(.forbidden, code: "CANCEL_NOT_ALLOWED",
                                                messages: ["Order has previous captures. Cancel not possible"])
    /// Inferred text: the OAS says "(e.g. order has captures or is closed)" without a message.
    static func cancelNotAllowed(_ status: String) -> KlarnaError {
        KlarnaError(.forbidden, code: "CANCEL_NOT_ALLOWED", messages: ["Order is \(status.lowercased()). Cancel not possible"])
    }
    static let cancelRefused = KlarnaError(.forbidden, code: "CANCEL_NOT_ALLOWED", messages: ["Cancel not allowed"])

    /// "Update not allowed." (OM-OAS, acknowledge).
    static let updateNotAllowed = KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["Update not allowed."])

    /// "Order is fully captured. Remaining authorization cannot be released." is Klarna's (release docs);
    /// the other states' texts are inferred in the same form.
    static func releaseNotAllowed(_ reason: String) -> KlarnaError {
        KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["\(reason) Remaining authorization cannot be released."])
    }

    /// "Order is expired. Authorization time cannot be extended." is Klarna's (extension docs); the other
    /// texts are inferred in the same form.
    static func extendNotAllowed(_ reason: String) -> KlarnaError {
        KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["\(reason) Authorization time cannot be extended."])
    }

    /// "Resulting authorization amount xxx cannot be less than the captured amount xxx for order. Order
    /// authorization cannot be updated" (§3.2); the other reasons (fully captured, cancelled, expired, an
    /// increase not granted: Klarna's update-order-amount docs) are worded in the same form, inferred.
    static func updateAuthorizationNotAllowed(_ reason: String) -> KlarnaError {
        KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["\(reason) Order authorization cannot be updated"])
    }

    /// "Can not update a cancelled order." (OM-OAS, merchant-references 403); also for customer details.
    static let updateCancelledOrder = KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["Can not update a cancelled order."])

    /// Inferred text: a scenario's `refused` on an update without a documented message of its own.
    static let updateRefused = KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["Update not allowed."])

    /// "Order has no captures." (OM-OAS, capture shipping-info and trigger-send-out 403).
    static let orderHasNoCaptures = KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["Order has no captures."])

    /// "Capture could not be found. Shipping info cannot be added to capture …" (§3.2).
    static func noSuchCaptureForShippingInfo(_ captureID: String) -> KlarnaError {
        KlarnaError(.notFound, code: "NO_SUCH_CAPTURE",
                    messages: ["Capture could not be found. Shipping info cannot be added to capture \(captureID)"])
    }

    /// Inferred text after "Shipping address can not be updated"
    /// (klarna/kco_rest_php: docs/examples/OrderManagementAPI/Captures/update_customer_details.php).
    static let captureShippingAddressNotUpdatable = KlarnaError(.forbidden, code: "NOT_ALLOWED",
                                                                messages: ["Shipping address of a capture cannot be updated."])

    /// "Extension of due date is not possible." (OM-OAS extend-due-date 403); the reasons are inferred.
    static func extendDueDateNotAllowed(_ reason: String) -> KlarnaError {
        KlarnaError(.forbidden, code: "NOT_ALLOWED", messages: ["\(reason) Extension of due date is not possible."])
    }
}
