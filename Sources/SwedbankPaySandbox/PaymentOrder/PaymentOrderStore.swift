// SPDX-License-Identifier: MIT
import Foundation

/// Swedbank Pay payment orders, per namespace (swedbankpay-api.md §1). Filled in by the Payment Order work;
/// the payment-session API drives orders through the methods of this store.
public final class SwedbankPayOrderStore: NamespacedState, Sendable {
    public let stateName = "swedbankpay_paymentorders"
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: SwedbankPayConfiguration

    public init(registry: NamespaceRegistry, ids: any IDGenerator, configuration: SwedbankPayConfiguration = SwedbankPayConfiguration()) {
        self.registry = registry
        self.ids = ids
        self.configuration = configuration
    }

    public func reset(_ namespace: Namespace) {}

    public func snapshot(_ namespace: Namespace) -> JSONText { .object([("payment_orders", .array([]))]) }
}
