// SPDX-License-Identifier: MIT
import Foundation

/// The body of every 200 answer of the session API: `{paymentSession, operations, problem}`
/// (swedbankpay-api.md §3.3; the states of §3.6). Built with JSONText, keys in the samples' order (§3.8).
struct PaymentSessionDocument {
    let view: SwedbankPayOrderView
    let record: PaymentSessionRecord
    /// This sandbox's base URL as the app reaches it.
    let base: String
    /// The payer's saved cards, already filtered (payer-aware, not disabled, not hidden).
    let savedCards: [SavedCard]

    /// `<base>/psp/paymentsessions/<token>`: the session URL, also the `get-payment` href (swedbankpay-api.md §3.8 sample 3).
    var sessionBase: String { "\(base)/psp/paymentsessions/\(record.token)" }

    /// How the order's status ends the session (inferred: the order state wins).
    enum Terminal { case completed, cancelled, ended }

    var terminal: Terminal? {
        switch view.status {
        case .initialized: nil
        case .paid, .cancelled, .reversed: .completed
        // swedbankpay-api.md §3.5 step 13: a redirect to cancelUrl is "canceled"; without one, the session just ends.
        case .aborted: nonEmpty(view.urls.cancelUrl) == nil ? .ended : .cancelled
        case .failed: .ended
        }
    }

    var json: JSONText {
        .object([("paymentSession", paymentSession), ("operations", .array(operations)), ("problem", problem)])
    }

    // MARK: paymentSession

    var paymentSession: JSONText {
        var members: [(String, JSONText)] = [
            ("id", .string(record.id)), ("culture", .string(view.language)), ("currency", .string(view.currency)),
            ("description", .string(view.description)),
        ]
        if let payeeName = nonEmpty(view.payeeInfo.payeeName) { members.append(("payeeName", .string(payeeName))) }
        if let method = currentMethod { members.append(("paymentMethod", .string(method))) }
        members.append(("instrumentModePaymentMethod", record.instrumentMode.map(JSONText.string) ?? .null))
        let shown = record.prepared && terminal != .ended ? shownMethods : []
        members.append(("methods", .array(shown.map(method))))
        // `enabledPaymentMethods` is required when settings is sent (swedbankpay-api.md §3.9.5) and equals the
        // method names after the device filter, before any restriction (§3.5).
        members.append(("settings", .object([
            ("enabledPaymentMethods", .array((record.prepared ? deviceMethods : []).map(JSONText.string))),
            ("integration", .string("App")), ("allowCustomLogo", .bool(false)), ("allowCustomStyling", .bool(false)),
        ])))
        members.append(("urls", urls))
        return .object(members)
    }

    /// Keys without a value are left out: "" or an invalid URL drops the whole answer on iOS (swedbankpay-api.md §3.9.6).
    var urls: JSONText {
        var members: [(String, JSONText)] = [("completeUrl", .string(view.urls.completeUrl))]
        if let cancelUrl = nonEmpty(view.urls.cancelUrl) { members.append(("cancelUrl", .string(cancelUrl))) }
        if let paymentUrl = nonEmpty(view.urls.paymentUrl) { members.append(("paymentUrl", .string(paymentUrl))) }
        members.append(("hostUrls", .array(view.urls.hostUrls.filter { !$0.isEmpty }.map(JSONText.string))))
        if let terms = nonEmpty(view.urls.termsOfServiceUrl) { members.append(("termsOfServiceUrl", .string(terms))) }
        return .object(members)
    }

    var currentMethod: String? {
        switch record.phase {
        case .idle: nil
        case .swish: SessionMethod.swish.rawValue
        case .threeDSMethod, .threeDSChallenge: SessionMethod.creditCard.rawValue
        case .wallet(let wallet): wallet.method.rawValue
        }
    }

    /// The order's instruments minus the wallets the device did not accept (swedbankpay-api.md §3.8 sample 2, inferred filter).
    var deviceMethods: [String] {
        view.availableInstruments.filter { name in
            switch SessionMethod(rawValue: name) {
            case .applePay?: record.deviceAcceptedWallets.contains("ApplePay")
            case .googlePay?: record.deviceAcceptedWallets.contains("GooglePay")
            default: true
            }
        }
    }

    /// The device's methods narrowed by instrument mode or restriction (swedbankpay-api.md §3.4, §3.5).
    var shownMethods: [String] {
        if let mode = record.instrumentMode { return deviceMethods.filter { $0 == mode } }
        if let restriction = record.restriction { return deviceMethods.filter(restriction.contains) }
        return deviceMethods
    }

    // MARK: methods

    /// One `methods[]` entry (swedbankpay-api.md §3.3, §3.8 sample 2). Arrays are never null (§3.9.7).
    func method(_ name: String) -> JSONText {
        var members: [(String, JSONText)] = [("paymentMethod", .string(name)), ("amount", .int(view.amount))]
        let known = SessionMethod(rawValue: name)
        switch known {
        case .swish?:
            members.append(("isMobileDevice", .bool(true)))
            let prefills: [JSONText] = nonEmpty(view.payer?.msisdn).map { [.object([("rank", .int(1)), ("msisdn", .string($0))])] } ?? []
            members.append(("prefills", .array(prefills)))
        case .creditCard?:
            members.append(("cardBrands", .array(CardInput.acceptedBrands.map(JSONText.string))))
            members.append(("prefills", .array(savedCards.enumerated().map { rank, card in
                .object([("rank", .int(rank + 1)), ("paymentToken", .string(card.paymentToken)), ("cardBrand", .string(card.cardBrand)),
                         ("maskedPan", .string(card.maskedPan)), ("expiryDate", .string(card.expiryDate))])
            })))
        case .applePay?:
            members.append(("cardBrands", .array(["Visa", "MasterCard", "Amex"].map(JSONText.string))))
            members.append(("merchantCapabilities", .array(Self.merchantCapabilities.map(JSONText.string))))
        case .googlePay?:
            members.append(("cardBrands", .array(Self.googlePayNetworks.map(JSONText.string))))
            members.append(("allowedCardAuthMethods", .array(Self.googlePayAuthMethods.map(JSONText.string))))
            members.append(("environment", .string("TEST")))
        case nil:
            break
        }
        members.append(("operations", .array(terminal == nil ? methodOperations(known) : [])))
        return .object(members)
    }

    static let merchantCapabilities = ["supports3DS", "supportsCredit", "supportsDebit"]
    static let googlePayNetworks = ["VISA", "MASTERCARD"]
    static let googlePayAuthMethods = ["PAN_ONLY", "CRYPTOGRAM_3DS"]

    func methodOperations(_ method: SessionMethod?) -> [JSONText] {
        guard let method else { return [] }  // web-based: the SDK's web view pays (swedbankpay-api.md §3.6 D)
        let methodBase = "\(sessionBase)/methods/\(method.segment)"
        let fail = operation("fail-payment-attempt", "POST", "\(methodBase)/failpaymentattempt")
        switch record.phase {
        case .idle:
            return [operation("start-payment-attempt", "POST", "\(methodBase)/startpaymentattempt"), fail]
        case .threeDSMethod, .threeDSChallenge:
            // Inside 3-D Secure no new attempt can start (it would be refused with 409); the card attempt can still fail.
            return method == .creditCard ? [fail] : []
        case .swish(let swish):
            guard method == .swish else { return [] }
            // swedbankpay-api.md §3.6 A2: scheme swish: and a query already there (iOS appends callbackurl only then).
            let tasks: [JSONText] = swish.localStart ? [.object([
                ("rel", .string("launch-client-app")), ("method", .string("GET")), ("contentType", .string("text/html")),
                ("href", .string("swish://paymentrequest?token=\(swish.launchToken)&callbackurl=")), ("expects", .array([])),
            ])] : []
            return [operation("get-payment", "GET", sessionBase, contentType: "application/json", next: true, tasks: tasks), fail]
        case .wallet(let wallet):
            guard method == wallet.method else { return [] }
            let task: JSONText = .object([
                ("rel", .string("wallet-sdk")), ("method", .string("POST")), ("contentType", .string("application/json")),
                ("href", .null), ("expects", .array(walletExpects(wallet))),
            ])
            return [operation("attempt-payload", "POST", "\(methodBase)/attemptpayload", next: true, tasks: [task]), fail]
        }
    }

    /// The wallet sheet's parameters (swedbankpay-api.md §3.6 E3, F3; §3.8 samples 9, 10).
    func walletExpects(_ wallet: WalletAttempt) -> [JSONText] {
        let amount = Self.decimal(view.amount)
        switch wallet.method {
        case .googlePay:
            return [
                expect("EnvironmentNative", "TEST"), expect("Gateway", "swedbankpay"), expect("GatewayMerchantId", view.payeeInfo.payeeId),
                expect("AllowedCardNetworks", Self.googlePayNetworks), expect("AllowedCardAuthMethods", Self.googlePayAuthMethods),
                expect("TotalPrice", amount), expect("TotalPriceStatus", "FINAL"), expect("TotalPriceLabel", "Total"),
                expect("CountryCode", Self.region(view.language)), expect("CurrencyCode", view.currency),
                expect("TransactionId", wallet.attempt.description), expect("MerchantName", nonEmpty(view.payeeInfo.payeeName) ?? "Merchant"),
                expect("MerchantId", "BCR2DN4TXXXXXXXX"),
                expect("BillingAddressRequired", false), expect("ShippingAddressRequired", false), expect("PhoneNumberRequired", false),
            ]
        default:
            return [
                expect("TotalAmountLabel", nonEmpty(view.payeeInfo.payeeName) ?? "Total"), expect("TotalAmount", amount),
                expect("CurrencyCode", view.currency), expect("Locale", view.language),
                expect("MerchantCapabilities", Self.merchantCapabilities), expect("SupportedNetworks", ["visa", "masterCard", "amex"]),
                expect("SupportedCountries", ["SE", "NO", "DK", "FI"]), expect("RequiredShippingContactFields", [String]()),
            ]
        }
    }

    /// `1500` → `"15.00"` (swedbankpay-api.md §3.8 sample 9).
    static func decimal(_ minorUnits: Int) -> String {
        let sign = minorUnits < 0 ? "-" : ""
        let units = abs(minorUnits)
        return "\(sign)\(units / 100).\(units % 100 < 10 ? "0" : "")\(units % 100)"
    }

    /// `sv-SE` → `SE`.
    static func region(_ culture: String) -> String {
        culture.split(separator: "-").last.map { String($0).uppercased() } ?? "SE"
    }

    // MARK: top-level operations

    var operations: [JSONText] {
        let logging = operation("event-logging", "POST", "\(sessionBase)/eventlogging")
        if let terminal {
            // swedbankpay-api.md §3.5 step 13: the href is string-equal to completeUrl / cancelUrl (§3.8 samples 5, 12).
            let href = switch terminal {
            case .completed: view.urls.completeUrl
            case .cancelled: view.urls.cancelUrl ?? ""
            case .ended: "\(sessionBase)/ended"
            }
            // view-payment too: Android configures itself from the first answer only and needs it (§3.5), so a session
            // first opened after its order ended must still carry it. No `next`, so the SDKs act on redirect-payer alone.
            return [operation("redirect-payer", "GET", href, contentType: "text/html", next: true), viewPayment, logging]
        }
        var operations: [JSONText] = []
        if !record.prepared { operations.append(operation("prepare-payment", "POST", "\(sessionBase)/preparepayment", next: true)) }
        operations += [
            viewPayment,
            operation("customize-payment", "POST", "\(sessionBase)/customizepayment"),
            operation("abort-payment", "POST", "\(sessionBase)/abortpayment"),
            logging,
        ]
        switch record.phase {
        case .threeDSMethod(let card):
            // swedbankpay-api.md §3.8 sample 7: both NotificationUrl and methodCompletionIndicator (Android needs both).
            let methodData = Base64URL.encode(.object([("threeDSServerTransID", .string(card.threeDSServerTransID)),
                                                       ("threeDSMethodNotificationURL", .string("\(base)/acs/3dsmethod/done"))]))
            let task: JSONText = .object([
                ("rel", .string("sca-method-request")), ("method", .string("POST")),
                // challenge_empty_method_url: "" as §3.8 sample 7 allows, with methodCompletionIndicator U in expects.
                ("href", .string(card.variant == .emptyMethodURL ? "" : "\(base)/acs/3dsmethod")),
                ("contentType", .string("application/x-www-form-urlencoded")), ("expects", .array([expect("threeDSMethodData", methodData)])),
            ])
            operations.append(operation("create-authentication", "POST", "\(sessionBase)/methods/creditcard/createauthentication", next: true,
                                        expects: [expect("NotificationUrl", notificationURL), expect("methodCompletionIndicator", "U")],
                                        tasks: [task]))
        case .threeDSChallenge(let card):
            // swedbankpay-api.md §3.8 sample 8: creq is required (Android crashes without it, §3.6 C4).
            let task: JSONText = .object([
                ("rel", .string("sca-redirect")), ("method", .string("POST")), ("href", .string("\(base)/acs/challenge")),
                ("contentType", .string("application/x-www-form-urlencoded")), ("expects", .array([expect("creq", Self.creq(card))])),
            ])
            operations.append(operation("complete-authentication", "POST", "\(sessionBase)/methods/creditcard/completeauthentication",
                                        next: true, tasks: [task]))
        default:
            break
        }
        return operations
    }

    /// The script the SDKs' web view loads (swedbankpay-api.md §3.7).
    var viewPayment: JSONText {
        let culture = view.language.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? view.language
        return operation("view-payment", "GET", "\(base)/checkout/client/\(record.token)?culture=\(culture)", contentType: "application/javascript")
    }

    /// The 3-D Secure trampoline (swedbankpay-api.md §3.6 C5).
    var notificationURL: String { "\(sessionBase)/methods/creditcard/notification" }

    /// `{"messageType":"CReq",...}` base64url (inferred layout, swedbankpay-api.md §3.8 sample 8).
    static func creq(_ card: CardAttempt) -> String {
        Base64URL.encode(.object([
            ("messageType", .string("CReq")), ("messageVersion", .string("2.2.0")),
            ("threeDSServerTransID", .string(card.threeDSServerTransID)), ("acsTransID", .string(card.acsTransID)),
            ("challengeWindowSize", .string("05")),
        ]))
    }

    // MARK: problem

    /// `{type, title, status, detail, originalDetail?, operation}` (swedbankpay-api.md §3.3, §3.8 sample 6).
    var problem: JSONText {
        guard terminal == nil, let shown = record.problem else { return .null }
        var members: [(String, JSONText)] = [
            ("type", .string(shown.problem.type)), ("title", .string(shown.problem.title)), ("status", .int(shown.problem.status.code)),
            ("detail", .string(shown.problem.detail)),
        ]
        if let original = shown.originalDetail { members.append(("originalDetail", .string(original))) }
        members.append(("operation", operation("acknowledge-failed-attempt", "POST", "\(sessionBase)/failedattempts/\(shown.number)/acknowledge")))
        return .object(members)
    }

    // MARK: pieces

    func operation(_ rel: String, _ method: String, _ href: String, contentType: String = "application/json", next: Bool = false,
                   expects: [JSONText] = [], tasks: [JSONText] = []) -> JSONText {
        var members: [(String, JSONText)] = [("rel", .string(rel)), ("method", .string(method)), ("href", .string(href)),
                                             ("contentType", .string(contentType))]
        // `next: true` only on the one op to run now; left out elsewhere, as in the samples (swedbankpay-api.md §3.5, §3.8).
        if next { members.append(("next", .bool(true))) }
        if !expects.isEmpty { members.append(("expects", .array(expects))) }
        if !tasks.isEmpty { members.append(("tasks", .array(tasks))) }
        return .object(members)
    }

    /// `{name, type, value}` with `type` ∈ string | string[] | bool matching the value (swedbankpay-api.md §3.3, §3.9.3).
    func expect(_ name: String, _ value: String) -> JSONText {
        .object([("name", .string(name)), ("type", .string("string")), ("value", .string(value))])
    }

    func expect(_ name: String, _ value: [String]) -> JSONText {
        .object([("name", .string(name)), ("type", .string("string[]")), ("value", .array(value.map(JSONText.string)))])
    }

    func expect(_ name: String, _ value: Bool) -> JSONText {
        .object([("name", .string(name)), ("type", .string("bool")), ("value", .bool(value))])
    }

    func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
