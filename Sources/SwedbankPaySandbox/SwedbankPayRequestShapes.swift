// SPDX-License-Identifier: MIT
import Foundation

// What each Swedbank Pay operation's field conditions look at (ScenarioRequestShape): the request bodies of
// swedbankpay-api.md §1.2, §1.6, §1.7 and §3.4, with every key the developer portal and the Mobile SDKs send,
// not only those the sandbox reads.

extension SwedbankPayScenarioVocabulary {
    /// An object whose `keys` hold single values and whose `nested` keys hold the given shapes.
    static func object(_ keys: [String], _ nested: [String: ScenarioRequestShape] = [:]) -> ScenarioRequestShape {
        .object(Dictionary(uniqueKeysWithValues: keys.map { ($0, ScenarioRequestShape.value) }).merging(nested) { $1 })
    }

    /// GETs and the calls whose conditions see no body: abort-payment and acknowledge-failed-attempt (the SDKs
    /// send none), event-logging (any body, not looked at) and the checkout page and script.
    static let noBody = ScenarioRequestShape.nothing

    // MARK: Payment orders (swedbankpay-api.md §1)

    /// The body under `paymentorder`; the sandbox also reads `paymentOrder`.
    static func paymentOrder(_ body: ScenarioRequestShape) -> ScenarioRequestShape {
        .object(["paymentorder": body, "paymentOrder": body])
    }

    /// An `orderItems` element (the developer portal's order-items table).
    static let orderItem = object(["reference", "name", "type", "class", "itemUrl", "imageUrl", "description", "discountDescription",
                                   "quantity", "quantityUnit", "unitPrice", "discountPrice", "vatPercent", "amount", "vatAmount"])

    /// POST /psp/paymentorders (§1.2). The order itself is open: its optional fields vary by feature (tokens,
    /// instrument mode, risk indicators, …) beyond what this sandbox knows.
    static let createPaymentOrder = paymentOrder(.any)
    /// PATCH with operation UpdateOrder (§1.6).
    static let updateOrder = paymentOrder(object(["operation", "amount", "vatAmount"], ["orderItems": .array(orderItem)]))
    /// PATCH with operation Abort or PaymentAttemptAborted (§1.6).
    static let abort = paymentOrder(object(["operation", "abortReason"]))
    /// Captures, cancellations and reversals (§1.7).
    static let transaction = ScenarioRequestShape.object([
        "transaction": object(["description", "amount", "vatAmount", "payeeReference", "receiptReference"], ["orderItems": .array(orderItem)]),
    ])
    /// PATCH …/{paymentTokens|recurrenceTokens|unscheduledTokens}/<token>.
    static let deleteToken = object(["state", "comment"])

    // MARK: Payment sessions (swedbankpay-api.md §3.4; both SDKs' bodies, older versions' keys included)

    // The SDKs' `client` and `browser` objects differ by platform and version: open.
    static let preparePayment = object(["integration", "deviceAcceptedWallets", "initiatingSystem", "initiatingSystemVersion"], [
        "client": .any, "browser": .any, "service": object(["name", "version"]), "presentationSdk": object(["name", "version"]),
    ])
    static let customizePayment = object(["paymentMethod", "hideStoredPaymentOptions", "showConsentAffirmation"],
                                         ["restrictToPaymentMethods": .array(.value)])
    static let expandMethod = object(["paymentMethod", "instrumentName"])
    /// Swish (`msisdn`), a saved card (`paymentToken`, and Android's card fields), Apple Pay and Google Pay.
    static let startPaymentAttempt = object(["culture", "msisdn", "paymentToken", "cardNumber", "cardExpiryMonth", "cardExpiryYear"], ["client": .any])
    static let createAuthentication = object(["methodCompletionIndicator", "notificationUrl", "requestWindowSize"],
                                             ["client": .any, "browser": .any])
    static let completeAuthentication = object(["cRes"], ["client": .any])
    static let attemptPayload = object(["paymentMethod", "paymentPayload"])
    static let failPaymentAttempt = object(["problemType", "errorCode"])

    // MARK: Business decisions

    /// What the business decisions' field conditions look at (swish.sale, card.*, web.pay): the order's create
    /// request, the instrument, the card (`number` from the payer, `maskedPan` for a stored one), the MSISDN
    /// and the call's own body.
    static let decision = ScenarioRequestShape.object([
        "paymentorder": .any, "paymentMethod": .value,
        "card": .object(["number": .value, "brand": .value, "maskedPan": .value]),
        "msisdn": .value, "body": .any,
    ])

    // MARK: Callbacks (swedbankpay-api.md §1.8)

    /// The callback body: v3.1 `{orderReference, paymentOrder{id, instrument, number}}`; v3.0 adds `payment` and
    /// `transaction` `{id, number}`.
    static let paymentOrderCallback = object(["orderReference"], [
        "paymentOrder": object(["id", "instrument", "number"]),
        "payment": object(["id", "number"]),
        "transaction": object(["id", "number"]),
    ])
}
