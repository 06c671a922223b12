// SPDX-License-Identifier: MIT
import Foundation

/// What the payment-session API needs of the payment orders (the interface published in
/// PaymentOrderStore.swift). ``SwedbankPayOrderStore`` conforms; unit tests use an in-memory stand-in.
protocol PaymentSessionOrders: Sendable {
    var registry: NamespaceRegistry { get }
    var ids: any IDGenerator { get }
    func lookup(token: String) -> (namespace: Namespace, orderID: String)?
    func snapshot(_ namespace: Namespace, orderID: String) -> SwedbankPayOrderView?
    func beginAttempt(_ namespace: Namespace, orderID: String, instrument: String, prefill: Bool) throws(SwedbankPayProblem)
        -> SwedbankPayAttemptID
    @discardableResult
    func attemptPaid(_ namespace: Namespace, orderID: String, _ attempt: SwedbankPayAttemptID,
                     transactionType: SwedbankPayTransactionType, details: JSONText) -> Bool
    @discardableResult
    func attemptFailed(_ namespace: Namespace, orderID: String, _ attempt: SwedbankPayAttemptID,
                       status: SwedbankPayFailedAttemptStatus, problem: SwedbankPayProblem) -> Bool
    func abortByPayer(_ namespace: Namespace, orderID: String) throws(SwedbankPayProblem)
    @discardableResult
    func failOrder(_ namespace: Namespace, orderID: String, problem: SwedbankPayProblem) -> Bool
    func setIntegration(_ namespace: Namespace, orderID: String, _ value: String)
    func setSwishPending(_ namespace: Namespace, orderID: String, _ pending: Bool)
    func addHistory(_ namespace: Namespace, orderID: String, name: String, instrument: String?)
    /// The payment session of `token` was evicted: the token no longer leads to its order.
    func forgetSessionToken(_ token: String)
    /// The server's bound on objects (``ObjectRetention``), which counts the payment sessions too.
    var retention: ObjectRetention { get }
}

extension SwedbankPayOrderStore: PaymentSessionOrders {
    var retention: ObjectRetention { retained.orders.retention }
}

/// Settings of the payment-session API.
package struct SwedbankPayPaymentSessionSettings: Sendable {
    /// How long (namespace clock) a Swish attempt stays pending before its scenario outcome shows (swedbankpay-api.md §3.6 A6, inferred).
    package var swishPendingSeconds: TimeInterval = 3
    package init() {}
}

/// The instruments the session API knows by name; anything else is web-based on both SDKs (swedbankpay-api.md §3.3).
enum SessionMethod: String, CaseIterable, Sendable {
    case swish = "Swish", creditCard = "CreditCard", applePay = "ApplePay", googlePay = "GooglePay"

    /// The lower-case path segment `<sb>/methods/<segment>/...` (swedbankpay-api.md §3.8 samples).
    var segment: String { rawValue.lowercased() }

    init?(segment: String) {
        guard let method = SessionMethod.allCases.first(where: { $0.segment == segment }) else { return nil }
        self = method
    }
}

/// A card saved for a payer (swedbankpay-api.md §1.2, §3.3): shown as a CreditCard prefill, paid with its `paymentToken`.
struct SavedCard: Sendable, Equatable {
    var paymentToken: String
    var cardBrand: String
    var maskedPan: String
    /// Always `YYYY-MM-01T00:00:00Z`: no fraction, first of the month (swedbankpay-api.md §3.3, §3.9.10).
    var expiryDate: String
    /// The PAN behind the token (swedbankpay-api.md §5), the `card.number` scenario subject.
    var pan: String

    /// The three cards each payer starts with (swedbankpay-api.md §5 cards; inferred seeding).
    static func seed(_ ids: any IDGenerator) -> [SavedCard] {
        [("Visa", "4761739001010416"), ("MasterCard", "5226612199533406"), ("Visa", "4925000000000004")].map { brand, pan in
            SavedCard(paymentToken: ids.uuid(), cardBrand: brand, maskedPan: String(pan.prefix(6)) + "******" + String(pan.suffix(4)),
                      expiryDate: "2033-12-01T00:00:00Z", pan: pan)
        }
    }
}

/// A failed attempt's problem as the session shows it until the payer acknowledges it (swedbankpay-api.md §3.6 H).
struct SessionAttemptProblem: Sendable {
    /// The session's failed-attempt counter: every ack href is distinct (swedbankpay-api.md §3.6 H2).
    var number: Int
    var problem: SwedbankPayProblem
    var originalDetail: String?
}

/// A Swish attempt waiting for the payer (swedbankpay-api.md §3.6 A/B).
struct SwishAttempt: Sendable {
    var attempt: SwedbankPayAttemptID
    /// `msisdn: null`: the SDK opens the Swish app on this device.
    var localStart: Bool
    var launchToken: String
    var msisdn: String
    /// When the decided outcome shows (namespace clock).
    var due: Date
    var outcome: SwedbankPayOutcome
}

/// A saved-card attempt inside 3-D Secure (swedbankpay-api.md §3.6 C).
struct CardAttempt: Sendable {
    var attempt: SwedbankPayAttemptID
    var card: SavedCard
    var threeDSServerTransID: String
    var acsTransID: String
    /// `three_ds_declined`: the result is N even when the payer approves.
    var forcedDecline: Bool
    /// nil for the SDK's native flow; the checkout page's mode for a card typed into the page.
    var page: CheckoutPageMode? = nil
    /// One of card.authenticate's 3-D Secure variants (PaymentSessionThreeDSVariants.swift); nil for a plain challenge.
    var variant: ThreeDSVariant? = nil
    /// The ACS page has been shown once (a slow ACS delays the first load; an abandoned challenge's time starts then).
    var acsPageShown = false
    /// `challenge_abandoned`: when the ACS gives up (namespace clock), once the ACS page was shown.
    var abandonAt: Date? = nil
}

/// How the checkout page was opened: top-level by the merchant's redirect, or inside an iframe by the
/// view-checkout script (`embed=1`). It decides how an outcome reaches the merchant (inferred from swedbankpay-api.md §3.7).
enum CheckoutPageMode: Sendable, Equatable {
    case redirect, embedded
}

/// A wallet attempt waiting for the payload of the wallet sheet (swedbankpay-api.md §3.6 E/F).
struct WalletAttempt: Sendable {
    var attempt: SwedbankPayAttemptID
    var method: SessionMethod
}

/// Where the session is between the payer's steps (swedbankpay-api.md §3.6; the order's status wins over these, inferred).
/// Indirect: a session is idle most of its life, and then takes 8 bytes instead of its largest attempt's size.
indirect enum SessionPhase: Sendable {
    case idle
    case swish(SwishAttempt)
    case threeDSMethod(CardAttempt)
    case threeDSChallenge(CardAttempt)
    case wallet(WalletAttempt)

    var attempt: SwedbankPayAttemptID? {
        switch self {
        case .idle: nil
        case .swish(let swish): swish.attempt
        case .threeDSMethod(let card), .threeDSChallenge(let card): card.attempt
        case .wallet(let wallet): wallet.attempt
        }
    }
}

/// One payment session (one order's token), as the app drives it.
/// A dictionary value, so kept small: what never changes is in one shared box.
struct PaymentSessionRecord: Sendable {
    struct Identity: Sendable, Codable {
        let token: String
        let namespace: Namespace
        let orderID: String
        /// `paymentSession.id`: 32 hex (swedbankpay-api.md §3.8 sample 1, inferred).
        let id: String
    }

    @Shared var identity: Identity
    var token: String { identity.token }
    var namespace: Namespace { identity.namespace }
    var orderID: String { identity.orderID }
    /// `paymentSession.id`: 32 hex (swedbankpay-api.md §3.8 sample 1, inferred).
    var id: String { identity.id }
    var prepared = false
    /// History `PaymentLoaded` is written once, by prepare-payment or the first page load (inferred).
    var paymentLoaded = false
    // The flags side by side (one word for the four), the seldom-set instrument mode boxed.
    var hideStoredPaymentOptions = false
    var showConsentAffirmation = false
    /// From prepare-payment (`"ApplePay;ClickToPay"`); wallets are offered only when named (swedbankpay-api.md §3.8 sample 2, inferred).
    var deviceAcceptedWallets: Set<String> = []
    /// customize-payment's `paymentMethod` (swedbankpay-api.md §3.4).
    @Boxed var instrumentMode: String? = nil
    /// customize-payment's `restrictToPaymentMethods` (swedbankpay-api.md §3.4).
    var restriction: [String]?
    var phase = SessionPhase.idle
    /// The failed attempt not yet acknowledged; once acknowledged it never reappears (swedbankpay-api.md §3.5).
    @Boxed var problem: SessionAttemptProblem? = nil
    var failedAttempts = 0

    init(token: String, namespace: Namespace, orderID: String, id: String, instrument: String?) {
        identity = Identity(token: token, namespace: namespace, orderID: orderID, id: id)
        instrumentMode = instrument
    }
}

extension SwedbankPayProblem {
    /// 409 for an operation the current state does not offer (swedbankpay-api.md §3.2, §3.8 sample 13).
    static func operationNotAllowed(_ rel: String) -> SwedbankPayProblem {
        SwedbankPayProblem("paymentsessions/operationnotallowed", status: .conflict, title: "Operation not allowed",
                           detail: "The operation \(rel) is not allowed in the current state of the payment session.")
    }

    /// Unknown token or method (swedbankpay-api.md §6.3 guess).
    static let paymentSessionNotFound = SwedbankPayProblem("notfound", status: .notFound, title: "Not Found",
                                                           detail: "The payment session was not found.")

    static func sessionInput(_ name: String, _ description: String) -> SwedbankPayProblem {
        SwedbankPayProblem("inputerror", status: .badRequest, title: "Error in input data",
                           detail: "Input validation failed, error description in problems node!",
                           problems: [Detail(name: name, description: description)])
    }
}

/// What a session call answers (the document, or its parts for a page) and how long the answer waits: the sum of
/// the `delay_ms` of the business decisions the call took (a slow ACS or acquirer; docs/scenarios.md).
struct SessionResult<Value> {
    var value: Value
    var delay: Duration?
    /// A business decision's `commit_then_drop`: the call took effect, its answer is lost (the connection closes).
    var dropsAnswer: Bool
    /// A business decision's `http_error` or `drop_connection`, which the scenario player answers: the call took no
    /// effect (``value`` is the session as it was).
    var answeredBy: ScenarioOutcome?
    /// The order's status as the call left it (a transition's, read under its lock); nil when the call did not say.
    var orderStatus: SwedbankPayOrderStatus?

    init(_ value: Value, delay: Duration? = nil, dropsAnswer: Bool = false, answeredBy: ScenarioOutcome? = nil,
         orderStatus: SwedbankPayOrderStatus? = nil) {
        self.value = value
        self.delay = delay
        self.dropsAnswer = dropsAnswer
        self.answeredBy = answeredBy
        self.orderStatus = orderStatus
    }

    func map<Other>(_ transform: (Value) throws -> Other) rethrows -> SessionResult<Other> {
        SessionResult<Other>(try transform(value), delay: delay, dropsAnswer: dropsAnswer, answeredBy: answeredBy, orderStatus: orderStatus)
    }

    /// The reply with `response(value)` as `play` settles the call's decisions (``ScenarioPlayer/settle(_:delay:_:reply:)``):
    /// the player's own answer to a decision that answers the call, none when the answer is dropped, after the delay.
    func reply<Format>(_ play: ScenarioPlayer<Format>, _ request: HTTPRequest, _ response: (Value) -> HTTPResponse) -> HTTPReply {
        play.settle(answeredBy ?? (dropsAnswer ? .commitThenDrop : .approve), delay: delay, request, reply: HTTPReply(response(value)))
    }
}

extension SessionResult: Sendable where Value: Sendable {}

/// `application/x-www-form-urlencoded` fields of a page's form POST.
enum FormFields {
    static func parse(_ body: Data) -> [String: String] {
        if let fields = body.withUnsafeBytes({ parse(ascii: $0.bindMemory(to: UInt8.self)) }) { return fields }
        let bytes = [UInt8](body)
        var fields: [String: String] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first else { continue }
            fields[decode(String(name))] = parts.count > 1 ? decode(String(parts[1])) : ""
        }
        return fields
    }

    /// ``parse(_:)`` of an ASCII body, on its bytes (the same splits: empty pairs skipped, the first `=` splits);
    /// nil when the body is not ASCII.
    private static func parse(ascii bytes: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        var fields: [String: String] = [:]
        var pairStart = 0
        while pairStart <= bytes.count {
            var pairEnd = pairStart, equals = -1
            while pairEnd < bytes.count, bytes[pairEnd] != UInt8(ascii: "&") {
                guard bytes[pairEnd] < 0x80 else { return nil }
                if equals < 0, bytes[pairEnd] == UInt8(ascii: "=") { equals = pairEnd }
                pairEnd += 1
            }
            if pairEnd > pairStart {
                let nameEnd = equals < 0 ? pairEnd : equals
                let name = decode(String(decoding: UnsafeBufferPointer(rebasing: bytes[pairStart..<nameEnd]), as: UTF8.self))
                fields[name] = equals < 0 ? "" : decode(String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)..<pairEnd]), as: UTF8.self))
            }
            pairStart = pairEnd + 1
        }
        return fields
    }

    /// `+` as a space, then percent-decoded; the text as it is when that fails. Text with neither is itself.
    private static func decode(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return text }
        return text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text
    }
}

/// base64url without padding of compact JSON, as 3-D Secure 2 carries CReq, CRes and threeDSMethodData (inferred).
enum Base64URL {
    static func encode(_ json: JSONText) -> String {
        Data(json.bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decodeJSON(_ text: String) -> JSONNode? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return try? JSONDocument.parse(data)
    }
}

// The state file (`--state-file`) keeps payment sessions; synthesized, so a field added is kept too.
extension SavedCard: Codable {}
extension SessionAttemptProblem: Codable {}
extension SwishAttempt: Codable {}
extension CardAttempt: Codable {}
extension CheckoutPageMode: Codable {}
extension SessionMethod: Codable {}
extension WalletAttempt: Codable {}
extension SessionPhase: Codable {}
extension PaymentSessionRecord: Codable {}
