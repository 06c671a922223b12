// SPDX-License-Identifier: MIT
import Foundation
import PaymentSandboxTesting
internal import SandboxHTTP

/// Where ``KlarnaPaymentView`` sends what Klarna's SDK would send to Klarna: a sandbox, in-process or live.
///
/// ```swift
/// KlarnaStandIn.connect(try SandboxClient.inProcess(namespace: "checkout-tests"))          // in a unit test
/// KlarnaStandIn.connect(SandboxClient(baseURL: URL(string: "http://127.0.0.1:8080")!,
///                                     namespace: "ui-test-42"))                            // at app launch
/// ```
/// Each call of the view is one `POST /__sandbox/klarna/payments/sessions/{client_token}/{call}` through the client
/// (its namespace and control token included); scenarios decide every answer.
public enum KlarnaStandIn {
    private static let connected = Locked<SandboxClient?>(nil)

    /// Sends every view's calls to `client` from now on (views already made included).
    public static func connect(_ client: SandboxClient) {
        connected.withLock { $0 = client }
    }

    /// Forgets the client: views report `SandboxNotConnectedError` until the next ``connect(_:)``.
    public static func disconnect() {
        connected.withLock { $0 = nil }
    }

    static var client: SandboxClient? { connected.withLock { $0 } }
}

/// One call of the SDK, as the sandbox's stand-in endpoint names it.
enum KlarnaSDKCall: String, Sendable {
    case initialize, load, authorize, reauthorize, finalize

    var action: KlarnaPaymentAction {
        switch self {
        case .initialize: .initialize
        case .load: .load
        case .authorize: .authorize
        case .reauthorize: .reauthorize
        case .finalize: .finalize
        }
    }

    /// The JavaScript call Klarna's messages name (`Error performing Klarna.Payments.init()`).
    var scriptName: String { self == .initialize ? "init" : rawValue }
}

/// What the stand-in endpoint answered, read as Klarna's JavaScript SDK result (docs/klarna-api.md §2.4).
struct KlarnaSDKAnswer: Equatable, Sendable {
    var approved: Bool?
    var showForm: Bool
    var authorizationToken: String?
    var finalizeRequired: Bool
    var error: ErrorFields?

    struct ErrorFields: Equatable, Sendable {
        var name: String, message: String, action: String?, isFatal: Bool, invalidFields: [String]?
    }

    init(approved: Bool? = nil, showForm: Bool = true, authorizationToken: String? = nil, finalizeRequired: Bool = false,
         error: ErrorFields? = nil) {
        self.approved = approved
        self.showForm = showForm
        self.authorizationToken = authorizationToken
        self.finalizeRequired = finalizeRequired
        self.error = error
    }

    init?(json: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else { return nil }
        approved = object["approved"] as? Bool
        showForm = object["show_form"] as? Bool ?? true
        authorizationToken = object["authorization_token"] as? String
        finalizeRequired = object["finalize_required"] as? Bool ?? false
        if let error = object["error"] as? [String: Any] {
            self.error = ErrorFields(name: error["name"] as? String ?? "UnknownError", message: error["message"] as? String ?? "",
                                     action: error["action"] as? String, isFatal: error["is_fatal"] as? Bool ?? false,
                                     invalidFields: error["invalid_fields"] as? [String])
        }
    }
}

/// The answer to one call: the SDK's result, or an error the view reports as it is.
enum KlarnaSDKExchange: Sendable {
    case answered(KlarnaSDKAnswer)
    case failed(KlarnaPaymentError)
}

extension KlarnaStandIn {
    /// Sends `call` for `clientToken` with `body` and reads the answer. Never throws: what goes wrong is an error
    /// the view reports through `klarnaFailed`, as the SDK reports its own.
    static func send(_ call: KlarnaSDKCall, clientToken: String, body: [String: any Sendable]) async -> KlarnaSDKExchange {
        guard let client else {
            return .failed(KlarnaPaymentError(name: "SandboxNotConnectedError", message: "KlarnaStandIn.connect(_:) was not called: "
                                              + "the stand-in has no sandbox to send Klarna.Payments.\(call.scriptName)() to",
                                              isFatal: true, action: call.action))
        }
        let segment = clientToken.addingPercentEncoding(withAllowedCharacters: .urlPathSegmentAllowed) ?? ""
        let path = "/__sandbox/klarna/payments/sessions/\(segment)/\(call.rawValue)"
        let response: SandboxResponse
        do {
            let json = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), as: UTF8.self)
            response = try await client.send("POST", path, json: json)
        } catch {
            return .failed(networkError(call, "the sandbox could not be reached (\(error))"))
        }
        switch response.status {
        case 200:
            guard let answer = KlarnaSDKAnswer(json: response.body) else {
                return .failed(networkError(call, "the sandbox's answer is not an SDK result: \(response.text.prefix(200))"))
            }
            return .answered(answer)
        case 404:
            // No live session for this token where it was looked for: what the SDK calls an invalid client token.
            let reason = (response.jsonObject()?["error_messages"] as? [String])?.last.map { ": \($0)" } ?? ""
            return .failed(KlarnaPaymentError(name: "InvalidClientTokenError", message: "Error performing Klarna.Payments.init()\(reason)",
                                              isFatal: false, action: call.action))
        default:
            return .failed(networkError(call, "the sandbox answered \(response.status): \(response.text.prefix(200))"))
        }
    }

    /// A call that got no SDK result (an `http_error` or `drop_connection` scenario, a sandbox that is down). Klarna's
    /// reference names no error for this; the stand-in's name says what happened, and it is not fatal (try again).
    private static func networkError(_ call: KlarnaSDKCall, _ detail: String) -> KlarnaPaymentError {
        KlarnaPaymentError(name: "NetworkError", message: "Error performing Klarna.Payments.\(call.scriptName)(): \(detail)",
                           isFatal: false, action: call.action)
    }
}

private extension CharacterSet {
    /// RFC 3986 unreserved characters: one path segment, whatever the token holds.
    static let urlPathSegmentAllowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
