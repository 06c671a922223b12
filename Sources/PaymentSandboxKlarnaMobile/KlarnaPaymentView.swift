// SPDX-License-Identifier: MIT
import Foundation
#if canImport(UIKit) && (os(iOS) || os(tvOS))
import UIKit
#endif

// Klarna's `KlarnaPaymentView` (docs/klarna-mobile-sdk.md §2), played by the sandbox: the same initializers, calls
// and properties, so app code written for Klarna's SDK compiles against this module but for its import. On iOS and
// tvOS it is a UIView showing a small placeholder; elsewhere the same class without UIKit. All behaviour lives in
// KlarnaPaymentFlow, shared by both.

#if canImport(UIKit) && (os(iOS) || os(tvOS))
/// Klarna's payment view, played by the sandbox (``KlarnaStandIn``): a placeholder UI tests can find by the
/// accessibility identifier ``KlarnaPaymentView/accessibilityIdentifierForUITests``.
@MainActor
public final class KlarnaPaymentView: UIView {
    let flow: KlarnaPaymentFlow

    init(category: String, returnURL: URL?, listener: any KlarnaPaymentEventListener) {
        flow = KlarnaPaymentFlow(category: category, returnURL: returnURL, listener: listener)
        super.init(frame: CGRect(x: 0, y: 0, width: 320, height: KlarnaPaymentFlow.placeholderHeight))
        let label = UILabel(frame: bounds)
        label.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        label.textAlignment = .center
        label.text = "Klarna (\(category)) · payment-sandbox"
        addSubview(label)
        accessibilityIdentifier = Self.accessibilityIdentifierForUITests
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { nil }
}
#else
/// Klarna's payment view, played by the sandbox (``KlarnaStandIn``); without UIKit, an object with the same API.
@MainActor
public final class KlarnaPaymentView: NSObject {
    let flow: KlarnaPaymentFlow

    init(category: String, returnURL: URL?, listener: any KlarnaPaymentEventListener) {
        flow = KlarnaPaymentFlow(category: category, returnURL: returnURL, listener: listener)
        super.init()
    }
}
#endif

extension KlarnaPaymentView {
    /// The placeholder's accessibility identifier on iOS and tvOS.
    public nonisolated static let accessibilityIdentifierForUITests = "payment-sandbox.KlarnaPaymentView"

    public convenience init(category: String, eventListener: any KlarnaPaymentEventListener) {
        self.init(category: category, returnURL: nil, listener: eventListener)
    }

    public convenience init(category: String, returnUrl: URL, eventListener: any KlarnaPaymentEventListener) {
        self.init(category: category, returnURL: returnUrl, listener: eventListener)
    }

    /// The payment method category the view shows (`klarna`, `pay_later`, ...).
    public var category: String { flow.category }
    /// Where Klarna returns to the app (a custom scheme such as `msdk-demo://order-confirmation`).
    public var returnURL: URL? {
        get { flow.returnURL }
        set { flow.returnURL = newValue }
    }
    /// Whether a `load` succeeded since the last `initialize`.
    public var isLoaded: Bool { flow.isLoaded }
    /// Klarna's spelling. The stand-in is always available.
    public var isAvalable: Bool { true }
    /// The widget's height: the placeholder's once loaded.
    public var contentHeight: CGFloat { flow.contentHeight }

    /// Checks the client token with the sandbox: `klarnaInitialized`, or `klarnaFailed` with `InvalidClientTokenError`
    /// for a token that is garbage, unknown, expired or from another namespace.
    public func initialize(clientToken: String) {
        flow.initialize(self, clientToken: clientToken)
    }

    public func initialize(clientToken: String, returnUrl: URL) {
        flow.returnURL = returnUrl
        flow.initialize(self, clientToken: clientToken)
    }

    /// `klarnaLoaded` (and `klarnaResized` the first time), or `ShowFormFalseError` when the session does not offer
    /// ``category`` or a scenario says so. `jsonData`: order data as a JSON string.
    public func load(jsonData: String? = nil) {
        flow.load(self, jsonData: jsonData)
    }

    public func loadPaymentReview() {
        flow.loadPaymentReview(self)
    }

    /// `klarnaAuthorized` as the scenario decides: approved with a token, `approved: false` (the customer closed the
    /// form), `finalizeRequired: true`, or `klarnaFailed` with `ShowFormFalseError` for a rejected customer.
    public func authorize(autoFinalize: Bool = true, jsonData: String? = nil) {
        flow.authorize(self, autoFinalize: autoFinalize, jsonData: jsonData)
    }

    /// `klarnaReauthorized`, after the order data changed.
    public func reauthorize(jsonData: String? = nil) {
        flow.reauthorize(self, jsonData: jsonData)
    }

    /// `klarnaFinalized`, after `klarnaAuthorized` said `finalizeRequired` (Klarna's spelling: `finalize` is NSObject's).
    public func finalise(jsonData: String? = nil) {
        flow.finalise(self, jsonData: jsonData)
    }
}
