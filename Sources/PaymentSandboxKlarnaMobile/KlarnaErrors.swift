// SPDX-License-Identifier: MIT
import Foundation

// The error types of Klarna's Mobile SDK for iOS, shaped as its public interface declares them
// (docs/klarna-mobile-sdk.md §2): NSObject subclasses that are Errors, with their fields as constants.

/// The name of an error, e.g. `"InvalidClientTokenError"` (a `String`, as in Klarna's SDK).
public typealias KlarnaErrorName = String
public typealias KlarnaPaymentErrorName = String
/// The operation an error happened in, e.g. `"Authorize"` (a `String`, as in Klarna's SDK).
public typealias KlarnaPaymentAction = String

extension String {
    // The actions of KlarnaPaymentError, as Klarna's SDK declares them (`error.action == .load`).
    public static let initialize: KlarnaPaymentAction = "Initialize"
    public static let load: KlarnaPaymentAction = "Load"
    public static let loadPaymentReview: KlarnaPaymentAction = "LoadPaymentReview"
    public static let authorize: KlarnaPaymentAction = "Authorize"
    public static let reauthorize: KlarnaPaymentAction = "Reauthorize"
    public static let finalize: KlarnaPaymentAction = "Finalize"
}

/// An error of Klarna's SDK: `name`, `message` and whether the flow failed for good (`isFatal`).
open class KlarnaError: NSObject, Error, @unchecked Sendable {
    public final let name: KlarnaErrorName
    public final let message: String
    /// "Some part of the flow failed permanently": do not offer Klarna again in this session.
    public final let isFatal: Bool

    init(name: KlarnaErrorName, message: String, isFatal: Bool) {
        self.name = name
        self.message = message
        self.isFatal = isFatal
    }

    open override var debugDescription: String { "\(name): \(message)\(isFatal ? " (fatal)" : "")" }
    open override var description: String { debugDescription }
}

/// An error of ``KlarnaPaymentView``: also the ``action`` it happened in and, for invalid data, the fields.
open class KlarnaPaymentError: KlarnaError, @unchecked Sendable {
    public final let invalidFields: [String]?
    public final let action: KlarnaPaymentAction?

    init(name: KlarnaPaymentErrorName, message: String, isFatal: Bool, action: KlarnaPaymentAction?, invalidFields: [String]? = nil) {
        self.action = action
        self.invalidFields = invalidFields
        super.init(name: name, message: message, isFatal: isFatal)
    }

    open override var debugDescription: String { "\(action.map { "\($0): " } ?? "")\(super.debugDescription)" }
}
