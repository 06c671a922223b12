// SPDX-License-Identifier: MIT
import Foundation

// The state file's fast path for an Order Management order (SandboxCore's SavedStateDirectEncodable): the bytes its
// synthesized `encode(to:)` writes, members in declaration order; its captures, refunds and answers (few, often
// none) through their own `encode(to:)`. A member added to the order must be added here too (a test compares this
// with JSONEncoder's output).
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
        try object.encodable("captures", captures)
        try object.encodable("refunds", refunds)
        try object.encodable("sendOuts", sendOuts)
        try object.encodable("shippingInfo", shippingInfo)
        try object.encodable("dueDateExtensions", dueDateExtensions)
        try object.encodable("answers", answers)
        object.end()
    }
}
