// SPDX-License-Identifier: MIT
import Foundation

// What each Klarna operation's field conditions look at (ScenarioRequestShape): the request bodies of
// klarna-api.md §2, §4, §5 and §5b, with every key Klarna documents, not only those the sandbox reads.

extension KlarnaScenarioVocabulary {
    /// An object whose `keys` hold single values and whose `nested` keys hold the given shapes.
    static func object(_ keys: [String], _ nested: [String: ScenarioRequestShape] = [:]) -> ScenarioRequestShape {
        .object(Dictionary(uniqueKeysWithValues: keys.map { ($0, ScenarioRequestShape.value) }).merging(nested) { $1 })
    }

    /// GET and DELETE, and the POSTs Klarna documents without a body (OM cancel, acknowledge, …, trigger-send-out).
    static let noBody = ScenarioRequestShape.nothing

    // MARK: Klarna Payments (klarna-api.md §2; KlarnaSessionFields, KlarnaCreateOrderRequest)

    static let address = object(["attention", "city", "country", "email", "family_name", "given_name", "organization_name", "phone",
                                 "postal_code", "region", "street_address", "street_address2", "title"])
    static let customer = object(["date_of_birth", "gender", "last_four_ssn", "national_identification_number", "organization_entity_type",
                                  "organization_registration_id", "title", "type", "vat_id"])
    static let orderLine = object(
        ["type", "reference", "name", "quantity", "quantity_unit", "unit_price", "tax_rate", "total_amount", "total_discount_amount",
         "total_tax_amount", "merchant_data", "product_url", "image_url"],
        ["product_identifiers": object(["brand", "category_path", "global_trade_item_number", "manufacturer_part_number", "color", "size"]),
         "subscription": object(["name", "interval", "interval_count"])])
    static let attachment = object(["body", "content_type"])
    static let orderFields: [String: ScenarioRequestShape] = [
        "order_lines": .array(orderLine), "billing_address": address, "shipping_address": address, "customer": customer,
        "merchant_urls": object(["confirmation", "notification", "push", "authorization", "app_return_url"]),
        "custom_payment_method_ids": .array(.value), "attachment": attachment,
    ]
    static let orderValues = ["purchase_country", "purchase_currency", "locale", "order_amount", "order_tax_amount", "merchant_reference1",
                              "merchant_reference2", "merchant_data"]

    /// A payment session as it is created, updated and authorized (what load, authorize and finalize look at).
    static let session = object(orderValues + ["acquiring_channel", "intent", "design"], orderFields.merging(["options": .any]) { $1 })
    /// The create-order request; also the Customer Token API's order (§5b: a subset, with `attachment`), which
    /// the sandbox reads as one.
    static let order = object(orderValues + ["auto_capture"], orderFields)
    /// POST …/customer-token (§2.7).
    static let customerTokenCreation = object(["description", "intended_use", "locale", "purchase_country", "purchase_currency"],
                                              ["billing_address": address, "customer": customer])

    // MARK: Hosted Payment Page (klarna-api.md §4)

    /// POST /hpp/v1/sessions (§4.1), with the 2020 SDKs' `privacy_policy` and `terms` and the guide's `payment_fallback`.
    static let hppSession = object(["payment_session_url", "profile_id"], [
        "merchant_urls": object(["success", "cancel", "back", "failure", "error", "status_update", "privacy_policy", "terms"]),
        "options": object(["place_order_mode", "payment_method_category", "payment_fallback", "purchase_type", "logo_url", "page_title",
                           "show_subtotal_detail"],
                          ["payment_method_categories": .array(.value), "background_images": .array(object(["url", "width"]))]),
    ])
    /// POST …/distribution (§4.3).
    static let hppDistribution = object(["method", "template"], ["contact_information": object(["email", "phone", "phone_country", "access_id"])])

    // MARK: Order Management (klarna-api.md §5; OrderManagementModels)

    static let shippingInfo = object(["shipping_company", "shipping_method", "tracking_number", "tracking_uri", "return_shipping_company",
                                      "return_tracking_number", "return_tracking_uri"])
    /// `CaptureObject`.
    static let capture = object(["captured_amount", "description", "reference", "shipping_delay"],
                                ["order_lines": .array(orderLine), "shipping_info": .array(shippingInfo)])
    /// `RefundObject`.
    static let refund = object(["refunded_amount", "description", "reference"], ["order_lines": .array(orderLine)])
    /// `Update_authorization`.
    static let updateAuthorization = object(["order_amount", "description"], ["order_lines": .array(orderLine)])
    static let merchantReferences = object(["merchant_reference1", "merchant_reference2"])
    /// `UpdateConsumer`, also a capture's customer details.
    static let customerDetails = object([], ["billing_address": address, "shipping_address": address])
    /// `UpdateShippingInfo`, of the order or of a capture.
    static let addShippingInfo = object([], ["shipping_info": .array(shippingInfo)])
    static let extendDueDate = object(["number_of_days"])

    // MARK: Customer Token API (klarna-api.md §5b)

    static let customerTokenStatus = object(["status"])

    // MARK: Callbacks (klarna-api.md §4.5)

    /// The status_update body: `{"event_id", "session": <the GET session object>}`.
    static let hppStatusCallback = object(["event_id"], [
        "session": object(["session_id", "status", "updated_at", "expires_at", "authorization_token", "order_id", "klarna_reference"]),
    ])
}
