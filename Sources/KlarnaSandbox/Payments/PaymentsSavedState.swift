// SPDX-License-Identifier: MIT
import Foundation

// The state file's fast path for the stored Klarna models (SandboxCore's SavedStateDirectEncodable): each writes the
// bytes its synthesized `encode(to:)` writes (members in declaration order, nil ones left out, a `@Boxed` member
// under its own name when set), without `Codable`'s containers. A member added to a model must be added here too:
// the tests compare these with JSONEncoder's output for every member set and for none.

extension KlarnaAddress: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.key("values")
        encoder.put(UInt8(ascii: "["))
        values.withUnsafeBufferPointer { values in  // read where they are (SavedStateWriting.swift's `values`)
            for index in values.indices {
                if index > 0 { encoder.put(UInt8(ascii: ",")) }
                var member = encoder.beginObject()
                member.integer("field", Int(values[index].field.rawValue))
                member.string("text", values[index].text)
                member.end()
            }
        }
        encoder.put(UInt8(ascii: "]"))
        object.end()
    }
}

extension KlarnaCustomer: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("dateOfBirth", dateOfBirth)
        object.string("gender", gender)
        object.string("lastFourSsn", lastFourSsn)
        object.string("nationalIdentificationNumber", nationalIdentificationNumber)
        object.string("organizationEntityType", organizationEntityType)
        object.string("organizationRegistrationId", organizationRegistrationId)
        object.string("title", title)
        object.string("type", type)
        object.string("vatId", vatId)
        object.end()
    }
}

extension KlarnaMerchantURLs: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("confirmation", confirmation)
        object.string("notification", notification)
        object.string("push", push)
        object.string("authorization", authorization)
        object.string("appReturnUrl", appReturnUrl)
        object.end()
    }
}

extension KlarnaOptions: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("colorBorder", colorBorder)
        object.string("colorBorderSelected", colorBorderSelected)
        object.string("colorDetails", colorDetails)
        object.string("colorText", colorText)
        object.string("radiusBorder", radiusBorder)
        object.end()
    }
}

extension KlarnaAttachment: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("body", body)
        object.string("contentType", contentType)
        object.end()
    }
}

extension KlarnaProductIdentifiers: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("brand", brand)
        object.string("categoryPath", categoryPath)
        object.string("globalTradeItemNumber", globalTradeItemNumber)
        object.string("manufacturerPartNumber", manufacturerPartNumber)
        object.string("color", color)
        object.string("size", size)
        object.end()
    }
}

extension KlarnaSubscription: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("name", name)
        object.string("interval", interval)
        object.integer("intervalCount", intervalCount)
        object.end()
    }
}

extension KlarnaSessionFields: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("purchaseCountry", purchaseCountry)
        object.string("purchaseCurrency", purchaseCurrency)
        object.string("locale", locale)
        object.integer("orderAmount", orderAmount)
        object.integer("orderTaxAmount", orderTaxAmount)
        try object.values("orderLines", orderLines)
        try object.value("billingAddress", billingAddress)
        try object.value("shippingAddress", shippingAddress)
        try object.value("customer", customer)
        try object.value("merchantUrls", merchantUrls)
        object.string("merchantReference1", merchantReference1)
        object.string("merchantReference2", merchantReference2)
        object.string("merchantData", merchantData)
        try object.value("attachment", attachment)
        try object.value("options", options)
        object.string("acquiringChannel", acquiringChannel)
        object.string("intent", intent)
        object.strings("customPaymentMethodIds", customPaymentMethodIds)
        object.string("design", design)
        object.end()
    }
}

extension KlarnaCreateOrderRequest: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("purchaseCountry", purchaseCountry)
        object.string("purchaseCurrency", purchaseCurrency)
        object.string("locale", locale)
        object.integer("orderAmount", orderAmount)
        object.integer("orderTaxAmount", orderTaxAmount)
        try object.values("orderLines", orderLines)
        try object.value("billingAddress", billingAddress)
        try object.value("shippingAddress", shippingAddress)
        try object.value("customer", customer)
        try object.value("merchantUrls", merchantUrls)
        object.string("merchantReference1", merchantReference1)
        object.string("merchantReference2", merchantReference2)
        object.string("merchantData", merchantData)
        object.strings("customPaymentMethodIds", customPaymentMethodIds)
        object.bool("autoCapture", autoCapture)
        object.end()
    }
}

extension KlarnaAuthorizedPaymentMethod: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("type", type)
        object.integer("numberOfDays", numberOfDays)
        object.integer("numberOfInstallments", numberOfInstallments)
        object.end()
    }
}

extension KlarnaOrder: SavedStateDirectEncodable {
    package func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("orderId", orderId)
        object.string("redirectUrl", redirectUrl)
        object.string("fraudStatus", fraudStatus)
        try object.value("authorizedPaymentMethod", authorizedPaymentMethod)
        object.end()
    }
}

extension ClientToken.Claims: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("purchaseCountry", purchaseCountry)
        object.string("design", design)
        object.string("locale", locale)
        object.end()
    }
}

// The ledger's objects: a `@Shared` member is written as its value, under its own name.

extension PaymentsLedger.Session: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("id", id)
        try object.value("fields", fields)
        try object.value("clientTokenClaims", clientTokenClaims)
        try object.date("createdAt", createdAt)
        try object.date("expiresAt", expiresAt)
        object.string("orderID", orderID)
        object.strings("authorizationTokens", authorizationTokens)
        object.string("scenario", scenario)
        object.bool("awaitingFinalize", awaitingFinalize)
        object.end()
    }
}

extension PaymentsLedger.Authorization: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        object.string("token", token)
        object.string("sessionID", sessionID)
        try object.date("authorizedAt", authorizedAt)
        try object.value("snapshot", snapshot)
        object.bool("cancelled", cancelled)
        object.string("orderID", orderID)
        object.end()
    }
}

extension PaymentsLedger.Order: SavedStateDirectEncodable {
    func write(to encoder: SavedStateEncoder) throws {
        var object = encoder.beginObject()
        try object.value("order", order)
        object.string("sessionID", sessionID)
        object.string("authorizationToken", authorizationToken)
        try object.value("request", request)
        try object.date("createdAt", createdAt)
        object.end()
    }
}

// The state file's readers (SandboxCore's SavedStateDirectDecodable): each reads what its synthesized `init(from:)`
// reads (a missing member nil when optional, a missing required one gives up), sharing the values `Codable` shares.
// A member added to a model must be added here too: the tests compare these with `Codable`'s reading.

extension KlarnaCustomer: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["dateOfBirth", "gender", "lastFourSsn", "nationalIdentificationNumber",
                                                      "organizationEntityType", "organizationRegistrationId", "title", "type", "vatId"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            let text = try decoder.readOptionalString(value)
            switch name {
            case 0: dateOfBirth = text
            case 1: gender = text
            case 2: lastFourSsn = text
            case 3: nationalIdentificationNumber = text
            case 4: organizationEntityType = text
            case 5: organizationRegistrationId = text
            case 6: title = text
            case 7: type = text
            default: vatId = text
            }
        }
    }
}

extension KlarnaMerchantURLs: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["confirmation", "notification", "push", "authorization", "appReturnUrl"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            let text = try decoder.readOptionalString(value)
            switch name {
            case 0: confirmation = text
            case 1: notification = text
            case 2: push = text
            case 3: authorization = text
            default: appReturnUrl = text
            }
        }
    }
}

extension KlarnaOptions: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["colorBorder", "colorBorderSelected", "colorDetails", "colorText", "radiusBorder"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            let text = try decoder.readOptionalString(value)
            switch name {
            case 0: colorBorder = text
            case 1: colorBorderSelected = text
            case 2: colorDetails = text
            case 3: colorText = text
            default: radiusBorder = text
            }
        }
    }
}

extension KlarnaAttachment: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["body", "contentType"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            if name == 0 { body = try decoder.readOptionalString(value) } else { contentType = try decoder.readOptionalString(value) }
        }
    }
}

extension KlarnaProductIdentifiers: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["brand", "categoryPath", "globalTradeItemNumber", "manufacturerPartNumber", "color",
                                                      "size"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            let text = try decoder.readOptionalString(value)
            switch name {
            case 0: brand = text
            case 1: categoryPath = text
            case 2: globalTradeItemNumber = text
            case 3: manufacturerPartNumber = text
            case 4: color = text
            default: size = text
            }
        }
    }
}

extension KlarnaSubscription: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["name", "interval", "intervalCount"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: self.name = try decoder.readOptionalString(value)
            case 1: interval = try decoder.readOptionalString(value)
            default: intervalCount = try decoder.readOptionalInt(value)
            }
        }
    }
}

extension KlarnaSessionFields: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames([
        "purchaseCountry", "purchaseCurrency", "locale", "orderAmount", "orderTaxAmount", "orderLines", "billingAddress",
        "shippingAddress", "customer", "merchantUrls", "merchantReference1", "merchantReference2", "merchantData", "attachment",
        "options", "acquiringChannel", "intent", "customPaymentMethodIds", "design",
    ])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        self.init()
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: purchaseCountry = try decoder.readOptionalString(value)
            case 1: purchaseCurrency = try decoder.readOptionalString(value)
            case 2: locale = try decoder.readOptionalString(value)
            case 3: orderAmount = try decoder.readOptionalInt(value)
            case 4: orderTaxAmount = try decoder.readOptionalInt(value)
            case 5: orderLines = decoder.isNull(value) ? nil : try decoder.readShareableArray(value, as: KlarnaOrderLine.self)
            case 6: billingAddress = try decoder.readOptionalShareable(value)
            case 7: shippingAddress = try decoder.readOptionalShareable(value)
            case 8: customer = try decoder.readOptional(value)
            case 9: merchantUrls = try decoder.readOptional(value)
            case 10: merchantReference1 = try decoder.readOptionalString(value)
            case 11: merchantReference2 = try decoder.readOptionalString(value)
            case 12: merchantData = try decoder.readOptionalString(value)
            case 13: attachment = try decoder.readOptional(value)
            case 14: options = try decoder.readOptional(value)
            case 15: acquiringChannel = try decoder.readOptionalString(value)
            case 16: intent = try decoder.readOptionalString(value)
            case 17: customPaymentMethodIds = try decoder.readOptionalStrings(value)
            default: design = try decoder.readOptionalString(value)
            }
        }
    }
}

extension KlarnaCreateOrderRequest: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames([
        "purchaseCountry", "purchaseCurrency", "locale", "orderAmount", "orderTaxAmount", "orderLines", "billingAddress",
        "shippingAddress", "customer", "merchantUrls", "merchantReference1", "merchantReference2", "merchantData",
        "customPaymentMethodIds", "autoCapture",
    ])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        self.init()
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: purchaseCountry = try decoder.readOptionalString(value)
            case 1: purchaseCurrency = try decoder.readOptionalString(value)
            case 2: locale = try decoder.readOptionalString(value)
            case 3: orderAmount = try decoder.readOptionalInt(value)
            case 4: orderTaxAmount = try decoder.readOptionalInt(value)
            case 5: orderLines = decoder.isNull(value) ? nil : try decoder.readShareableArray(value, as: KlarnaOrderLine.self)
            case 6: billingAddress = try decoder.readOptionalShareable(value)
            case 7: shippingAddress = try decoder.readOptionalShareable(value)
            case 8: customer = try decoder.readOptional(value)
            case 9: merchantUrls = try decoder.readOptional(value)
            case 10: merchantReference1 = try decoder.readOptionalString(value)
            case 11: merchantReference2 = try decoder.readOptionalString(value)
            case 12: merchantData = try decoder.readOptionalString(value)
            case 13: customPaymentMethodIds = try decoder.readOptionalStrings(value)
            default: autoCapture = try decoder.readOptionalBool(value)
            }
        }
    }
}

extension KlarnaAuthorizedPaymentMethod: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["type", "numberOfDays", "numberOfInstallments"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var type: String?, numberOfDays: Int?, numberOfInstallments: Int?
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: type = try decoder.readString(value)
            case 1: numberOfDays = try decoder.readOptionalInt(value)
            default: numberOfInstallments = try decoder.readOptionalInt(value)
            }
        }
        guard let type else { throw SavedStateDirectMiss() }
        self.init(type: type, numberOfDays: numberOfDays, numberOfInstallments: numberOfInstallments)
    }
}

extension KlarnaOrder: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["orderId", "redirectUrl", "fraudStatus", "authorizedPaymentMethod"])

    package init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var orderId: String?, redirectUrl: String?, fraudStatus: String?, method: KlarnaAuthorizedPaymentMethod?
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: orderId = try decoder.readString(value)
            case 1: redirectUrl = try decoder.readOptionalString(value)
            case 2: fraudStatus = try decoder.readString(value)
            default: method = try decoder.read(value)
            }
        }
        guard let orderId, let fraudStatus, let method else { throw SavedStateDirectMiss() }
        self.init(orderId: orderId, redirectUrl: redirectUrl, fraudStatus: fraudStatus, authorizedPaymentMethod: method)
    }
}

extension ClientToken.Claims: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["purchaseCountry", "design", "locale"])

    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: purchaseCountry = try decoder.readOptionalString(value)
            case 1: design = try decoder.readOptionalString(value)
            default: locale = try decoder.readOptionalString(value)
            }
        }
    }
}

// The ledger's objects: a `@Shared` member read (and shared) as `Codable` reads it, under its own name.

extension PaymentsLedger.Session: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["id", "fields", "clientTokenClaims", "createdAt", "expiresAt", "orderID",
                                                      "authorizationTokens", "scenario", "awaitingFinalize"])

    convenience init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var id = "", fields: Shared<KlarnaSessionFields>?, claims: ClientToken.Claims?, createdAt = Date.distantPast, expiresAt = Date.distantPast
        var orderID: String?, tokens: [String] = [], scenario: String?, awaitingFinalize = false
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: id = try decoder.readString(value)
            case 1: fields = try decoder.readShared(value)
            case 2: claims = try decoder.read(value)
            case 3: createdAt = try decoder.readDate(value)
            case 4: expiresAt = try decoder.readDate(value)
            case 5: orderID = try decoder.readOptionalString(value)
            case 6:
                guard let strings = try decoder.readOptionalStrings(value) else { throw SavedStateDirectMiss() }
                tokens = strings
            case 7: scenario = try decoder.readOptionalString(value)
            default: awaitingFinalize = try decoder.readBool(value)
            }
        }
        try members.require(0b1_0101_1111)
        guard let fields, let claims else { throw SavedStateDirectMiss() }
        self.init(id: id, fields: fields, clientTokenClaims: claims, createdAt: createdAt, expiresAt: expiresAt, orderID: orderID,
                  authorizationTokens: tokens, scenario: scenario, awaitingFinalize: awaitingFinalize)
    }
}

extension PaymentsLedger.Authorization: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["token", "sessionID", "authorizedAt", "snapshot", "cancelled", "orderID"])

    convenience init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var token = "", sessionID = "", authorizedAt = Date.distantPast, snapshot: Shared<KlarnaSessionFields>?, cancelled = false
        var orderID: String?
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: token = try decoder.readString(value)
            case 1: sessionID = try decoder.readString(value)
            case 2: authorizedAt = try decoder.readDate(value)
            case 3: snapshot = try decoder.readShared(value)
            case 4: cancelled = try decoder.readBool(value)
            default: orderID = try decoder.readOptionalString(value)
            }
        }
        try members.require(0b1_1111)
        guard let snapshot else { throw SavedStateDirectMiss() }
        self.init(token: token, sessionID: sessionID, authorizedAt: authorizedAt, snapshot: snapshot)
        self.cancelled = cancelled
        self.orderID = orderID
    }
}

extension PaymentsLedger.Order: SavedStateDirectDecodable {
    private static let savedNames = SavedMemberNames(["order", "sessionID", "authorizationToken", "request", "createdAt"])

    init(savedFrom decoder: SavedStateDecoder, at index: Int) throws(SavedStateDirectMiss) {
        var order: KlarnaOrder?, sessionID = "", authorizationToken = "", request: Shared<KlarnaCreateOrderRequest>?,
            createdAt = Date.distantPast
        var members = try decoder.members(of: index, Self.savedNames)
        while let (name, value) = try members.nextMember() {
            switch name {
            case 0: order = try decoder.read(value)
            case 1: sessionID = try decoder.readString(value)
            case 2: authorizationToken = try decoder.readString(value)
            case 3: request = try decoder.readShared(value)
            default: createdAt = try decoder.readDate(value)
            }
        }
        try members.require(0b1_1111)
        guard let order, let request else { throw SavedStateDirectMiss() }
        self.init(order: order, sessionID: sessionID, authorizationToken: authorizationToken, sharing: request, createdAt: createdAt)
    }
}
