// SPDX-License-Identifier: MIT
import Foundation

/// `paymentOrder.status` (swedbankpay-api.md §1.5).
package enum SwedbankPayOrderStatus: String, Sendable {
    case initialized = "Initialized", paid = "Paid", failed = "Failed", cancelled = "Cancelled", aborted = "Aborted",
         reversed = "Reversed"

    /// Aborted, Cancelled, Reversed and Failed are final (inferred from swedbankpay-api.md §1.5).
    package var isFinal: Bool { self != .initialized && self != .paid }
}

/// The API version an order was created with (swedbankpay-api.md §1.1); it decides the callback payload and the
/// shape of post-purchase answers.
package enum SwedbankPayAPIVersion: String, Sendable {
    case v3_0 = "3.0", v3_1 = "3.1"

    /// The answers' `Content-Type` (swedbankpay-api.md §1.1).
    var contentType: String {
        switch self {
        case .v3_0: "application/json; charset=utf-8; version=3.0"
        case .v3_1: "application/json; charset=utf-8; version=3.1"
        }
    }
}

/// How a paid attempt took the money (swedbankpay-api.md §1.3, §1.4): cards and wallets authorize, Swish and
/// Trustly sell (captured at once). A `Verify` order moves no money: its card is checked, nothing to capture
/// (the developer portal's Verify page; the name `Verification` is inferred).
package enum SwedbankPayTransactionType: String, Sendable {
    case authorization = "Authorization", sale = "Sale", verification = "Verification"
}

/// `paymentorder.operation` (swedbankpay-api.md §1.2): `Purchase`; `Verify` (a card checked, amount 0, tokens for
/// later); `Recur` and `UnscheduledPurchase` (server to server with a token from an earlier order, paid at once:
/// the developer portal's Recur page, its Unscheduled Purchase page).
enum SwedbankPayOrderOperation: String, Sendable, CaseIterable {
    case purchase = "Purchase", verify = "Verify", recur = "Recur", unscheduledPurchase = "UnscheduledPurchase"

    /// Recur and UnscheduledPurchase: no payer, no payment menu; `urls` needs only `callbackUrl`.
    var isMerchantInitiated: Bool { self == .recur || self == .unscheduledPurchase }
}

/// The three kinds of stored-card token (swedbankpay-api.md §1.2 `generate…Token`; `paid.tokens[].type` as the
/// developer portal's mobile SDK page shows it: `recurrence`, `unscheduled`; `payment` inferred).
enum SwedbankPayTokenKind: String, Sendable, CaseIterable {
    case payment, recurrence, unscheduled

    /// The request field that carries a token of this kind, and the name in problems (`RecurrenceToken`, …).
    var field: String { rawValue + "Token" }
    var problemName: String { field.prefix(1).uppercased() + field.dropFirst() }
    /// The request flag that generates one.
    var generateField: String { "generate" + problemName }
    /// `PATCH /psp/paymentorders/<segment>/<token>` deletes one (the developer portal's page on deleting tokens).
    var segment: String { field + "s" }
}

/// `failedAttemptList[].status` (swedbankpay-api.md §1.4).
package enum SwedbankPayFailedAttemptStatus: String, Sendable {
    case failed = "Failed", aborted = "Aborted"
}

/// One payment attempt of an order: its `number` (11 digits, shown in history, failedAttempts, paid and the
/// callback, swedbankpay-api.md §1.4, §1.8).
package struct SwedbankPayAttemptID: Hashable, Sendable, CustomStringConvertible {
    package let number: Int
    package init(number: Int) { self.number = number }
    package var description: String { String(number) }
}

/// The merchant's `urls` (swedbankpay-api.md §1.2), echoed byte for byte. The three an order seldom has are kept in
/// one box, 8 bytes when it has none of them.
package struct SwedbankPayOrderURLs: Sendable, Equatable {
    package var hostUrls: [String]
    package var completeUrl: String
    package var cancelUrl: String?
    package var callbackUrl: String?
    @Boxed private var seldom: Seldom? = nil

    struct Seldom: Sendable, Equatable, Codable {
        var paymentUrl, logoUrl, termsOfServiceUrl: String?
    }

    init(hostUrls: [String], completeUrl: String, cancelUrl: String?, paymentUrl: String?, callbackUrl: String?, logoUrl: String?,
         termsOfServiceUrl: String?) {
        self.hostUrls = hostUrls
        self.completeUrl = completeUrl
        self.cancelUrl = cancelUrl
        self.callbackUrl = callbackUrl
        if paymentUrl != nil || logoUrl != nil || termsOfServiceUrl != nil {
            seldom = Seldom(paymentUrl: paymentUrl, logoUrl: logoUrl, termsOfServiceUrl: termsOfServiceUrl)
        }
    }

    private subscript(seldom member: WritableKeyPath<Seldom, String?>) -> String? {
        get { seldom?[keyPath: member] }
        set {
            var changed = seldom ?? Seldom()
            changed[keyPath: member] = newValue
            seldom = changed == Seldom() ? nil : changed
        }
    }

    package var paymentUrl: String? { get { self[seldom: \.paymentUrl] } set { self[seldom: \.paymentUrl] = newValue } }
    package var logoUrl: String? { get { self[seldom: \.logoUrl] } set { self[seldom: \.logoUrl] = newValue } }
    package var termsOfServiceUrl: String? {
        get { self[seldom: \.termsOfServiceUrl] }
        set { self[seldom: \.termsOfServiceUrl] = newValue }
    }
}

/// `payeeInfo` (swedbankpay-api.md §1.2). The optional members are kept in one box, 8 bytes when none is sent.
package struct SwedbankPayPayeeInfo: Sendable, Equatable {
    package var payeeId: String
    package var payeeReference: String
    @Boxed private var extras: Extras? = nil

    struct Extras: Sendable, Equatable, Codable {
        var payeeName, orderReference, productCategory, subsite, siteId: String?
    }

    init(payeeId: String, payeeReference: String, payeeName: String?, orderReference: String?, productCategory: String?,
         subsite: String?, siteId: String?) {
        self.payeeId = payeeId
        self.payeeReference = payeeReference
        let extras = Extras(payeeName: payeeName, orderReference: orderReference, productCategory: productCategory,
                                subsite: subsite, siteId: siteId)
        if extras != Extras() { self.extras = extras }
    }

    private subscript(extra member: WritableKeyPath<Extras, String?>) -> String? {
        get { extras?[keyPath: member] }
        set {
            var changed = extras ?? Extras()
            changed[keyPath: member] = newValue
            extras = changed == Extras() ? nil : changed
        }
    }

    package var payeeName: String? { get { self[extra: \.payeeName] } set { self[extra: \.payeeName] = newValue } }
    package var orderReference: String? { get { self[extra: \.orderReference] } set { self[extra: \.orderReference] = newValue } }
    package var productCategory: String? {
        get { self[extra: \.productCategory] }
        set { self[extra: \.productCategory] = newValue }
    }
    package var subsite: String? { get { self[extra: \.subsite] } set { self[extra: \.subsite] = newValue } }
    package var siteId: String? { get { self[extra: \.siteId] } set { self[extra: \.siteId] = newValue } }
}

/// `payer` (swedbankpay-api.md §1.2): the fields the sandbox uses, plus the whole object for the echo.
package struct SwedbankPayPayer: Sendable, Equatable {
    package var payerReference: String?
    package var firstName: String?
    package var lastName: String?
    package var email: String?
    package var msisdn: String?
    /// The request's `payer` object as sent.
    package var json: JSONNode?
}

/// What the payment-session API and the pages read of an order: a copy, taken under the
/// store's lock.
package struct SwedbankPayOrderView: Sendable {
    package let namespace: Namespace
    /// The bare uuid; the resource id is `/psp/paymentorders/<orderID>`.
    package let orderID: String
    /// The 64-hex session token of `view-paymentsession`, `view-checkout` and `redirect-checkout`.
    package let token: String
    package let version: SwedbankPayAPIVersion
    package let status: SwedbankPayOrderStatus
    package let operation: String
    package let currency: String
    package let amount: Int
    package let vatAmount: Int
    package let description: String
    /// Always one of the supported cultures (invalid input is stored as `en-US`, swedbankpay-api.md §1.2).
    package let language: String
    package let urls: SwedbankPayOrderURLs
    package let payeeInfo: SwedbankPayPayeeInfo
    package let payer: SwedbankPayPayer?
    /// `payer.payerReference`, nil in guest mode.
    package var payerReference: String? { payer?.payerReference }
    /// `availableInstruments`: the configured ones ∩ `restrictedToInstruments`, Swish only for SEK.
    package let availableInstruments: [String]
    package let restrictedToInstruments: [String]?
    /// The request's `instrument` (instrument mode), if any.
    package let instrument: String?
    package let disableStoredPaymentDetails: Bool
    package let enablePaymentDetailsConsentCheckbox: Bool
    package let integration: String
    /// The scenario the order sticks to (its create request's), nil for the namespace default.
    package let scenario: String?
    /// The attempt begun and not yet ended, if any.
    package let currentAttempt: SwedbankPayAttemptID?
    /// The instrument of ``currentAttempt``.
    package let currentAttemptInstrument: String?
    package let swishPending: Bool
    /// The instrument that paid and how, once Paid (also when Cancelled/Reversed later).
    package let paidInstrument: String?
    package let paidTransactionType: SwedbankPayTransactionType?
    /// The stored create request's `paymentorder` object (as updated by UpdateOrder), as stored: see ``request``.
    package let requestJSON: CompactJSON
    /// The stored create request's `paymentorder` object (as updated by UpdateOrder): the scenario subject.
    package var request: JSONNode { requestJSON.node }
    package let created: Date
    package let updated: Date
}

/// A parsed, valid `POST /psp/paymentorders` body (swedbankpay-api.md §1.2).
struct SwedbankPayCreateOrderRequest: Sendable {
    var operation: String
    var currency: String
    var amount: Int
    var vatAmount: Int
    var description: String
    var userAgent: String
    var language: String
    // The members an order seldom has are boxed: 8 bytes each when absent.
    @Boxed var productName: String? = nil
    @Boxed var implementation: String? = nil
    var urls: SwedbankPayOrderURLs
    var payeeInfo: SwedbankPayPayeeInfo
    /// Absent in guest mode: boxed, 8 bytes then.
    @Boxed var payer: SwedbankPayPayer? = nil
    var orderItems: [JSONNode]?
    var restrictedToInstruments: [String]?
    @Boxed var instrument: String? = nil
    var disableStoredPaymentDetails: Bool
    var enablePaymentDetailsConsentCheckbox: Bool
    @Boxed var metadata: JSONNode? = nil
    /// The `paymentorder` object as sent, kept as compact text (``json`` parses it).
    var compactJSON: CompactJSON
    /// The `paymentorder` object as sent.
    var json: JSONNode {
        get { compactJSON.node }
        set { compactJSON = CompactJSON(newValue) }
    }
    /// The tokens a paid card attempt generates (`generatePaymentToken`, `generateRecurrenceToken`, `generateUnscheduledToken`).
    var generateTokens: Set<SwedbankPayTokenKind> = []
    /// The token a Recur (`recurrenceToken`), UnscheduledPurchase (`unscheduledToken`) or one-click Purchase
    /// (`paymentToken`) pays with.
    @Boxed var useToken: SwedbankPayTokenUse? = nil

    var orderOperation: SwedbankPayOrderOperation { SwedbankPayOrderOperation(rawValue: operation) ?? .purchase }

    /// Its strings that a merchant sends alike in each order, replaced by the instances `interner` keeps.
    mutating func intern(_ interner: inout StringInterner) {
        description = interner(description)
        userAgent = interner(userAgent)
        urls.hostUrls = interner(urls.hostUrls)
        urls.completeUrl = interner(urls.completeUrl)
        urls.cancelUrl = interner(urls.cancelUrl)
        urls.callbackUrl = interner(urls.callbackUrl)
        payeeInfo.payeeId = interner(payeeInfo.payeeId)
    }
}

/// The token an order pays with, and its kind.
struct SwedbankPayTokenUse: Sendable, Equatable {
    var kind: SwedbankPayTokenKind
    var token: String
}

/// A parsed post-purchase `transaction` (swedbankpay-api.md §1.7).
struct SwedbankPayTransactionRequest: Sendable {
    var description: String
    var payeeReference: String
    var amount: Int?
    var vatAmount: Int?
    var receiptReference: String?
    var orderItems: [JSONNode]?
}

enum SwedbankPayTimestamp {
    /// UTC ISO 8601 with 7 fraction digits, `2020-06-22T10:56:56.2927632Z` (swedbankpay-api.md §1.3).
    static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let ticks = min(9_999_999, Int(((seconds - whole) * 10_000_000).rounded()))
        if whole >= 0, whole < 253_402_300_800 { return string(wholeSeconds: Int(whole), ticks: ticks) }  // 1970 up to 9999
        let base = Date(timeIntervalSince1970: whole).formatted(Date.ISO8601FormatStyle())  // 2020-06-22T10:56:56Z
        let fraction = String(ticks)
        return String(base.dropLast()) + "." + String(repeating: "0", count: 7 - fraction.count) + fraction + "Z"
    }

    /// ``string(_:)`` by arithmetic, for whole seconds since 1970 (as ISO8601FormatStyle writes them, then the ticks).
    private static func string(wholeSeconds: Int, ticks: Int) -> String {
        let date = SwedbankPayUTC.civilDate(daysSince1970: wholeSeconds / 86_400)
        let time = wholeSeconds % 86_400
        var bytes: [UInt8] = []
        bytes.reserveCapacity(28)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(date.year, 4); bytes.append(UInt8(ascii: "-")); digits(date.month, 2); bytes.append(UInt8(ascii: "-")); digits(date.day, 2)
        bytes.append(UInt8(ascii: "T")); digits(time / 3600, 2); bytes.append(UInt8(ascii: ":")); digits(time / 60 % 60, 2)
        bytes.append(UInt8(ascii: ":")); digits(time % 60, 2); bytes.append(UInt8(ascii: ".")); digits(ticks, 7); bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

// The state file (`--state-file`) keeps payment orders; synthesized, so a field added is kept too.
extension SwedbankPayOrderStatus: Codable {}
extension SwedbankPayAPIVersion: Codable {}
extension SwedbankPayTransactionType: Codable {}
extension SwedbankPayTokenKind: Codable {}
extension SwedbankPayFailedAttemptStatus: Codable {}
extension SwedbankPayAttemptID: Codable {}
extension SwedbankPayOrderURLs: Codable {}
extension SwedbankPayPayeeInfo: Codable {}
extension SwedbankPayPayer: Codable {}
extension SwedbankPayTokenUse: Codable {}
extension SwedbankPayCreateOrderRequest: Codable {}
