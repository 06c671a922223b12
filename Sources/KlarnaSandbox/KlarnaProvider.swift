// SPDX-License-Identifier: MIT
import Foundation

/// Klarna as a ``SandboxProvider``: Klarna Payments (with the SDK stand-ins under `/__sandbox/klarna/payments/`),
/// the Hosted Payment Page (its consumer actions under `/__sandbox/klarna/hpp/`), Order Management and customer
/// tokens, all erring in Klarna's envelope (klarna-api.md §1.4).
package final class KlarnaProvider: SandboxProvider {
    package static let scenarioVocabulary = ScenarioVocabulary.klarna
    /// Klarna's playground customers (scenarios/klarna/playground.json).
    package static let contentRuleScenarios = ["klarna-playground"]

    package let payments: KlarnaPaymentsStore
    package let hpp: KlarnaHPPStore
    package let orderManagement: KlarnaOrderManagementStore
    private let context: SandboxProviderContext

    /// Order Management accepts Klarna Payments' credentials (one merchant account for both).
    package init(payments: KlarnaPaymentsConfiguration = KlarnaPaymentsConfiguration(),
                hpp: KlarnaHPPConfiguration = KlarnaHPPConfiguration(),
                orderManagement: KlarnaOrderManagementConfiguration = KlarnaOrderManagementConfiguration(),
                context: SandboxProviderContext) {
        self.context = context
        self.orderManagement = KlarnaOrderManagementStore(registry: context.registry, ids: context.ids, configuration: orderManagement,
                                                          credentials: payments.credentials, retention: context.retention)
        self.payments = KlarnaPaymentsStore(registry: context.registry, ids: context.ids, configuration: payments,
                                            orders: self.orderManagement, retention: context.retention)
        self.hpp = KlarnaHPPStore(registry: context.registry, ids: context.ids, configuration: hpp, retention: context.retention)
    }

    package var pathPrefixes: [SandboxPathPrefix] {
        let errors = KlarnaErrorFormat(ids: context.ids)
        return ["/payments/", "/hpp/", "/__sandbox/klarna/hpp/", "/__sandbox/klarna/payments/", "/ordermanagement/", "/customer-token/"]
            .map { SandboxPathPrefix($0, errors: errors) }
    }

    package var states: [any NamespacedState] { [payments, hpp, orderManagement] }

    package var journaledSandboxPrefixes: [String] { ["/__sandbox/klarna/"] }

    /// The hosted page's buttons (HostedPage.swift) and Klarna Payments' `redirect_url`.
    package var browserPrefixes: [String] { ["/__sandbox/klarna/hpp/sessions/", "/__sandbox/klarna/payments/orders/"] }

    package func addRoutes(to router: inout Router) {
        let scenarios = context.scenarios
        KlarnaPaymentsRoutes(store: payments, scenarios: scenarios).add(to: &router)
        KlarnaHPPRoutes(store: hpp, payments: payments, orders: orderManagement, scenarios: scenarios, journal: context.journal,
                        outbox: context.outbox)
            .add(to: &router)
        KlarnaOrderManagementRoutes(store: orderManagement, scenarios: scenarios).add(to: &router)
        KlarnaCustomerTokenRoutes(store: payments, scenarios: scenarios).add(to: &router)
    }
}
