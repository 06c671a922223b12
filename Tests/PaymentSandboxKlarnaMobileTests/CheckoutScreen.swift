// SPDX-License-Identifier: MIT
// App code as a team writes it for Klarna's Mobile SDK: nothing of the sandbox here but the import. The same file
// compiles against Klarna's KlarnaMobileSDK in the app (docs/klarna-mobile-sdk.md).
import Foundation
#if canImport(KlarnaMobileSDK)
import KlarnaMobileSDK
#else
import PaymentSandboxKlarnaMobile
#endif

/// A checkout screen paying with Klarna: it owns the payment view and turns the SDK's callbacks into events.
@MainActor
final class CheckoutScreen: NSObject, KlarnaPaymentEventListener {
    enum Event: Equatable, CustomStringConvertible {
        case initialized, loaded, loadedPaymentReview
        case authorized(approved: Bool, authToken: String?, finalizeRequired: Bool)
        case reauthorized(approved: Bool, authToken: String?)
        case finalized(approved: Bool, authToken: String?)
        case resized(CGFloat)
        case failed(name: String, action: String?, isFatal: Bool)

        var description: String {
            switch self {
            case .initialized: "initialized"
            case .loaded: "loaded"
            case .loadedPaymentReview: "loadedPaymentReview"
            case .authorized(let approved, let token, let finalize): "authorized(\(approved), \(token ?? "nil"), \(finalize))"
            case .reauthorized(let approved, let token): "reauthorized(\(approved), \(token ?? "nil"))"
            case .finalized(let approved, let token): "finalized(\(approved), \(token ?? "nil"))"
            case .resized(let height): "resized(\(height))"
            case .failed(let name, let action, let fatal): "failed(\(name), \(action ?? "nil"), fatal: \(fatal))"
            }
        }
    }

    private(set) var paymentView: KlarnaPaymentView!
    /// The last error's message, for the failure cases.
    private(set) var lastErrorMessage: String?
    /// Events not yet taken by `nextEvent()`, and the test waiting for one.
    private var pending: [Event] = []
    private var waiter: CheckedContinuation<Event?, Never>?

    init(category: String = "klarna") {
        super.init()
        paymentView = KlarnaPaymentView(category: category, returnUrl: URL(string: "msdk-demo://order-confirmation")!, eventListener: self)
    }

    /// The next callback the SDK made; nil when none comes within 30 s (a bound on a failing test, not a timing).
    func nextEvent() async -> Event? {
        if !pending.isEmpty { return pending.removeFirst() }
        let giveUp = Task { @MainActor [weak self] in
            try await Task.sleep(for: .seconds(30))
            self?.waiter?.resume(returning: nil)
            self?.waiter = nil
        }
        defer { giveUp.cancel() }
        return await withCheckedContinuation { waiter = $0 }
    }

    private func record(_ event: Event) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: event)
        } else {
            pending.append(event)
        }
    }

    func klarnaInitialized(paymentView: KlarnaPaymentView) { record(.initialized) }
    func klarnaLoaded(paymentView: KlarnaPaymentView) { record(.loaded) }
    func klarnaLoadedPaymentReview(paymentView: KlarnaPaymentView) { record(.loadedPaymentReview) }

    func klarnaAuthorized(paymentView: KlarnaPaymentView, approved: Bool, authToken: String?, finalizeRequired: Bool) {
        record(.authorized(approved: approved, authToken: authToken, finalizeRequired: finalizeRequired))
    }

    func klarnaReauthorized(paymentView: KlarnaPaymentView, approved: Bool, authToken: String?) {
        record(.reauthorized(approved: approved, authToken: authToken))
    }

    func klarnaFinalized(paymentView: KlarnaPaymentView, approved: Bool, authToken: String?) {
        record(.finalized(approved: approved, authToken: authToken))
    }

    func klarnaResized(paymentView: KlarnaPaymentView, to newHeight: CGFloat) { record(.resized(newHeight)) }

    func klarnaFailed(inPaymentView paymentView: KlarnaPaymentView, withError error: KlarnaPaymentError) {
        lastErrorMessage = error.message
        record(.failed(name: error.name, action: error.action, isFatal: error.isFatal))
    }
}
