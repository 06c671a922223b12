// SPDX-License-Identifier: MIT
import Foundation

// Klarna Payments request and response bodies (klarna-api.md §2; schemas of payments-v1.openapi.json).
// Swift names are the wire names in camelCase; PaymentsJSON.swift reads and writes them as snake_case.
// Every field is optional here so that a missing required field is reported by the validator with
// Klarna's own message (`Bad value: <path>`) instead of a generic decoding error.

public struct KlarnaAddress: Equatable, Sendable {
    public var attention, city, country, email, familyName, givenName, organizationName, phone, postalCode, region,
        streetAddress, streetAddress2, title: String?
}

public struct KlarnaCustomer: Equatable, Sendable {
    public var dateOfBirth, gender, lastFourSsn, nationalIdentificationNumber, organizationEntityType,
        organizationRegistrationId, title, type, vatId: String?

    /// `customer_read`: what a read shows (no `last_four_ssn`, no `national_identification_number`).
    var forReading: KlarnaCustomer {
        var copy = self
        copy.lastFourSsn = nil
        copy.nationalIdentificationNumber = nil
        return copy
    }
}

public struct KlarnaMerchantURLs: Equatable, Sendable {
    public var confirmation, notification, push, authorization, appReturnUrl: String?
}

public struct KlarnaOptions: Equatable, Sendable {
    public var colorBorder, colorBorderSelected, colorDetails, colorText, radiusBorder: String?
}

public struct KlarnaAttachment: Equatable, Sendable {
    public var body, contentType: String?
}

public struct KlarnaProductIdentifiers: Equatable, Sendable {
    public var brand, categoryPath, globalTradeItemNumber, manufacturerPartNumber, color, size: String?
}

public struct KlarnaSubscription: Equatable, Sendable {
    public var name, interval: String?
    public var intervalCount: Int?
}

public struct KlarnaOrderLine: Equatable, Sendable {
    public var type, reference, name: String?
    public var quantity: Int?
    public var quantityUnit: String?
    public var unitPrice, taxRate, totalAmount, totalDiscountAmount, totalTaxAmount: Int?
    public var merchantData, productUrl, imageUrl: String?
    public var productIdentifiers: KlarnaProductIdentifiers?
    public var subscription: KlarnaSubscription?
}

/// The fields of `session_create` / `session` (create and update), also the base of `session_read`.
public struct KlarnaSessionFields: Equatable, Sendable {
    public var purchaseCountry, purchaseCurrency, locale: String?
    public var orderAmount, orderTaxAmount: Int?
    public var orderLines: [KlarnaOrderLine]?
    public var billingAddress, shippingAddress: KlarnaAddress?
    public var customer: KlarnaCustomer?
    public var merchantUrls: KlarnaMerchantURLs?
    public var merchantReference1, merchantReference2, merchantData: String?
    public var attachment: KlarnaAttachment?
    public var options: KlarnaOptions?
    public var acquiringChannel, intent: String?
    public var customPaymentMethodIds: [String]?
    public var design: String?

    public init() {}

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
public struct KlarnaCreateOrderRequest: Equatable, Sendable {
    public var purchaseCountry, purchaseCurrency, locale: String?
    public var orderAmount, orderTaxAmount: Int?
    public var orderLines: [KlarnaOrderLine]?
    public var billingAddress, shippingAddress: KlarnaAddress?
    public var customer: KlarnaCustomer?
    public var merchantUrls: KlarnaMerchantURLs?
    public var merchantReference1, merchantReference2, merchantData: String?
    public var customPaymentMethodIds: [String]?
    public var autoCapture: Bool?

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

/// `customer_token_creation_request`.
public struct KlarnaCustomerTokenRequest: Equatable, Sendable {
    public var description, intendedUse, locale, purchaseCountry, purchaseCurrency: String?
    public var billingAddress: KlarnaAddress?
    public var customer: KlarnaCustomer?
}

public struct KlarnaAssetURLs: Equatable, Sendable {
    public var descriptive, standard: String
}

public struct KlarnaPaymentMethodCategory: Equatable, Sendable {
    public var identifier, name: String
    public var assetUrls: KlarnaAssetURLs
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
public struct KlarnaAuthorizedPaymentMethod: Equatable, Sendable {
    public var type: String
    public var numberOfDays: Int?
    public var numberOfInstallments: Int?
}

/// `order`: the answer to create order.
public struct KlarnaOrder: Equatable, Sendable {
    public var orderId: String
    public var redirectUrl: String?
    public var fraudStatus: String
    public var authorizedPaymentMethod: KlarnaAuthorizedPaymentMethod
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
