// SPDX-License-Identifier: MIT
import KlarnaSandbox
import SandboxPlugIn
import SwedbankPaySandbox

/// A provider a sandbox plugs in: its type, whose vocabulary and content rules the scenario engine loads before any
/// provider is made, and how it is made from the sandbox's configuration and the shared context.
package struct ProviderPlugIn: Sendable {
    package let kind: any SandboxProvider.Type
    package let make: @Sendable (SandboxConfiguration, SandboxProviderContext) -> any SandboxProvider

    package init<Provider: SandboxProvider>(_ kind: Provider.Type,
                                            make: @escaping @Sendable (SandboxConfiguration, SandboxProviderContext) -> Provider) {
        self.kind = kind
        self.make = { configuration, context in make(configuration, context) }
    }
}

extension PaymentSandbox {
    /// Every provider of this sandbox, in order: the one list a new provider joins (docs/ARCHITECTURE.md, "Where to
    /// add"). Everything else about a provider it declares itself (``SandboxProvider``).
    package static let plugIns: [ProviderPlugIn] = [
        ProviderPlugIn(KlarnaProvider.self) { configuration, context in
            KlarnaProvider(payments: configuration.klarnaPayments, hpp: configuration.klarnaHPP,
                           orderManagement: configuration.klarnaOrderManagement, context: context)
        },
        ProviderPlugIn(SwedbankPayProvider.self) { configuration, context in
            SwedbankPayProvider(configuration: configuration.swedbankPay, context: context)
        },
    ]
}
