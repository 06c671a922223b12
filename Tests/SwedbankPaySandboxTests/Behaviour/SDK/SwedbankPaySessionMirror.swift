// SPDX-License-Identifier: MIT
// Strict Decodable mirrors of what the Swedbank Pay Mobile SDKs decode from the payment-session API: the union of
// the iOS and Android demands (swedbankpay-api.md §3.3, §3.9). No custom defaults: a field
// the SDKs need that is missing, null where Android wants a collection, or of the wrong type fails the decode.
import Foundation

enum SwedbankPayMirror {
    /// iOS decodes `expiryDate` with ISO8601DateFormatter without fractions; Gson's pattern is `yyyy-MM-dd'T'HH:mm:ss'Z'`.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard text.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#, options: .regularExpression) != nil,
                  let date = ISO8601DateFormatter().date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a Gson/iOS date: \(text)"))
            }
            return date
        }
        return decoder
    }()

    static func decode(_ bytes: [UInt8]) throws -> PaymentOutputModel {
        try decoder.decode(PaymentOutputModel.self, from: Data(bytes))
    }
}

struct PaymentOutputModel: Decodable {
    let paymentSession: PaymentSessionModel
    /// Required and non-null (Android NPE, §3.3).
    let operations: [OperationOutputModel]
    let problem: ProblemDetails?
}

struct PaymentSessionModel: Decodable {
    let id, culture, currency, description, payeeName, paymentMethod, instrumentModePaymentMethod: String?
    let methods: [MethodModel]?
    let settings: SettingsModel?
    let urls: UrlsModel?
}

struct SettingsModel: Decodable {
    let enabledPaymentMethods: [String]
    let integration: String?
    let allowCustomLogo, allowCustomStyling: Bool?
    let traceId: String?
}

/// iOS decodes these as `URL?`: "" or an invalid string drops the whole answer (§3.9.6).
struct UrlsModel: Decodable {
    let completeUrl, cancelUrl, paymentUrl, termsOfServiceUrl: StrictURL?
    let hostUrls: [StrictURL]?
}

struct StrictURL: Decodable, Equatable {
    let string: String
    init(from decoder: any Decoder) throws {
        string = try decoder.singleValueContainer().decode(String.self)
        guard !string.isEmpty, let url = URL(string: string), url.scheme != nil else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid URL \(string)"))
        }
    }
}

struct MethodModel: Decodable {
    let paymentMethod: String
    let amount: Int?
    let autoClick, isMobileDevice: Bool?
    let operations: [OperationOutputModel]
    let prefills: [Prefill]?
    let cardBrands: [String]?
    let merchantCapabilities: [String]?
    let allowedCardAuthMethods: [String]?
    let environment: String?

    enum CodingKeys: String, CodingKey {
        case paymentMethod, amount, autoClick, isMobileDevice, operations, prefills, cardBrands, merchantCapabilities,
             allowedCardAuthMethods, environment
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        paymentMethod = try container.decode(String.self, forKey: .paymentMethod)
        amount = try container.decodeIfPresent(Int.self, forKey: .amount)
        autoClick = try container.decodeIfPresent(Bool.self, forKey: .autoClick)
        isMobileDevice = try container.decodeIfPresent(Bool.self, forKey: .isMobileDevice)
        operations = try container.decode([OperationOutputModel].self, forKey: .operations)
        merchantCapabilities = try container.decodeIfPresent([String].self, forKey: .merchantCapabilities)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        switch paymentMethod {
        case "Swish":
            // Android: non-null list; iOS: all prefill fields required (§3.3, §3.9.7, §3.9.8).
            prefills = try container.decode([SwishPrefill].self, forKey: .prefills).map(Prefill.swish)
            cardBrands = try container.decodeIfPresent([String].self, forKey: .cardBrands)
            allowedCardAuthMethods = nil
        case "CreditCard":
            prefills = try container.decode([CardPrefill].self, forKey: .prefills).map(Prefill.card)
            cardBrands = try container.decode([String].self, forKey: .cardBrands)
            allowedCardAuthMethods = nil
        case "ApplePay":
            prefills = nil
            cardBrands = try container.decode([String].self, forKey: .cardBrands)
            allowedCardAuthMethods = nil
        case "GooglePay":
            prefills = nil
            cardBrands = try container.decode([String].self, forKey: .cardBrands)
            allowedCardAuthMethods = try container.decode([String].self, forKey: .allowedCardAuthMethods)
        default:
            prefills = nil
            cardBrands = try container.decodeIfPresent([String].self, forKey: .cardBrands)
            allowedCardAuthMethods = try container.decodeIfPresent([String].self, forKey: .allowedCardAuthMethods)
        }
    }
}

struct SwishPrefill: Decodable, Equatable {
    let rank: Int32
    let msisdn: String
}

struct CardPrefill: Decodable, Equatable {
    let rank: Int32
    let paymentToken: String
    let cardBrand: String
    let maskedPan: String
    let expiryDate: Date
}

enum Prefill: Equatable {
    case swish(SwishPrefill)
    case card(CardPrefill)
}

struct OperationOutputModel: Decodable {
    let rel: Rel
    /// An operation's href is a URL the SDKs request or open: never empty, always absolute (§3.1: hypermedia only).
    let href: String?
    let method: Method?
    let next: Bool?
    let tasks: [IntegrationTask]?
    let expects: [ExpectationModel]?
    let contentType: String?

    /// An unknown rel fails the test (iOS would drop the op, Android would null it).
    enum Rel: String, Decodable {
        case preparePayment = "prepare-payment", expandMethod = "expand-method", startPaymentAttempt = "start-payment-attempt"
        case createAuthentication = "create-authentication", completeAuthentication = "complete-authentication", getPayment = "get-payment"
        case redirectPayer = "redirect-payer", acknowledgeFailedAttempt = "acknowledge-failed-attempt", abortPayment = "abort-payment"
        case eventLogging = "event-logging", viewPayment = "view-payment", attemptPayload = "attempt-payload"
        case customizePayment = "customize-payment", failPaymentAttempt = "fail-payment-attempt"
    }

    enum Method: String, Decodable { case get = "GET", post = "POST" }

    enum CodingKeys: String, CodingKey { case rel, href, method, next, tasks, expects, contentType }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rel = try container.decode(Rel.self, forKey: .rel)
        href = try container.decodeIfPresent(StrictURL.self, forKey: .href)?.string
        method = try container.decodeIfPresent(Method.self, forKey: .method)
        next = try container.decodeIfPresent(Bool.self, forKey: .next)
        tasks = try container.decodeIfPresent([IntegrationTask].self, forKey: .tasks)
        expects = try container.decodeIfPresent([ExpectationModel].self, forKey: .expects)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
    }

    func expectation(_ name: String) -> ExpectationModel? { expects?.first { $0.name == name } }
}

struct IntegrationTask: Decodable {
    let rel: TaskRel
    let href: String?
    let method: String?
    let contentType: String?
    let expects: [ExpectationModel]?

    enum TaskRel: String, Decodable {
        case scaMethodRequest = "sca-method-request", scaRedirect = "sca-redirect", launchClientApp = "launch-client-app", walletSdk = "wallet-sdk"
    }

    func expectation(_ name: String) -> ExpectationModel? { expects?.first { $0.name == name } }
}

/// `type` is required everywhere (iOS fails the whole answer otherwise) and the value must match it (§3.3, §3.9.3).
struct ExpectationModel: Decodable {
    let name: String
    let type: String
    let value: Value

    enum Value: Equatable {
        case string(String), strings([String]), bool(Bool)
    }

    enum CodingKeys: String, CodingKey { case name, type, value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(String.self, forKey: .type)
        switch type {
        case "string": value = .string(try container.decode(String.self, forKey: .value))
        case "string[]": value = .strings(try container.decode([String].self, forKey: .value))
        case "bool": value = .bool(try container.decode(Bool.self, forKey: .value))
        default: throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown expects type \(type)")
        }
    }

    var stringValue: String? { if case .string(let text) = value { text } else { nil } }
}

struct ProblemDetails: Decodable {
    let type: String
    let title: String?
    let status: Int?
    let detail, originalDetail: String?
    let operation: OperationOutputModel?
}

/// Every non-2xx body (iOS `ErrorObject` requires type and status, §3.3).
struct SessionErrorObject: Decodable {
    let type: String
    let status: Int
    let title, detail: String?
}

extension PaymentOutputModel {
    /// Top level ∪ every method's operations (swedbankpay-api.md §3.5 "prioritised operations" before the next filter).
    var allOperations: [OperationOutputModel] { operations + (paymentSession.methods ?? []).flatMap(\.operations) }

    func method(_ name: String) -> MethodModel? { paymentSession.methods?.first { $0.paymentMethod == name } }

    func topLevel(_ rel: OperationOutputModel.Rel) -> OperationOutputModel? { operations.first { $0.rel == rel } }
}
