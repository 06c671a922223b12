// SPDX-License-Identifier: MIT
import Foundation

/// The payment-session API the Mobile SDKs follow from `view-paymentsession` (swedbankpay-api.md §3).
public struct SwedbankPayPaymentSessionRoutes: Sendable {
    public let orders: SwedbankPayOrderStore
    public let scenarios: ScenarioEngine
    public let journal: Journal

    public init(orders: SwedbankPayOrderStore, scenarios: ScenarioEngine, journal: Journal) {
        self.orders = orders
        self.scenarios = scenarios
        self.journal = journal
    }

    public func add(to router: inout Router) {}
}
