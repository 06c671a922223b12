// SPDX-License-Identifier: MIT
import Foundation

// The Customer Token API's bodies and errors (klarna-api.md §5b). Errors come in Klarna's envelope (§1.4).

/// A customer token as the sandbox keeps it: made by POST /payments/v1/authorizations/{token}/customer-token.
/// A class, changed in place under the Klarna Payments store's lock and never handed out.
final class CustomerTokenRecord {
    let id: String
    let sessionID: String
    /// The KP session's sticky scenario; the token's orders follow it too.
    let scenario: String?
    let createdAt: Date
    let purchaseCountry, purchaseCurrency, locale: String?
    let billingAddress: KlarnaAddress?
    let customer: KlarnaCustomer?
    /// ACTIVE until PATCH …/status cancels it (§5b: "the only value" a merchant can set is CANCELLED).
    var status = "ACTIVE"
    /// The orders placed with the token, oldest first.
    var orderIDs: [String] = []
    /// The first answer per Klarna-Idempotency-Key (as Order Management: only the key matters).
    var orderAnswers: [String: KlarnaOrder] = [:]

    init(id: String, sessionID: String, scenario: String?, createdAt: Date, purchaseCountry: String?, purchaseCurrency: String?,
         locale: String?, billingAddress: KlarnaAddress?, customer: KlarnaCustomer?) {
        self.id = id
        self.sessionID = sessionID
        self.scenario = scenario
        self.createdAt = createdAt
        self.purchaseCountry = purchaseCountry
        self.purchaseCurrency = purchaseCurrency
        self.locale = locale
        self.billingAddress = billingAddress
        self.customer = customer
    }

    /// Every stored property of `other`, for the state file (``SavedStateCopyable``).
    init(copying other: CustomerTokenRecord) {
        id = other.id
        sessionID = other.sessionID
        scenario = other.scenario
        createdAt = other.createdAt
        purchaseCountry = other.purchaseCountry
        purchaseCurrency = other.purchaseCurrency
        locale = other.locale
        billingAddress = other.billingAddress
        customer = other.customer
        status = other.status
        orderIDs = other.orderIDs
        orderAnswers = other.orderAnswers
    }

    /// GET /customer-token/v1/tokens/{token}: `{status, payment_method_type}` (§5b). Tokens here are made from
    /// the KP stand-in's invoice authorization, so the type is INVOICE and no card/direct_debit member appears.
    var read: KlarnaCustomerTokenRead { KlarnaCustomerTokenRead(status: status, paymentMethodType: "INVOICE") }

    var snapshot: JSONText {
        .object([("token_id", .string(id)), ("session_id", .string(sessionID)), ("status", .string(status)),
                 ("scenario", scenario.map(JSONText.string) ?? .null),
                 ("purchase_currency", purchaseCurrency.map(JSONText.string) ?? .null),
                 ("created_at", .string(KlarnaJSON.timestamp(createdAt))),
                 ("order_ids", .array(orderIDs.map(JSONText.string)))])
    }
}

struct KlarnaCustomerTokenRead: Equatable, Sendable {
    var status: String
    var paymentMethodType: String
}

extension KlarnaCustomerTokenRead: KlarnaJSONEncodable {
    var json: JSONText { .object([("payment_method_type", .string(paymentMethodType)), ("status", .string(status))]) }
}

/// The body of PATCH …/status: `{"status": "CANCELLED"}`, the only value (§5b); anything else is 400 BAD_VALUE.
struct KlarnaCustomerTokenStatusUpdate: Equatable, Sendable {
    var status: String
}

extension KlarnaCustomerTokenStatusUpdate: KlarnaJSONDecodable {
    init(_ o: KlarnaJSONObject) throws(KlarnaError) {
        guard let status = try o.string("status"), status == "CANCELLED" else { throw .badValue(o.childPath("status")) }
        self.status = status
    }
}

/// The Customer Token API's catalogue (klarna-api.md §5b). The codes are Klarna's; texts marked "inferred" are
/// the sandbox's where only the code is documented.
extension KlarnaError {
    /// GET: 404 NOT_FOUND "Invalid customer-token ID" (§5b).
    static let invalidCustomerTokenID = KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Invalid customer-token ID"])
    /// PATCH status: 404 NOT_FOUND "Invalid token ID" (§5b).
    static let invalidTokenID = KlarnaError(.notFound, code: "NOT_FOUND", messages: ["Invalid token ID"])
    /// Create order: 404 TOKEN_NOT_FOUND (§5b); text inferred.
    static let customerTokenNotFound = KlarnaError(.notFound, code: "TOKEN_NOT_FOUND", messages: ["Customer token not found"])
    /// Create order on a token the merchant cancelled: 403 TOKEN_CANCELLED (§5b); text inferred.
    static let customerTokenCancelled = KlarnaError(.forbidden, code: "TOKEN_CANCELLED", messages: ["Customer token is cancelled"])
    /// 403 PAYMENT_METHOD_CURRENCY_MISMATCH (§5b); text inferred.
    static func customerTokenCurrencyMismatch(token: String, order: String) -> KlarnaError {
        KlarnaError(.forbidden, code: "PAYMENT_METHOD_CURRENCY_MISMATCH",
                    messages: ["The customer token's payment method is not available for \(order) (the token was created for \(token))"])
    }
    /// A scenario's `rejected`: 403 PAYMENT_METHOD_FAILED (§5b: the purchase failed; retrying may help); text inferred.
    static let customerTokenPaymentFailed = KlarnaError(.forbidden, code: "PAYMENT_METHOD_FAILED", messages: ["Payment method failed"])
    /// A scenario's `refused`: 403 UNAVAILABLE_PAYMENT_METHOD (§5b: the funding source is unavailable); text inferred.
    static let customerTokenPaymentMethodUnavailable = KlarnaError(.forbidden, code: "UNAVAILABLE_PAYMENT_METHOD",
                                                                   messages: ["Payment method unavailable"])
}

// The state file (`--state-file`) keeps customer tokens; synthesized, so a field added is kept too.
extension CustomerTokenRecord: Codable {}

/// Copied under the store's lock for the state file to encode outside it (`init(copying:)`).
extension CustomerTokenRecord: SavedStateCopyable {
    func savedCopy() -> CustomerTokenRecord { CustomerTokenRecord(copying: self) }
}
