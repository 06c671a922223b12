// SPDX-License-Identifier: MIT
import Foundation

/// What a ``KlarnaPaymentView`` reports, as Klarna's `KlarnaPaymentEventListener` declares it (docs/klarna-mobile-sdk.md
/// §2). Class-bound and main-actor bound like the view: a `@MainActor` view controller conforms as it does to Klarna's.
/// Events arrive on the main actor, one per call, in the order of the calls.
@MainActor
public protocol KlarnaPaymentEventListener: AnyObject {
    func klarnaInitialized(paymentView: KlarnaPaymentView)
    func klarnaLoaded(paymentView: KlarnaPaymentView)
    func klarnaLoadedPaymentReview(paymentView: KlarnaPaymentView)
    func klarnaAuthorized(paymentView: KlarnaPaymentView, approved: Bool, authToken: String?, finalizeRequired: Bool)
    func klarnaReauthorized(paymentView: KlarnaPaymentView, approved: Bool, authToken: String?)
    func klarnaFinalized(paymentView: KlarnaPaymentView, approved: Bool, authToken: String?)
    func klarnaResized(paymentView: KlarnaPaymentView, to newHeight: CGFloat)
    func klarnaFailed(inPaymentView paymentView: KlarnaPaymentView, withError error: KlarnaPaymentError)
}
