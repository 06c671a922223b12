// SPDX-License-Identifier: MIT
import Foundation

// Order Management request and response bodies (klarna-api.md §5; schemas of ordermanagement-v1.openapi.json).
// Read with KlarnaJSONObject and written with KlarnaJSONWriter like Klarna Payments' bodies (PaymentsJSON.swift).
//
// Invalid bodies, two kinds (klarna-api.md §3.2, §9.1):
// - unparseable JSON, a wrong type, a missing required member or a number out of range: 400 BAD_REQUEST /
//   BAD_VALUE "Bad value: <path>", as Klarna Payments answers. OM documents no message for these; clients of
//   both APIs already parse this form.
// - a string or list longer than the OM schema allows: 422 UNPROCESSABLE_ENTITY "The size of the <a/b> value
//   must be between 0 and <max>", the one validation error the OM docs show (§3.2), in its path format.

/// `shipping_info` (captures).
struct KlarnaShippingInfo: Equatable, Sendable {
    var shippingCompany, shippingMethod, trackingNumber, trackingUri: String?
    var returnShippingCompany, returnTrackingNumber, returnTrackingUri: String?

    /// OM-OAS `shipping_info.shipping_method` pattern.
    static let shippingMethods: Set<String> = [
        "PickUpStore", "Home", "BoxReg", "BoxUnreg", "PickUpPoint", "Own", "Postal", "DHLPackstation", "Digital",
        "Undefined", "PickUpWarehouse", "ClickCollect", "PalletDelivery",
    ]
}

/// `CaptureObject`: the body of POST …/captures.
struct KlarnaCaptureRequest: Equatable, Sendable {
    var capturedAmount: Int
    var description, reference: String?
    var orderLines: [KlarnaOrderLine]?
    var shippingInfo: [KlarnaShippingInfo]?
    /// Accepted and not stored: "not returned when reading the order" (OM-OAS).
    var shippingDelay: Int?
}

/// `RefundObject`: the body of POST …/refunds.
struct KlarnaRefundRequest: Equatable, Sendable {
    var refundedAmount: Int
    var description, reference: String?
    var orderLines: [KlarnaOrderLine]?
}

/// `Update_authorization`: the body of PATCH …/authorization. Without `order_lines` the order's lines are
/// deleted ("If no order lines are provided in the call, the original order lines will be deleted", Klarna's
/// update-order-amount docs).
struct KlarnaUpdateAuthorizationRequest: Equatable, Sendable {
    var orderAmount: Int
    var description: String?
    var orderLines: [KlarnaOrderLine]?
}

/// `Update_merchant_references`: a present member overwrites, an absent one is kept (OM-OAS).
struct KlarnaUpdateMerchantReferencesRequest: Equatable, Sendable {
    var merchantReference1, merchantReference2: String?
}

/// `UpdateConsumer` (PATCH …/customer-details), and the body of PATCH …/captures/{id}/customer-details, which the
/// OM document lacks: klarna/kco_rest_php: src/Klarna/Rest/OrderManagement/Capture.php sends `{billing_address}` ("Shipping
/// address can not be updated", its example).
struct KlarnaUpdateCustomerDetailsRequest: Equatable, Sendable {
    var billingAddress, shippingAddress: KlarnaAddress?
}

/// `UpdateShippingInfo`: the body of POST …/captures/{id}/shipping-info (1...500 items, required).
struct KlarnaUpdateShippingInfoRequest: Equatable, Sendable {
    var shippingInfo: [KlarnaShippingInfo]
}

/// `ExtendDueDateRequest`: PATCH …/captures/{id}/extend-due-date.
struct KlarnaExtendDueDateRequest: Equatable, Sendable {
    var numberOfDays: Int
}

/// `ExtendDueDateOptions`: GET …/captures/{id}/extend-due-date-options.
struct KlarnaExtendDueDateOptions: Equatable, Sendable {
    var currency: String
    var options: [KlarnaDueDateOption]
}

/// `Capture` (GET …/captures/{capture_id}, and in the order's `captures`).
struct KlarnaCapture: Equatable, Sendable {
    var captureId: String
    /// `<order klarna_reference>-<n>` (klarna-api.md §5: "4K7Q6QF6-1").
    var klarnaReference: String
    var capturedAmount: Int
    var capturedAt: Date
    var description, reference: String?
    var orderLines: [KlarnaOrderLine]
    var refundedAmount: Int
    var billingAddress, shippingAddress: KlarnaAddress?
    var shippingInfo: [KlarnaShippingInfo]
}

/// `Refund` (GET …/refunds/{refund_id}, and in the order's `refunds`).
struct KlarnaRefund: Equatable, Sendable {
    var refundId: String
    var refundedAmount: Int
    var refundedAt: Date
    var description, reference: String?
    var orderLines: [KlarnaOrderLine]
}

/// `Order`, as GET /ordermanagement/v1/orders/{order_id} shows it at one moment (status and remaining amount
/// already computed for that moment).
struct KlarnaOrderManagementOrder: Equatable, Sendable {
    var orderId: String
    var status: String
    var fraudStatus: String
    var orderAmount, originalOrderAmount, capturedAmount, refundedAmount, remainingAuthorizedAmount: Int
    var placed: KlarnaCreateOrderRequest
    var klarnaReference: String
    var createdAt, expiresAt: Date
    var captures: [KlarnaCapture]
    var refunds: [KlarnaRefund]
    /// Added with POST …/shipping-info (the order's own, not a capture's).
    var shippingInfo: [KlarnaShippingInfo]
}

// MARK: - Reading

/// The OM string limits (422) and number ranges (400) on top of ``KlarnaJSONObject``'s types.
enum OrderManagementValidation {
    /// OM-OAS `order_line.type` pattern.
    static let orderLineTypes: Set<String> = [
        "physical", "discount", "shipping_fee", "sales_tax", "store_credit", "gift_card", "digital", "surcharge", "return_fee",
    ]
    static let maximumAmount = 100_000_000

    /// 422 UNPROCESSABLE_ENTITY in the docs' words, with the path as the docs write it: `order_lines[0].name`
    /// becomes `order_lines/name` (klarna-api.md §3.2: "shipping_info/shipping_company").
    static func sizeError(_ path: String, maximum: Int) -> KlarnaError {
        var slashed = ""
        var inIndex = false
        for character in path {
            switch character {
            case "[": inIndex = true
            case "]": inIndex = false
            case "." where !inIndex: slashed.append("/")
            default: if !inIndex { slashed.append(character) }
            }
        }
        return KlarnaError(.unprocessableContent, code: "UNPROCESSABLE_ENTITY",
                           messages: ["The size of the \(slashed) value must be between 0 and \(maximum)"])
    }

    static func string(_ o: KlarnaJSONObject, _ key: String, maximum: Int) throws(KlarnaError) -> String? {
        let value = try o.string(key)
        if let value, value.count > maximum { throw sizeError(o.childPath(key), maximum: maximum) }
        return value
    }

    static func int(_ o: KlarnaJSONObject, _ key: String, in range: ClosedRange<Int>, required: Bool = false) throws(KlarnaError) -> Int? {
        let value = try o.int(key)
        if let value, !range.contains(value) { throw .badValue(o.childPath(key)) }
        if value == nil && required { throw .badValue(o.childPath(key)) }
        return value
    }

    static func objects<T: KlarnaJSONDecodable>(_ o: KlarnaJSONObject, _ key: String, maximum: Int,
                                                as type: T.Type = T.self) throws(KlarnaError) -> [T]? {
        let values: [T]? = try o.objects(key)
        if let values, values.count > maximum { throw sizeError(o.childPath(key), maximum: maximum) }
        return values
    }

    /// An `order_line` as OM's schema has it: `name`, `quantity`, `unit_price`, `total_amount` required.
    static func validate(_ line: KlarnaOrderLine, _ o: KlarnaJSONObject) throws(KlarnaError) {
        let amounts = Int.min...maximumAmount
        guard line.name != nil else { throw .badValue(o.childPath("name")) }
        _ = try string(o, "name", maximum: 255)
        _ = try int(o, "quantity", in: 0...Int.max, required: true)
        _ = try int(o, "unit_price", in: amounts, required: true)
        _ = try int(o, "total_amount", in: amounts, required: true)
        _ = try int(o, "tax_rate", in: 0...Int(Int32.max))
        _ = try int(o, "total_discount_amount", in: 0...maximumAmount)
        _ = try int(o, "total_tax_amount", in: amounts)
        if let type = line.type, !orderLineTypes.contains(type) { throw .badValue(o.childPath("type")) }
        _ = try string(o, "reference", maximum: 255)
        _ = try string(o, "quantity_unit", maximum: 10)
        _ = try string(o, "merchant_data", maximum: 1024)
        _ = try string(o, "product_url", maximum: 1024)
        _ = try string(o, "image_url", maximum: 1024)
        if let node = o.node("product_identifiers") {
            let identifiers = try KlarnaJSONObject(node, path: o.childPath("product_identifiers"))
            for (key, maximum) in [("brand", 70), ("category_path", 750), ("color", 64), ("global_trade_item_number", 50),
                                   ("manufacturer_part_number", 70), ("size", 64)] {
                _ = try string(identifiers, key, maximum: maximum)
            }
        }
        if let subscription = line.subscription, let node = o.node("subscription") {
            let s = try KlarnaJSONObject(node, path: o.childPath("subscription"))
            // OM-OAS `subscription`: name, interval and interval_count all required, so that no stored line
            // (a capture's, a refund's, an updated order's) breaks the schema on a read.
            guard subscription.name != nil else { throw .badValue(s.childPath("name")) }
            _ = try string(s, "name", maximum: 255)
            guard let interval = subscription.interval, ["DAY", "WEEK", "MONTH", "YEAR"].contains(interval) else {
                throw .badValue(s.childPath("interval"))
            }
            _ = try int(s, "interval_count", in: 1...Int(Int32.max), required: true)
        }
    }
}

/// An OM order line: Klarna Payments' reader plus OM's required members and limits.
struct OrderManagementOrderLine: KlarnaJSONDecodable {
    var line: KlarnaOrderLine

    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        line = try KlarnaOrderLine(o)
        try OrderManagementValidation.validate(line, o)
    }
}

/// An OM `address`: Klarna Payments' reader plus OM's string limits (422, OM-OAS `address`).
struct OrderManagementAddress: KlarnaJSONDecodable {
    var address: KlarnaAddress

    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        address = try KlarnaAddress(o)
        for (key, maximum) in [("attention", 255), ("city", 200), ("email", 100), ("family_name", 100), ("given_name", 100),
                               ("organization_name", 255), ("phone", 100), ("postal_code", 10), ("region", 200),
                               ("street_address", 100), ("street_address2", 100), ("title", 20)] {
            _ = try OrderManagementValidation.string(o, key, maximum: maximum)
        }
    }
}

extension KlarnaAddress {
    /// The members `update` carries replace this address's; the others stay (a partial update, inferred: the
    /// example in klarna/kco_rest_php: docs/examples/OrderManagementAPI/Captures/update_customer_details.php
    /// sends only `email` and `phone`).
    func merging(_ update: KlarnaAddress) -> KlarnaAddress {
        var merged = self
        let members: [WritableKeyPath<KlarnaAddress, String?>] = [
            \.attention, \.city, \.country, \.email, \.familyName, \.givenName, \.organizationName, \.phone, \.postalCode,
            \.region, \.streetAddress, \.streetAddress2, \.title,
        ]
        for member in members where update[keyPath: member] != nil { merged[keyPath: member] = update[keyPath: member] }
        return merged
    }
}

extension KlarnaShippingInfo: KlarnaJSONDecodable, KlarnaJSONEncodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        typealias V = OrderManagementValidation
        shippingCompany = try V.string(o, "shipping_company", maximum: 100)
        shippingMethod = try o.string("shipping_method")
        if let method = shippingMethod, !Self.shippingMethods.contains(method) { throw .badValue(o.childPath("shipping_method")) }
        trackingNumber = try V.string(o, "tracking_number", maximum: 100)
        trackingUri = try V.string(o, "tracking_uri", maximum: 1024)
        returnShippingCompany = try V.string(o, "return_shipping_company", maximum: 100)
        returnTrackingNumber = try V.string(o, "return_tracking_number", maximum: 100)
        returnTrackingUri = try V.string(o, "return_tracking_uri", maximum: 1024)
    }

    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("return_shipping_company", returnShippingCompany); w.add("return_tracking_number", returnTrackingNumber)
        w.add("return_tracking_uri", returnTrackingUri); w.add("shipping_company", shippingCompany)
        w.add("shipping_method", shippingMethod); w.add("tracking_number", trackingNumber); w.add("tracking_uri", trackingUri)
        return w.json
    }
}

extension KlarnaCaptureRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        typealias V = OrderManagementValidation
        // 0...100000000 in the request schema; 0 itself is refused later (403), see the store.
        capturedAmount = try V.int(o, "captured_amount", in: 0...V.maximumAmount, required: true) ?? 0
        description = try V.string(o, "description", maximum: 255)
        reference = try V.string(o, "reference", maximum: 255)
        orderLines = try V.objects(o, "order_lines", maximum: 1000, as: OrderManagementOrderLine.self)?.map(\.line)
        shippingInfo = try V.objects(o, "shipping_info", maximum: 500)
        shippingDelay = try V.int(o, "shipping_delay", in: 0...Int.max)
    }
}

extension KlarnaRefundRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        typealias V = OrderManagementValidation
        refundedAmount = try V.int(o, "refunded_amount", in: 0...V.maximumAmount, required: true) ?? 0
        description = try V.string(o, "description", maximum: 255)
        reference = try V.string(o, "reference", maximum: 255)
        orderLines = try V.objects(o, "order_lines", maximum: 1000, as: OrderManagementOrderLine.self)?.map(\.line)
    }
}

extension KlarnaUpdateAuthorizationRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        typealias V = OrderManagementValidation
        orderAmount = try V.int(o, "order_amount", in: 0...V.maximumAmount, required: true) ?? 0
        description = try V.string(o, "description", maximum: 255)
        orderLines = try V.objects(o, "order_lines", maximum: 1000, as: OrderManagementOrderLine.self)?.map(\.line)
    }
}

extension KlarnaUpdateMerchantReferencesRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        merchantReference1 = try OrderManagementValidation.string(o, "merchant_reference1", maximum: 255)
        merchantReference2 = try OrderManagementValidation.string(o, "merchant_reference2", maximum: 255)
    }
}

extension KlarnaUpdateCustomerDetailsRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        billingAddress = try o.object("billing_address", as: OrderManagementAddress.self)?.address
        shippingAddress = try o.object("shipping_address", as: OrderManagementAddress.self)?.address
    }
}

extension KlarnaUpdateShippingInfoRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        let items: [KlarnaShippingInfo]? = try OrderManagementValidation.objects(o, "shipping_info", maximum: 500)
        // Required, minItems 1 (OM-OAS `UpdateShippingInfo`).
        guard let items, !items.isEmpty else { throw .badValue(o.childPath("shipping_info")) }
        shippingInfo = items
    }
}

extension KlarnaExtendDueDateRequest: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        numberOfDays = try OrderManagementValidation.int(o, "number_of_days", in: Int(Int32.min)...Int(Int32.max), required: true) ?? 0
    }
}

// MARK: - Writing

extension KlarnaCapture: KlarnaJSONEncodable {
    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("billing_address", billingAddress); w.add("capture_id", captureId); w.add("captured_amount", capturedAmount)
        w.add("captured_at", KlarnaJSON.timestamp(capturedAt)); w.add("description", description)
        w.add("klarna_reference", klarnaReference); w.add("order_lines", orderLines); w.add("reference", reference)
        w.add("refunded_amount", refundedAmount); w.add("shipping_address", shippingAddress); w.add("shipping_info", shippingInfo)
        return w.json
    }
}

extension KlarnaRefund: KlarnaJSONEncodable {
    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("description", description); w.add("order_lines", orderLines); w.add("reference", reference)
        w.add("refund_id", refundId); w.add("refunded_amount", refundedAmount); w.add("refunded_at", KlarnaJSON.timestamp(refundedAt))
        return w.json
    }
}

extension KlarnaOrderManagementOrder: KlarnaJSONEncodable {
    var json: JSONText {
        var w = KlarnaJSONWriter()
        w.add("billing_address", placed.billingAddress); w.add("captured_amount", capturedAmount); w.add("captures", captures)
        w.add("created_at", KlarnaJSON.timestamp(createdAt))
        // OM's `customer` has only these two (OM-OAS `customer`); left out when neither was given.
        if let customer = placed.customer, customer.dateOfBirth != nil || customer.nationalIdentificationNumber != nil {
            var c = KlarnaJSONWriter()
            c.add("date_of_birth", customer.dateOfBirth)
            c.add("national_identification_number", customer.nationalIdentificationNumber)
            w.add("customer", json: c.json)
        }
        w.add("expires_at", KlarnaJSON.timestamp(expiresAt)); w.add("fraud_status", fraudStatus)
        // KP create-order answers `authorized_payment_method: {type: invoice}` (PaymentsStore), OM the
        // upper-case form (klarna-api.md §5: "INVOICE").
        w.add("initial_payment_method", json: .object([("type", .string("INVOICE"))]))
        w.add("klarna_reference", klarnaReference); w.add("locale", placed.locale)
        w.add("merchant_data", placed.merchantData); w.add("merchant_reference1", placed.merchantReference1)
        w.add("merchant_reference2", placed.merchantReference2); w.add("order_amount", orderAmount); w.add("order_id", orderId)
        w.add("order_lines", placed.orderLines ?? []); w.add("original_order_amount", originalOrderAmount)
        w.add("purchase_country", placed.purchaseCountry); w.add("purchase_currency", placed.purchaseCurrency)
        w.add("refunded_amount", refundedAmount); w.add("refunds", refunds)
        w.add("remaining_authorized_amount", remainingAuthorizedAmount); w.add("shipping_address", placed.shippingAddress)
        if !shippingInfo.isEmpty { w.add("shipping_info", shippingInfo) }
        w.add("status", status)
        return w.json
    }
}

extension KlarnaExtendDueDateOptions: KlarnaJSONEncodable {
    var json: JSONText {
        .object([("currency", .string(currency)),
                 ("options", .array(options.map { .object([("amount", .int($0.fee)), ("number_of_days", .int($0.numberOfDays))]) }))])
    }
}
