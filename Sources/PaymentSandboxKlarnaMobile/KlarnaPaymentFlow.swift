// SPDX-License-Identifier: MIT
import Foundation

/// The state and calls of one ``KlarnaPaymentView``, on every platform (the view adds only its UIKit placeholder).
/// Calls run one at a time in the order made; each ends in one event to the listener (a first successful `load`
/// also reports the placeholder's height through `klarnaResized`).
@MainActor
final class KlarnaPaymentFlow {
    /// The placeholder's height, reported by `klarnaResized` after the first `load`.
    static let placeholderHeight: CGFloat = 48

    let category: String
    var returnURL: URL?
    private(set) var isLoaded = false
    private(set) var contentHeight: CGFloat = 0
    /// Held weakly, as a delegate is: the app keeps its listener (usually the view controller that holds the view).
    private weak var listener: (any KlarnaPaymentEventListener)?
    private var clientToken: String?
    private var isInitialized = false
    /// The last call made: the next one starts when it has ended.
    private var lastCall: Task<Void, Never>?

    init(category: String, returnURL: URL?, listener: any KlarnaPaymentEventListener) {
        self.category = category
        self.returnURL = returnURL
        self.listener = listener
    }

    /// Runs `body` after every call made before it.
    private func enqueue(_ view: KlarnaPaymentView, _ body: @escaping @MainActor (KlarnaPaymentFlow, KlarnaPaymentView) async -> Void) {
        let previous = lastCall
        lastCall = Task { @MainActor [weak self, weak view] in
            await previous?.value
            guard let self, let view else { return }
            await body(self, view)
        }
    }

    func initialize(_ view: KlarnaPaymentView, clientToken token: String) {
        enqueue(view) { flow, view in
            flow.clientToken = token
            flow.isInitialized = false
            flow.isLoaded = false
            switch await KlarnaStandIn.send(.initialize, clientToken: token, body: [:]) {
            case .failed(let error): flow.listener?.klarnaFailed(inPaymentView: view, withError: error)
            case .answered(let answer):
                if let error = Self.error(in: answer, call: .initialize) {
                    flow.listener?.klarnaFailed(inPaymentView: view, withError: error)
                } else {
                    flow.isInitialized = true
                    flow.listener?.klarnaInitialized(paymentView: view)
                }
            }
        }
    }

    func load(_ view: KlarnaPaymentView, jsonData: String?) {
        call(.load, view, body: ["payment_method_category": category, "json_data": jsonData]) { flow, view, answer in
            flow.isLoaded = true
            flow.listener?.klarnaLoaded(paymentView: view)
            if flow.contentHeight != Self.placeholderHeight {
                flow.contentHeight = Self.placeholderHeight
                flow.listener?.klarnaResized(paymentView: view, to: Self.placeholderHeight)
            }
        }
    }

    func loadPaymentReview(_ view: KlarnaPaymentView) {
        // The review shows what was authorized; nothing to ask the sandbox (docs/klarna-mobile-sdk.md §1, step 3).
        enqueue(view) { flow, view in
            guard let error = flow.notInitialized(.loadPaymentReview, script: "loadPaymentReview") else {
                flow.listener?.klarnaLoadedPaymentReview(paymentView: view)
                return
            }
            flow.listener?.klarnaFailed(inPaymentView: view, withError: error)
        }
    }

    func authorize(_ view: KlarnaPaymentView, autoFinalize: Bool, jsonData: String?) {
        let body: [String: (any Sendable)?] = ["payment_method_category": category, "auto_finalize": autoFinalize, "json_data": jsonData]
        call(.authorize, view, body: body) { flow, view, answer in
            let approved = answer.approved == true && answer.authorizationToken != nil
            flow.listener?.klarnaAuthorized(paymentView: view, approved: approved, authToken: approved ? answer.authorizationToken : nil,
                                            finalizeRequired: !approved && answer.finalizeRequired)
        }
    }

    func reauthorize(_ view: KlarnaPaymentView, jsonData: String?) {
        call(.reauthorize, view, body: ["payment_method_category": category, "json_data": jsonData]) { flow, view, answer in
            let approved = answer.approved == true && answer.authorizationToken != nil
            flow.listener?.klarnaReauthorized(paymentView: view, approved: approved, authToken: approved ? answer.authorizationToken : nil)
        }
    }

    func finalise(_ view: KlarnaPaymentView, jsonData: String?) {
        call(.finalize, view, body: ["payment_method_category": category, "json_data": jsonData]) { flow, view, answer in
            let approved = answer.approved == true && answer.authorizationToken != nil
            flow.listener?.klarnaFinalized(paymentView: view, approved: approved, authToken: approved ? answer.authorizationToken : nil)
        }
    }

    /// A call that needs `initialize` to have succeeded: sends it, reports an error as `klarnaFailed`, else `succeeded`.
    private func call(_ call: KlarnaSDKCall, _ view: KlarnaPaymentView, body: [String: (any Sendable)?],
                      succeeded: @escaping @MainActor (KlarnaPaymentFlow, KlarnaPaymentView, KlarnaSDKAnswer) -> Void) {
        enqueue(view) { flow, view in
            if let error = flow.notInitialized(call.action, script: call.scriptName) {
                flow.listener?.klarnaFailed(inPaymentView: view, withError: error)
                return
            }
            switch await KlarnaStandIn.send(call, clientToken: flow.clientToken ?? "", body: body.compactMapValues { $0 }) {
            case .failed(let error): flow.listener?.klarnaFailed(inPaymentView: view, withError: error)
            case .answered(let answer):
                if let error = Self.error(in: answer, call: call) {
                    flow.listener?.klarnaFailed(inPaymentView: view, withError: error)
                } else {
                    succeeded(flow, view, answer)
                }
            }
        }
    }

    /// A call before `initialize` succeeded. Klarna's reference does not name this error; the stand-in's name says
    /// what is wrong, and it is not fatal (initialize, then call again).
    private func notInitialized(_ action: KlarnaPaymentAction, script: String) -> KlarnaPaymentError? {
        guard !isInitialized else { return nil }
        return KlarnaPaymentError(name: "NotInitializedError", message: "Error performing Klarna.Payments.\(script)(): "
                                  + "initialize(clientToken:) has not succeeded on this view", isFatal: false, action: action)
    }

    /// The error an answer means: its own `error`, or for `show_form: false` the mobile SDK's ShowFormFalseError
    /// (docs/klarna-mobile-sdk.md §3: a category not offered on load, a rejected customer on authorize; fatal).
    static func error(in answer: KlarnaSDKAnswer, call: KlarnaSDKCall) -> KlarnaPaymentError? {
        if let error = answer.error {
            return KlarnaPaymentError(name: error.name, message: error.message, isFatal: error.isFatal, action: error.action ?? call.action,
                                      invalidFields: error.invalidFields)
        }
        guard !answer.showForm else { return nil }
        return KlarnaPaymentError(name: "ShowFormFalseError", message: "Error performing Klarna.Payments.\(call.scriptName)()",
                                  isFatal: true, action: call.action)
    }
}
