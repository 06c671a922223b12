// SPDX-License-Identifier: MIT
import Foundation

// Klarna Payments request and response bodies (klarna-api.md §2; schemas of payments-v1.openapi.json).
// Swift names are the wire names in camelCase; the coders below convert to and from snake_case
// (`merchant_reference1`, `street_address2`, `last_four_ssn` keep their spelling on the wire).
// Every field is optional here so that a missing required field is reported by the validator with
// Klarna's own message (`Bad value: <path>`) instead of a generic decoding error.

public struct KlarnaAddress: Codable, Equatable, Sendable {
    public var attention, city, country, email, familyName, givenName, organizationName, phone, postalCode, region,
        streetAddress, streetAddress2, title: String?
}

public struct KlarnaCustomer: Codable, Equatable, Sendable {
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

public struct KlarnaMerchantURLs: Codable, Equatable, Sendable {
    public var confirmation, notification, push, authorization, appReturnUrl: String?
}

public struct KlarnaOptions: Codable, Equatable, Sendable {
    public var colorBorder, colorBorderSelected, colorDetails, colorText, radiusBorder: String?
}

public struct KlarnaAttachment: Codable, Equatable, Sendable {
    public var body, contentType: String?
}

public struct KlarnaProductIdentifiers: Codable, Equatable, Sendable {
    public var brand, categoryPath, globalTradeItemNumber, manufacturerPartNumber, color, size: String?
}

public struct KlarnaSubscription: Codable, Equatable, Sendable {
    public var name, interval: String?
    public var intervalCount: Int?
}

public struct KlarnaOrderLine: Codable, Equatable, Sendable {
    public var type, reference, name: String?
    public var quantity: Int?
    public var quantityUnit: String?
    public var unitPrice, taxRate, totalAmount, totalDiscountAmount, totalTaxAmount: Int?
    public var merchantData, productUrl, imageUrl: String?
    public var productIdentifiers: KlarnaProductIdentifiers?
    public var subscription: KlarnaSubscription?
}

/// The fields of `session_create` / `session` (create and update), also the base of `session_read`.
public struct KlarnaSessionFields: Codable, Equatable, Sendable {
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
        func take<T>(_ keyPath: WritableKeyPath<KlarnaSessionFields, T?>) {
            if let value = update[keyPath: keyPath] { self[keyPath: keyPath] = value }
        }
        take(\.purchaseCountry); take(\.purchaseCurrency); take(\.locale)
        take(\.orderAmount); take(\.orderTaxAmount); take(\.orderLines)
        take(\.billingAddress); take(\.shippingAddress); take(\.customer); take(\.merchantUrls)
        take(\.merchantReference1); take(\.merchantReference2); take(\.merchantData)
        take(\.attachment); take(\.options); take(\.acquiringChannel); take(\.intent)
        take(\.customPaymentMethodIds); take(\.design)
    }
}

/// `create_order_request`: the session fields plus `auto_capture`.
public struct KlarnaCreateOrderRequest: Codable, Equatable, Sendable {
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
public struct KlarnaCustomerTokenRequest: Codable, Equatable, Sendable {
    public var description, intendedUse, locale, purchaseCountry, purchaseCurrency: String?
    public var billingAddress: KlarnaAddress?
    public var customer: KlarnaCustomer?
}

public struct KlarnaAssetURLs: Codable, Equatable, Sendable {
    public var descriptive, standard: String
}

public struct KlarnaPaymentMethodCategory: Codable, Equatable, Sendable {
    public var identifier, name: String
    public var assetUrls: KlarnaAssetURLs
}

/// `merchant_session`: the answer to create session.
struct KlarnaMerchantSession: Encodable {
    var sessionId: String
    var clientToken: String
    var paymentMethodCategories: [KlarnaPaymentMethodCategory]
}

/// `session_read`: the stored fields plus the read-only ones.
struct KlarnaSessionRead: Encodable {
    var fields: KlarnaSessionFields
    var clientToken: String
    var expiresAt: Date
    var paymentMethodCategories: [KlarnaPaymentMethodCategory]
    var status: String
    var authorizationToken: String?

    enum ReadOnlyKeys: String, CodingKey {
        case clientToken, expiresAt, paymentMethodCategories, status, authorizationToken
    }

    func encode(to encoder: any Encoder) throws {
        var shown = fields
        shown.customer = fields.customer?.forReading
        try shown.encode(to: encoder)
        var container = encoder.container(keyedBy: ReadOnlyKeys.self)
        try container.encode(clientToken, forKey: .clientToken)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(paymentMethodCategories, forKey: .paymentMethodCategories)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(authorizationToken, forKey: .authorizationToken)
    }
}

/// `authorized_payment_method`: an object in the spec (klarna-api.md §2.5), not the docs' bare string.
public struct KlarnaAuthorizedPaymentMethod: Codable, Equatable, Sendable {
    public var type: String
    public var numberOfDays: Int?
    public var numberOfInstallments: Int?
}

/// `order`: the answer to create order.
public struct KlarnaOrder: Codable, Equatable, Sendable {
    public var orderId: String
    public var redirectUrl: String?
    public var fraudStatus: String
    public var authorizedPaymentMethod: KlarnaAuthorizedPaymentMethod
}

/// `customer_token_creation_response`.
struct KlarnaCustomerToken: Encodable {
    var tokenId: String
    var redirectUrl: String?
    var paymentMethodReference: String
    var billingAddress: KlarnaAddress?
    var customer: KlarnaCustomer?
}

enum KlarnaJSON {
    /// Configured once: JSONDecoder and JSONEncoder are Sendable and safe to share.
    static let sharedDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()
    static let sharedEncoder = encoder()

    static func decoder() -> JSONDecoder { sharedDecoder }

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Klarna's timestamps: ISO 8601 UTC with milliseconds, "2038-01-19T03:14:07.000Z".
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(KlarnaJSON.timestamp(date))
        }
        return encoder
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Decodes a request body. Unparseable JSON (RFC 8259, strictly: no trailing commas) and a body that is
    /// not a JSON object are 400 BAD_REQUEST; a value of the wrong type is `BAD_VALUE` naming its path, as
    /// Klarna names fields (`Bad value: order_lines[0].quantity`). Klarna's exact text for these is not
    /// documented (klarna-api.md §9.1): this is the sandbox's choice.
    static func decode<T: Decodable>(_ type: T.Type, from body: Data) throws(KlarnaError) -> T {
        guard !body.isEmpty else {
            throw KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Request body is missing"])
        }
        // Foundation's decoder accepts some non-JSON (trailing commas) and reports number errors without a
        // path, so the body is parsed strictly first and number errors are located in that tree.
        let document: JSONNode
        do {
            document = try JSONDocument.parse(body)
        } catch {
            throw KlarnaError(.badRequest, code: "BAD_REQUEST",
                              messages: ["Malformed JSON in request body: line \(error.line), column \(error.column): \(error.message)"])
        }
        guard case .object = document.value else {
            throw KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Request body must be a JSON object"])
        }
        do {
            return try decoder().decode(type, from: body)
        } catch let DecodingError.typeMismatch(_, context) {
            throw .badValue(path(context.codingPath))
        } catch let DecodingError.valueNotFound(_, context) {
            throw .badValue(path(context.codingPath))
        } catch let DecodingError.keyNotFound(key, context) {
            throw .badValue(path(context.codingPath + [key]))
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw .badValue(path(context.codingPath))
        } catch {
            // Every number in Klarna's request bodies is an integer (minor units, quantities, rates).
            if let field = firstNonInteger(in: document, path: "") { throw .badValue(field) }
            throw KlarnaError(.badRequest, code: "BAD_REQUEST", messages: ["Malformed JSON in request body"])
        }
    }

    /// The path of the first number that is not a whole number fitting in 64 bits.
    static func firstNonInteger(in node: JSONNode, path: String) -> String? {
        switch node.value {
        case .number(_, let text):
            return Int64(text) == nil ? path : nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = firstNonInteger(in: element, path: path + "[\(index)]") { return found }
            }
            return nil
        case .object(let members):
            for member in members {
                if let found = firstNonInteger(in: member.value, path: path.isEmpty ? member.key : path + "." + member.key) {
                    return found
                }
            }
            return nil
        default:
            return nil
        }
    }

    /// A coding path as Klarna writes field paths: snake_case keys, `[i]` for array elements.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += snakeCase(key.stringValue)
            }
        }
        return text
    }

    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
