// SPDX-License-Identifier: MIT
import Foundation

/// Settings of the faked Hosted Payment Page.
public struct KlarnaHPPConfiguration: Sendable {
    public init() {}
}

/// Klarna HPP sessions, per namespace (klarna-api.md §4).
public final class KlarnaHPPStore: NamespacedState, Sendable {
    public let stateName = "klarna_hpp"
    let registry: NamespaceRegistry
    let ids: any IDGenerator
    let configuration: KlarnaHPPConfiguration

    public init(registry: NamespaceRegistry, ids: any IDGenerator, configuration: KlarnaHPPConfiguration = KlarnaHPPConfiguration()) {
        self.registry = registry
        self.ids = ids
        self.configuration = configuration
    }

    public func reset(_ namespace: Namespace) {}

    public func snapshot(_ namespace: Namespace) -> JSONText { .object([("sessions", .array([]))]) }
}
