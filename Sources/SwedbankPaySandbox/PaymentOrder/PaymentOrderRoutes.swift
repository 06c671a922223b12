// SPDX-License-Identifier: MIT
import Foundation

/// `/psp/paymentorders/...`: the merchant backend's Payment Order v3 API (swedbankpay-api.md §1).
public struct SwedbankPayPaymentOrderRoutes: Sendable {
    public let store: SwedbankPayOrderStore
    public let scenarios: ScenarioEngine
    public let journal: Journal

    public init(store: SwedbankPayOrderStore, scenarios: ScenarioEngine, journal: Journal) {
        self.store = store
        self.scenarios = scenarios
        self.journal = journal
    }

    public func add(to router: inout Router) {
        router.setErrorRenderer(SwedbankPayErrorRenderer(), forPathPrefix: "/psp/")
    }
}
