// SPDX-License-Identifier: MIT
import Foundation

// Klarna Payments request and response bodies (klarna-api.md §2; schemas of payments-v1.openapi.json).
// Swift names are the wire names in camelCase; PaymentsJSON.swift reads and writes them as snake_case.
// Every field is optional here so that a missing required field is reported by the validator with
// Klarna's own message (`Bad value: <path>`) instead of a generic decoding error. The groups of fields a request
// usually leaves out (customer, merchant URLs, ...) are `@Boxed`: absent they take 8 bytes, present one box that
// every copy shares (SandboxCore/SharedStorage.swift); an address keeps only its fields that are set.

/// An address keeps only the fields that are set (most requests send a few of the 13), in ``Field`` order, so that
/// equal addresses are equal values: 8 bytes inline and one short list, shared by every copy.
package struct KlarnaAddress: Equatable, Sendable {
    package enum Field: UInt8, Sendable, Codable {
        case attention, city, country, email, familyName, givenName, organizationName, phone, postalCode, region, streetAddress, streetAddress2, title
    }

    package struct Value: Equatable, Sendable, Codable {
        package var field: Field
        package var text: String
    }

    /// The fields that are set, ordered by ``Field``.
    private(set) var values: [Value] = []

    package init() {}

    package subscript(field: Field) -> String? {
        get { values.first { $0.field == field }?.text }
        set {
            let index = values.firstIndex { $0.field.rawValue >= field.rawValue } ?? values.endIndex
            let present = index < values.endIndex && values[index].field == field
            switch (newValue, present) {
            case (let text?, true): values[index].text = text
            case (let text?, false): values.insert(Value(field: field, text: text), at: index)
            case (nil, true): values.remove(at: index)
            case (nil, false): break
            }
        }
    }

    package var attention: String? { get { self[.attention] } set { self[.attention] = newValue } }
    package var city: String? { get { self[.city] } set { self[.city] = newValue } }
    package var country: String? { get { self[.country] } set { self[.country] = newValue } }
    package var email: String? { get { self[.email] } set { self[.email] = newValue } }
    package var familyName: String? { get { self[.familyName] } set { self[.familyName] = newValue } }
    package var givenName: String? { get { self[.givenName] } set { self[.givenName] = newValue } }
    package var organizationName: String? { get { self[.organizationName] } set { self[.organizationName] = newValue } }
    package var phone: String? { get { self[.phone] } set { self[.phone] = newValue } }
    package var postalCode: String? { get { self[.postalCode] } set { self[.postalCode] = newValue } }
    package var region: String? { get { self[.region] } set { self[.region] = newValue } }
    package var streetAddress: String? { get { self[.streetAddress] } set { self[.streetAddress] = newValue } }
    package var streetAddress2: String? { get { self[.streetAddress2] } set { self[.streetAddress2] = newValue } }
    package var title: String? { get { self[.title] } set { self[.title] = newValue } }
}

package struct KlarnaCustomer: Equatable, Sendable {
    package var dateOfBirth, gender, lastFourSsn, nationalIdentificationNumber, organizationEntityType,
        organizationRegistrationId, title, type, vatId: String?

    /// `customer_read`: what a read shows (no `last_four_ssn`, no `national_identification_number`).
    var forReading: KlarnaCustomer {
        var copy = self
        copy.lastFourSsn = nil
        copy.nationalIdentificationNumber = nil
        return copy
    }
}

package struct KlarnaMerchantURLs: Equatable, Sendable {
    package var confirmation, notification, push, authorization, appReturnUrl: String?
}

package struct KlarnaOptions: Equatable, Sendable {
    package var colorBorder, colorBorderSelected, colorDetails, colorText, radiusBorder: String?
}

package struct KlarnaAttachment: Equatable, Sendable {
    package var body, contentType: String?
}

package struct KlarnaProductIdentifiers: Equatable, Sendable {
    package var brand, categoryPath, globalTradeItemNumber, manufacturerPartNumber, color, size: String?
}

package struct KlarnaSubscription: Equatable, Sendable {
    package var name, interval: String?
    package var intervalCount: Int?
}

package struct KlarnaOrderLine: Equatable, Sendable {
    package var type, reference, name: String?
    package var quantity: Int?
    package var unitPrice, taxRate, totalAmount, totalDiscountAmount, totalTaxAmount: Int?
    /// The members a line seldom has, in one box (8 bytes when it has none of them).
    @Boxed private var extras: Extras? = nil

    struct Extras: Equatable, Sendable, Codable {
        var quantityUnit, merchantData, productUrl, imageUrl: String?
        var productIdentifiers: KlarnaProductIdentifiers?
        var subscription: KlarnaSubscription?

        var isEmpty: Bool {
            quantityUnit == nil && merchantData == nil && productUrl == nil && imageUrl == nil && productIdentifiers == nil
                && subscription == nil
        }
    }

    /// All the extras at once (a decoded line): one box, none when it has none of them.
    mutating func setExtras(_ new: Extras) { extras = new.isEmpty ? nil : new }

    private subscript<Value>(extra member: WritableKeyPath<Extras, Value?>) -> Value? {
        get { extras?[keyPath: member] }
        set {
            var changed = extras ?? Extras()
            changed[keyPath: member] = newValue
            extras = changed.isEmpty ? nil : changed
        }
    }

    // Read directly (every request reads them), set through a key path (seldom).
    package var quantityUnit: String? { get { extras?.quantityUnit } set { self[extra: \.quantityUnit] = newValue } }
    package var merchantData: String? { get { extras?.merchantData } set { self[extra: \.merchantData] = newValue } }
    package var productUrl: String? { get { extras?.productUrl } set { self[extra: \.productUrl] = newValue } }
    package var imageUrl: String? { get { extras?.imageUrl } set { self[extra: \.imageUrl] = newValue } }
    package var productIdentifiers: KlarnaProductIdentifiers? {
        get { extras?.productIdentifiers }
        set { self[extra: \.productIdentifiers] = newValue }
    }
    package var subscription: KlarnaSubscription? {
        get { extras?.subscription }
        set { self[extra: \.subscription] = newValue }
    }
}

/// The fields of `session_create` / `session` (create and update), also the base of `session_read`.
package struct KlarnaSessionFields: Equatable, Sendable {
    package var purchaseCountry, purchaseCurrency, locale: String?
    package var orderAmount, orderTaxAmount: Int?
    package var orderLines: [KlarnaOrderLine]?
    package var billingAddress, shippingAddress: KlarnaAddress?
    @Boxed package var customer: KlarnaCustomer? = nil
    @Boxed package var merchantUrls: KlarnaMerchantURLs? = nil
    package var merchantReference1, merchantReference2, merchantData: String?
    @Boxed package var attachment: KlarnaAttachment? = nil
    @Boxed package var options: KlarnaOptions? = nil
    package var acquiringChannel, intent: String?
    package var customPaymentMethodIds: [String]?
    package var design: String?

    package init() {}

    /// An update sends only what changes (klarna-api.md §2.3: partial merge, inferred).
    mutating func merge(_ update: KlarnaSessionFields) {
        // Spelled out rather than through key paths: this runs on every authorize and update.
        if let value = update.purchaseCountry { purchaseCountry = value }
        if let value = update.purchaseCurrency { purchaseCurrency = value }
        if let value = update.locale { locale = value }
        if let value = update.orderAmount { orderAmount = value }
        if let value = update.orderTaxAmount { orderTaxAmount = value }
        if let value = update.orderLines { orderLines = value }
        if let value = update.billingAddress { billingAddress = value }
        if let value = update.shippingAddress { shippingAddress = value }
        if let value = update.customer { customer = value }
        if let value = update.merchantUrls { merchantUrls = value }
        if let value = update.merchantReference1 { merchantReference1 = value }
        if let value = update.merchantReference2 { merchantReference2 = value }
        if let value = update.merchantData { merchantData = value }
        if let value = update.attachment { attachment = value }
        if let value = update.options { options = value }
        if let value = update.acquiringChannel { acquiringChannel = value }
        if let value = update.intent { intent = value }
        if let value = update.customPaymentMethodIds { customPaymentMethodIds = value }
        if let value = update.design { design = value }
    }
}

/// `create_order_request`: the session fields plus `auto_capture`.
package struct KlarnaCreateOrderRequest: Equatable, Sendable {
    package var purchaseCountry, purchaseCurrency, locale: String?
    package var orderAmount, orderTaxAmount: Int?
    package var orderLines: [KlarnaOrderLine]?
    package var billingAddress, shippingAddress: KlarnaAddress?
    @Boxed package var customer: KlarnaCustomer? = nil
    @Boxed package var merchantUrls: KlarnaMerchantURLs? = nil
    package var merchantReference1, merchantReference2, merchantData: String?
    package var customPaymentMethodIds: [String]?
    package var autoCapture: Bool?

    /// The order as the session fields the validator checks.
    var sessionFields: KlarnaSessionFields {
        var fields = KlarnaSessionFields()
        fields.purchaseCountry = purchaseCountry
        fields.purchaseCurrency = purchaseCurrency
        fields.locale = locale
        fields.orderAmount = orderAmount
        fields.orderTaxAmount = orderTaxAmount
        fields.orderLines = orderLines
        fields.billingAddress = billingAddress
        fields.shippingAddress = shippingAddress
        fields.customer = customer
        fields.merchantUrls = merchantUrls
        fields.merchantReference1 = merchantReference1
        fields.merchantReference2 = merchantReference2
        fields.merchantData = merchantData
        fields.customPaymentMethodIds = customPaymentMethodIds
        return fields
    }
}

extension KlarnaCreateOrderRequest {
    /// This request with the order lines and groups it has in common with `fields` (the authorized snapshot) taken
    /// from them, so that the order and the session hold one copy of equal values.
    func sharing(_ fields: KlarnaSessionFields) -> KlarnaCreateOrderRequest {
        var shared = self
        if orderLines == fields.orderLines { shared.orderLines = fields.orderLines }
        if billingAddress == fields.billingAddress { shared.billingAddress = fields.billingAddress }
        if shippingAddress == fields.shippingAddress { shared.shippingAddress = fields.shippingAddress }
        if $customer == fields.$customer { shared.$customer = fields.$customer }
        if $merchantUrls == fields.$merchantUrls { shared.$merchantUrls = fields.$merchantUrls }
        return shared
    }
}

/// `customer_token_creation_request`.
package struct KlarnaCustomerTokenRequest: Equatable, Sendable {
    package var description, intendedUse, locale, purchaseCountry, purchaseCurrency: String?
    package var billingAddress: KlarnaAddress?
    package var customer: KlarnaCustomer?
}

package struct KlarnaAssetURLs: Equatable, Sendable {
    package var descriptive, standard: String
}

package struct KlarnaPaymentMethodCategory: Equatable, Sendable {
    package var identifier, name: String
    package var assetUrls: KlarnaAssetURLs
}

/// `merchant_session`: the answer to create session.
struct KlarnaMerchantSession {
    var sessionId: String
    var clientToken: String
    var paymentMethodCategories: [KlarnaPaymentMethodCategory]
}

/// `session_read`: the stored fields plus the read-only ones.
struct KlarnaSessionRead {
    var fields: KlarnaSessionFields
    var clientToken: String
    var expiresAt: Date
    var paymentMethodCategories: [KlarnaPaymentMethodCategory]
    var status: String
    var authorizationToken: String?
}

/// `authorized_payment_method`: an object in the spec (klarna-api.md §2.5), not the docs' bare string.
package struct KlarnaAuthorizedPaymentMethod: Equatable, Sendable {
    package var type: String
    package var numberOfDays: Int?
    package var numberOfInstallments: Int?
}

/// `order`: the answer to create order.
package struct KlarnaOrder: Equatable, Sendable {
    package var orderId: String
    package var redirectUrl: String?
    package var fraudStatus: String
    package var authorizedPaymentMethod: KlarnaAuthorizedPaymentMethod
}

/// `customer_token_creation_response`.
struct KlarnaCustomerToken {
    var tokenId: String
    var redirectUrl: String?
    var paymentMethodReference: String
    var billingAddress: KlarnaAddress?
    var customer: KlarnaCustomer?
}

enum KlarnaJSON {
    /// Klarna's timestamps: ISO 8601 UTC with milliseconds, "2038-01-19T03:14:07.000Z".
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

// The state file (`--state-file`) keeps the sessions, tokens and orders these make up. Synthesized, so a field
// added to a model is kept too.
extension KlarnaAddress: Codable {}
extension KlarnaCustomer: Codable {}
extension KlarnaMerchantURLs: Codable {}
extension KlarnaOptions: Codable {}
extension KlarnaAttachment: Codable {}
extension KlarnaProductIdentifiers: Codable {}
extension KlarnaSubscription: Codable {}
extension KlarnaOrderLine: Codable {}
extension KlarnaSessionFields: Codable {}
extension KlarnaCreateOrderRequest: Codable {}
extension KlarnaAuthorizedPaymentMethod: Codable {}
extension KlarnaOrder: Codable {}

// The state file's fast path (PaymentsSavedState.swift): here, as it reads the line's private box.
extension KlarnaOrderLine: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("type", type)
        object.string("reference", reference)
        object.string("name", name)
        object.integer("quantity", quantity)
        object.integer("unitPrice", unitPrice)
        object.integer("taxRate", taxRate)
        object.integer("totalAmount", totalAmount)
        object.integer("totalDiscountAmount", totalDiscountAmount)
        object.integer("totalTaxAmount", totalTaxAmount)
        try object.value("extras", extras)
        object.end()
    }
}

extension KlarnaOrderLine.Extras: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("quantityUnit", quantityUnit)
        object.string("merchantData", merchantData)
        object.string("productUrl", productUrl)
        object.string("imageUrl", imageUrl)
        try object.value("productIdentifiers", productIdentifiers)
        try object.value("subscription", subscription)
        object.end()
    }
}

// The state file's readers (PaymentsSavedState.swift): here, as they set the address's values and the line's box.
extension KlarnaAddress: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["values"])
    private static let valueNames = SavedMemberNames(["field", "text"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        self.init()
        var members = try decoder.members(of: index, Self.savedNames)
        while let (_, value) = try members.nextMember() {
            for element in try decoder.elements(of: value) {
                var field: Field?, text: String?
                var pair = try decoder.members(of: element, Self.valueNames)
                while let (name, value) = try pair.nextMember() {
                    if name == 0 { field = Field(rawValue: try decoder.readUInt8(value)) } else { text = try decoder.readString(value) }
                }
                guard let field, let text else { throw SavedStateDirectMiss() }
                values.append(Value(field: field, text: text))
            }
        }
        try members.require(0b1)
    }
}

extension KlarnaOrderLine: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["type", "reference", "name", "quantity", "unitPrice", "taxRate", "totalAmount",
                                                      "totalDiscountAmount", "totalTaxAmount", "extras"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        self.init()
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: type = try decoder.readOptionalString(value)
            case 1: reference = try decoder.readOptionalString(value)
            case 2: self.name = try decoder.readOptionalString(value)
            case 3: quantity = try decoder.readOptionalInt(value)
            case 4: unitPrice = try decoder.readOptionalInt(value)
            case 5: taxRate = try decoder.readOptionalInt(value)
            case 6: totalAmount = try decoder.readOptionalInt(value)
            case 7: totalDiscountAmount = try decoder.readOptionalInt(value)
            case 8: totalTaxAmount = try decoder.readOptionalInt(value)
            default: extras = try decoder.readOptional(value, as: Extras.self)
            }
        }
    }
}

extension KlarnaOrderLine.Extras: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["quantityUnit", "merchantData", "productUrl", "imageUrl", "productIdentifiers",
                                                      "subscription"])

    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: quantityUnit = try decoder.readOptionalString(value)
            case 1: merchantData = try decoder.readOptionalString(value)
            case 2: productUrl = try decoder.readOptionalString(value)
            case 3: imageUrl = try decoder.readOptionalString(value)
            case 4: productIdentifiers = try decoder.readOptional(value)
            default: subscription = try decoder.readOptional(value)
            }
        }
    }
}
