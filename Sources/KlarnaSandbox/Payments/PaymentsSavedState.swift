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
