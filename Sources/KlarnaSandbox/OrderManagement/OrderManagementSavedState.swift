// SPDX-License-Identifier: MIT
import Foundation

// The state file's fast path for an Order Management order (SandboxCore's SavedStateDirectEncodable): the bytes its
// synthesized `encode(to:)` writes, members in declaration order; its captures, refunds and shipping info too; its
// answers (few, often none) through their own `encode(to:)`. A member added to the order or those models must be
// added here too (a test compares these with JSONEncoder's output).
extension OrderManagementLedger.Order: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("id", id)
        try object.value("placed", placed)
        object.string("fraudStatus", fraudStatus)
        object.string("klarnaReference", klarnaReference)
        try object.date("createdAt", createdAt)
        try object.date("expiresAt", expiresAt)
        object.string("scenario", scenario)
        object.integer("originalOrderAmount", originalOrderAmount)
        object.integer("orderAmount", orderAmount)
        object.integer("capturedAmount", capturedAmount)
        object.integer("refundedAmount", refundedAmount)
        object.bool("cancelled", cancelled)
        object.bool("released", released)
        object.bool("acknowledged", acknowledged)
        try object.values("captures", captures)
        try object.values("refunds", refunds)
        object.integers("sendOuts", sendOuts)
        try object.values("shippingInfo", shippingInfo)
        object.integers("dueDateExtensions", dueDateExtensions)
        try object.encodables("answers", answers)
        object.end()
    }
}

extension KlarnaCapture: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("captureId", captureId)
        object.string("klarnaReference", klarnaReference)
        object.integer("capturedAmount", capturedAmount)
        try object.date("capturedAt", capturedAt)
        object.string("description", description)
        object.string("reference", reference)
        try object.values("orderLines", orderLines)
        object.integer("refundedAmount", refundedAmount)
        try object.value("billingAddress", billingAddress)
        try object.value("shippingAddress", shippingAddress)
        try object.values("shippingInfo", shippingInfo)
        object.end()
    }
}

extension KlarnaRefund: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("refundId", refundId)
        object.integer("refundedAmount", refundedAmount)
        try object.date("refundedAt", refundedAt)
        object.string("description", description)
        object.string("reference", reference)
        try object.values("orderLines", orderLines)
        object.end()
    }
}

extension KlarnaShippingInfo: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("shippingCompany", shippingCompany)
        object.string("shippingMethod", shippingMethod)
        object.string("trackingNumber", trackingNumber)
        object.string("trackingUri", trackingUri)
        object.string("returnShippingCompany", returnShippingCompany)
        object.string("returnTrackingNumber", returnTrackingNumber)
        object.string("returnTrackingUri", returnTrackingUri)
        object.end()
    }
}
