// SPDX-License-Identifier: MIT
import Foundation

/// `/ordermanagement/v1/orders/...` (klarna-api.md §5).
public struct KlarnaOrderManagementRoutes: Sendable {
    public let store: KlarnaOrderManagementStore
    public let scenarios: ScenarioEngine

    public init(store: KlarnaOrderManagementStore, scenarios: ScenarioEngine) {
        self.store = store
        self.scenarios = scenarios
    }

    public func add(to router: inout Router) {
        router.setErrorRenderer(KlarnaErrorRenderer(), forPathPrefix: "/ordermanagement/")
    }
}
