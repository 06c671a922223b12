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

// The state file's readers (SandboxCore's SavedStateDirectDecodable), as PaymentsSavedState.swift's: an order with
// idempotent answers (few orders have any) is read through `Codable`.

extension OrderManagementLedger.Order: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames([
        "id", "placed", "fraudStatus", "klarnaReference", "createdAt", "expiresAt", "scenario", "originalOrderAmount", "orderAmount",
        "capturedAmount", "refundedAmount", "cancelled", "released", "acknowledged", "captures", "refunds", "sendOuts", "shippingInfo",
        "dueDateExtensions", "answers",
    ])

    convenience init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var id = "", placed: Shared<KlarnaCreateOrderRequest>?, fraudStatus = "", klarnaReference = ""
        var createdAt = Date.distantPast, expiresAt = Date.distantPast, scenario: String?
        var originalOrderAmount = 0, orderAmount = 0, capturedAmount = 0, refundedAmount = 0
        var cancelled = false, released = false, acknowledged = false
        var captures: [KlarnaCapture] = [], refunds: [KlarnaRefund] = [], shippingInfo: [KlarnaShippingInfo] = []
        var sendOuts: [String: Int] = [:], dueDateExtensions: [String: Int] = [:]
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: id = try decoder.readString(value)
            case 1: placed = try decoder.readShared(value)
            case 2: fraudStatus = try decoder.readString(value)
            case 3: klarnaReference = try decoder.readString(value)
            case 4: createdAt = try decoder.readDate(value)
            case 5: expiresAt = try decoder.readDate(value)
            case 6: scenario = try decoder.readOptionalString(value)
            case 7: originalOrderAmount = try decoder.readInt(value)
            case 8: orderAmount = try decoder.readInt(value)
            case 9: capturedAmount = try decoder.readInt(value)
            case 10: refundedAmount = try decoder.readInt(value)
            case 11: cancelled = try decoder.readBool(value)
            case 12: released = try decoder.readBool(value)
            case 13: acknowledged = try decoder.readBool(value)
            case 14: captures = try decoder.readArray(value)
            case 15: refunds = try decoder.readArray(value)
            case 16: sendOuts = try decoder.readIntegers(value)
            case 17: shippingInfo = try decoder.readArray(value)
            case 18: dueDateExtensions = try decoder.readIntegers(value)
            default: guard try decoder.elements(of: value).isEmpty else { throw SavedStateDirectMiss() }
            }
        }
        try members.require(((1 << 20) - 1) & ~(1 << 6))  // all but `scenario`
        guard let placed else { throw SavedStateDirectMiss() }
        self.init(id: id, placed: placed, fraudStatus: fraudStatus, klarnaReference: klarnaReference, createdAt: createdAt,
                  expiresAt: expiresAt, scenario: scenario, originalOrderAmount: originalOrderAmount)
        (self.orderAmount, self.capturedAmount, self.refundedAmount) = (orderAmount, capturedAmount, refundedAmount)
        (self.cancelled, self.released, self.acknowledged) = (cancelled, released, acknowledged)
        (self.captures, self.refunds, self.sendOuts, self.shippingInfo, self.dueDateExtensions) =
            (captures, refunds, sendOuts, shippingInfo, dueDateExtensions)
    }
}

extension KlarnaCapture: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames([
        "captureId", "klarnaReference", "capturedAmount", "capturedAt", "description", "reference", "orderLines", "refundedAmount",
        "billingAddress", "shippingAddress", "shippingInfo",
    ])

    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var captureId = "", klarnaReference = "", capturedAmount = 0, capturedAt = Date.distantPast, description: String?
        var reference: String?, orderLines: [KlarnaOrderLine] = [], refundedAmount = 0, billingAddress: KlarnaAddress?
        var shippingAddress: KlarnaAddress?, shippingInfo: [KlarnaShippingInfo] = []
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: captureId = try decoder.readString(value)
            case 1: klarnaReference = try decoder.readString(value)
            case 2: capturedAmount = try decoder.readInt(value)
            case 3: capturedAt = try decoder.readDate(value)
            case 4: description = try decoder.readOptionalString(value)
            case 5: reference = try decoder.readOptionalString(value)
            case 6: orderLines = try decoder.readShareableArray(value)
            case 7: refundedAmount = try decoder.readInt(value)
            case 8: billingAddress = try decoder.readOptionalShareable(value)
            case 9: shippingAddress = try decoder.readOptionalShareable(value)
            default: shippingInfo = try decoder.readArray(value)
            }
        }
        try members.require(0b100_1100_1111)
        self.init(captureId: captureId, klarnaReference: klarnaReference, capturedAmount: capturedAmount, capturedAt: capturedAt,
                  description: description, reference: reference, orderLines: orderLines, refundedAmount: refundedAmount,
                  billingAddress: billingAddress, shippingAddress: shippingAddress, shippingInfo: shippingInfo)
    }
}

extension KlarnaRefund: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["refundId", "refundedAmount", "refundedAt", "description", "reference", "orderLines"])

    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var refundId = "", refundedAmount = 0, refundedAt = Date.distantPast, description: String?, reference: String?
        var orderLines: [KlarnaOrderLine] = []
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: refundId = try decoder.readString(value)
            case 1: refundedAmount = try decoder.readInt(value)
            case 2: refundedAt = try decoder.readDate(value)
            case 3: description = try decoder.readOptionalString(value)
            case 4: reference = try decoder.readOptionalString(value)
            default: orderLines = try decoder.readShareableArray(value)
            }
        }
        try members.require(0b10_0111)
        self.init(refundId: refundId, refundedAmount: refundedAmount, refundedAt: refundedAt, description: description,
                  reference: reference, orderLines: orderLines)
    }
}

extension KlarnaShippingInfo: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["shippingCompany", "shippingMethod", "trackingNumber", "trackingUri",
                                                      "returnShippingCompany", "returnTrackingNumber", "returnTrackingUri"])

    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            let text = try decoder.readOptionalString(value)
            switch name {
            case 0: shippingCompany = text
            case 1: shippingMethod = text
            case 2: trackingNumber = text
            case 3: trackingUri = text
            case 4: returnShippingCompany = text
            case 5: returnTrackingNumber = text
            default: returnTrackingUri = text
            }
        }
    }
}
