// SPDX-License-Identifier: MIT
import Foundation

/// Swedbank Pay as a ``SandboxProvider``: payment orders (`/psp/paymentorders`), the Mobile SDKs' payment
/// sessions (`/psp/paymentsessions/`), the checkout pages (`/checkout/`) and the ACS emulator (`/acs/`), all erring
/// as problems (swedbankpay-api.md §2.1).
package final class SwedbankPayProvider: SandboxProvider {
    package static let scenarioVocabulary = ScenarioVocabulary.swedbankPay
    /// Swedbank Pay's test data (scenarios/swedbankpay/testdata.json: Swish codes, magic amounts, 3-D Secure cards).
    package static let contentRuleScenarios = ["swedbankpay-testdata"]

    package let orders: SwedbankPayOrderStore
    package let sessions: SwedbankPayPaymentSessionStore
    private let context: SandboxProviderContext

    package init(configuration: SwedbankPayConfiguration = SwedbankPayConfiguration(), context: SandboxProviderContext) {
        self.context = context
        orders = SwedbankPayOrderStore(registry: context.registry, ids: context.ids, configuration: configuration, journal: context.journal,
                                       retention: context.retention, outbox: context.outbox, scenarios: context.scenarios)
        sessions = SwedbankPayPaymentSessionStore(orders: orders, scenarios: context.scenarios, journal: context.journal)
    }

    package var pathPrefixes: [SandboxPathPrefix] {
        let errors = SwedbankPayErrorFormat(ids: context.ids)
        // "/swish/": the Swish app stand-in (Pages/CheckoutRoutes.swift).
        return ["/psp/", SwedbankPayPaymentSessionRoutes.prefix, "/checkout/", "/acs/", "/swish/"].map { SandboxPathPrefix($0, errors: errors) }
    }

    package var states: [any NamespacedState] { [orders, sessions] }

    package var journaledSandboxPrefixes: [String] { ["/__sandbox/swedbankpay/"] }

    /// Its pages (`/checkout/…`, `/acs/…`) are outside `/__sandbox/`.
    package var browserPrefixes: [String] { [] }

    package func addRoutes(to router: inout Router) {
        SwedbankPayPaymentOrderRoutes(store: orders, scenarios: context.scenarios, journal: context.journal).add(to: &router)
        SwedbankPayPaymentSessionRoutes(orders: orders, sessions: sessions, scenarios: context.scenarios, journal: context.journal)
            .add(to: &router)
    }
}
