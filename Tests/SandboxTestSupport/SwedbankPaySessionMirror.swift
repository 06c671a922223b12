// SPDX-License-Identifier: MIT
// Strict Decodable mirrors of what the Swedbank Pay Mobile SDKs decode from the payment-session API: the union of
// the iOS and Android demands (swedbankpay-api.md §3.3, §3.9). No custom defaults: a field
// the SDKs need that is missing, null where Android wants a collection, or of the wrong type fails the decode.
import Foundation

package enum SwedbankPayMirror {
    /// iOS decodes `expiryDate` with ISO8601DateFormatter without fractions; Gson's pattern is `yyyy-MM-dd'T'HH:mm:ss'Z'`.
    package static let decoder: JSONDecoder = {
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

    package static func decode(_ bytes: [UInt8]) throws -> PaymentOutputModel {
        try decoder.decode(PaymentOutputModel.self, from: Data(bytes))
    }
}

package struct PaymentOutputModel: Decodable {
    package let paymentSession: PaymentSessionModel
    /// Required and non-null (Android NPE, §3.3).
    package let operations: [OperationOutputModel]
    package let problem: ProblemDetails?
}

package struct PaymentSessionModel: Decodable {
    package let id, culture, currency, description, payeeName, paymentMethod, instrumentModePaymentMethod: String?
    package let methods: [MethodModel]?
    package let settings: SettingsModel?
    package let urls: UrlsModel?
}

package struct SettingsModel: Decodable {
    package let enabledPaymentMethods: [String]
    package let integration: String?
    package let allowCustomLogo, allowCustomStyling: Bool?
    package let traceId: String?
}

/// iOS decodes these as `URL?`: "" or an invalid string drops the whole answer (§3.9.6).
package struct UrlsModel: Decodable {
    package let completeUrl, cancelUrl, paymentUrl, termsOfServiceUrl: StrictURL?
    package let hostUrls: [StrictURL]?
}

package struct StrictURL: Decodable, Equatable {
    package let string: String
    package init(from decoder: any Decoder) throws {
        string = try decoder.singleValueContainer().decode(String.self)
        guard !string.isEmpty, let url = URL(string: string), url.scheme != nil else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "invalid URL \(string)"))
        }
    }
}

package struct MethodModel: Decodable {
    package let paymentMethod: String
    package let amount: Int?
    package let autoClick, isMobileDevice: Bool?
    package let operations: [OperationOutputModel]
    package let prefills: [Prefill]?
    package let cardBrands: [String]?
    package let merchantCapabilities: [String]?
    package let allowedCardAuthMethods: [String]?
    package let environment: String?

    package enum CodingKeys: String, CodingKey {
        case paymentMethod, amount, autoClick, isMobileDevice, operations, prefills, cardBrands, merchantCapabilities,
             allowedCardAuthMethods, environment
    }

    package init(from decoder: any Decoder) throws {
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

package struct SwishPrefill: Decodable, Equatable {
    package let rank: Int32
    package let msisdn: String

    package init(rank: Int32, msisdn: String) {
        self.rank = rank
        self.msisdn = msisdn
    }
}

package struct CardPrefill: Decodable, Equatable {
    package let rank: Int32
    package let paymentToken: String
    package let cardBrand: String
    package let maskedPan: String
    package let expiryDate: Date
}

package enum Prefill: Equatable {
    case swish(SwishPrefill)
    case card(CardPrefill)
}

package struct OperationOutputModel: Decodable {
    package let rel: Rel
    /// An operation's href is a URL the SDKs request or open: never empty, always absolute (§3.1: hypermedia only).
    package let href: String?
    package let method: Method?
    package let next: Bool?
    package let tasks: [IntegrationTask]?
    package let expects: [ExpectationModel]?
    package let contentType: String?

    /// An unknown rel fails the test (iOS would drop the op, Android would null it).
    package enum Rel: String, Decodable {
        case preparePayment = "prepare-payment", expandMethod = "expand-method", startPaymentAttempt = "start-payment-attempt"
        case createAuthentication = "create-authentication", completeAuthentication = "complete-authentication", getPayment = "get-payment"
        case redirectPayer = "redirect-payer", acknowledgeFailedAttempt = "acknowledge-failed-attempt", abortPayment = "abort-payment"
        case eventLogging = "event-logging", viewPayment = "view-payment", attemptPayload = "attempt-payload"
        case customizePayment = "customize-payment", failPaymentAttempt = "fail-payment-attempt"
    }

    package enum Method: String, Decodable { case get = "GET", post = "POST" }

    package enum CodingKeys: String, CodingKey { case rel, href, method, next, tasks, expects, contentType }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rel = try container.decode(Rel.self, forKey: .rel)
        href = try container.decodeIfPresent(StrictURL.self, forKey: .href)?.string
        method = try container.decodeIfPresent(Method.self, forKey: .method)
        next = try container.decodeIfPresent(Bool.self, forKey: .next)
        tasks = try container.decodeIfPresent([IntegrationTask].self, forKey: .tasks)
        expects = try container.decodeIfPresent([ExpectationModel].self, forKey: .expects)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
    }

    package func expectation(_ name: String) -> ExpectationModel? { expects?.first { $0.name == name } }
}

package struct IntegrationTask: Decodable {
    package let rel: TaskRel
    package let href: String?
    package let method: String?
    package let contentType: String?
    package let expects: [ExpectationModel]?

    package enum TaskRel: String, Decodable {
        case scaMethodRequest = "sca-method-request", scaRedirect = "sca-redirect", launchClientApp = "launch-client-app", walletSdk = "wallet-sdk"
    }

    package func expectation(_ name: String) -> ExpectationModel? { expects?.first { $0.name == name } }
}

/// `type` is required everywhere (iOS fails the whole answer otherwise) and the value must match it (§3.3, §3.9.3).
package struct ExpectationModel: Decodable {
    package let name: String
    package let type: String
    package let value: Value

    package enum Value: Equatable {
        case string(String), strings([String]), bool(Bool)
    }

    package enum CodingKeys: String, CodingKey { case name, type, value }

    package init(from decoder: any Decoder) throws {
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

    package var stringValue: String? { if case .string(let text) = value { text } else { nil } }
}

package struct ProblemDetails: Decodable {
    package let type: String
    package let title: String?
    package let status: Int?
    package let detail, originalDetail: String?
    package let operation: OperationOutputModel?
}

/// Every non-2xx body (iOS `ErrorObject` requires type and status, §3.3).
package struct SessionErrorObject: Decodable {
    package let type: String
    package let status: Int
    package let title, detail: String?
}

extension PaymentOutputModel {
    /// Top level ∪ every method's operations (swedbankpay-api.md §3.5 "prioritised operations" before the next filter).
    package var allOperations: [OperationOutputModel] { operations + (paymentSession.methods ?? []).flatMap(\.operations) }

    package func method(_ name: String) -> MethodModel? { paymentSession.methods?.first { $0.paymentMethod == name } }

    package func topLevel(_ rel: OperationOutputModel.Rel) -> OperationOutputModel? { operations.first { $0.rel == rel } }
}
