// SPDX-License-Identifier: MIT
import Foundation

/// `/hpp/v1/...` (klarna-api.md §4), the hosted page behind `redirect_url`, and the sandbox's consumer
/// actions under `/__sandbox/klarna/hpp/...`.
public struct KlarnaHPPRoutes: Sendable {
    public let store: KlarnaHPPStore
    public let payments: KlarnaPaymentsStore
    public let orders: KlarnaOrderManagementStore
    public let scenarios: ScenarioEngine
    public let journal: Journal

    public init(store: KlarnaHPPStore, payments: KlarnaPaymentsStore, orders: KlarnaOrderManagementStore,
                scenarios: ScenarioEngine, journal: Journal) {
        self.store = store
        self.payments = payments
        self.orders = orders
        self.scenarios = scenarios
        self.journal = journal
    }

    public func add(to router: inout Router) {
        router.setErrorRenderer(KlarnaErrorRenderer(), forPathPrefix: "/hpp/")
    }
}
